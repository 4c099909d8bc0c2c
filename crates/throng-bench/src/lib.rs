//! # throng-bench
//!
//! The apparatus Throng is measured with, kept out of the runtime crates:
//!
//! * [`cpu_skinned`]: [`CpuSkinnedRenderer`], the per-character CPU-skinned
//!   baseline (the way three.js and Bevy animate), which
//!   `throng bench --mode cpu-skinned` measures the baked renderer against.
//! * [`demo`]: the demo crowd (a grid of varied clips, phases and tints) and
//!   the camera that frames it, shared by `throng render`, the viewer, the
//!   benchmarks and the golden-image tests so they all draw the same scene.
//! * [`engine`]: the benchmark engine behind `throng bench`: every
//!   (mode, instance count) cell timed on one device, returned as a
//!   [`engine::Report`].
//! * [`soak`]: the engine behind `throng soak`: a crowd under churn for a
//!   set time, its memory and device bytes watched, its picture checked
//!   against a CPU path's.
//!
//! ## Example
//!
//! The demo crowd every tool draws, framed by its camera, without a GPU:
//!
//! ```no_run
//! use throng_bench::demo::{GridOptions, grid_crowd};
//! use throng_crowd::ModelHandle;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let model = ModelHandle::new(throng_core::format::read_file("fox.throng".as_ref())?)?;
//! let options = GridOptions { count: 10_000, ..GridOptions::default() };
//! let (crowd, _model_id, bounds) = grid_crowd(&model, &options)?;
//! println!("{} instances over {:?}", crowd.len(), bounds);
//! # Ok(())
//! # }
//! ```

pub mod cpu_skinned;
pub mod demo;
pub mod engine;
pub mod soak;

pub use cpu_skinned::{Cast, Character, CpuSkinnedError, CpuSkinnedModel, CpuSkinnedRenderer};
