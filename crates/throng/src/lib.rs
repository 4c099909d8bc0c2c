#![doc = include_str!("../README.md")]
//!
//! ## The crates
//!
//! This crate re-exports Throng's crates under short names:
//!
//! | module | crate | what it is |
//! |---|---|---|
//! | [`core`] | `throng-core` | the contract: the baked model, the `.throng` format, the math and every limit; no GPU |
//! | [`crowd`] | `throng-crowd` | the runtime simulation: instances, playback, LOD, culling, cameras; no GPU |
//! | [`render`] | `throng-render` | the wgpu runtime: models on the GPU, the renderer and its WGSL |
//! | `bake` (feature `bake`) | `throng-bake` | glTF 2.0 in, validated baked model out |
//! | `pipeline` (feature `bake`) | `throng-pipeline` | bakes of files, folders and patterns, skipped when up to date |
//! | `impostor` (feature `bake`) | `throng-impostor` | the animated impostors' capture |
//!
//! The runtime is the default; the bake (a glTF parser, mesh simplification,
//! texture compression) is behind the `bake` feature, since a game usually
//! ships baked files and bakes them with the `throng` command
//! (`cargo install throng-cli`).
//!
//! ## Baking
//!
//! Baking in code (feature `bake`):
//!
//! ```no_run
//! # #[cfg(feature = "bake")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use throng::bake::{BakeOptions, bake_file};
//!
//! let (model, report) = bake_file(
//!     "fox.glb".as_ref(),
//!     &BakeOptions::default(),
//!     &|_done, _total| {},
//! )?;
//! throng::core::format::write_file(&model, "fox.throng".as_ref())?;
//! println!("{} clips, {} warnings", model.clips.len(), report.warnings.len());
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "bake"))]
//! # fn main() {}
//! ```

pub use throng_core as core;
pub use throng_crowd as crowd;
pub use throng_render as render;

#[cfg(feature = "bake")]
pub use throng_bake as bake;
#[cfg(feature = "bake")]
pub use throng_impostor as impostor;
#[cfg(feature = "bake")]
pub use throng_pipeline as pipeline;
