//! The render tests' scenes, built one way: a camera ([`View`]) looking at
//! instances laid out in a row ([`Row`]), each spawned with the usual pose
//! (clip by its place, time stepped along the row), gathered into a crowd
//! ([`crowd_of`]), drawn by a headless renderer on a record path into a
//! picture ([`picture`], or [`renderer`], [`upload`] and [`draw`] where a
//! test keeps its renderer or models between pictures); and the GPU-driven
//! path checked against the CPU's, frame by frame ([`BesideCpu`]).

use std::path::PathBuf;

use glam::{Mat4, Vec3};
use image::RgbaImage;
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, ModelHandle, Spawn};
use throng_render::{FrameStats, Gpu, GpuModel, PathChoice, RecordPath, Renderer, RendererOptions};

use crate::golden::assert_images_match;

/// Every record path, cheapest first.
pub const EVERY_PATH: [PathChoice; 3] = [
    PathChoice::Packaged,
    PathChoice::Unbounded,
    PathChoice::GpuDriven,
];

/// Where the camera stands and what it sees; +Y is up.
#[derive(Clone, Copy, Debug)]
pub struct View {
    /// The eye.
    pub eye: Vec3,
    /// The point looked at.
    pub target: Vec3,
    /// Vertical field of view, radians.
    pub fov: f32,
    /// Near and far planes.
    pub depth: (f32, f32),
}

impl View {
    /// The camera of this view for a picture of `size` (its aspect ratio).
    pub fn camera(&self, size: (u32, u32)) -> Camera {
        Camera::look_at(
            self.eye,
            self.target,
            Vec3::Y,
            self.fov,
            size.0 as f32 / size.1 as f32,
            self.depth.0,
            self.depth.1,
        )
    }
}

/// A row of Foxes three across, from the front and above: the
/// texture-transform test's and the variety tests' view ([`FOX_ROW`]).
pub const FOX_ROW_VIEW: View = View {
    eye: Vec3::new(0.0, 80.0, 260.0),
    target: Vec3::new(0.0, 35.0, 0.0),
    fov: 45f32.to_radians(),
    depth: (1.0, 5000.0),
};

/// Instances in a row: the `i`th stands at `first + i × step`, plays clip
/// `i % clips` from `i × time_step` seconds.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    /// Where the first stands.
    pub first: Vec3,
    /// From one to the next.
    pub step: Vec3,
    /// How many clips the poses cycle through.
    pub clips: usize,
    /// Seconds into its clip, per place along the row.
    pub time_step: f32,
}

impl Row {
    /// Where instance `i` stands.
    pub fn at(&self, i: usize) -> Vec3 {
        self.first + self.step * i as f32
    }

    /// Instance `i`'s spawn: at its place, in its clip at its time; the
    /// rest as [`Spawn::default`].
    pub fn spawn(&self, i: usize) -> Spawn {
        Spawn {
            transform: Mat4::from_translation(self.at(i)),
            clip: Some(i % self.clips),
            time: self.time_step * i as f32,
            ..Spawn::default()
        }
    }

    /// The spawns of the row's first `count` instances, with their models.
    pub fn of<'a>(
        &self,
        model: &'a ModelHandle,
        count: usize,
    ) -> impl Iterator<Item = (&'a ModelHandle, Spawn)> + use<'a> {
        let row = *self;
        (0..count).map(move |i| (model, row.spawn(i)))
    }
}

/// Three Foxes 90 units apart, in clips 0, 1 and 2 at 0, 0.3 and 0.6 s.
pub const FOX_ROW: Row = Row {
    first: Vec3::new(-90.0, 0.0, 0.0),
    step: Vec3::new(90.0, 0.0, 0.0),
    clips: 3,
    time_step: 0.3,
};

/// A crowd of one instance per `(model, spawn)`, in order, updated to
/// time 0.
pub fn crowd_of<'a>(instances: impl IntoIterator<Item = (&'a ModelHandle, Spawn)>) -> Crowd {
    let mut crowd = Crowd::new();
    for (handle, spawn) in instances {
        let model = crowd.add_model(handle);
        crowd
            .spawn(model, spawn)
            .unwrap_or_else(|e| panic!("spawn: {e}"));
    }
    crowd.update(0.0);
    crowd
}

/// A headless renderer with `options`.
pub fn renderer(gpu: &Gpu, options: RendererOptions) -> Renderer {
    let path = options.path;
    Renderer::headless(gpu, options)
        .unwrap_or_else(|e| panic!("{path:?}: a headless renderer: {e}"))
}

/// `handles` uploaded to `gpu`.
pub fn upload(gpu: &Gpu, handles: &[&ModelHandle]) -> Vec<GpuModel> {
    handles
        .iter()
        .map(|h| {
            GpuModel::upload(&gpu.device, &gpu.queue, h)
                .unwrap_or_else(|e| panic!("uploading {}: {e}", h.model().name))
        })
        .collect()
}

/// One frame of `crowds` (with their `models`) seen by `camera`, drawn by
/// `renderer` into a fresh picture of `size`, with the frame's statistics.
pub fn draw(
    renderer: &mut Renderer,
    gpu: &Gpu,
    size: (u32, u32),
    camera: &Camera,
    crowds: &[&Crowd],
    models: &[&GpuModel],
) -> (RgbaImage, FrameStats) {
    renderer
        .render_image(gpu, size, camera, crowds, models)
        .unwrap_or_else(|e| panic!("{:?}: {e}", renderer.options().path))
}

/// [`draw`] by a fresh renderer with `options`, `handles` freshly uploaded.
pub fn picture(
    gpu: &Gpu,
    options: RendererOptions,
    size: (u32, u32),
    camera: &Camera,
    crowds: &[&Crowd],
    handles: &[&ModelHandle],
) -> (RgbaImage, FrameStats) {
    let models = upload(gpu, handles);
    let models: Vec<&GpuModel> = models.iter().collect();
    draw(
        &mut renderer(gpu, options),
        gpu,
        size,
        camera,
        crowds,
        &models,
    )
}

/// The GPU-driven path beside the CPU's unbounded path, drawing the same
/// frames: each frame's counts must be equal, and its pictures equal within
/// the golden tolerance.
pub struct BesideCpu {
    gpu_driven: Renderer,
    cpu: Renderer,
    dir: PathBuf,
}

impl BesideCpu {
    /// Both renderers, with `options` but for the path; panics unless the
    /// adapter runs the GPU-driven path. A picture that differs is written
    /// under the temporary folder `dir`.
    pub fn new(gpu: &Gpu, options: RendererOptions, dir: &str) -> Self {
        let on = |path| {
            renderer(
                gpu,
                RendererOptions {
                    path,
                    ..options.clone()
                },
            )
        };
        let gpu_driven = on(PathChoice::GpuDriven);
        assert_eq!(
            gpu_driven.path(),
            RecordPath::GpuDriven,
            "the test adapter runs the GPU-driven path"
        );
        Self {
            gpu_driven,
            cpu: on(PathChoice::Unbounded),
            dir: std::env::temp_dir().join(dir),
        }
    }

    /// One frame drawn by both (`name` in failures): panics unless their
    /// instance, visible and shadow-caster counts are equal and their
    /// pictures alike; the GPU-driven path's picture and statistics.
    pub fn frame(
        &mut self,
        gpu: &Gpu,
        name: &str,
        size: (u32, u32),
        camera: &Camera,
        crowds: &[&Crowd],
        models: &[&GpuModel],
    ) -> (RgbaImage, FrameStats) {
        let (a, sa) = draw(&mut self.gpu_driven, gpu, size, camera, crowds, models);
        let (b, sb) = draw(&mut self.cpu, gpu, size, camera, crowds, models);
        // The GPU-driven path's occlusion culling draws fewer than the
        // frustum passes: those it found occluded.
        assert_eq!(
            (sa.instances, sa.visible + sa.occluded, sa.shadow_casters),
            (sb.instances, sb.visible, sb.shadow_casters),
            "{name}: counts"
        );
        assert_images_match(name, &b, &a, &self.dir);
        (a, sa)
    }
}
