//! Floor 3, models: what lives on the GPU per baked model — its materials
//! (`material`), its variety palette and per-submesh bind groups (`look`),
//! the model itself ([`GpuModel`]: bones, vertices, morphs, LODs;
//! `gpu_model`), and the bone textures models of equal frames share
//! ([`SharedFrames`]; `shared_frames`). Beside it on this floor, two features in folders of
//! their own: the animated impostor (`impostor/`) and each (model, LOD)'s
//! cached poses (`pose_cache/`). Imports the floors below.

pub mod gpu_model;
pub mod look;
pub mod material;
pub mod shared_frames;

pub use gpu_model::{GpuLod, GpuModel, GpuSubmesh, check_limits};
pub use material::GpuMaterial;
pub use shared_frames::SharedFrames;
