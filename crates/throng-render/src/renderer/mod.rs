//! [`Renderer`]: draws crowds of baked models.
//!
//! Per frame: every crowd builds its draw list (one 96-byte record per
//! visible instance, grouped by model and LOD); all records of the frame are
//! written to one buffer with one upload; then each group is drawn, either in
//! packages of at most [`PACKAGE_WIDTH`](throng_core::limits::PACKAGE_WIDTH) records bound as a uniform buffer
//! with a dynamic offset ([`RecordPath::Packaged`], works on every adapter
//! including downlevel/WebGL2), or as one draw per group over a storage
//! buffer ([`RecordPath::Unbounded`], where the vertex stage can read storage
//! buffers). [`PathChoice::Auto`] picks the unbounded path when available.
//!
//! The same [`Renderer::render`] serves the viewer, the CLI and the tests.
//!
//! A frame is [`Renderer::prepare`] (CPU work and the renderer's own depth
//! and MSAA targets), then [`Renderer::encode`] or [`Renderer::encode_with`]
//! (the shadow pass and a crowd pass Throng begins). An application with a
//! render pass of its own embeds the crowd in it instead:
//! [`Renderer::prepare_draws`] (no targets), [`Renderer::encode_shadows`]
//! into its encoder, then [`Renderer::draw`] inside its pass (see the
//! `throng-examples` package). [`RendererOptions::fragment`] replaces
//! Throng's fragment stage with the user's own ([`CustomFragment`]).
//!
//! On adapters with compute shaders and indirect draws,
//! [`RecordPath::GpuDriven`] (the default there) keeps the instances on
//! the GPU and culls them in a compute pass (`gpu_driven/`),
//! and frames the renderer records its own passes for are occlusion-culled
//! in two phases (`renderer/occlusion.rs`); renderers of several views can
//! share the crowds' mirrors (`renderer/mirrors.rs`); an engine's own
//! shadow views (its cascades) get the crowd's casters through
//! [`Renderer::prepare_light_views`] and [`Renderer::draw_light_view`]
//! (`renderer/light_views.rs`), and its prepass (depth, normals, motion
//! vectors) the crowd through [`Renderer::set_prepass`] and
//! [`Renderer::draw_prepass`] (`renderer/prepass.rs`).
//!
//! Elsewhere in the crate: the options (`base/options.rs`), the pipeline
//! kit (`program/pipeline.rs`), the depth and MSAA attachments
//! (`draw/targets.rs`), the layout of draw lists into draws
//! (`draw/items.rs`), and the features in folders of their own, each with
//! its owner and its WGSL: shadows (`shadow/`, `Shadows`), occlusion
//! culling (`occlusion/`), a caller's prepass (`prepass/`), impostors
//! (`impostor/`), the pose cache (`pose_cache/`) and the GPU simulation
//! (`simulation/`). The renderer holds one field per feature and hands
//! each what it reads of the frame; the GPU-driven path's culls are its
//! owner's (`GpuDriven::cull`, `gpu_driven/cull.rs`). Beside this
//! file in `renderer/`, one file per part of the frame: making a renderer
//! (`build.rs`), planning a frame on the CPU paths (`prepare.rs`) and on
//! the GPU-driven path (`gpu_frame.rs`, `gpu_draws.rs`), its
//! records uploaded (`records.rs`), its passes encoded (`frame.rs`,
//! `draw.rs`), the shadow pass and a caller's cascades (`shadows.rs`),
//! the animation layers' palettes (`layers.rs`), the pose cache's part of
//! planning (`poses.rs`), simulation hooks (`simulate.rs`) and headless
//! drawing (`headless.rs`).

use std::collections::HashMap;

use throng_crowd::crowd::DrawList;

use crate::base::error::RenderError;
pub use crate::base::options::{
    CustomFragment, DEPTH_FORMAT, DepthConvention, FrameStats, Lighting, PathChoice,
    PoseCacheOptions, RecordPath, RendererOptions, Shading, ShadowOptions,
};
use crate::device::device_loss::DeviceLoss;
use crate::draw::items::DrawItem;
pub use crate::draw::targets::Targets;
use crate::impostor::ImpostorPipelines;
use crate::pose_cache::PoseCache;
pub use crate::prepass::PrepassTarget;
pub use crate::program::pipeline::{ColorPipeline, PipelineKey};
use crate::shadow::Shadows;
pub use crate::shadow::{LightView, LightViewStats, LightViewTarget};

mod build;
mod draw;
mod frame;
mod gpu_draws;
mod gpu_frame;
mod headless;
mod layers;
mod light_views;
mod mirrors;
mod occlusion;
mod poses;
mod prepare;
mod prepass;
mod records;
mod shadows;
mod simulate;
pub use crate::gpu_driven::supports_gpu_driven;
pub use crate::program::supports_unbounded;

/// Draws crowds. See the module docs.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    color_format: wgpu::TextureFormat,
    options: RendererOptions,
    path: RecordPath,
    module: wgpu::ShaderModule,
    pipeline_layout: wgpu::PipelineLayout,
    pipelines: HashMap<PipelineKey, wgpu::RenderPipeline>,
    frame_buffer: wgpu::Buffer,
    frame_bind_group: wgpu::BindGroup,
    /// The CPU paths' records of the frame on the GPU (`records.rs`).
    records: records::Records,
    draw_lists: Vec<DrawList>,
    items: Vec<DrawItem>,
    targets: Option<Targets>,
    /// GPU time per pass, where the device has timestamp queries.
    timer: Option<crate::device::pass_timer::PassTimer>,
    /// The shadow map, a caller's cascades and light views (`shadow/`).
    shadows: Shadows,
    /// The GPU-driven path's mirrors, cull lists and pipelines.
    gpu: Option<crate::gpu_driven::GpuDriven>,
    /// Two-phase occlusion culling, where the path and device allow it.
    occlusion: Option<crate::occlusion::Occlusion>,
    /// The impostors' programs and pipelines.
    impostors: ImpostorPipelines,
    /// Animation layers on the CPU-list path: the palettes and pre-pass.
    layers: layers::LayerDraws,
    /// The storage paths' per-(model, LOD) group 1 and pose caches
    /// (empty and unused on the packaged path).
    poses: std::sync::Arc<std::sync::Mutex<PoseCache>>,
    /// The device's loss, where it is watched ([`Self::set_device_loss`]).
    loss: Option<DeviceLoss>,
    /// The caller's prepass, once set (`renderer/prepass.rs`).
    prepass: Option<crate::prepass::Prepass>,
}

impl Renderer {
    /// Watches `loss` (the device's, [`DeviceLoss::watch`]): after it, every
    /// frame is [`RenderError::DeviceLost`] ([`crate::device::device_loss`]).
    /// [`Self::headless`] does this with the [`crate::Gpu`]'s.
    pub fn set_device_loss(&mut self, loss: DeviceLoss) {
        self.loss = Some(loss);
    }

    /// [`RenderError::DeviceLost`] if the watched device was lost (every
    /// frame checks this first; an application can ask before it advances
    /// its own state for a frame). wgpu runs the lost callback in a poll:
    /// this polls without blocking (a check of the queue's fences).
    pub fn check_device(&self) -> Result<(), RenderError> {
        match &self.loss {
            Some(loss) => {
                let _ = self.device.poll(wgpu::PollType::Poll);
                loss.check()
            }
            None => Ok(()),
        }
    }

    /// `e`, or [`RenderError::DeviceLost`] if the device was lost meanwhile.
    pub(crate) fn lost_or(&self, e: RenderError) -> RenderError {
        match self.loss.as_ref().and_then(DeviceLoss::lost) {
            Some(why) => RenderError::DeviceLost(why),
            None => e,
        }
    }

    /// The record path in use.
    pub fn path(&self) -> RecordPath {
        self.path
    }

    /// The options.
    pub fn options(&self) -> &RendererOptions {
        &self.options
    }

    /// Changes lighting and clear colour (the path and MSAA are fixed).
    pub fn set_lighting(&mut self, lighting: Lighting, clear_color: wgpu::Color) {
        self.options.lighting = lighting;
        self.options.clear_color = clear_color;
    }

    /// Enables or disables frustum culling.
    pub fn set_frustum_culling(&mut self, on: bool) {
        self.options.frustum_culling = on;
    }

    /// Tints instances by LOD (or not).
    pub fn set_lod_tints(&mut self, on: bool) {
        self.options.lod_tints = on;
    }

    /// Draw lists of the last prepared frame, one per crowd.
    pub fn draw_lists(&self) -> &[DrawList] {
        &self.draw_lists
    }
}
