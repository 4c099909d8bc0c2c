//! # throng-render
//!
//! The wgpu runtime of Throng. [`GpuModel::upload`] puts a baked model on the
//! GPU (bone texture array, vertex/index buffers, materials);
//! [`Renderer::render`] draws [`throng_crowd::crowd::Crowd`]s on one of three
//! paths: GPU-driven (instances kept on the GPU, compute culling and LOD,
//! indirect draws; the CPU uploads only what changed), unbounded (one record
//! per visible instance built on the CPU, one draw per group) or packaged
//! (the downlevel path: one draw per package of at most
//! [`throng_core::limits::PACKAGE_WIDTH`] records). The WGSL vertex shader samples, interpolates and
//! cross-fades baked frames; [`SkinCompute`] runs the same skinning function
//! in a compute pass for exact comparison with the CPU.
//!
//! Modules: [`context`] (getting a device), [`model`], [`renderer`],
//! [`impostor`] (a model's animated impostor on the GPU), [`compute`], [`palette`] (the palette pre-pass: animation layers evaluated once per bone), [`mirror`] (the GPU-driven path's crowd on the GPU,
//! uploading only what changed), [`motion`] (its motion pass: moving
//! instances' transforms of the frame from their analytic motions),
//! [`simulation`] (the GPU simulation hook: a user's WGSL steering the
//! crowd's simulated instances), [`readback`] (chosen instances' poses
//! back from the GPU, asynchronously), [`cull`] (its cull pass: GPU-built draw
//! lists and indirect draw arguments, which the [`Renderer`] draws on its
//! GPU-driven path), [`offscreen`] (headless targets and readback),
//! [`image_file`] (image outputs: format by extension, atomic writes),
//! [`fog`] (distance fog, part of the lighting),
//! [`image_diff`] (how far apart two pictures are, with the golden tolerances),
//! [`device_loss`] (a lost device as an error, and how to recover), [`shader`]
//! (WGSL sources and the generated prelude), [`bind_groups`], [`uniforms`],
//! [`error`].

pub mod bind_groups;
pub mod compute;
pub mod context;
pub mod cull;
pub mod device_loss;
mod draw_items;
pub mod error;
pub mod fog;
pub mod gpu_material;
pub mod image_diff;
pub mod image_file;
pub mod impostor;
pub mod light_fit;
pub mod look;
pub mod map_state;
pub mod mirror;
pub mod model;
pub mod motion;
pub mod offscreen;
pub mod options;
pub mod palette;
pub mod pipeline;
pub mod pose_cache;
pub mod readback;
pub mod renderer;
pub mod shader;
pub mod shadow;
pub mod simulation;
pub mod targets;
pub mod timer;
pub mod uniforms;

pub use compute::{SkinCompute, SkinnedVertex};
pub use context::{Gpu, adapter_summary, require_gpu};
pub use error::RenderError;
pub use fog::{Fog, FogFalloff};
pub use gpu_material::TextureUpload;
pub use model::GpuModel;
pub use offscreen::{OFFSCREEN_FORMAT, Offscreen};
pub use pipeline::PassPipeline;
pub use readback::{PoseReadback, ReadPose};
pub use renderer::{
    ColorPipeline, CustomFragment, DepthConvention, FrameStats, Lighting, PathChoice, PipelineKey,
    PoseCacheOptions, RecordPath, Renderer, RendererOptions, Shading, Targets,
};
pub use simulation::{Simulation, SimulationHook};
pub use wgpu;
