//! The crowd view the JavaScript API drives, on any platform: a
//! [`Scene`] (renderer, crowd, camera, ground) that models are added to
//! after it is made, instances named by plain `u32` handles, batched
//! edits in [`batch`], steering from obstacles and goals in [`steer`].
//! The wasm binding (`api`) wraps it with a canvas and a frame loop; the
//! browser test's native picture and the tests here drive it directly, so
//! the browser and the native renderer run the same code for a scene.

pub mod batch;
pub mod steer;

use anyhow::{Context, Result, bail};
use glam::Vec3;
use throng_crowd::crowd::{Crowd, InstanceId, ModelHandle, ModelId};
use throng_examples::{AppGpu, OrbitCamera, SAMPLES, SKY, Scene};
use throng_render::{FrameStats, RendererOptions};

/// How a view draws.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewOptions {
    /// Two-phase occlusion culling where the path is GPU-driven.
    pub occlusion: bool,
    /// Half the side of the checkered ground square about the origin,
    /// world units (0: no ground).
    pub ground_half: f32,
    /// Side of one checker, world units.
    pub ground_cell: f32,
    /// The record path (`Auto`: the best the adapter allows).
    pub path: throng_render::PathChoice,
}

impl Default for ViewOptions {
    fn default() -> Self {
        Self {
            occlusion: true,
            ground_half: 0.0,
            ground_cell: 1.0,
            path: throng_render::PathChoice::Auto,
        }
    }
}

/// A model of the view, as [`View::add_model`] returned it.
struct ViewModel {
    handle: ModelHandle,
    id: ModelId,
    /// Where it came from, for errors ("fox.throng").
    name: String,
}

/// A crowd, its models and its camera, drawn into a caller's colour view.
pub struct View {
    /// What is drawn: the renderer, the crowd, the camera, the ground.
    pub scene: Scene,
    models: Vec<ViewModel>,
    /// Handle `h` is `instances[h]` while it lives.
    instances: Vec<Option<InstanceId>>,
    /// The steering's positions, when the crowd is steered ([`steer`]).
    pub(crate) steered: Option<steer::SteeredCrowd>,
}

impl View {
    /// An empty view drawing into colour views of `format` (sRGB), with
    /// Throng's default path choice, shadows and 4× MSAA.
    pub fn new(gpu: AppGpu, format: wgpu::TextureFormat, options: ViewOptions) -> Result<Self> {
        let (half, cell) = (options.ground_half, options.ground_cell);
        let good = half.is_finite() && half >= 0.0 && cell.is_finite() && cell > 0.0;
        if !good {
            bail!(
                "the ground's half side ({}) must be ≥ 0 and its cell ({}) > 0",
                options.ground_half,
                options.ground_cell
            );
        }
        let renderer = RendererOptions {
            sample_count: SAMPLES,
            clear_color: SKY,
            occlusion: options.occlusion,
            path: options.path,
            ..Default::default()
        };
        let half = options.ground_half.max(options.ground_cell);
        let mut scene = Scene::with_mixed_crowd(
            gpu,
            format,
            &[],
            Crowd::new(),
            half,
            options.ground_cell,
            renderer,
        )?;
        scene.show_ground = options.ground_half > 0.0;
        Ok(Self {
            scene,
            models: Vec::new(),
            instances: Vec::new(),
            steered: None,
        })
    }

    /// Adds a loaded model (`name`: where it came from, for errors);
    /// returns its index, the `model` argument of [`Self::spawn`].
    pub fn add_model(&mut self, gpu: AppGpu, handle: ModelHandle, name: &str) -> Result<u32> {
        self.scene
            .add_model(gpu, &handle)
            .with_context(|| format!("uploading {name}"))?;
        let id = self.scene.crowd.add_model(&handle);
        self.models.push(ViewModel {
            handle,
            id,
            name: name.to_owned(),
        });
        Ok(self.models.len() as u32 - 1)
    }

    /// Model `model`'s handle, its crowd id and its name.
    fn model(&self, model: u32) -> Result<(&ModelHandle, ModelId, &str)> {
        let m = self.models.get(model as usize).with_context(|| {
            format!(
                "model {model} is not loaded (the view has {})",
                self.models.len()
            )
        })?;
        Ok((&m.handle, m.id, &m.name))
    }

    /// The clip names of `model`, in index order (the `clips` arguments).
    pub fn clip_names(&self, model: u32) -> Result<Vec<String>> {
        let (handle, ..) = self.model(model)?;
        Ok(handle
            .model()
            .clips
            .iter()
            .map(|c| c.name.clone())
            .collect())
    }

    /// The box of `model`'s rest pose and clips: min x, y, z, max x, y, z.
    pub fn model_bounds(&self, model: u32) -> Result<Vec<f32>> {
        let (handle, ..) = self.model(model)?;
        let b = handle.model().bounds;
        Ok([b.min.to_array(), b.max.to_array()].concat())
    }

    /// The models' crowd ids, in the order they were added.
    pub fn model_ids(&self) -> Vec<ModelId> {
        self.models.iter().map(|m| m.id).collect()
    }

    /// The models' handles, in the order they were added.
    pub fn handles(&self) -> Vec<ModelHandle> {
        self.models.iter().map(|m| m.handle.clone()).collect()
    }

    /// Live instances.
    pub fn len(&self) -> usize {
        self.scene.crowd.len()
    }

    /// True without live instances.
    pub fn is_empty(&self) -> bool {
        self.scene.crowd.is_empty()
    }

    /// Draws a checkered ground of half side `half` about the origin, with
    /// checkers of side `cell` (`half` 0: no ground).
    pub fn set_ground(&mut self, device: &wgpu::Device, half: f32, cell: f32) -> Result<()> {
        if !(half.is_finite() && half >= 0.0 && cell.is_finite() && cell > 0.0) {
            bail!("setGround: the half side ({half}) must be ≥ 0 and the cell ({cell}) > 0");
        }
        self.scene.set_ground(device, half.max(cell), cell)?;
        self.scene.show_ground = half > 0.0;
        Ok(())
    }

    /// Puts the camera at `eye` looking at `target` (world units).
    pub fn look_at(&mut self, eye: Vec3, target: Vec3) -> Result<()> {
        let d = eye - target;
        let distance = d.length();
        if !eye.is_finite() || !target.is_finite() || distance < 1e-6 {
            bail!("look_at: the eye {eye} and the target {target} must be finite and apart");
        }
        self.scene.camera = OrbitCamera {
            target,
            distance,
            yaw: d.x.atan2(d.z),
            pitch: (d.y / distance).clamp(-1.0, 1.0).asin(),
        };
        Ok(())
    }

    /// Advances the crowd's clock (clips, fades, motions, the steering) by
    /// `seconds`.
    pub fn advance(&mut self, seconds: f32) -> Result<()> {
        if !seconds.is_finite() || seconds < 0.0 {
            bail!("advance: {seconds} seconds (must be finite and ≥ 0)");
        }
        self.scene.crowd.update(seconds);
        Ok(())
    }

    /// Draws a frame into `view` (of `size`, the view's format) through
    /// the renderer's own passes — occlusion culled where the path allows
    /// ([`Scene::render_recorded`]) — and submits it.
    pub fn render(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        view: &wgpu::TextureView,
        size: (u32, u32),
    ) -> Result<FrameStats> {
        self.scene.render_recorded(device, queue, view, size)
    }
}
