//! `throng render`: a grid crowd, standing or walking, drawn headless to a
//! PNG; of one model, or mixed of several that share their clips (bodies
//! dressed on one animation library), their bone textures shared where
//! their frames are equal, optionally each worn as outfits.

use std::path::PathBuf;
use std::time::{Duration, Instant};
use throng_cli::args::size::parse_size;

use anyhow::{Result, bail};
use clap::Args as ClapArgs;
use throng_bench::demo::{
    CameraChoice, DEMO_OUTFITS, GridOptions, VARIETY_SEED, demo_variety, dressed, outfitted,
    spawn_mixed_grid,
};
use throng_core::math::Aabb;
use throng_crowd::crowd::{Crowd, ModelHandle, ModelId};
use throng_demo::walkers::Walkers;
use throng_render::image_file::ImageFormat;
use throng_render::{
    FrameStats, Gpu, GpuModel, PathChoice, Renderer, RendererOptions, SharedFrames, TextureUpload,
};

use crate::util::{check_not_input, load_baked};
use throng_cli::args::clip::resolve_clip;

/// `--path`: the names of [`PathChoice::ALL`].
pub fn path_parser() -> impl clap::builder::TypedValueParser<Value = PathChoice> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(PathChoice::ALL.map(PathChoice::name))
        .map(|s| PathChoice::from_name(&s).expect("a possible value is a path name"))
}

/// Arguments of `throng render`.
#[derive(ClapArgs)]
pub struct Args {
    /// A `.throng` (or a glTF, baked in memory); several, or a folder of
    /// them, make a mixed crowd (instance `i` of model `i` modulo their
    /// number), which must share the first one's clips by name and order.
    #[arg(required = true, num_args = 1..)]
    pub models: Vec<PathBuf>,
    /// Instances, on a square grid.
    #[arg(long, default_value_t = 16)]
    pub instances: u32,
    /// Play this clip (name or index) on every instance [default: clips vary].
    #[arg(long)]
    pub clip: Option<String>,
    /// Show every instance at this clip time [default: phases vary].
    #[arg(long)]
    pub time: Option<f32>,
    /// Image size, WIDTHxHEIGHT.
    #[arg(long, default_value = "512x512", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Record path: auto (GPU-driven where supported, else unbounded, else
    /// packaged), packaged (uniform packages of 170 instances), unbounded
    /// (one storage buffer, one draw per group) or gpu-driven (instances on
    /// the GPU, compute culling and LOD, indirect draws).
    #[arg(long, default_value = "auto", value_parser = path_parser())]
    pub path: PathChoice,
    /// MSAA samples (1 or 4).
    #[arg(long, default_value_t = 4)]
    pub msaa: u32,
    /// An animation layer over every instance's clip (up to 3, bottom
    /// first):
    /// `CLIP[,time=S][,speed=X][,weight=W][,mode=override|additive][,reference=S][,mask=BONE+BONE]`,
    /// e.g. `Survey,mask=b_Spine01_02`; or a morph preset,
    /// `morph=TARGET:W[+TARGET:W][,weight=W]`, e.g. `morph=blink:1`. The
    /// packaged path shows the base pose.
    #[arg(long = "layer", value_parser = throng_cli::args::layer::parse)]
    pub layers: Vec<throng_cli::args::layer::LayerSpec>,
    /// Where the camera stands: `framing` (the whole grid from the
    /// front-right, above) or `ground` (at the grid's front edge, looking
    /// across it).
    #[arg(long, value_parser = crate::bench::camera_parser(), default_value = "framing")]
    pub camera: CameraChoice,
    /// Percent of the instances walking waypoint loops (speed-matched walk,
    /// as `throng bench --walking`), drawn after `--walked` seconds.
    #[arg(long, default_value_t = 0.0)]
    pub walking: f64,
    /// Seconds the crowd walks before the picture (with `--walking`).
    #[arg(long, default_value_t = 5.0)]
    pub walked: f32,
    /// Skin every vertex from the bone texture instead of blending cached
    /// poses (the storage paths cache each baked frame once by default).
    #[arg(long)]
    pub no_pose_cache: bool,
    /// Vary the crowd: the model in a generated palette of 8 rows, every
    /// instance a row (a colour per material) and a size from 0.85 to 1.15
    /// of its own, instead of the demo's few tints.
    #[arg(long)]
    pub variety: bool,
    /// With `--variety`: hide submesh SUBMESH of the finest LOD (a hat, a
    /// bag) on a share CHANCE of the instances, e.g. `--hide 1:0.5`;
    /// repeatable.
    #[arg(long, value_name = "SUBMESH:CHANCE", value_parser = throng_cli::args::toggle::parse_toggle, requires = "variety", conflicts_with = "outfits")]
    pub hide: Vec<(u32, f32)>,
    /// Wear each model as 8 outfits (each a copy of its finest LOD's
    /// submeshes, `throng_bench::demo::outfitted`), instance `i` wearing
    /// outfit `i` modulo 8: on the GPU-driven path the others are left out
    /// of its draws (`parts culled` in the report).
    #[arg(long)]
    pub outfits: bool,
    /// Output image: .png, or .jpg/.jpeg (no alpha).
    #[arg(short, long)]
    pub output: PathBuf,
}

/// Runs `throng render`.
pub fn run(mut args: Args) -> Result<()> {
    check_numbers(&args)?;
    args.models = throng_cli::args::models::expand(&args.models)?;
    // The output's format and identity before any work (and any GPU).
    ImageFormat::of(&args.output)?;
    let inputs: Vec<&std::path::Path> = args.models.iter().map(PathBuf::as_path).collect();
    check_not_input(&args.output, &inputs)?;
    let (handles, grid) = models_and_grid(&args)?;
    let gpu = Gpu::headless()?;
    let options = RendererOptions {
        path: args.path,
        sample_count: args.msaa,
        pose_cache: RendererOptions::default()
            .pose_cache
            .filter(|_| !args.no_pose_cache),
        ..RendererOptions::default()
    };
    let mut renderer = Renderer::headless(&gpu, options)?;
    // Refuse a crowd the device cannot draw before spending memory on it.
    renderer.check_capacity(args.instances as u64)?;
    let upload_start = Instant::now();
    let frames = SharedFrames::new();
    let gpu_models = handles
        .iter()
        .map(|h| GpuModel::upload_sharing(&gpu.device, &gpu.queue, h, TextureUpload::Auto, &frames))
        .collect::<Result<Vec<_>, _>>()?;
    let upload = upload_start.elapsed();
    let (crowd, bounds) = populate(&args, &handles, &grid)?;
    let camera = args
        .camera
        .camera(&bounds, args.size.0 as f32 / args.size.1 as f32);
    let start = Instant::now();
    let refs: Vec<&GpuModel> = gpu_models.iter().collect();
    let (image, stats) = renderer.render_image(&gpu, args.size, &camera, &[&crowd], &refs)?;
    let gpu_time = renderer.wait_gpu_time();
    let frame = start.elapsed();
    throng_render::image_file::save(&args.output, &image)?;
    print_report(
        &args,
        &gpu,
        &renderer,
        &Measured {
            stats,
            upload,
            gpu_bytes: gpu_models.iter().map(|m| m.gpu_bytes).sum(),
            frame,
            gpu_time,
        },
    );
    Ok(())
}

/// Refuses a `--time`, `--walking` or `--walked` out of its range before
/// any work.
fn check_numbers(args: &Args) -> Result<()> {
    if args.time.is_some_and(|t| !t.is_finite()) {
        bail!("--time must be a finite number");
    }
    if !(0.0..=100.0).contains(&args.walking) {
        bail!(
            "--walking must be a percentage from 0 to 100, got {}",
            args.walking
        );
    }
    if !(args.walked.is_finite() && (0.0..=3600.0).contains(&args.walked)) {
        bail!(
            "--walked must be from 0 to 3600 seconds, got {}",
            args.walked
        );
    }
    Ok(())
}

/// Loads the models and checks `--clip`, `--hide` and `--outfits` against
/// them and their clips against the first's; returns them (dressed in the
/// variety palette with `--variety`, worn as outfits with `--outfits`) and
/// the grid to fill with them.
fn models_and_grid(args: &Args) -> Result<(Vec<ModelHandle>, GridOptions)> {
    let mut models = Vec::with_capacity(args.models.len());
    for path in &args.models {
        models.push(load_baked(path)?.0);
    }
    let clip = match &args.clip {
        Some(c) => Some(resolve_clip(
            &models[0]
                .clips
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>(),
            c,
        )?),
        None => None,
    };
    for m in &models {
        let submeshes = m.lods[0].submeshes.len();
        if let Some((s, _)) = args.hide.iter().find(|(s, _)| *s as usize >= submeshes) {
            bail!(
                "--hide {s}: model {:?} has {submeshes} submeshes in its finest LOD (0 to {})",
                m.name,
                submeshes.saturating_sub(1)
            );
        }
    }
    let variety = args
        .variety
        .then(|| demo_variety(VARIETY_SEED, args.hide.clone()));
    let plain = models
        .into_iter()
        .map(ModelHandle::new)
        .collect::<Result<Vec<_>, _>>()?;
    let named: Vec<(String, &ModelHandle)> = args
        .models
        .iter()
        .map(|p| p.display().to_string())
        .zip(&plain)
        .collect();
    throng_demo::mixed::check_shared_clips(&named).map_err(anyhow::Error::msg)?;
    let mut handles = Vec::with_capacity(plain.len());
    for (path, plain) in args.models.iter().zip(plain) {
        let mut handle = plain;
        if args.outfits {
            handle = outfitted(&handle).ok_or_else(|| {
                anyhow::anyhow!(
                    "--outfits: {} has more than {} submeshes in its finest LOD: {DEMO_OUTFITS} outfits of them need more toggles than a look has",
                    path.display(),
                    throng_core::limits::TOGGLEABLE_SUBMESHES / DEMO_OUTFITS
                )
            })?;
        }
        if args.variety {
            handle = dressed(&handle, VARIETY_SEED);
        }
        handles.push(handle);
    }
    let grid = GridOptions {
        count: args.instances,
        clip,
        time: args.time,
        tints: variety.is_none(),
        variety,
        ..GridOptions::default()
    };
    Ok((handles, grid))
}

/// Fills the grid (mixed where there are several models; with
/// `--outfits`, instance `i` wearing outfit `i` modulo their number),
/// puts `--layer`s over every instance of the first model and, with
/// `--walking`, walks its instances for `--walked` seconds; returns the
/// crowd and the grid's bounds.
fn populate(args: &Args, handles: &[ModelHandle], grid: &GridOptions) -> Result<(Crowd, Aabb)> {
    let mut crowd = Crowd::new();
    let ids: Vec<ModelId> = handles.iter().map(|h| crowd.add_model(h)).collect();
    let bounds = spawn_mixed_grid(&mut crowd, &ids, grid)?;
    if args.outfits {
        let instances: Vec<_> = crowd.dense_ids().collect();
        throng_demo::outfits::wear_outfits(&mut crowd, &instances, handles)?;
    }
    let model_id = ids[0];
    let first: Vec<_> = crowd
        .dense_ids()
        .enumerate()
        .filter(|(i, _)| i % handles.len() == 0)
        .map(|(_, id)| id)
        .collect();
    throng_cli::args::layer::apply(&mut crowd, model_id, &first, &args.layers)?;
    if args.walking > 0.0 {
        let mut walkers = Walkers::new(&mut crowd, model_id, &bounds, args.walking)?;
        // Walk in steps of 1/30 s, re-targeting as the bench does.
        let steps = (args.walked * 30.0).round() as u32;
        for _ in 0..steps {
            crowd.update(1.0 / 30.0);
            walkers.step(&mut crowd, 1.0 / 30.0)?;
        }
    }
    Ok((crowd, bounds))
}

/// What the picture's frame measured.
struct Measured {
    /// The frame's counts.
    stats: FrameStats,
    /// The models' upload time.
    upload: Duration,
    /// The models' bytes uploaded to the GPU.
    gpu_bytes: u64,
    /// The first frame's time, pipeline creation and readback included.
    frame: Duration,
    /// The GPU pass's time, where the adapter has timestamp queries.
    gpu_time: Option<Duration>,
}

/// The lines on stdout after the picture: adapter, path, counts, pose
/// cache, timings and the file written.
fn print_report(args: &Args, gpu: &Gpu, renderer: &Renderer, m: &Measured) {
    let stats = &m.stats;
    println!("adapter     {}", gpu.adapter_summary());
    println!("path        {}", renderer.path());
    println!(
        "instances   {} ({} visible), {} draws, {} packages, {} triangles",
        stats.instances, stats.visible, stats.draws, stats.packages, stats.triangles
    );
    if stats.pose_cache_bytes > 0 || stats.pose_fallback_draws > 0 {
        println!(
            "pose cache  {} poses, {:.1} MiB, filled in {:.1} ms; {} draws skinned per vertex (over budget)",
            stats.cached_poses,
            stats.pose_cache_bytes as f64 / (1u64 << 20) as f64,
            stats.pose_fill_ms,
            stats.pose_fallback_draws
        );
    }
    println!(
        "upload      {:.1} ms ({} bytes on the GPU)",
        m.upload.as_secs_f64() * 1e3,
        m.gpu_bytes
    );
    println!(
        "models      {}: bone textures {:.1} KiB on the GPU, {:.1} KiB shared",
        args.models.len(),
        stats.bone_bytes as f64 / 1024.0,
        stats.shared_bone_bytes as f64 / 1024.0
    );
    if args.outfits {
        println!(
            "outfits     {} parts culled (hidden outfits left out of the draws)",
            stats.parts_culled
        );
    }
    println!(
        "frame       {:.1} ms (first frame: pipeline creation, render and readback)",
        m.frame.as_secs_f64() * 1e3
    );
    match m.gpu_time {
        Some(t) => println!(
            "gpu pass    {:.2} ms (timestamp queries)",
            t.as_secs_f64() * 1e3
        ),
        None => println!("gpu pass    n/a (this adapter has no timestamp queries)"),
    }
    println!(
        "wrote       {} ({}×{})",
        args.output.display(),
        args.size.0,
        args.size.1
    );
}
