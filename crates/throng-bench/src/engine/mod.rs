//! The benchmark engine behind `throng bench`: frame times of the same crowd drawn five ways.
//!
//! Every (mode, instance count) cell draws the same scene: a fresh grid of N
//! instances from [`spawn_grid`](crate::demo::spawn_grid) (clips and phases vary per instance), framed
//! by [`framing_camera`](crate::demo::framing_camera), into an offscreen target. Modes:
//!
//! | mode              | how the crowd is drawn |
//! |-------------------|------------------------|
//! | `gpu-driven`      | `Renderer` on the GPU-driven path: instances on the GPU, compute culling and LOD, one indirect draw per (model, LOD, fading, submesh); the CPU uploads only what changed; every vertex skinned from the bone texture (pose cache off) |
//! | `pose-cache`      | as `gpu-driven` with the pose cache (the renderer's default): each baked frame skinned once, every instance's vertices blended from two cached poses |
//! | `baked`           | `Renderer`, packages of 170 records (uniform buffer, dynamic offset): one draw per package |
//! | `baked-unbounded` | `Renderer`, all records in one storage buffer: one draw per group (where the adapter has vertex-stage storage) |
//! | `static`          | as `baked` (same path, records, packages and shading) with skinning skipped: the floor skinning is measured against |
//! | `static-gpu-driven` | as `gpu-driven` with skinning skipped: the floor of the GPU-driven path (its storage records and indirect draws cost the vertex stage more than `baked`'s uniform packages do) |
//! | `cpu-skinned`     | [`CpuSkinnedRenderer`](crate::CpuSkinnedRenderer): per character per frame the CPU samples its clip from the source scene, evaluates the hierarchy and writes its joint palette; one draw per character |
//!
//! Each frame first gives `changing_percent` of the instances a new
//! transform (a turn in place, a different window of instances each frame),
//! re-targets the walkers owed (`walking_percent` of the instances walk
//! waypoint loops, [`throng_demo::walkers`]; 1 % of them per second get a new
//! loop), then advances the animation by 1/60 s; it is timed as
//! * **CPU**: crowd update, culling, records or palettes, upload, encode and
//!   submit (everything up to the submit returning);
//! * **prepare**: the CPU time less the time spent inside `queue.submit`
//!   ([`throng_render::FrameStats::submit_ms`]): Throng's own work, apart
//!   from a software adapter running the frame's compute passes inside the
//!   submit (lavapipe does);
//! * **GPU**: the crowd pass between timestamp queries where the device has
//!   them; otherwise the wall time from submit to queue completion
//!   (labelled `queue-wall`); on the GPU-driven path the camera's cull
//!   pass is timed apart (**cull GPU**, timestamps only);
//! * **queue wait**: always the wall time from submit until the queue is
//!   idle; **frame**: CPU + queue wait, the frame time of a loop that waits
//!   for the GPU every frame (fps is 1000 / median frame ms).
//!
//! The renderer's modes other than `pose-cache` turn the pose cache off, so
//! that they measure what they name. The camera frames the grid from the
//! front-right, above ([`framing_camera`](crate::demo::framing_camera)), or
//! stands at its front edge on the ground ([`CameraChoice::Ground`]).
//!
//! Shadows are off unless the plan asks for them (`--shadows`; the
//! CPU-skinned baseline has no shadow pass). Warm-up frames are excluded;
//! medians and 95th percentiles (nearest rank) are over the measured frames. The JSON (`--json`) has stable field names
//!
//! The engine measures and returns a [`Report`]; the command line parses the
//! plan, prints the table and writes the JSON.

mod cell;
mod report;

use serde::Serialize;
use throng_bake::scene::Scene;
use throng_crowd::crowd::ModelHandle;
use throng_render::supports_unbounded;
use throng_render::{Gpu, GpuModel, OFFSCREEN_FORMAT, Offscreen, RenderError, wgpu};

pub use crate::demo::CameraChoice;
use cell::{Bench, CellError};
pub use report::{
    AdapterInfo, Cell, Machine, ModelInfo, PassSpread, Ratio, Report, Settings, Spread, machine,
};

/// Simulation step of every frame, seconds.
pub const DT: f32 = 1.0 / 60.0;

/// Fewest measured frames a cell keeps when `max_seconds` cuts it short.
const MIN_MEASURED_FRAMES: usize = 3;

/// The name of the JSON schema a [`Report`] follows.
pub const SCHEMA: &str = "throng-bench/1";

/// A way of drawing the crowd.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Throng: instances on the GPU, compute culling, indirect draws.
    GpuDriven,
    /// As `GpuDriven`, with the pose cache.
    PoseCache,
    /// Throng: baked bone textures, packages of 170 instances per draw.
    Baked,
    /// Throng: baked bone textures, one draw per group (storage buffer).
    BakedUnbounded,
    /// The same draws as `baked` with no skinning at all.
    Static,
    /// The same draws as `gpu-driven` with no skinning at all.
    StaticGpuDriven,
    /// Throng with animation layers: every instance has one override layer
    /// (another clip, weight 0.5, every bone), evaluated by the palette
    /// pre-pass; one draw per group (storage buffer).
    Layered,
    /// The three.js / Bevy way: CPU pose and palette per character, one draw each.
    CpuSkinned,
    /// As `GpuDriven`, shaded Lambert (`throng_render::Shading::Lambert`):
    /// the shading before PBR, which `gpu-driven / lambert` prices.
    Lambert,
    /// As `GpuDriven`, the crowd varied: the model in a palette of
    /// [`crate::demo::DEMO_VARIANTS`] rows, every instance a row and a size
    /// of its own ([`crate::demo::demo_variety`]).
    Varied,
    /// As `GpuDriven`, the model worn as [`crate::demo::DEMO_OUTFITS`]
    /// outfits ([`crate::demo::outfitted`]; its finest LOD only), each
    /// instance wearing one: the others are left out of its draws.
    Outfits,
    /// As `Outfits` with `RendererOptions::cull_hidden_parts` off: every
    /// outfit drawn, the hidden ones moved out of view in the vertex stage.
    OutfitsShaded,
}

impl Mode {
    /// Every mode, in the order the table lists them.
    pub const ALL: [Mode; 12] = [
        Mode::GpuDriven,
        Mode::Lambert,
        Mode::Varied,
        Mode::Outfits,
        Mode::OutfitsShaded,
        Mode::PoseCache,
        Mode::Baked,
        Mode::BakedUnbounded,
        Mode::Layered,
        Mode::Static,
        Mode::StaticGpuDriven,
        Mode::CpuSkinned,
    ];

    /// The name used on the command line and in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            Mode::GpuDriven => "gpu-driven",
            Mode::PoseCache => "pose-cache",
            Mode::Baked => "baked",
            Mode::BakedUnbounded => "baked-unbounded",
            Mode::Static => "static",
            Mode::StaticGpuDriven => "static-gpu-driven",
            Mode::Layered => "layered",
            Mode::CpuSkinned => "cpu-skinned",
            Mode::Varied => "varied",
            Mode::Lambert => "lambert",
            Mode::Outfits => "outfits",
            Mode::OutfitsShaded => "outfits-shaded",
        }
    }

    /// The mode called `name`, if any.
    pub fn from_name(name: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// What to measure.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Instance counts, one row of cells each.
    pub instances: Vec<u32>,
    /// Modes, one cell each per instance count (repeats next to each other
    /// are dropped).
    pub modes: Vec<Mode>,
    /// Target width and height.
    pub size: (u32, u32),
    /// Measured frames per cell.
    pub frames: u32,
    /// Warm-up frames per cell (not measured).
    pub warmup: u32,
    /// Stop measuring a cell after this many seconds (keeping at least 3
    /// frames).
    pub max_seconds: Option<f64>,
    /// MSAA samples (1 or 4).
    pub msaa: u32,
    /// Percent of the instances given a new transform before every frame
    /// (0: an idle crowd, whose only change is time).
    pub changing_percent: f64,
    /// Percent of the instances walking waypoint loops on the GPU
    /// ([`throng_demo::walkers`]).
    pub walking_percent: f64,
    /// Directional-light shadows (default options) in the renderer's modes;
    /// `cpu-skinned` has no shadow pass and is reported unsupported.
    pub shadows: bool,
    /// With shadows: the casters' LOD scale
    /// ([`throng_render::ShadowOptions::caster_lod_scale`]).
    pub caster_lod_scale: f32,
    /// With shadows: occlusion culling from the light as well
    /// ([`throng_render::ShadowOptions::occlusion`]).
    pub shadow_occlusion: bool,
    /// [`throng_render::RendererOptions::impostor_one_view_size`].
    pub impostor_one_view_size: f32,
    /// Where the camera stands.
    pub camera: CameraChoice,
    /// Two-phase occlusion culling on the GPU-driven path
    /// ([`throng_render::RendererOptions::occlusion`]): on, off, or both
    /// (every cell twice, on then off, with their ratio).
    pub occlusion: OcclusionChoice,
    /// The `pose-cache` mode's budget in bytes (`None`: the renderer's
    /// default).
    pub pose_cache_budget: Option<u64>,
    /// The crowd stands on the demo's terrain ([`throng_demo::terrain`])
    /// instead of the plane.
    pub terrain: bool,
    /// Instances nearest the camera whose feet are planted by IK.
    pub foot_ik: u32,
}

/// Which occlusion culling settings a run measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OcclusionChoice {
    /// On (the renderer's default).
    #[default]
    On,
    /// Off: frustum culling only.
    Off,
    /// Every cell on, then off.
    Both,
}

impl OcclusionChoice {
    /// The choice called `name` (`on`, `off`, `both`).
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "on" => Some(Self::On),
            "off" => Some(Self::Off),
            "both" => Some(Self::Both),
            _ => None,
        }
    }

    /// The settings measured, in order.
    pub fn settings(self) -> &'static [bool] {
        match self {
            Self::On => &[true],
            Self::Off => &[false],
            Self::Both => &[true, false],
        }
    }
}

/// The model a run measures.
pub struct Subject {
    /// The baked model.
    pub model: ModelHandle,
    /// Its source scene, which the `cpu-skinned` mode samples.
    pub scene: Option<Scene>,
    /// What to call the model's file in the report.
    pub path: String,
    /// Why there is no scene, said when `cpu-skinned` is asked for without one.
    pub no_scene_reason: String,
}

/// Progress of a run, for a caller that shows it.
pub enum Progress<'a> {
    /// The device is up and the model uploaded: what is measured on what.
    Started(&'a Report),
    /// A cell starts.
    CellStarted(Mode, u32),
    /// A cell ended (ran, or did not with a reason).
    CellDone(&'a Cell),
}

/// Why a run could not start. A cell that fails is reported in its
/// [`Cell::status`] instead, and the run goes on.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The plan asks for nothing, or for something impossible.
    #[error("{0}")]
    Plan(String),
    /// The device could not be created or the model not uploaded.
    #[error(transparent)]
    Render(#[from] RenderError),
}

impl Plan {
    fn check(&self) -> Result<(), BenchError> {
        let bad = |s: &str| Err(BenchError::Plan(s.into()));
        if self.instances.is_empty() || self.modes.is_empty() {
            return bad("give at least one instance count and one mode");
        }
        if self.frames == 0 {
            return bad("--frames must be at least 1");
        }
        if self.max_seconds.is_some_and(|s| s.is_nan() || s <= 0.0) {
            return bad("--max-seconds must be positive");
        }
        if !(self.caster_lod_scale > 0.0 && self.caster_lod_scale <= 1.0) {
            return bad("--caster-lod-scale must be in (0, 1]");
        }
        if !(self.impostor_one_view_size.is_finite() && self.impostor_one_view_size >= 0.0) {
            return bad("--impostor-one-view-size must be a finite size of 0 or more");
        }
        if self.pose_cache_budget == Some(0) {
            return bad("--pose-cache-budget must be at least 1 byte");
        }
        if !(0.0..=100.0).contains(&self.changing_percent) {
            return bad("--changing must be a percentage from 0 to 100");
        }
        if !(0.0..=100.0).contains(&self.walking_percent) {
            return bad("--walking must be a percentage from 0 to 100");
        }
        Ok(())
    }
}

/// Measures every (instance count, mode) cell of `plan` on `subject`, on a
/// headless device.
pub fn run(
    plan: &Plan,
    subject: Subject,
    progress: &mut dyn FnMut(Progress),
) -> Result<Report, BenchError> {
    plan.check()?;
    let mut modes = plan.modes.clone();
    modes.dedup();
    let handle = subject.model;
    let model_info = model_info(subject.path, &handle);
    // The CPU-skinned model, or why there is none.
    let skin = match subject.scene {
        _ if !modes.contains(&Mode::CpuSkinned) => None,
        Some(scene) => Some(
            crate::CpuSkinnedModel::new(&handle, scene)
                .map_err(|e| BenchError::Plan(e.to_string()))?,
        ),
        None => return Err(BenchError::Plan(subject.no_scene_reason)),
    };

    let gpu = Gpu::headless()?;
    let adapter = adapter_info(&gpu);
    let gpu_model = GpuModel::upload(&gpu.device, &gpu.queue, &handle)?;
    let dressed = modes
        .contains(&Mode::Varied)
        .then(|| crate::demo::dressed(&handle, crate::demo::VARIETY_SEED));
    let dressed_gpu = match &dressed {
        Some(d) => Some(GpuModel::upload(&gpu.device, &gpu.queue, d)?),
        None => None,
    };
    let outfitted = match modes
        .iter()
        .any(|m| matches!(m, Mode::Outfits | Mode::OutfitsShaded))
    {
        false => None,
        true => Some(crate::demo::outfitted(&handle).ok_or_else(|| {
            BenchError::Plan(format!(
                "the outfits modes wear {} copies of the finest LOD's submeshes; \
                 this model has too many submeshes for a look's toggles",
                crate::demo::DEMO_OUTFITS
            ))
        })?),
    };
    let outfitted_gpu = match &outfitted {
        Some(o) => Some(GpuModel::upload(&gpu.device, &gpu.queue, o)?),
        None => None,
    };
    let target = Offscreen::new(&gpu.device, plan.size)?;
    let mut report = Report {
        schema: SCHEMA,
        throng_version: env!("CARGO_PKG_VERSION"),
        machine: machine(),
        adapter,
        model: model_info,
        settings: settings(plan),
        results: Vec::new(),
        baked_over_static: Vec::new(),
        pose_cache_over_static: Vec::new(),
        pose_cache_over_gpu_driven: Vec::new(),
        pose_cache_over_static_gpu_driven: Vec::new(),
        occlusion_on_over_off: Vec::new(),
        varied_over_gpu_driven: Vec::new(),
        gpu_driven_over_lambert: Vec::new(),
        outfits_over_shaded: Vec::new(),
    };
    progress(Progress::Started(&report));
    let bench = Bench {
        plan,
        gpu: &gpu,
        handle: &handle,
        gpu_model: &gpu_model,
        dressed: dressed.as_ref().zip(dressed_gpu.as_ref()),
        outfitted: outfitted.as_ref().zip(outfitted_gpu.as_ref()),
        skin: skin.as_ref(),
        target: &target,
    };
    report.results = run_cells(&bench, &modes, progress);
    add_ratios(&mut report);
    Ok(report)
}

/// The report's account of the model: its file, name, LOD 0's size, bones
/// and clips.
fn model_info(path: String, handle: &ModelHandle) -> ModelInfo {
    let baked = handle.model();
    let lod = &baked.lods[0];
    ModelInfo {
        path,
        name: baked.name.clone(),
        vertices: lod.vertices.len(),
        triangles: lod.indices.len() / 3,
        submeshes: lod.submeshes.len(),
        bones: baked.bones.len(),
        clips: baked.clips.iter().map(|c| c.name.clone()).collect(),
    }
}

/// The report's account of the adapter: its names, driver, and whether it
/// has timestamp queries and vertex-stage storage buffers.
fn adapter_info(gpu: &Gpu) -> AdapterInfo {
    let info = gpu.adapter.get_info();
    AdapterInfo {
        summary: gpu.adapter_summary(),
        name: info.name.clone(),
        backend: format!("{:?}", info.backend),
        device_type: format!("{:?}", info.device_type),
        driver: format!("{} {}", info.driver, info.driver_info)
            .trim()
            .to_owned(),
        timestamp_queries: gpu
            .device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY),
        vertex_storage: supports_unbounded(&gpu.adapter, &gpu.device),
    }
}

/// The report's copy of the plan's settings, with the step, target format
/// and pose-cache budget it ran with.
fn settings(plan: &Plan) -> Settings {
    Settings {
        size: [plan.size.0, plan.size.1],
        frames: plan.frames,
        warmup: plan.warmup,
        max_seconds: plan.max_seconds,
        dt: DT,
        msaa: plan.msaa,
        format: format!("{OFFSCREEN_FORMAT:?}"),
        shadows: plan.shadows,
        changing_percent: plan.changing_percent,
        walking_percent: plan.walking_percent,
        terrain: plan.terrain,
        foot_ik: plan.foot_ik,
        camera: plan.camera,
        occlusion: plan.occlusion,
        caster_lod_scale: plan.caster_lod_scale,
        shadow_occlusion: plan.shadow_occlusion,
        impostor_one_view_size: plan.impostor_one_view_size,
        pose_cache_budget: plan
            .pose_cache_budget
            .unwrap_or(throng_render::PoseCacheOptions::DEFAULT_BUDGET),
    }
}

/// Runs every cell, instance count by mode by occlusion setting, telling
/// `progress` as each starts and ends; a cell that did not run is kept
/// with its status and reason.
fn run_cells(bench: &Bench, modes: &[Mode], progress: &mut dyn FnMut(Progress)) -> Vec<Cell> {
    let mut results = Vec::new();
    for &n in &bench.plan.instances {
        for &mode in modes {
            for &occlusion in bench.plan.occlusion.settings() {
                progress(Progress::CellStarted(mode, n));
                let mut cell = match bench.run_cell(mode, n, occlusion) {
                    Ok(c) => c,
                    Err(CellError::Unsupported(e)) => Cell::not_run(mode, n, "unsupported", e),
                    Err(CellError::Failed(e)) => Cell::not_run(mode, n, "error", e),
                };
                cell.occlusion = occlusion;
                progress(Progress::CellDone(&cell));
                results.push(cell);
            }
        }
    }
    results
}

/// Fills the report's ratios between modes (and between occlusion on and
/// off) from its cells.
fn add_ratios(report: &mut Report) {
    report.baked_over_static = report::ratios(&report.results, Mode::Baked, Mode::Static);
    report.pose_cache_over_static = report::ratios(&report.results, Mode::PoseCache, Mode::Static);
    report.pose_cache_over_gpu_driven =
        report::ratios(&report.results, Mode::PoseCache, Mode::GpuDriven);
    report.pose_cache_over_static_gpu_driven =
        report::ratios(&report.results, Mode::PoseCache, Mode::StaticGpuDriven);
    report.varied_over_gpu_driven = report::ratios(&report.results, Mode::Varied, Mode::GpuDriven);
    report.gpu_driven_over_lambert =
        report::ratios(&report.results, Mode::GpuDriven, Mode::Lambert);
    report.outfits_over_shaded =
        report::ratios(&report.results, Mode::Outfits, Mode::OutfitsShaded);
    report.occlusion_on_over_off = report::occlusion_ratios(&report.results);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_names_round_trip_through_the_json() {
        for m in Mode::ALL {
            assert_eq!(Mode::from_name(m.name()), Some(m));
            assert_eq!(serde_json::to_value(m).unwrap(), m.name());
        }
        assert_eq!(Mode::from_name("gpu"), None);
    }
}
