//! # throng-core
//!
//! The GPU-free heart of Throng: everything both the offline baker and the
//! runtime agree on, with no wgpu and no glTF dependency.
//!
//! * [`limits`]: every limit and layout constant, defined once.
//! * [`math`]: conventions (column vectors, `T·R·S`, 3x4 rows, cofactor normals).
//! * [`scene`]: the source model a glTF file is imported into.
//! * [`sample`]: glTF clip sampling and pose evaluation.
//! * [`reference`]: the plain CPU skinning reference on a [`scene::Scene`].
//! * [`layout`]: frame counts and times, texel addressing, texture layout.
//! * [`model`]: the baked model and its validity rules.
//! * [`format`]: the versioned `.throng` file (see `docs/FORMAT.md`).
//! * [`fsio`]: atomic output writes (temporary file, sync, rename).
//! * [`baked`]: CPU evaluation of baked data, the exact arithmetic of the shader.
//! * [`crowd`]: instances, playback, cross-fades and per-frame draw lists.
//! * [`camera`]: cameras and frustum culling.
//! * [`gpu`]: `#[repr(C)]` structs shared with WGSL.
//! * [`host_memory`]: what the host can still give, checked before big allocations.
//! * [`error`]: error types.
//!
//! Data flows `glTF → Scene → BakedModel → .throng → BakedModel → GPU`; the
//! runtime never sees a [`scene::Scene`].

pub mod baked;
pub mod camera;
pub mod crowd;
pub mod error;
pub mod format;
pub mod fsio;
pub mod gpu;
pub mod host_memory;
pub mod layout;
pub mod limits;
pub mod math;
pub mod model;
pub mod playback;
pub mod reference;
pub mod sample;
pub mod scene;

pub use error::{FormatError, SceneError, WriteError};
pub use model::BakedModel;
pub use scene::Scene;

/// Re-export so downstream crates use the same glam.
pub use glam;
