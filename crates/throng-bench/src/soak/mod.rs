//! The engine of `throng soak`: a crowd kept alive for a set time under
//! churn ([`churn`]) on the record path of choice, its process memory and
//! device bytes sampled every second ([`watch`]), and every K frames its
//! picture compared with a CPU path's drawing of the same crowd within the
//! golden tolerances (`throng_render::image_diff`). It ends at the first
//! frame that errors; otherwise its [`SoakReport`] says what held and what
//! did not (growth past a bound after the warm-up, a picture that
//! drifted).
//!
//! The model is drawn at LOD 0 only (its other LODs and impostor left
//! out): LOD choice keeps per-renderer hysteresis, so a renderer that draws
//! every frame and one that draws only the checked frames may pick
//! different LODs for instances inside a switch's band, which is not a
//! defect.

pub mod churn;
pub mod watch;

use std::time::Instant;

use glam::Vec3;
use throng_core::BakedModel;
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, CrowdError, ModelHandle};
use throng_render::image_diff::{ImageDiff, diff};
use throng_render::{
    Gpu, GpuModel, Offscreen, PathChoice, RecordPath, RenderError, Renderer, RendererOptions,
};

use churn::{Churn, ChurnCounts};
use watch::{Growth, Sample, device_bytes, resident_bytes};

/// Most instances a soak takes (its churn spawns up to a twentieth of
/// them a frame).
pub const MAX_SOAK_INSTANCES: u32 = 10_000_000;

/// Why the resident-memory bound can be switched off: Mesa 22.3's lavapipe
/// (Debian 12's, this project's CI Vulkan) leaks memory every frame that
/// draws anything: about 1.1 MiB a frame from 1 to 500 instances on the
/// unbounded path, whatever the picture's size, and 3.7 MiB a frame for a
/// churned crowd of up to 2,000 on the GPU-driven path. heaptrack
/// puts every leaked byte in allocations made inside `libvulkan_lvp.so` on
/// its own execution threads; wgpu's counts of every device object stay
/// flat, a frame with nothing to draw holds flat, and the same frames on
/// llvmpipe GL (the same Mesa rasteriser behind another front end) hold
/// flat. On lavapipe a soak judges device bytes and pictures, and resident
/// memory on any other adapter.
pub const LAVAPIPE_LEAK: &str = "lavapipe (Mesa 22.3) leaks 1-4 MiB of its own a frame";

/// What to soak.
#[derive(Clone, Debug)]
pub struct SoakOptions {
    /// Largest crowd; its size waves between a quarter of this and this.
    pub instances: u32,
    /// Wall-clock seconds to run.
    pub seconds: f64,
    /// The record path.
    pub path: PathChoice,
    /// Picture size.
    pub size: (u32, u32),
    /// Frames between picture checks (0: none).
    pub check_every: u32,
    /// Seed of the churn.
    pub seed: u32,
    /// Seconds of warm-up, also the period of the size wave (`None`: a
    /// quarter of the run, from 5 to 60 s).
    pub warmup: Option<f64>,
    /// Bytes resident memory may rise above the warm-up's highest (`None`:
    /// not judged — for drivers that leak on their own, see
    /// [`LAVAPIPE_LEAK`]).
    pub rss_bound: Option<u64>,
    /// Bytes device buffers (and textures) may rise above the warm-up's
    /// highest.
    pub gpu_bound: u64,
    /// Simulated seconds a frame.
    pub dt: f32,
}

impl Default for SoakOptions {
    fn default() -> Self {
        Self {
            instances: 2_000,
            seconds: 60.0,
            path: PathChoice::Auto,
            size: (320, 240),
            check_every: 50,
            seed: 1,
            warmup: None,
            rss_bound: Some(32 << 20),
            gpu_bound: 8 << 20,
            dt: 1.0 / 30.0,
        }
    }
}

impl SoakOptions {
    /// Seconds of warm-up and of one wave.
    pub fn warmup_seconds(&self) -> f64 {
        self.warmup
            .unwrap_or((self.seconds / 4.0).clamp(5.0, 60.0))
            .max(1e-3)
    }
}

/// One picture check.
#[derive(Clone, Debug)]
pub struct Check {
    /// The frame checked.
    pub frame: u64,
    /// Live instances.
    pub instances: u32,
    /// Pixels over the level tolerance.
    pub differing: usize,
    /// Mean channel difference, levels.
    pub mean: f64,
    /// Worst pixel's difference, levels.
    pub worst: u8,
    /// Whether it matched within the golden tolerances.
    pub matched: bool,
}

/// What a soak found.
#[derive(Clone, Debug)]
pub struct SoakReport {
    /// The path drawn.
    pub path: RecordPath,
    /// The path its pictures were compared with.
    pub reference: RecordPath,
    /// The adapter.
    pub adapter: String,
    /// A sample a second.
    pub samples: Vec<Sample>,
    /// Frames drawn.
    pub frames: u64,
    /// Picture checks.
    pub checks: Vec<Check>,
    /// What the churn did.
    pub counts: ChurnCounts,
    /// Figures that grew past their bound.
    pub growth: Vec<Growth>,
    /// Warm-up seconds.
    pub warmup: f64,
}

impl SoakReport {
    /// Why the soak failed, one line each (empty: it held).
    pub fn failures(&self) -> Vec<String> {
        let mut out: Vec<String> = self.growth.iter().map(|g| g.to_string()).collect();
        out.extend(self.checks.iter().filter(|c| !c.matched).map(|c| {
            format!(
                "frame {} ({} instances): the {} picture drifted from the {} one: {} pixels differ, mean {:.2} levels, worst {}",
                c.frame,
                c.instances,
                self.path,
                self.reference,
                c.differing,
                c.mean,
                c.worst
            )
        }));
        out
    }
}

/// Why a soak stopped.
#[derive(Debug, thiserror::Error)]
pub enum SoakError {
    /// The renderer or device failed (at a frame, if it says which).
    #[error("{context}")]
    Render {
        /// Where.
        context: String,
        /// Cause.
        #[source]
        source: RenderError,
    },
    /// The crowd refused a change.
    #[error("{context}")]
    Crowd {
        /// Where.
        context: String,
        /// Cause.
        #[source]
        source: CrowdError,
    },
    /// The model is not valid.
    #[error(transparent)]
    Model(#[from] throng_core::FormatError),
}

fn at_frame<E>(frame: u64, wrap: impl Fn(String, E) -> SoakError) -> impl Fn(E) -> SoakError {
    move |e| wrap(format!("frame {frame}"), e)
}

fn render_err(context: String, source: RenderError) -> SoakError {
    SoakError::Render { context, source }
}

fn crowd_err(context: String, source: CrowdError) -> SoakError {
    SoakError::Crowd { context, source }
}

/// Soaks `model` on `gpu` as `opts` say; `progress` sees each sample.
pub fn soak(
    gpu: &Gpu,
    mut model: BakedModel,
    opts: &SoakOptions,
    progress: &mut dyn FnMut(&Sample),
) -> Result<SoakReport, SoakError> {
    model.lods.truncate(1);
    model.impostor = None;
    let handle = ModelHandle::new(model)?;
    let start = Instant::now();
    let mut rig = Rig::new(gpu, &handle, opts)?;

    let mut crowd = Crowd::new();
    let id = crowd.add_model(&handle);
    let mut churn = Churn::new(&mut crowd, id, opts.instances, opts.seed)
        .map_err(|e| crowd_err("setting up the churn".into(), e))?;
    let camera = overview_camera(churn.half_extent(), &handle, opts.size);
    let warmup = opts.warmup_seconds();
    let mut report = SoakReport {
        path: rig.renderer.path(),
        reference: rig.reference.path(),
        adapter: throng_render::adapter_summary(&gpu.adapter),
        samples: Vec::new(),
        frames: 0,
        checks: Vec::new(),
        counts: ChurnCounts::default(),
        growth: Vec::new(),
        warmup,
    };
    let mut next_sample = 0.0;
    loop {
        let seconds = start.elapsed().as_secs_f64();
        if seconds >= next_sample {
            let sample = sample(gpu, seconds, report.frames, churn.len() as u32);
            progress(&sample);
            report.samples.push(sample);
            next_sample += 1.0;
        }
        if seconds >= opts.seconds {
            break;
        }
        let frame = report.frames;
        churn
            .step(&mut crowd, seconds / warmup)
            .map_err(at_frame(frame, crowd_err))?;
        crowd.update(opts.dt);
        let check = opts.check_every > 0 && frame.is_multiple_of(opts.check_every as u64);
        if check {
            let d = rig.compare(gpu, opts.size, &camera, &crowd, frame)?;
            report.checks.push(Check {
                frame,
                instances: churn.len() as u32,
                differing: d.differing,
                mean: d.mean,
                worst: d.worst.2,
                matched: d.within_tolerance((opts.size.0 * opts.size.1) as usize),
            });
        } else {
            rig.draw(gpu, opts.size, &camera, &crowd, frame)?;
        }
        report.frames += 1;
    }
    report.counts = churn.counts;
    report.growth = watch::growth(&report.samples, warmup, opts.rss_bound, opts.gpu_bound);
    Ok(report)
}

/// The camera of a soak: above and in front of the churn's square of
/// half-side `half`, looking at its middle, near and far planes from the
/// model's radius.
fn overview_camera(half: f32, handle: &ModelHandle, size: (u32, u32)) -> Camera {
    let r = handle.model().bounding_radius.max(1e-3);
    Camera::look_at(
        Vec3::new(0.0, half * 1.3, half * 1.9),
        Vec3::ZERO,
        Vec3::Y,
        0.8,
        size.0 as f32 / size.1 as f32,
        r * 0.1,
        half * 8.0 + r * 10.0,
    )
}

/// A sample of the process's resident memory and the device's buffer and
/// texture bytes at `seconds`.
fn sample(gpu: &Gpu, seconds: f64, frames: u64, instances: u32) -> Sample {
    let (gpu_buffers, gpu_textures) = device_bytes(&gpu.device);
    Sample {
        seconds,
        frames,
        instances,
        rss: resident_bytes(),
        gpu_buffers,
        gpu_textures,
    }
}

/// What a soak draws with: the model on the GPU, the renderer on the path
/// of choice, the reference renderer on a CPU-fed path, and the target of
/// the unchecked frames. (Fields in the reverse of their creation, so
/// that they drop as locals would.)
struct Rig {
    /// The target of the unchecked frames.
    target: Offscreen,
    /// The renderer its pictures are compared with: unbounded, or packaged
    /// where the soaked one is unbounded or the adapter has no unbounded
    /// path.
    reference: Renderer,
    /// The renderer soaked.
    renderer: Renderer,
    /// The model on the GPU.
    gpu_model: GpuModel,
}

impl Rig {
    /// Uploads the model and creates both renderers and the target; an
    /// error says which step failed.
    fn new(gpu: &Gpu, handle: &ModelHandle, opts: &SoakOptions) -> Result<Self, SoakError> {
        let setup = |what: &str| {
            let what = what.to_owned();
            move |e| render_err(what.clone(), e)
        };
        let gpu_model = GpuModel::upload(&gpu.device, &gpu.queue, handle)
            .map_err(setup("uploading the model"))?;
        let options = |path| RendererOptions {
            path,
            ..RendererOptions::default()
        };
        let renderer =
            Renderer::headless(gpu, options(opts.path)).map_err(setup("creating the renderer"))?;
        let reference_choice = match renderer.path() {
            RecordPath::Unbounded => PathChoice::Packaged,
            _ => PathChoice::Unbounded,
        };
        let reference = match Renderer::headless(gpu, options(reference_choice)) {
            Err(RenderError::Unsupported(_)) => {
                Renderer::headless(gpu, options(PathChoice::Packaged))
            }
            other => other,
        }
        .map_err(setup("creating the reference renderer"))?;
        let target =
            Offscreen::new(&gpu.device, opts.size).map_err(setup("creating the target"))?;
        Ok(Self {
            target,
            reference,
            renderer,
            gpu_model,
        })
    }

    /// A checked frame: the crowd drawn by both renderers and read back,
    /// and how their pictures differ.
    fn compare(
        &mut self,
        gpu: &Gpu,
        size: (u32, u32),
        camera: &Camera,
        crowd: &Crowd,
        frame: u64,
    ) -> Result<ImageDiff, SoakError> {
        let model = &self.gpu_model;
        let picture = |renderer: &mut Renderer| {
            renderer
                .render_image(gpu, size, camera, &[crowd], &[model])
                .map(|(image, _)| image)
                .map_err(at_frame(frame, render_err))
        };
        let a = picture(&mut self.renderer)?;
        let b = picture(&mut self.reference)?;
        Ok(diff(&a, &b))
    }

    /// An unchecked frame: the crowd drawn into the target, then waited
    /// for.
    fn draw(
        &mut self,
        gpu: &Gpu,
        size: (u32, u32),
        camera: &Camera,
        crowd: &Crowd,
        frame: u64,
    ) -> Result<(), SoakError> {
        self.renderer
            .render(
                &self.target.view,
                size,
                camera,
                &[crowd],
                &[&self.gpu_model],
            )
            .map_err(at_frame(frame, render_err))?;
        // A frame at a time, as a presenting application is.
        gpu.device
            .poll(throng_render::wgpu::PollType::wait_indefinitely())
            .map_err(|e| {
                render_err(format!("frame {frame}"), RenderError::Device(e.to_string()))
            })?;
        Ok(())
    }
}
