//! `throng bake`: the command line of `throng_pipeline` — its arguments
//! and their [`Settings`]; one model here, with a progress bar and the
//! detailed summary; several in `bake_many.rs`. A model whose output is up
//! to date (same inputs, options and baker, by its provenance) is skipped.

use std::path::PathBuf;
use std::time::Instant;
use throng_cli::args::bytes::parse_bytes;

use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result, bail};
use clap::{Args as ClapArgs, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use throng_bake::{BakeOptions, BakeReport};
use throng_core::BakedModel;
use throng_core::impostor::{DEFAULT_BUDGET_BYTES, PlanRequest, TextureCodec};
use throng_core::limits::{
    DEFAULT_FPS, DEFAULT_MAX_BAKE_BYTES, DEFAULT_MAX_ERROR, MAX_FPS, MAX_LAYER_SIZE,
};
use throng_core::model::TexelFormat;
use throng_pipeline::{ImpostorSettings, Job, Observer, Outcome, Settings, bake_one};

use crate::util::{bytes, thousands, write_stdout};

/// Texel precision on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Precision {
    /// `Rgba32Float` (exact to f32).
    Full,
    /// `Rgba16Float` (half the memory; error measured and reported).
    Half,
}

/// Impostor atlas storage on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Codec {
    /// BC3 blocks (BC1 colour, BC4 alpha), one byte a texel.
    Bc3,
    /// BC7 blocks, one byte a texel.
    Bc7,
    /// RGBA8, four bytes a texel.
    Rgba8,
}

impl Codec {
    /// The codec this names.
    pub fn codec(self) -> TextureCodec {
        match self {
            Codec::Bc3 => TextureCodec::Bc3,
            Codec::Bc7 => TextureCodec::Bc7,
            Codec::Rgba8 => TextureCodec::Rgba8,
        }
    }
}

/// Arguments of `throng bake`.
#[derive(ClapArgs)]
pub struct Args {
    /// The glTF 2.0 model (.gltf or .glb); or several, folders (every model
    /// below them) or glob patterns, baked in parallel.
    #[arg(required = true, value_name = "MODEL|DIR|PATTERN")]
    pub models: Vec<PathBuf>,
    /// Output file [default: the model's name with .throng, in the current
    /// directory]; with several models or a folder, the output folder
    /// (a folder's models keep their place below it).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Bake even where the output is up to date (same inputs, options and
    /// baker as recorded in it).
    #[arg(long)]
    pub force: bool,
    /// Models baked at once [default: one per core]; each bake also uses
    /// every core for its clips.
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Base (lowest) sampling rate in frames per second: every clip gets at
    /// least this rate; a clip whose error between frames would exceed
    /// --max-error gets more frames, up to --max-fps.
    #[arg(long, default_value_t = DEFAULT_FPS)]
    pub fps: f32,
    /// Bound on the skinned-vertex error between baked frames, as a fraction
    /// of the model's bounding radius (measured against the CPU reference at
    /// every frame interval's midpoint and at the source's key times).
    #[arg(long, default_value_t = DEFAULT_MAX_ERROR)]
    pub max_error: f32,
    /// Highest rate the error bound may raise a clip to; a clip that cannot
    /// meet --max-error below it is baked at the best rate found and
    /// reported with the error it reached. --max-fps equal to --fps bakes
    /// every clip at --fps.
    #[arg(long, default_value_t = MAX_FPS)]
    pub max_fps: f32,
    /// Texel precision of the bone texture.
    #[arg(long, value_enum, default_value_t = Precision::Full)]
    pub precision: Precision,
    /// Largest bone-texture layer side (W ≤ 1024).
    #[arg(long, default_value_t = MAX_LAYER_SIZE)]
    pub max_layer_size: u32,
    /// Bake only these clips (comma-separated names), in this order.
    #[arg(long, value_delimiter = ',')]
    pub clips: Option<Vec<String>>,
    /// Bake clips in place and store their root motion; optionally name the
    /// root node [default: the skeleton's root joint].
    #[arg(long, num_args = 0..=1, default_missing_value = "", value_name = "NODE")]
    pub root_motion: Option<String>,
    /// Clip events JSON [default: MODEL.events.json beside the model, if any].
    #[arg(long, value_name = "FILE")]
    pub events: Option<PathBuf>,
    /// An animation library: a glTF (or a folder or pattern of them) whose
    /// clips are baked onto the model too, retargeted by joint name (repeat
    /// for more; `--clips` selects across all; docs/RETARGETING.md).
    #[arg(long = "clips-from", value_name = "FILE")]
    pub clips_from: Vec<PathBuf>,
    /// JSON object mapping library joint names to the model's, for joints
    /// whose names differ beyond a `prefix:` namespace.
    #[arg(long, value_name = "FILE.json", requires = "clips_from")]
    pub bone_map: Option<PathBuf>,
    /// Bake each clip at one frame count for every model of this bake (the
    /// most any needs), so that bodies of one build bake the same frames
    /// and share one bone texture on the GPU (docs/RETARGETING.md).
    #[arg(long)]
    pub shared_clips: bool,
    /// A glTF with the same skeleton whose meshes become the next LOD
    /// (repeat for more; bones matched by name).
    #[arg(long = "lod", value_name = "FILE")]
    pub lod_files: Vec<PathBuf>,
    /// Generate further LODs by simplification to these triangle ratios
    /// [default: 0.5,0.2 when no other LOD option is given].
    #[arg(long, value_delimiter = ',', value_name = "RATIO,...")]
    pub lod_ratios: Vec<f32>,
    /// No generated LODs (only LOD 0, the impostor and `--lod` files).
    #[arg(long, conflicts_with = "lod_ratios")]
    pub no_lods: bool,
    /// Smallest projected screen-height fraction for each LOD, finest first
    /// [default: 0.15, then a third of the previous, the last 0].
    #[arg(long, value_delimiter = ',', value_name = "SIZE,...")]
    pub lod_screen_sizes: Option<Vec<f32>>,
    /// Refuse a bake whose estimated size is larger: bytes, or a number with
    /// KiB, MiB or GiB [default: 1GiB].
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes, default_value_t = DEFAULT_MAX_BAKE_BYTES, hide_default_value = true)]
    pub max_bake_bytes: u64,
    /// Read buffer and image URIs outside the model's folder (absolute
    /// paths, `..`, symbolic links elsewhere); only for trusted models.
    #[arg(long)]
    pub allow_outside_uris: bool,
    /// Bake no animated impostor. By default one is captured (on a GPU
    /// adapter; lavapipe will do) as the far end of the LOD chain, for
    /// models with clips.
    #[arg(long)]
    pub no_impostors: bool,
    /// Impostor views along each side of the hemi-octahedral lattice
    /// [default: chosen from the budget].
    #[arg(long, value_name = "N", conflicts_with = "no_impostors")]
    pub impostor_views: Option<u32>,
    /// Impostor captures per clip [default: chosen from the budget].
    #[arg(long, value_name = "N", conflicts_with = "no_impostors")]
    pub impostor_frames: Option<u32>,
    /// Texels along each impostor cell's side [default: chosen from the
    /// budget].
    #[arg(long, value_name = "TEXELS", conflicts_with = "no_impostors")]
    pub impostor_size: Option<u32>,
    /// How the impostor atlas is stored: BC3 or BC7 blocks (a quarter of
    /// RGBA8's bytes; decoded at load on adapters without BC textures; BC7
    /// encodes 16 times slower for a slightly smaller error), or RGBA8.
    #[arg(long, value_enum, default_value_t = Codec::Bc3, conflicts_with = "no_impostors")]
    pub impostor_codec: Codec,
    /// How the materials' images are stored, every mip level (generated at
    /// bake): BC7 blocks (default; decoded at load on adapters without BC
    /// textures), BC3, or RGBA8 (exact). An image whose sides are not
    /// multiples of 4 is stored as RGBA8.
    #[arg(long, value_enum, default_value_t = Codec::Bc7)]
    pub texture_codec: Codec,
    /// Never capture the impostor's surface image (per-texel metalness,
    /// roughness, glow and material, which models whose materials vary
    /// over their surface get by default): a third fewer atlas bytes, and
    /// the impostor shaded as one material of the model's means.
    #[arg(long, conflicts_with = "no_impostors")]
    pub no_impostor_surface: bool,
    /// Memory budget of the impostor atlas (every image, as stored): bytes,
    /// or a number with KiB, MiB or GiB [default: 1MiB].
    #[arg(long, value_name = "BYTES", value_parser = parse_bytes, default_value_t = DEFAULT_BUDGET_BYTES, hide_default_value = true, conflicts_with = "no_impostors")]
    pub impostor_budget: u64,
    /// Projected size, as a fraction of the screen height, below which the
    /// impostor replaces the meshes (0: never) [default: a cell's texels
    /// over 1080, where they meet a 1080p screen's pixels one to one].
    #[arg(long, value_name = "SIZE", conflicts_with = "no_impostors")]
    pub impostor_screen_size: Option<f32>,
}

/// The pipeline's settings of `args`.
pub fn settings(args: &Args) -> Settings {
    let opts = BakeOptions {
        lod_ratios: lod_ratios(args),
        fps: args.fps,
        max_error: args.max_error,
        max_fps: args.max_fps,
        precision: match args.precision {
            Precision::Full => TexelFormat::F32,
            Precision::Half => TexelFormat::F16,
        },
        max_layer_size: args.max_layer_size,
        clips: args.clips.clone(),
        root_motion: args.root_motion.clone().map(|n| {
            if n.is_empty() {
                throng_bake::RootMotionSource::SkeletonRoot
            } else {
                throng_bake::RootMotionSource::Node(n)
            }
        }),
        events_file: args.events.clone(),
        clips_from: args.clips_from.clone(),
        bone_map: args.bone_map.clone(),
        lod_files: args.lod_files.clone(),
        lod_screen_sizes: args.lod_screen_sizes.clone(),
        max_bake_bytes: args.max_bake_bytes,
        // Set per round by the pipeline (`--shared-clips`).
        min_clip_frames: Vec::new(),
        allow_outside_uris: args.allow_outside_uris,
        texture_codec: args.texture_codec.codec(),
    };
    let impostor_asked = args.impostor_views.is_some()
        || args.impostor_frames.is_some()
        || args.impostor_size.is_some()
        || args.impostor_screen_size.is_some();
    Settings {
        opts,
        impostor: (!args.no_impostors).then_some(ImpostorSettings {
            budget: args.impostor_budget,
            request: PlanRequest {
                views: args.impostor_views,
                frames: args.impostor_frames,
                cell: args.impostor_size,
                codec: args.impostor_codec.codec(),
                // Else decided per model, by its materials (`with_impostor`).
                surface: args.no_impostor_surface.then_some(false),
            },
            screen_size: args.impostor_screen_size,
        }),
        impostor_asked,
        force: args.force,
        shared_clips: args.shared_clips,
    }
}

/// A bar for one bake, shown only for bakes long enough to need one.
struct SingleBar {
    start: Instant,
    bar: ProgressBar,
    shown: AtomicBool,
}

impl Observer for SingleBar {
    fn frames(&self, _: &Job, done: u64, total: u64) {
        if self.start.elapsed().as_millis() > 300 && !self.shown.swap(true, Ordering::Relaxed) {
            self.bar
                .set_draw_target(indicatif::ProgressDrawTarget::stderr());
            self.bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} baking {bar:40} {pos}/{len} frames ({eta})",
                )
                .expect("static template"),
            );
        }
        self.bar.set_length(total);
        self.bar.set_position(done);
    }
}

/// Runs `throng bake`.
pub fn run(mut args: Args) -> Result<()> {
    if let Some(s) = args.impostor_screen_size
        && !(s.is_finite() && (0.0..=1.0).contains(&s))
    {
        bail!("--impostor-screen-size {s} is not a fraction of the screen height (0 to 1)");
    }
    let plan = throng_pipeline::plan(&args.models, args.output.as_deref())?;
    if !args.clips_from.is_empty() {
        // Folders and patterns, as the models are given.
        args.clips_from = throng_pipeline::model_files(&args.clips_from)?;
    }
    if !plan.single && (args.events.is_some() || !args.lod_files.is_empty()) {
        bail!("--events and --lod belong to one model; bake models that need them one at a time");
    }
    if let Some(n) = args.jobs {
        if n == 0 {
            bail!("--jobs 0: at least one model must be baked at a time");
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .context("starting the bake's threads")?;
    }
    let settings = settings(&args);
    if !plan.single {
        return crate::bake_many::run(plan.jobs, &settings);
    }
    let job = &plan.jobs[0];
    let observer = SingleBar {
        start: Instant::now(),
        bar: ProgressBar::hidden(),
        shown: AtomicBool::new(false),
    };
    let outcome = bake_one(job, &settings, &observer)?;
    observer.bar.finish_and_clear();
    let baked = match outcome {
        Outcome::UpToDate { file_bytes } => {
            return write_stdout(&format!(
                "{} is up to date ({}; same inputs, options and baker); --force bakes it again\n",
                job.output.display(),
                bytes(file_bytes)
            ));
        }
        Outcome::Baked(b) => b,
    };
    let model = &baked.model;
    let mut text = summary(
        model,
        &baked.report,
        &job.model.display().to_string(),
        &job.output.display().to_string(),
        baked.file_bytes,
        baked.seconds,
    );
    if let (Some(atlas), Some(seconds)) = (&model.impostor, baked.impostor_seconds) {
        let p = &atlas.plan;
        use std::fmt::Write;
        let _ = writeln!(
            text,
            "  impostor    {}×{} views, {} frames a clip, {}² texels a cell: {} layer{} of {}², {} ({}, {}), below {:.3} of the screen height; captured in {:.0} ms",
            p.views.side,
            p.views.side,
            p.frames,
            p.cell,
            p.layers,
            if p.layers == 1 { "" } else { "s" },
            p.layer_size,
            bytes(p.bytes()),
            if p.surface {
                "colour, normal and surface"
            } else {
                "colour and normal"
            },
            p.codec.name().to_uppercase(),
            atlas.screen_size,
            seconds * 1000.0
        );
    }
    write_stdout(&text)
}

/// The LOD ratios to bake: those given, or the default chain's (0.5, 0.2)
/// when no LOD option is given.
fn lod_ratios(args: &Args) -> Vec<f32> {
    if args.no_lods
        || !args.lod_ratios.is_empty()
        || !args.lod_files.is_empty()
        || args.lod_screen_sizes.is_some()
    {
        args.lod_ratios.clone()
    } else {
        throng_pipeline::DEFAULT_LOD_RATIOS.to_vec()
    }
}

/// The summary table printed after a bake: the headline, then a line (or
/// table) per aspect of the baked model, from its clips to its warnings.
pub fn summary(
    model: &BakedModel,
    report: &BakeReport,
    input: &str,
    output: &str,
    file_bytes: u64,
    seconds: f64,
) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "baked {input} → {output} ({}) in {:.0} ms",
        bytes(file_bytes),
        seconds * 1000.0
    );
    clip_lines(&mut s, model, report);
    texture_lines(&mut s, model, report);
    let _ = writeln!(
        s,
        "  meshes      {} vertices, {} triangles, {} submeshes, {} materials, {} images",
        thousands(report.vertices as u64),
        thousands(report.triangles as u64),
        report.submeshes,
        model.materials.len(),
        model.images.len()
    );
    let _ = writeln!(
        s,
        "  bounds      radius {:.4} (min {}, max {})",
        report.bounding_radius, model.bounds.min, model.bounds.max
    );
    error_lines(&mut s, report);
    let _ = writeln!(
        s,
        "  motion      {}; {} events",
        report
            .root_motion_node
            .as_deref()
            .map(|n| format!("root motion from node {n:?} (clips baked in place)"))
            .unwrap_or_else(|| "no root motion".into()),
        report.events
    );
    lod_line(&mut s, report);
    let i = &report.influences;
    let _ = writeln!(
        s,
        "  influences  {} vertices had > 4 (largest weight dropped {:.3}), {} renormalised, {} with zero weight",
        i.vertices_truncated, i.max_dropped_weight, i.vertices_renormalised, i.vertices_zero_weight
    );
    if report.warnings.is_empty() {
        let _ = writeln!(s, "  warnings    none");
    } else {
        let _ = writeln!(s, "  warnings    {}", report.warnings.len());
        for w in &report.warnings {
            let _ = writeln!(s, "    - {w}");
        }
    }
    s
}

/// The `clips` line (count, base rate, error bound) and, where there are
/// clips, a table row per clip: its rate, frames, bytes and errors, marked
/// where it did not meet the bound.
fn clip_lines(s: &mut String, model: &BakedModel, report: &BakeReport) {
    use std::fmt::Write;
    let _ = writeln!(
        s,
        "  clips       {}, at least {} fps, error bound {:.1e} × radius between frames",
        report.clips.len(),
        model.fps,
        report.max_error
    );
    if report.clips.is_empty() {
        return;
    }
    let w = report
        .clips
        .iter()
        .map(|c| c.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        s,
        "      #  {:w$}  duration     rate  frames      bytes  error at frames  between frames",
        "name"
    );
    for (i, c) in report.clips.iter().enumerate() {
        let _ = writeln!(
            s,
            "    {i:>3}  {:w$}  {:>7.3} s  {:>7}  {:>6}  {:>9}  {:>15.2e}  {:>14.2e}{}",
            c.name,
            c.duration,
            format!("{:.1}", c.fps),
            c.frames,
            bytes(c.bytes),
            c.error_at_frames.rel,
            c.error_between.rel,
            if c.within_bound {
                ""
            } else {
                "  over the bound"
            }
        );
    }
}

/// The bone texture's lines: palette size, frame count and, where one was
/// baked, the texture's shape, format and bytes stored and on the GPU.
fn texture_lines(s: &mut String, model: &BakedModel, report: &BakeReport) {
    use std::fmt::Write;
    let _ = writeln!(s, "  palette     {} bones", report.bones);
    let _ = writeln!(
        s,
        "  frames      {} (rest pose + clips)",
        thousands(report.frames as u64)
    );
    if let Some(t) = report.texture {
        let _ = writeln!(
            s,
            "  texture     {}×{}×{} {}, {} texels stored ({}), {} on the GPU",
            t.width,
            t.width,
            t.layers,
            match model.texture.texels.format() {
                TexelFormat::F32 => "Rgba32Float",
                TexelFormat::F16 => "Rgba16Float",
            },
            thousands(model.texture.texels.len() as u64),
            bytes(report.texture_bytes),
            bytes(model.texture.gpu_bytes())
        );
    }
}

/// The two `error` lines: the worst skinned-vertex error against the CPU
/// reference at frame times and between frames, each with where it was.
fn error_lines(s: &mut String, report: &BakeReport) {
    use std::fmt::Write;
    let e = &report.error;
    let _ = writeln!(
        s,
        "  error       {:.2e} × radius ({:.2e} units), baked vs CPU reference at frame times; worst at {} t={:.3} s, node {} mesh {} primitive {} vertex {}",
        e.rel,
        e.abs,
        e.clip
            .as_deref()
            .map(|c| format!("clip {c:?}"))
            .unwrap_or_else(|| "rest pose".into()),
        e.time,
        e.source.0,
        e.source.1,
        e.source.2,
        e.vertex
    );
    let e = &report.error_between;
    let _ = writeln!(
        s,
        "              {:.2e} × radius ({:.2e} units) between frames; worst at {} t={:.3} s, node {} mesh {} primitive {} vertex {}",
        e.rel,
        e.abs,
        e.clip
            .as_deref()
            .map(|c| format!("clip {c:?}"))
            .unwrap_or_else(|| "no clip".into()),
        e.time,
        e.source.0,
        e.source.1,
        e.source.2,
        e.vertex
    );
}

/// The `LODs` line, where there is more than LOD 0: each LOD's triangles,
/// vertices and the screen share it is drawn from.
fn lod_line(s: &mut String, report: &BakeReport) {
    use std::fmt::Write;
    if report.lods.len() <= 1 {
        return;
    }
    let lods: Vec<String> = report
        .lods
        .iter()
        .enumerate()
        .map(|(i, (t, v, size))| {
            format!(
                "LOD {i}: {} triangles, {} vertices, from {:.3} of the screen",
                thousands(*t as u64),
                thousands(*v as u64),
                size
            )
        })
        .collect();
    let _ = writeln!(s, "  LODs        {}", lods.join("; "));
}
