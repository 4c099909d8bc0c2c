//! `throng bench`: frame times of the same crowd drawn four ways.
//!
//! Every (mode, instance count) cell draws the same scene: a fresh grid of N
//! instances from [`spawn_grid`] (clips and phases vary per instance), framed
//! by [`framing_camera`], into an offscreen target. Modes:
//!
//! | mode              | how the crowd is drawn |
//! |-------------------|------------------------|
//! | `baked`           | [`Renderer`], packages of 200 records (uniform buffer, dynamic offset): one draw per package |
//! | `baked-unbounded` | [`Renderer`], all records in one storage buffer: one draw per group (where the adapter has vertex-stage storage) |
//! | `static`          | as `baked` (same path, records, packages and shading) with skinning skipped: the floor skinning is measured against |
//! | `cpu-skinned`     | [`CpuSkinnedRenderer`]: per character per frame the CPU samples its clip from the source scene, evaluates the hierarchy and writes its joint palette; one draw per character |
//!
//! Each frame advances the animation by 1/60 s, then is timed as
//! * **CPU**: crowd update, culling, records or palettes, upload, encode and
//!   submit (everything up to the submit returning);
//! * **GPU**: the crowd pass between timestamp queries where the device has
//!   them; otherwise the wall time from submit to queue completion
//!   (labelled `queue-wall`);
//! * **queue wait**: always the wall time from submit until the queue is
//!   idle; **frame**: CPU + queue wait, the frame time of a loop that waits
//!   for the GPU every frame (fps is 1000 / median frame ms).
//!
//! Shadows are off in every mode (the CPU-skinned baseline has no shadow
//! pass). Warm-up frames are excluded; medians and 95th percentiles (nearest rank)
//! are over the measured frames. The JSON (`--json`) has stable field names
//! (schema `throng-bench/1`), documented in `docs/BENCHMARKS.md`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::{Args as ClapArgs, ValueEnum};
use serde::Serialize;
use throng_bake::scene::Scene;
use throng_bench::demo::{GridOptions, framing_camera, spawn_grid};
use throng_bench::{Character, CpuSkinnedError, CpuSkinnedModel, CpuSkinnedRenderer};
use throng_core::BakedModel;
use throng_core::gpu::pack_tint;
use throng_core::math::mat4_to_rows;
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, DrawList, InstanceId, ModelHandle};
use throng_render::renderer::supports_unbounded;
use throng_render::{
    FrameStats, Gpu, GpuModel, OFFSCREEN_FORMAT, Offscreen, PathChoice, RenderError, Renderer,
    RendererOptions, wgpu,
};

use crate::render::parse_size;
use crate::util::thousands;
use throng_bake::ModelKind;

/// Simulation step of every frame, seconds.
pub const DT: f32 = 1.0 / 60.0;

/// Fewest measured frames a cell keeps when `--max-seconds` cuts it short.
const MIN_MEASURED_FRAMES: usize = 3;

/// A way of drawing the crowd.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Throng: baked bone textures, packages of 200 instances per draw.
    Baked,
    /// Throng: baked bone textures, one draw per group (storage buffer).
    BakedUnbounded,
    /// The same draws as `baked` with no skinning at all.
    Static,
    /// The three.js / Bevy way: CPU pose and palette per character, one draw each.
    CpuSkinned,
}

impl Mode {
    /// The name used on the command line and in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Baked => "baked",
            Mode::BakedUnbounded => "baked-unbounded",
            Mode::Static => "static",
            Mode::CpuSkinned => "cpu-skinned",
        }
    }
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
        value_enum,
        value_delimiter = ',',
        default_value = "baked,baked-unbounded,static,cpu-skinned"
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
    /// The glTF a `.throng` was baked from (needed by `cpu-skinned`, which
    /// samples the source clips on the CPU).
    #[arg(long)]
    pub source: Option<PathBuf>,
    /// Also write the results as JSON here (*.json).
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// Median and 95th percentile of one quantity, milliseconds.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Spread {
    /// Median.
    pub median: f64,
    /// 95th percentile (nearest rank).
    pub p95: f64,
    /// Mean.
    pub mean: f64,
    /// Smallest.
    pub min: f64,
}

impl Spread {
    /// Statistics of `samples` (which must not be empty).
    pub fn of(samples: &[f64]) -> Self {
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        let rank = |q: f64| s[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
        let median = if n % 2 == 1 {
            s[n / 2]
        } else {
            0.5 * (s[n / 2 - 1] + s[n / 2])
        };
        Self {
            median,
            p95: rank(0.95),
            mean: s.iter().sum::<f64>() / n as f64,
            min: s[0],
        }
    }
}

/// The measurements of one (mode, instances) cell.
#[derive(Debug, Serialize)]
pub struct Cell {
    /// Mode.
    pub mode: Mode,
    /// Instances in the crowd.
    pub instances: u32,
    /// `ok`, `unsupported` (the adapter lacks a feature or a limit is too
    /// small) or `error`.
    pub status: &'static str,
    /// Why the cell did not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// How records or palettes reach the vertex shader.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Instances that passed culling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visible: Option<u32>,
    /// Draw calls per frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draws: Option<u32>,
    /// Record packages (baked), groups (unbounded) or characters
    /// (cpu-skinned) bound per frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packages: Option<u32>,
    /// Triangles per frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triangles: Option<u64>,
    /// Bytes uploaded per frame (records or palettes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upload_bytes: Option<u64>,
    /// Frames measured (after warm-up).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames_measured: Option<usize>,
    /// CPU time per frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_ms: Option<Spread>,
    /// GPU time per frame (see `gpu_source`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_ms: Option<Spread>,
    /// `timestamp` (pass time from timestamp queries) or `queue-wall` (wall
    /// time from submit to queue completion).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_source: Option<&'static str>,
    /// Wall time from submit to queue completion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_wait_ms: Option<Spread>,
    /// CPU + queue wait.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_ms: Option<Spread>,
    /// 1000 / median frame ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fps: Option<f64>,
}

impl Cell {
    fn not_run(mode: Mode, instances: u32, status: &'static str, reason: String) -> Self {
        Self {
            mode,
            instances,
            status,
            reason: Some(reason),
            path: None,
            visible: None,
            draws: None,
            packages: None,
            triangles: None,
            upload_bytes: None,
            frames_measured: None,
            cpu_ms: None,
            gpu_ms: None,
            gpu_source: None,
            queue_wait_ms: None,
            frame_ms: None,
            fps: None,
        }
    }
}

/// `baked / static` at one instance count.
#[derive(Debug, Serialize)]
pub struct Ratio {
    /// Instances.
    pub instances: u32,
    /// Median GPU time of `baked` over that of `static`.
    pub gpu: f64,
    /// Where the GPU times come from (`timestamp` or `queue-wall`).
    pub gpu_source: &'static str,
    /// Median queue wait of `baked` over that of `static`.
    pub queue_wait: f64,
    /// Median CPU time of `baked` over that of `static`.
    pub cpu: f64,
    /// Median frame time of `baked` over that of `static`.
    pub frame: f64,
}

/// The machine the benchmark ran on.
#[derive(Debug, Serialize)]
pub struct Machine {
    /// CPU model (`/proc/cpuinfo`).
    pub cpu: String,
    /// Logical CPUs available to the process.
    pub cores: usize,
    /// Operating system and kernel.
    pub os: String,
}

/// The adapter.
#[derive(Debug, Serialize)]
pub struct AdapterInfo {
    /// One line: name, backend, device type.
    pub summary: String,
    /// Name.
    pub name: String,
    /// Backend.
    pub backend: String,
    /// Device type.
    pub device_type: String,
    /// Driver and its version.
    pub driver: String,
    /// Timestamp queries available (GPU times are `timestamp`).
    pub timestamp_queries: bool,
    /// Vertex-stage storage buffers available (`baked-unbounded`, `cpu-skinned`).
    pub vertex_storage: bool,
}

/// The model.
#[derive(Debug, Serialize)]
pub struct ModelInfo {
    /// File given.
    pub path: String,
    /// Model name.
    pub name: String,
    /// Vertices per instance (LOD 0).
    pub vertices: usize,
    /// Triangles per instance (LOD 0).
    pub triangles: usize,
    /// Submeshes (draws per package or per character).
    pub submeshes: usize,
    /// Palette entries.
    pub bones: usize,
    /// Clips, file order.
    pub clips: Vec<String>,
}

/// Settings of the run.
#[derive(Debug, Serialize)]
pub struct Settings {
    /// Target width and height.
    pub size: [u32; 2],
    /// Measured frames per cell (fewer if `max_seconds` cut a cell short).
    pub frames: u32,
    /// Warm-up frames per cell.
    pub warmup: u32,
    /// Per-cell measuring limit, seconds.
    pub max_seconds: Option<f64>,
    /// Animation step per frame, seconds.
    pub dt: f32,
    /// MSAA samples.
    pub msaa: u32,
    /// Colour format of the target.
    pub format: String,
    /// Directional-light shadows (always off: the CPU-skinned baseline has
    /// no shadow pass).
    pub shadows: bool,
}

/// The whole report: what `--json` writes.
#[derive(Debug, Serialize)]
pub struct Report {
    /// `throng-bench/1`.
    pub schema: &'static str,
    /// Version of the `throng` binary.
    pub throng_version: &'static str,
    /// Machine.
    pub machine: Machine,
    /// Adapter.
    pub adapter: AdapterInfo,
    /// Model.
    pub model: ModelInfo,
    /// Settings.
    pub settings: Settings,
    /// One entry per (instances, mode), instance counts outermost.
    pub results: Vec<Cell>,
    /// `baked / static` per instance count where both ran.
    pub baked_over_static: Vec<Ratio>,
}

/// One measured frame, milliseconds.
#[derive(Clone, Copy, Debug)]
struct Sample {
    cpu: f64,
    gpu: Option<f64>,
    wait: f64,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The drawer of one cell.
enum Drawer<'a> {
    Baked(Box<Renderer>),
    Cpu {
        renderer: Box<CpuSkinnedRenderer>,
        skin: &'a CpuSkinnedModel,
        ids: Vec<InstanceId>,
        tints: Vec<u32>,
        characters: Vec<Character>,
    },
}

impl Drawer<'_> {
    fn path(&self) -> String {
        match self {
            Drawer::Baked(r) if !r.options().skinning => {
                format!("{} (skinning skipped)", r.path())
            }
            Drawer::Baked(r) => r.path().to_string(),
            Drawer::Cpu { .. } => "per character (CPU palette, storage, dynamic offset)".into(),
        }
    }

    /// One frame: advance, draw, submit, wait. Returns the stats and times.
    fn frame(
        &mut self,
        gpu: &Gpu,
        crowd: &mut Crowd,
        target: &Offscreen,
        camera: &Camera,
        model: &GpuModel,
    ) -> Result<(FrameStats, Sample), CellError> {
        let start = Instant::now();
        crowd.update(DT);
        let stats = match self {
            Drawer::Baked(r) => r.render(&target.view, target.size, camera, &[crowd], &[model])?,
            Drawer::Cpu {
                renderer,
                skin,
                ids,
                tints,
                characters,
            } => {
                characters.clear();
                for (id, &tint) in ids.iter().zip(tints.iter()) {
                    let state = crowd
                        .state(*id)
                        .map_err(|e| CellError::Failed(e.to_string()))?;
                    characters.push(Character::from_state(&state, tint));
                }
                renderer.render(&target.view, target.size, camera, characters, skin, model)?
            }
        };
        let submitted = Instant::now();
        let timestamp = match self {
            Drawer::Baked(r) => r.wait_gpu_time(),
            Drawer::Cpu { renderer, .. } => renderer.wait_gpu_time(),
        };
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| CellError::Failed(format!("waiting for the GPU: {e}")))?;
        let done = Instant::now();
        Ok((
            stats,
            Sample {
                cpu: ms(submitted - start),
                gpu: timestamp.map(ms),
                wait: ms(done - submitted),
            },
        ))
    }
}

/// Why a cell did not run.
#[derive(Debug)]
enum CellError {
    /// The adapter lacks a feature, or one of its limits is too small.
    Unsupported(String),
    /// Anything else.
    Failed(String),
}

impl From<RenderError> for CellError {
    fn from(e: RenderError) -> Self {
        match e {
            RenderError::Unsupported(_) | RenderError::TooBig { .. } => {
                CellError::Unsupported(e.to_string())
            }
            e => CellError::Failed(e.to_string()),
        }
    }
}

impl From<CpuSkinnedError> for CellError {
    fn from(e: CpuSkinnedError) -> Self {
        match e {
            CpuSkinnedError::Render(e) => e.into(),
            e => CellError::Failed(e.to_string()),
        }
    }
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
                &mut |_, _| {},
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

/// CPU model and core count of this machine.
pub fn machine() -> Machine {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == "model name").then(|| v.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    Machine {
        cpu,
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        os: format!("{} {}", std::env::consts::OS, kernel.trim())
            .trim()
            .to_owned(),
    }
}

/// Runs `throng bench`.
pub fn run(args: Args) -> Result<()> {
    if args.instances.is_empty() || args.mode.is_empty() {
        bail!("give at least one instance count and one mode");
    }
    if args.frames == 0 {
        bail!("--frames must be at least 1");
    }
    if args.max_seconds.is_some_and(|s| s.is_nan() || s <= 0.0) {
        bail!("--max-seconds must be positive");
    }
    if let Some(path) = &args.json {
        let mut inputs = vec![args.model.as_path()];
        inputs.extend(args.source.as_deref());
        crate::util::check_output(path, "json", &inputs)?;
    }
    let mut modes = args.mode.clone();
    modes.dedup();
    let (baked, scene) = load(&args)?;
    let lod = &baked.lods[0];
    let model_info = ModelInfo {
        path: args.model.display().to_string(),
        name: baked.name.clone(),
        vertices: lod.vertices.len(),
        triangles: lod.indices.len() / 3,
        submeshes: lod.submeshes.len(),
        bones: baked.bones.len(),
        clips: baked.clips.iter().map(|c| c.name.clone()).collect(),
    };
    let handle = ModelHandle::new(baked)?;
    // The CPU-skinned model, or why there is none.
    let skin: Result<CpuSkinnedModel, String> = match scene {
        _ if !modes.contains(&Mode::CpuSkinned) => Err("not requested".into()),
        Some(scene) => CpuSkinnedModel::new(&handle, scene).map_err(|e| e.to_string()),
        None => Err(format!(
            "cpu-skinned samples the source clips on the CPU; {} is a .throng, so pass the glTF it was baked from with --source",
            args.model.display()
        )),
    };
    if let (true, Err(e)) = (modes.contains(&Mode::CpuSkinned), &skin) {
        bail!("{e}");
    }

    let gpu = Gpu::headless()?;
    let info = gpu.adapter.get_info();
    let adapter = AdapterInfo {
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
    };
    let machine = machine();
    let gpu_model = GpuModel::upload(&gpu.device, &gpu.queue, &handle)?;
    let target = Offscreen::new(&gpu.device, args.size)?;
    eprintln!(
        "throng bench: {} ({} vertices, {} triangles, {} bones) on {}; {} on {} cores; {}×{}, {} warm-up + {} frames per cell",
        model_info.name,
        thousands(model_info.vertices as u64),
        thousands(model_info.triangles as u64),
        model_info.bones,
        adapter.summary,
        machine.cpu,
        machine.cores,
        args.size.0,
        args.size.1,
        args.warmup,
        args.frames,
    );

    let mut results = Vec::new();
    let mut failed = false;
    for &n in &args.instances {
        for &mode in &modes {
            eprint!(
                "  {:<16} {:>10} instances ... ",
                mode.name(),
                thousands(n as u64)
            );
            let cell = Bench {
                args: &args,
                gpu: &gpu,
                handle: &handle,
                gpu_model: &gpu_model,
                skin: skin.as_ref().ok(),
                target: &target,
            }
            .run_cell(mode, n);
            let cell = match cell {
                Ok(c) => c,
                Err(CellError::Unsupported(e)) => Cell::not_run(mode, n, "unsupported", e),
                Err(CellError::Failed(e)) => {
                    failed = true;
                    Cell::not_run(mode, n, "error", e)
                }
            };
            match (&cell.frame_ms, &cell.reason) {
                (Some(f), _) => eprintln!("{:.2} ms median frame", f.median),
                (None, Some(r)) => eprintln!("{}: {r}", cell.status),
                (None, None) => eprintln!("{}", cell.status),
            }
            results.push(cell);
        }
    }
    let baked_over_static = ratios(&results);
    let report = Report {
        schema: "throng-bench/1",
        throng_version: env!("CARGO_PKG_VERSION"),
        machine,
        adapter,
        model: model_info,
        settings: Settings {
            size: [args.size.0, args.size.1],
            frames: args.frames,
            warmup: args.warmup,
            max_seconds: args.max_seconds,
            dt: DT,
            msaa: args.msaa,
            format: format!("{OFFSCREEN_FORMAT:?}"),
            shadows: false,
        },
        results,
        baked_over_static,
    };
    crate::util::write_stdout(&table(&report))?;
    if let Some(path) = &args.json {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let text = serde_json::to_string_pretty(&report)?;
        throng_core::fsio::write_atomic(path, (text + "\n").as_bytes())?;
    }
    if failed {
        bail!("some cells failed (status \"error\" above)");
    }
    Ok(())
}

/// What every cell shares.
struct Bench<'a> {
    args: &'a Args,
    gpu: &'a Gpu,
    handle: &'a ModelHandle,
    gpu_model: &'a GpuModel,
    skin: Option<&'a CpuSkinnedModel>,
    target: &'a Offscreen,
}

impl Bench<'_> {
    /// Runs one (mode, instances) cell on a fresh grid.
    fn run_cell(&self, mode: Mode, n: u32) -> Result<Cell, CellError> {
        let Bench {
            args,
            gpu,
            handle,
            gpu_model,
            skin,
            target,
        } = *self;
        let mut crowd = Crowd::new();
        let id = crowd.add_model(handle);
        let bounds = spawn_grid(
            &mut crowd,
            id,
            &GridOptions {
                count: n,
                ..GridOptions::default()
            },
        )
        .map_err(|e| CellError::Failed(e.to_string()))?;
        let camera = framing_camera(&bounds, target.size.0 as f32 / target.size.1 as f32);
        // Shadows off: the CPU-skinned baseline has no shadow pass, and the
        // comparison is of skinning and drawing, not of lighting.
        let base = RendererOptions {
            sample_count: args.msaa,
            shadows: None,
            ..RendererOptions::default()
        };
        let new_renderer = |options| Renderer::headless(gpu, options);
        let mut drawer = match mode {
            Mode::Baked => Drawer::Baked(Box::new(new_renderer(RendererOptions {
                path: PathChoice::Packaged,
                ..base
            })?)),
            Mode::BakedUnbounded => Drawer::Baked(Box::new(new_renderer(RendererOptions {
                path: PathChoice::Unbounded,
                ..base
            })?)),
            Mode::Static => Drawer::Baked(Box::new(new_renderer(RendererOptions {
                path: PathChoice::Packaged,
                skinning: false,
                ..base
            })?)),
            Mode::CpuSkinned => {
                let skin = skin.expect("checked before the run");
                let renderer = CpuSkinnedRenderer::new(
                    &gpu.adapter,
                    &gpu.device,
                    &gpu.queue,
                    OFFSCREEN_FORMAT,
                    base,
                )?;
                let ids: Vec<InstanceId> = crowd.ids().collect();
                let tints = crowd_tints(&crowd, &ids);
                Drawer::Cpu {
                    renderer: Box::new(renderer),
                    skin,
                    characters: Vec::with_capacity(ids.len()),
                    ids,
                    tints,
                }
            }
        };
        let mut last = FrameStats::default();
        for _ in 0..args.warmup {
            last = drawer.frame(gpu, &mut crowd, target, &camera, gpu_model)?.0;
        }
        let mut samples = Vec::with_capacity(args.frames as usize);
        let started = Instant::now();
        for _ in 0..args.frames {
            let (stats, sample) = drawer.frame(gpu, &mut crowd, target, &camera, gpu_model)?;
            last = stats;
            samples.push(sample);
            if args
                .max_seconds
                .is_some_and(|s| started.elapsed().as_secs_f64() > s)
                && samples.len() >= MIN_MEASURED_FRAMES
            {
                break;
            }
        }
        let cpu: Vec<f64> = samples.iter().map(|s| s.cpu).collect();
        let wait: Vec<f64> = samples.iter().map(|s| s.wait).collect();
        let frame: Vec<f64> = samples.iter().map(|s| s.cpu + s.wait).collect();
        let timestamps: Option<Vec<f64>> = samples.iter().map(|s| s.gpu).collect();
        let (gpu_ms, gpu_source) = match timestamps {
            Some(t) => (Spread::of(&t), "timestamp"),
            None => (Spread::of(&wait), "queue-wall"),
        };
        let frame_ms = Spread::of(&frame);
        Ok(Cell {
            mode,
            instances: n,
            status: "ok",
            reason: None,
            path: Some(drawer.path()),
            visible: Some(last.visible),
            draws: Some(last.draws),
            packages: Some(last.packages),
            triangles: Some(last.triangles),
            upload_bytes: Some(last.record_bytes),
            frames_measured: Some(samples.len()),
            cpu_ms: Some(Spread::of(&cpu)),
            gpu_ms: Some(gpu_ms),
            gpu_source: Some(gpu_source),
            queue_wait_ms: Some(Spread::of(&wait)),
            fps: Some(1e3 / frame_ms.median),
            frame_ms: Some(frame_ms),
        })
    }
}

/// Tints of the crowd's instances, in `ids` order, read from an unculled draw
/// list (single model: records follow instance order). Falls back to white
/// if the records cannot be matched to the ids.
fn crowd_tints(crowd: &Crowd, ids: &[InstanceId]) -> Vec<u32> {
    let mut list = DrawList::default();
    crowd.build_draw_list(None, &mut list);
    let matches = list.records.len() == ids.len()
        && ids.iter().zip(&list.records).all(|(id, r)| {
            crowd.state(*id).is_ok_and(|s| {
                mat4_to_rows(&s.world_from_model).map(|v| v.to_array()) == r.world_from_model
            })
        });
    if matches {
        list.records.iter().map(|r| r.tint).collect()
    } else {
        vec![pack_tint(glam::Vec4::ONE); ids.len()]
    }
}

/// `baked / static` where both ran at the same instance count.
fn ratios(results: &[Cell]) -> Vec<Ratio> {
    let find = |mode, n| {
        results
            .iter()
            .find(|c| c.mode == mode && c.instances == n && c.status == "ok")
    };
    let mut out = Vec::new();
    for c in results.iter().filter(|c| c.mode == Mode::Baked) {
        let (Some(b), Some(s)) = (
            find(Mode::Baked, c.instances),
            find(Mode::Static, c.instances),
        ) else {
            continue;
        };
        let m = |x: &Option<Spread>| x.map_or(f64::NAN, |x| x.median);
        out.push(Ratio {
            instances: c.instances,
            gpu: m(&b.gpu_ms) / m(&s.gpu_ms),
            gpu_source: b.gpu_source.unwrap_or("queue-wall"),
            queue_wait: m(&b.queue_wait_ms) / m(&s.queue_wait_ms),
            cpu: m(&b.cpu_ms) / m(&s.cpu_ms),
            frame: m(&b.frame_ms) / m(&s.frame_ms),
        });
    }
    out
}

/// The readable table.
fn table(r: &Report) -> String {
    use std::fmt::Write;
    let mut s = String::new();
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
    let _ = writeln!(
        s,
        "settings  {}×{}, MSAA {}, shadows off, {} warm-up + {} measured frames per cell, dt = 1/60 s",
        r.settings.size[0],
        r.settings.size[1],
        r.settings.msaa,
        r.settings.warmup,
        r.settings.frames
    );
    let _ = writeln!(
        s,
        "static    same path, records, packages and shading as baked; only the skinning is skipped"
    );
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "{:<16} {:>10} {:>8} {:>12} {:>17} {:>17} {:>10} {:>17} {:>8}",
        "mode",
        "instances",
        "draws",
        "triangles",
        "cpu ms med/p95",
        "gpu ms med/p95",
        "gpu from",
        "frame ms med/p95",
        "fps"
    );
    for c in &r.results {
        let spread = |x: &Option<Spread>| {
            x.map_or_else(|| "-".into(), |x| format!("{:.2}/{:.2}", x.median, x.p95))
        };
        if c.status != "ok" {
            let _ = writeln!(
                s,
                "{:<16} {:>10} {}: {}",
                c.mode.name(),
                thousands(c.instances as u64),
                c.status,
                c.reason.as_deref().unwrap_or("")
            );
            continue;
        }
        let _ = writeln!(
            s,
            "{:<16} {:>10} {:>8} {:>12} {:>17} {:>17} {:>10} {:>17} {:>8.1}",
            c.mode.name(),
            thousands(c.instances as u64),
            thousands(c.draws.unwrap_or(0) as u64),
            thousands(c.triangles.unwrap_or(0)),
            spread(&c.cpu_ms),
            spread(&c.gpu_ms),
            c.gpu_source.unwrap_or("-"),
            spread(&c.frame_ms),
            c.fps.unwrap_or(f64::NAN),
        );
    }
    if !r.baked_over_static.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "baked / static (medians)");
        for q in &r.baked_over_static {
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
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_takes_median_and_nearest_rank_p95() {
        let s = Spread::of(&[5.0, 1.0, 3.0, 2.0, 4.0]);
        assert_eq!((s.median, s.p95, s.min, s.mean), (3.0, 5.0, 1.0, 3.0));
        let even: Vec<f64> = (1..=20).map(f64::from).collect();
        let s = Spread::of(&even);
        assert_eq!((s.median, s.p95), (10.5, 19.0));
        assert_eq!(Spread::of(&[7.0]).p95, 7.0);
    }

    #[test]
    fn mode_names_match_the_command_line() {
        for m in [
            Mode::Baked,
            Mode::BakedUnbounded,
            Mode::Static,
            Mode::CpuSkinned,
        ] {
            let parsed = Mode::from_str(m.name(), false).unwrap();
            assert_eq!(parsed, m);
            assert_eq!(serde_json::to_value(m).unwrap(), m.name());
        }
    }
}
