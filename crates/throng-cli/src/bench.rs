//! `throng bench`: the command line of the benchmark engine
//! ([`throng_bench::engine`], where the modes and timings are described).
//! Parses the plan, loads the model (and its source scene for
//! `cpu-skinned`), prints progress and the table, writes `--json`.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Args as ClapArgs;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use throng_bake::ModelKind;
use throng_bake::scene::Scene;
use throng_bench::engine::{
    self, CameraChoice, Mode, OcclusionChoice, Plan, Progress, Ratio, Report, Settings, Spread,
    Subject,
};
use throng_core::BakedModel;
use throng_crowd::crowd::ModelHandle;

use crate::util::thousands;
use throng_cli::args::size::parse_size;

/// `--camera`'s parser (also `throng render`'s).
pub(crate) fn camera_parser() -> impl TypedValueParser<Value = CameraChoice> {
    PossibleValuesParser::new(CameraChoice::ALL.map(CameraChoice::name))
        .map(|s| CameraChoice::from_name(&s).expect("a possible value is a camera name"))
}

fn mode_parser() -> impl TypedValueParser<Value = Mode> {
    PossibleValuesParser::new(Mode::ALL.map(Mode::name))
        .map(|s| Mode::from_name(&s).expect("a possible value is a mode name"))
}

/// Arguments of `throng bench`.
#[derive(ClapArgs)]
pub struct Args {
    /// A glTF model (baked in memory) or a `.throng` file.
    pub model: PathBuf,
    /// Instance counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1000")]
    pub instances: Vec<u32>,
    /// Modes, comma-separated.
    #[arg(
        long,
        value_parser = mode_parser(),
        value_delimiter = ',',
        default_value = "gpu-driven,baked,baked-unbounded,static,cpu-skinned"
    )]
    pub mode: Vec<Mode>,
    /// Target size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1920x1080", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Measured frames per cell.
    #[arg(long, default_value_t = 60)]
    pub frames: u32,
    /// Warm-up frames per cell (not measured).
    #[arg(long, default_value_t = 10)]
    pub warmup: u32,
    /// Stop measuring a cell after this many seconds (keeping at least 3
    /// frames) [default: no limit].
    #[arg(long)]
    pub max_seconds: Option<f64>,
    /// MSAA samples (1 or 4).
    #[arg(long, default_value_t = 1)]
    pub msaa: u32,
    /// Percent of the instances given a new transform before every frame
    /// (0: idle, only time moves).
    #[arg(long, default_value_t = 0.0)]
    pub changing: f64,
    /// Percent of the instances walking waypoint loops (speed-matched
    /// playback, 1 % of the walkers re-targeted each second), moved on the
    /// GPU on the GPU-driven path and on the CPU elsewhere.
    #[arg(long, default_value_t = 0.0)]
    pub walking: f64,
    /// Stand the crowd on the demo's terrain (hills and a stair, sized
    /// after the model) instead of the plane.
    #[arg(long)]
    pub terrain: bool,
    /// Plant the feet of the N instances nearest the camera in its view by
    /// two-bone IK on the ground (0: none).
    #[arg(long, default_value_t = 0)]
    pub foot_ik: u32,
    /// Draw with directional-light shadows (the renderer's default shadow
    /// options; `cpu-skinned` has no shadow pass and is skipped).
    #[arg(long)]
    pub shadows: bool,
    /// With --shadows: casters choose their LOD as if their projected size
    /// were this share of the camera's, in (0, 1] (1: each instance casts
    /// at the LOD it is drawn with).
    #[arg(long, default_value_t = throng_render::ShadowOptions::DEFAULT_CASTER_LOD_SCALE)]
    pub caster_lod_scale: f32,
    /// With --shadows: occlusion culling from the light as well (two
    /// shadow passes; needs occlusion culling on).
    #[arg(long)]
    pub shadow_occlusion: bool,
    /// Impostors whose sphere is under this share of the view's
    /// half-height sample one view instead of blending three (0: always
    /// three).
    #[arg(long, default_value_t = throng_render::RendererOptions::IMPOSTOR_ONE_VIEW_SIZE)]
    pub impostor_one_view_size: f32,
    /// Where the camera stands: `framing` (the whole grid from the
    /// front-right, above), `ground` (at the grid's front edge, two crowd
    /// heights up, looking across it: near rows on LOD 0, the far ones on
    /// coarse LODs and impostors) or `eye` (at the front edge at one crowd
    /// height, looking level along it: the front rows hide the rest).
    #[arg(long, value_parser = camera_parser(), default_value = "framing")]
    pub camera: CameraChoice,
    /// Two-phase occlusion culling on the GPU-driven path: `on`, `off`, or
    /// `both` (every cell on, then off, and their ratio in one run).
    #[arg(long, value_parser = ["on", "off", "both"], default_value = "on")]
    pub occlusion: String,
    /// The `pose-cache` mode's budget: bytes, or a number with KiB, MiB or
    /// GiB [default: 256MiB]. A (model, LOD) that does not fit skins per
    /// vertex (coarse LODs are cached first).
    #[arg(long, value_name = "BYTES", value_parser = throng_cli::args::bytes::parse_bytes)]
    pub pose_cache_budget: Option<u64>,
    /// The glTF a `.throng` was baked from (needed by `cpu-skinned`, which
    /// samples the source clips on the CPU).
    #[arg(long)]
    pub source: Option<PathBuf>,
    /// Also write the results as JSON here (*.json).
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// Loads the model and, where there is one, its source scene.
fn load(args: &Args) -> Result<(BakedModel, Option<Scene>)> {
    match ModelKind::of(&args.model)? {
        ModelKind::Gltf => {
            if args.source.is_some() {
                bail!("--source is for a .throng model; a glTF model is its own source");
            }
            let imported = throng_bake::import_file(&args.model)
                .with_context(|| format!("importing {}", args.model.display()))?;
            let (mut model, _) = throng_bake::bake(
                &imported.scene,
                &throng_bake::BakeOptions::default(),
                &|_, _| {},
            )
            .with_context(|| format!("baking {}", args.model.display()))?;
            model.source = file_name(&args.model);
            Ok((model, Some(imported.scene)))
        }
        ModelKind::Throng => {
            let model = throng_core::format::read_file(&args.model)
                .with_context(|| format!("loading {}", args.model.display()))?;
            let scene = match &args.source {
                Some(s) => Some(
                    throng_bake::import_file(s)
                        .with_context(|| format!("importing {}", s.display()))?
                        .scene,
                ),
                None => None,
            };
            Ok((model, scene))
        }
    }
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Runs `throng bench`.
pub fn run(args: Args) -> Result<()> {
    if let Some(path) = &args.json {
        let mut inputs = vec![args.model.as_path()];
        inputs.extend(args.source.as_deref());
        crate::util::check_output(path, "json", &inputs)?;
    }
    let plan = Plan {
        instances: args.instances.clone(),
        modes: args.mode.clone(),
        size: args.size,
        frames: args.frames,
        warmup: args.warmup,
        max_seconds: args.max_seconds,
        msaa: args.msaa,
        changing_percent: args.changing,
        walking_percent: args.walking,
        shadows: args.shadows,
        caster_lod_scale: args.caster_lod_scale,
        shadow_occlusion: args.shadow_occlusion,
        impostor_one_view_size: args.impostor_one_view_size,
        camera: args.camera,
        occlusion: OcclusionChoice::from_name(&args.occlusion).expect("a possible value"),
        pose_cache_budget: args.pose_cache_budget,
        terrain: args.terrain,
        foot_ik: args.foot_ik,
    };
    let (baked, scene) = load(&args)?;
    let subject = Subject {
        model: ModelHandle::new(baked)?,
        scene,
        path: args.model.display().to_string(),
        no_scene_reason: format!(
            "cpu-skinned samples the source clips on the CPU; {} is a .throng, so pass the glTF it was baked from with --source",
            args.model.display()
        ),
    };
    let report = engine::run(&plan, subject, &mut |p| print_progress(&args, p))?;
    crate::util::write_stdout(&table(&report))?;
    if let Some(path) = &args.json {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let text = serde_json::to_string_pretty(&report)?;
        throng_core::fsio::write_atomic(path, (text + "\n").as_bytes())?;
    }
    if report.results.iter().any(|c| c.status == "error") {
        bail!("some cells failed (status \"error\" above)");
    }
    Ok(())
}

/// One line on stderr per step of the run.
fn print_progress(args: &Args, progress: Progress) {
    match progress {
        Progress::Started(r) => eprintln!(
            "throng bench: {} ({} vertices, {} triangles, {} bones) on {}; {} on {} cores; {}×{}, {} warm-up + {} frames per cell",
            r.model.name,
            thousands(r.model.vertices as u64),
            thousands(r.model.triangles as u64),
            r.model.bones,
            r.adapter.summary,
            r.machine.cpu,
            r.machine.cores,
            args.size.0,
            args.size.1,
            args.warmup,
            args.frames,
        ),
        Progress::CellStarted(mode, n) => eprint!(
            "  {:<17} {:>10} instances ... ",
            mode.name(),
            thousands(n as u64)
        ),
        Progress::CellDone(cell) => match (&cell.frame_ms, &cell.reason) {
            (Some(f), _) => eprintln!("{:.2} ms median frame", f.median),
            (None, Some(r)) => eprintln!("{}: {r}", cell.status),
            (None, None) => eprintln!("{}", cell.status),
        },
    }
}

/// The readable table: the run's header, one row per cell, the per-pass
/// GPU times and pose caches of the cells that have them, then the ratios.
fn table(r: &Report) -> String {
    let mut s = String::new();
    header_lines(&mut s, r);
    cell_rows(&mut s, r);
    pass_lines(&mut s, r);
    pose_cache_lines(&mut s, r);
    for (name, ratios) in [
        ("baked / static", &r.baked_over_static),
        ("pose-cache / static", &r.pose_cache_over_static),
        ("pose-cache / gpu-driven", &r.pose_cache_over_gpu_driven),
        (
            "pose-cache / static-gpu-driven",
            &r.pose_cache_over_static_gpu_driven,
        ),
        ("varied / gpu-driven", &r.varied_over_gpu_driven),
        ("gpu-driven / lambert", &r.gpu_driven_over_lambert),
        ("outfits / outfits-shaded", &r.outfits_over_shaded),
    ] {
        ratio_lines(&mut s, name, ratios);
    }
    for q in &r.occlusion_on_over_off {
        let name = format!("{}, occlusion on / off", q.mode.map_or("-", |m| m.name()));
        ratio_lines(&mut s, &name, std::slice::from_ref(q));
    }
    s
}

/// The lines above the table: what was measured (model), on what (adapter,
/// machine), how (settings), and what the `static` mode leaves out, then a
/// blank line.
fn header_lines(s: &mut String, r: &Report) {
    use std::fmt::Write;
    let _ = writeln!(
        s,
        "model     {} ({} vertices, {} triangles, {} submeshes, {} bones)",
        r.model.name,
        thousands(r.model.vertices as u64),
        thousands(r.model.triangles as u64),
        r.model.submeshes,
        r.model.bones
    );
    let _ = writeln!(
        s,
        "adapter   {} (timestamp queries: {})",
        r.adapter.summary,
        if r.adapter.timestamp_queries {
            "yes"
        } else {
            "no"
        }
    );
    let _ = writeln!(
        s,
        "machine   {}, {} cores, {}",
        r.machine.cpu, r.machine.cores, r.machine.os
    );
    settings_line(s, &r.settings);
    let _ = writeln!(
        s,
        "static    same path, records, packages and shading as baked; only the skinning is skipped"
    );
    let _ = writeln!(s);
}

/// The `settings` line: target, MSAA, shadows, frames, load, camera,
/// occlusion and impostor choice of the run.
fn settings_line(s: &mut String, settings: &Settings) {
    use std::fmt::Write;
    let _ = writeln!(
        s,
        "settings  {}×{}, MSAA {}, shadows {}, {} warm-up + {} measured frames per cell, dt = 1/60 s, {} % of instances changed per frame, {} % walking{}, {} camera, occlusion {}, impostors one view below {}",
        settings.size[0],
        settings.size[1],
        settings.msaa,
        if settings.shadows {
            format!(
                "on (casters' LOD scale {}{})",
                settings.caster_lod_scale,
                if settings.shadow_occlusion {
                    ", occlusion-culled from the light"
                } else {
                    ""
                }
            )
        } else {
            "off".into()
        },
        settings.warmup,
        settings.frames,
        settings.changing_percent,
        settings.walking_percent,
        match (settings.terrain, settings.foot_ik) {
            (false, 0) => String::new(),
            (terrain, ik) => format!(
                ", on {}, foot IK for the nearest {ik}",
                if terrain { "the terrain" } else { "the plane" }
            ),
        },
        settings.camera.name(),
        match settings.occlusion {
            OcclusionChoice::On => "on",
            OcclusionChoice::Off => "off",
            OcclusionChoice::Both => "on and off",
        },
        settings.impostor_one_view_size
    );
}

/// The column heads and one row per cell: its counts and timings, or its
/// status and reason where it did not run.
fn cell_rows(s: &mut String, r: &Report) {
    use std::fmt::Write;
    let _ = writeln!(
        s,
        "{:<17} {:>10} {:>5} {:>8} {:>12} {:>12} {:>10} {:>10} {:>17} {:>17} {:>17} {:>10} {:>17} {:>17} {:>8}",
        "mode",
        "instances",
        "occl",
        "draws",
        "triangles",
        "vertices",
        "impostors",
        "occluded",
        "cpu ms med/p95",
        "prepare med/p95",
        "gpu ms med/p95",
        "gpu from",
        "cull gpu med/p95",
        "frame ms med/p95",
        "fps"
    );
    for c in &r.results {
        if c.status != "ok" {
            let _ = writeln!(
                s,
                "{:<17} {:>10} {}: {}",
                c.mode.name(),
                thousands(c.instances as u64),
                c.status,
                c.reason.as_deref().unwrap_or("")
            );
            continue;
        }
        let _ = writeln!(
            s,
            "{:<17} {:>10} {:>5} {:>8} {:>12} {:>12} {:>10} {:>10} {:>17} {:>17} {:>17} {:>10} {:>17} {:>17} {:>8.1}",
            c.mode.name(),
            thousands(c.instances as u64),
            if c.occlusion { "on" } else { "off" },
            thousands(c.draws.unwrap_or(0) as u64),
            thousands(c.triangles.unwrap_or(0)),
            thousands(c.vertices.unwrap_or(0)),
            thousands(c.impostors.unwrap_or(0) as u64),
            thousands(c.occluded.unwrap_or(0) as u64),
            spread(c.cpu_ms),
            spread(c.prepare_ms),
            spread(c.gpu_ms),
            c.gpu_source.unwrap_or("-"),
            spread(c.cull_gpu_ms),
            spread(c.frame_ms),
            c.fps.unwrap_or(f64::NAN),
        );
    }
}

/// A table cell's "median/p95", or "-" where it was not measured.
fn spread(x: Option<Spread>) -> String {
    x.map_or_else(|| "-".into(), |x| format!("{:.2}/{:.2}", x.median, x.p95))
}

/// A line per cell timed pass by pass on the GPU: each pass's median.
fn pass_lines(s: &mut String, r: &Report) {
    use std::fmt::Write;
    for c in r.results.iter().filter(|c| !c.pass_gpu_ms.is_empty()) {
        let passes: Vec<String> = c
            .pass_gpu_ms
            .iter()
            .map(|p| format!("{} {:.2}", p.pass, p.ms.median))
            .collect();
        let _ = writeln!(
            s,
            "{:<17} {:>10} {:>5} gpu ms per pass (median): {}",
            c.mode.name(),
            thousands(c.instances as u64),
            if c.occlusion { "on" } else { "off" },
            passes.join(", ")
        );
    }
}

/// A line per cell that filled a pose cache: its poses, bytes, fill time
/// and the draws left to per-vertex skinning.
fn pose_cache_lines(s: &mut String, r: &Report) {
    use std::fmt::Write;
    for c in r
        .results
        .iter()
        .filter(|c| c.pose_cache_bytes.unwrap_or(0) > 0)
    {
        let _ = writeln!(
            s,
            "{:<17} {:>10} pose cache: {} poses, {:.1} MiB, filled once in {:.1} ms, {} draws skinned per vertex (over budget)",
            c.mode.name(),
            thousands(c.instances as u64),
            thousands(c.cached_poses.unwrap_or(0)),
            c.pose_cache_bytes.unwrap_or(0) as f64 / (1u64 << 20) as f64,
            c.pose_fill_ms.unwrap_or(0.0),
            c.pose_fallback_draws.unwrap_or(0)
        );
    }
}

/// The lines of one ratio, if any ran.
fn ratio_lines(s: &mut String, name: &str, ratios: &[Ratio]) {
    use std::fmt::Write;
    if ratios.is_empty() {
        return;
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "{name} (medians)");
    for q in ratios {
        let _ = writeln!(
            s,
            "  {:>10} instances: gpu {:.2}× ({}), queue wait {:.2}×, cpu {:.2}×, frame {:.2}×",
            thousands(q.instances as u64),
            q.gpu,
            q.gpu_source,
            q.queue_wait,
            q.cpu,
            q.frame
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    #[test]
    fn every_mode_parses_from_its_name() {
        let names: Vec<&str> = Mode::ALL.iter().map(|m| m.name()).collect();
        let cli = Cli::try_parse_from(["bench", "m.gltf", "--mode", &names.join(",")]).unwrap();
        assert_eq!(cli.args.mode, Mode::ALL);
        assert!(Cli::try_parse_from(["bench", "m.gltf", "--mode", "gpu"]).is_err());
    }
}
