//! Animated impostors on the GPU, a feature in a folder of its own: a
//! model's impostor uploaded beside its meshes, the far end of its LOD
//! chain ([`GpuImpostor`], `upload.rs`), the renderer's pipelines that draw
//! it and cast its shadow (`pipelines.rs`), and the WGSL that does both
//! (`impostor.wgsl` beside them). The impostors are captured at bake time
//! by the `throng-impostor` crate (docs/design/impostors.md).
//!
//! On the model floor (`floors` in ARCHITECTURE.md), beside `model`, whose
//! `GpuModel` holds a model's impostor.

mod pipelines;
mod upload;

pub(crate) use pipelines::ImpostorPipelines;
pub use upload::{GpuImpostor, QUAD_INDICES, QUAD_VERTICES, check_limits};
