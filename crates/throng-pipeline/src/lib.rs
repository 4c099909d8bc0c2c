//! # throng-pipeline
//!
//! Throng's asset pipeline, the library under `throng bake`, for build
//! scripts and asset processors: [`plan`] names the jobs of some paths
//! (models, folders, glob patterns) and their outputs; [`bake_one`] bakes
//! one job — output checks, the up-to-date check against the provenance
//! the output records (a content hash of the model and every file it
//! references, the options and the baker), the bake (`throng-bake`), the
//! impostor (`throng-impostor`, on a headless adapter) and the atomic
//! write; [`bake_all`] runs jobs in parallel (with [`shared_clips`], bodies
//! baked together get each clip at one frame count, and [`shared_files`]
//! keeps equal frames in one file) and [`bake_dir`] a
//! whole folder; an [`Observer`] sees them in flight. [`Settings`] holds what
//! the jobs share, `Settings::default()` being the default chain.
//!
//! ```no_run
//! use std::path::Path;
//! use throng_pipeline::{Outcome, Settings, bake_dir};
//!
//! let results = bake_dir(Path::new("assets"), Path::new("baked"), &Settings::default(), &())?;
//! for r in &results {
//!     match &r.result {
//!         Ok(Outcome::Baked(b)) => println!("{}: {} bytes", r.job.model.display(), b.file_bytes),
//!         Ok(Outcome::UpToDate { .. }) => println!("{}: up to date", r.job.model.display()),
//!         Err(e) => eprintln!("{}: {e}", r.job.model.display()),
//!     }
//! }
//! # Ok::<(), throng_pipeline::PipelineError>(())
//! ```

pub mod error;
pub mod jobs;
pub mod many;
pub mod observe;
pub mod one;
pub mod outcome;
pub mod settings;
pub mod shared_clips;
pub mod shared_files;

pub use error::PipelineError;
pub use jobs::{Job, Plan, model_files, plan};
pub use many::{JobResult, bake_all, bake_dir};
pub use observe::{Observer, Phase};
pub use one::{bake_one, up_to_date};
pub use outcome::{Baked, Outcome};
pub use settings::{DEFAULT_LOD_RATIOS, ImpostorSettings, Settings};
