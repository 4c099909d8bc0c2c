//! [`CpuSkinnedRenderer`]: the per-character baseline that
//! `throng bench --mode cpu-skinned` measures Throng against: the way
//! three.js and Bevy animate characters.
//!
//! Per frame, for every visible character, the CPU
//! 1. samples the character's clip from the **source scene** at the
//!    character's own time ([`PoseEvaluator::locals`](throng_bake::sample::PoseEvaluator::locals)) and evaluates the node
//!    hierarchy ([`PoseEvaluator::globals_from_locals`](throng_bake::sample::PoseEvaluator::globals_from_locals)), cross-fading two
//!    clips when the character is fading;
//! 2. computes the joint palette for the baked model's palette entries,
//!    `P_b = G_node(b) · inverse_bind_b` (the bake's palette already holds the
//!    rigid-mesh entries, so this is exactly the per-bone matrix the bone
//!    texture stores), and writes it, behind a [`CharacterHeader`](throng_render::uniforms::CharacterHeader) with the
//!    world matrix and tint, into a staging buffer at an offset aligned to
//!    the device's storage-offset alignment.
//!
//! All characters' slices then go to the GPU with **one** `write_buffer`, and
//! each character is drawn with one draw per submesh that binds its slice
//! with a dynamic offset; `shaders/cpu_skinned.wgsl` blends the 4
//! influences from that palette. Mesh, materials and fragment shading are the
//! baked model's ([`GpuModel`](throng_render::GpuModel), `draw.wgsl`'s `fs_main`), so the only
//! difference from [`throng_render::Renderer`] is where the palette comes from and
//! how many draws it takes.
//!
//! The sampler is throng-bake's plain reference evaluator (all nodes'
//! locals, then all globals, per character), not a tuned one: a hand-tuned
//! engine would sample faster, but does the same O(joints) work per
//! character per frame.
//!
//!
//! Files: the CPU side — the model's source scene and each character's
//! pose — (`model`), and the renderer that uploads and draws their
//! palettes (`renderer`).

use thiserror::Error;
use throng_render::error::RenderError;
use throng_render::wgpu;

mod model;
mod renderer;

pub use model::{Character, CpuSkinnedModel};
pub use renderer::{Cast, CpuSkinnedRenderer};

/// Errors of CPU palette skinning.
#[derive(Debug, Error)]
pub enum CpuSkinnedError {
    /// The source scene is not the one the model was baked from.
    #[error(
        "the source scene does not match model {model:?}: {what}; pass the glTF file the model was baked from"
    )]
    SceneMismatch {
        /// Model name.
        model: String,
        /// What did not match.
        what: String,
    },
    /// A GPU-side error.
    #[error(transparent)]
    Render(#[from] RenderError),
}

/// True if the adapter can run CPU palette skinning (vertex-stage storage
/// buffers, like [`throng_render::RecordPath::Unbounded`]).
pub fn supports(adapter: &wgpu::Adapter, device: &wgpu::Device) -> bool {
    throng_render::supports_unbounded(adapter, device)
}
