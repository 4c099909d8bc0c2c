//! # throng-render
//!
//! The wgpu runtime of Throng. [`GpuModel::upload`] puts a baked model on the
//! GPU (bone texture array, vertex/index buffers, materials);
//! [`Renderer::render`] draws [`throng_crowd::crowd::Crowd`]s on one of three
//! paths: GPU-driven (instances kept on the GPU, compute culling and LOD,
//! indirect draws; the CPU uploads only what changed), unbounded (one record
//! per visible instance built on the CPU, one draw per group) or packaged
//! (the downlevel path: one draw per package of at most
//! [`throng_core::limits::PACKAGE_WIDTH`] records). The WGSL vertex shader
//! samples, interpolates and cross-fades baked frames; [`SkinCompute`] runs
//! the same skinning function in a compute pass for exact comparison with
//! the CPU.
//!
//! The crate is a house of floors; a module imports only from its own floor's
//! lower files and from the floors below (ARCHITECTURE.md draws it, and
//! `tools/floors.py` checks it):
//!
//! | floor | folders | what lives there |
//! |---|---|---|
//! | 8 | `renderer` | the [`Renderer`] façade: planning, uploading and encoding a frame, the GPU-driven frame's side, headless drawing |
//! | 7 | `gpu_driven` | the GPU-driven path, a feature in a folder: its owner, a crowd's indirect draws planned, a frame's culls, the counts read back |
//! | 6 | [`shadow`], [`occlusion`], `prepass` | features in folders, Rust beside WGSL: shadows (their owner, the shadow map, the GPU's light fit, a caller's cascades and light views), two-phase occlusion culling, a caller's prepass |
//! | 5 | `draw` | draw items and their layout, depth and MSAA targets |
//! | 4 | `passes`, [`simulation`] | compute passes (motion, the crowd's mirror, cull, pose readback, palette pre-pass, compute skinning); the GPU simulation |
//! | 3 | `model`, [`impostor`], [`pose_cache`] | a model on the GPU ([`GpuModel`], materials, look, shared frames); its impostor; its cached poses |
//! | 2 | `program` | bind-group and pipeline layouts, the pipeline kit, what the storage paths need of an adapter |
//! | 1 | `device` | a device and its loss, timing, buffers, small textures, offscreen targets, image files |
//! | 0 | `base` | uniforms, fog, options, WGSL composition, errors |
//!
//! The floors are private: their modules are re-exported here under their
//! own names, each at that one path (`throng_render::cull`,
//! `throng_render::pose_cache`, …), so callers need not know the floor a
//! module lives on, and a module moving between floors changes no
//! caller. A feature in a folder of its own is public under its name
//! ([`shadow`], [`occlusion`], [`simulation`], [`impostor`],
//! [`pose_cache`]); the GPU-driven path's and the prepass's owners are
//! the renderer's alone.
//!
//! ## Example
//!
//! A baked model uploaded and a crowd of it drawn headless into an image (a
//! window's application records [`Renderer::prepare_draws`] and
//! [`Renderer::draw`] into its own render pass instead; see the `throng`
//! crate and the repository's `examples/`):
//!
//! ```no_run
//! use throng_core::glam::{Mat4, Vec3};
//! use throng_crowd::camera::Camera;
//! use throng_crowd::{Crowd, ModelHandle, Spawn};
//! use throng_render::{Gpu, GpuModel, Renderer, RendererOptions};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let model = ModelHandle::new(throng_core::format::read_file("fox.throng".as_ref())?)?;
//! let mut crowd = Crowd::new();
//! let fox = crowd.add_model(&model);
//! crowd.spawn(fox, Spawn { transform: Mat4::IDENTITY, clip: Some(0), ..Spawn::default() })?;
//!
//! let gpu = Gpu::headless()?; // an error, not a panic, without an adapter
//! let mut renderer = Renderer::headless(&gpu, RendererOptions::default())?;
//! println!("drawing on {} by the {} path", gpu.adapter_summary(), renderer.path());
//! let gpu_model = GpuModel::upload(&gpu.device, &gpu.queue, &model)?;
//! let camera = Camera::look_at(Vec3::new(0.0, 80.0, -250.0), Vec3::new(0.0, 50.0, 0.0), Vec3::Y, 0.8, 1.0, 1.0, 1e4);
//! let (image, _stats) = renderer.render_image(&gpu, (512, 512), &camera, &[&crowd], &[&gpu_model])?;
//! image.save("fox.png")?;
//! # Ok(())
//! # }
//! ```

mod base;
mod device;
mod draw;
mod gpu_driven;
pub mod impostor;
mod model;
pub mod occlusion;
mod passes;
pub mod pose_cache;
mod prepass;
mod program;
mod renderer;
pub mod shadow;
pub mod simulation;

pub use base::{error, fog, options, shader, uniforms};
pub use device::{
    context, device_loss, image_diff, image_file, map_state, offscreen, pass_timer, timer,
};
pub use draw::targets;
pub use model::{look, material, shared_frames};
pub use passes::{compute, cull, foot_ik, mirror, motion, palette, readback};
pub use program::{bind_groups, pipeline};

pub use base::error::RenderError;
pub use base::fog::{Fog, FogFalloff};
pub use device::context::{Gpu, adapter_summary};
pub use device::offscreen::{OFFSCREEN_FORMAT, Offscreen};
pub use model::material::TextureUpload;
pub use model::{GpuLod, GpuMaterial, GpuModel, GpuSubmesh, SharedFrames, check_limits};
pub use passes::compute::{SkinCompute, SkinnedVertex};
pub use passes::readback::{MAX_READBACK, PoseReadback, ReadPose};
pub use program::pipeline::PassPipeline;
pub use renderer::{
    ColorPipeline, CustomFragment, DEPTH_FORMAT, DepthConvention, FrameStats, LightView,
    LightViewStats, LightViewTarget, Lighting, PathChoice, PipelineKey, PoseCacheOptions,
    PrepassTarget, RecordPath, Renderer, RendererOptions, Shading, ShadowOptions, Targets,
    supports_gpu_driven, supports_unbounded,
};
pub use simulation::{Simulation, SimulationHook};
pub use wgpu;
