//! # throng-core
//!
//! The contract between Throng's offline and runtime sides: the baked model,
//! its file format and texel layout, every limit, the math conventions,
//! materials, the structs shared with WGSL and the CPU mirror of the
//! shader's arithmetic. No wgpu, no glTF, no source scene: the offline crate
//! (`throng-bake`) writes what this crate defines, the runtime crates
//! (`throng-crowd`, `throng-render`) read it.
//!
//! * [`limits`]: every limit and layout constant, defined once.
//! * [`math`]: conventions (column vectors, `T·R·S`, 3x4 rows, cofactor normals).
//! * [`layout`]: frame counts and times, texel addressing, texture layout.
//! * [`model`]: the baked model and its validity rules.
//! * [`morph`]: morph targets: the baked weights per frame and the sparse per-vertex deltas, applied before skinning.
//! * [`material`]: materials and images as the baked model carries them.
//! * [`mod@format`]: the versioned `.throng` file (see `docs/FORMAT.md`).
//! * [`fsio`]: atomic output writes (temporary file, sync, rename).
//! * [`input_file`]: the one checked way to open what Throng reads (regular files only, size-capped).
//! * [`clock`]: the crowd clock and analytic clip playback in fixed point, as the GPU computes it.
//! * [`motion`]: analytic locomotion (velocity, paths, root motion) evaluated from the clock, as the GPU evaluates it.
//! * [`navigation`]: a flow field as the GPU reads it (obstacles and goals; computed by `throng_crowd::navigation`).
//! * [`baked`]: CPU evaluation of baked data, the exact arithmetic of the shader.
//! * [`contacts`]: a model's feet and, per clip, when each touches the ground (read from its baked frames).
//! * [`pose`]: local-space pose arithmetic (affine products, TRS split, quaternion blends).
//! * [`layers`]: animation layers (masks, override and additive) on the CPU, as the GPU's pre-pass computes them.
//! * [`gpu`]: `#[repr(C)]` structs shared with WGSL.
//! * [`provenance`]: where a bake came from (input hash, options, baker), for up-to-date checks.
//! * [`host_memory`]: what the host can still give, checked before big allocations.
//! * [`error`]: error types.
//!
//! Data flows `glTF → Scene → BakedModel → .throng → BakedModel → GPU`; the
//! runtime never sees a `Scene` (it is `throng_bake::Scene`, and the runtime
//! crates do not depend on `throng-bake`).
//!
//! ## Example
//!
//! A `.throng` is validated as it is read: bytes that are not one are an error
//! that says what is wrong, never a panic; and the crowd clock is fixed point,
//! so the CPU and the GPU agree on every instance's clip time.
//!
//! ```
//! use throng_core::clock::{Track, WrapMode, ticks_of};
//! use throng_core::format::read_model;
//!
//! let error = read_model(b"not a baked model").unwrap_err();
//! println!("{error}");
//!
//! // A 2 s clip, looped, started at 0.5 s at normal speed: at 2.25 s on the
//! // crowd clock it plays at 0.75 s (2.25 + 0.5, wrapped at 2).
//! let track = Track::new(0.5, 1.0, 2.0, WrapMode::Loop, true);
//! let t = track.clip_time(ticks_of(2.25), 2.0, WrapMode::Loop);
//! assert!((t - 0.75).abs() < 1e-4, "{t}");
//! ```

pub mod baked;
pub mod clock;
pub mod contacts;
pub mod error;
pub mod foot_ik;
pub mod format;
pub mod fsio;
pub mod gpu;
pub mod ground;
pub mod host_memory;
pub mod impostor;
pub mod input_file;
pub mod layers;
pub mod layout;
pub mod limits;
pub mod material;
pub mod math;
pub mod model;
pub mod morph;
pub mod motion;
pub mod navigation;
pub mod pose;
pub mod pose_cache;
pub mod provenance;
pub mod simulation;
pub mod texture_codec;
pub mod variety;

pub use error::{FormatError, InputError, WriteError};
pub use model::BakedModel;

/// Re-export so downstream crates use the same glam.
pub use glam;
