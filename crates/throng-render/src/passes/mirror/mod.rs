//! A crowd's instances on the GPU for the GPU-driven path: [`CrowdMirror`]
//! keeps each instance's state ([`GpuInstance`](throng_core::gpu::GpuInstance)) and transform
//! ([`GpuTransform`](throng_core::gpu::GpuTransform)) in two storage buffers and the crowd's model, clip and
//! LOD tables beside them, and re-uploads only what the crowd's change log
//! names, of a moved instance only its transform. Changes go through a
//! staging belt (mapped buffers reused frame after frame) as runs written in
//! place, or, when scattered, packed with their slots and placed by
//! `passes/mirror/mirror.wgsl`. Instances' analytic motions are a third stream,
//! with the crowd's path points and root-motion keys beside it, and the
//! crowd's ground (`ground.rs`); after the
//! uploads, the motion pass ([`crate::passes::motion`]) writes the moving instances'
//! transforms of the frame. The cull pass ([`crate::passes::cull`]) reads the
//! mirror.
//!
//! Files: the mirror (`crowd_mirror`), its pipelines (`pipelines`), the
//! bookkeeping of what a sync writes (`changes`), mirrors shared by the
//! renderers of several views (`shared`), and the frame before, kept for
//! motion vectors (`previous`).

pub mod changes;
pub mod crowd_mirror;
mod ground;
pub mod pipelines;
pub mod previous;
pub mod shared;

pub use changes::SyncStats;
pub use crowd_mirror::CrowdMirror;
pub use pipelines::MirrorPipelines;
pub use shared::SharedMirrors;
