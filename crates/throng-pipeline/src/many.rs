//! [`bake_all`]: several jobs in parallel on the current rayon pool (each
//! bake also samples its clips on it), every job run to its end whatever
//! the others do (and, with shared clips, evened out:
//! [`crate::shared_clips`]); [`bake_dir`]: every model under a folder.

use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;

use crate::error::PipelineError;
use crate::jobs::{Job, plan};
use crate::observe::Observer;
use crate::one::bake_one;
pub use crate::outcome::JobResult;
use crate::settings::Settings;

/// Runs every job of `jobs` with `settings` in parallel, on the current
/// rayon pool (run it in `ThreadPool::install` to bound the threads), and
/// returns their results in the order of `jobs`. A failed job does not
/// stop the others. With [`Settings::shared_clips`], the bodies below a
/// clip's largest frame count are then baked again from there
/// ([`crate::shared_clips`]), and bodies of equal frames in one folder
/// refer to one frames file there ([`crate::shared_files`]).
pub fn bake_all(jobs: Vec<Job>, settings: &Settings, observer: &dyn Observer) -> Vec<JobResult> {
    let mut results: Vec<JobResult> = jobs
        .into_par_iter()
        .map(|job| {
            let started = Instant::now();
            let result = bake_one(&job, settings, observer);
            let seconds = started.elapsed().as_secs_f64();
            observer.finished(&job, result.as_ref(), seconds);
            JobResult {
                job,
                result,
                seconds,
                frames_file: None,
            }
        })
        .collect();
    if settings.shared_clips {
        crate::shared_clips::even_out(&mut results, settings, observer);
        crate::shared_files::share(&mut results);
    }
    results
}

/// Bakes every `.gltf`/`.glb` below `dir` into `out_dir`, each keeping its
/// place below the folder (`dir/a/x.glb` → `out_dir/a/x.throng`), in
/// parallel ([`bake_all`]); outputs up to date are skipped unless
/// [`Settings::force`]. Fails before any bake if the folder holds no model
/// or two models would write one output; otherwise each job's result is in
/// the list.
pub fn bake_dir(
    dir: &Path,
    out_dir: &Path,
    settings: &Settings,
    observer: &dyn Observer,
) -> Result<Vec<JobResult>, PipelineError> {
    if !dir.is_dir() {
        return Err(PipelineError::Io {
            what: "reading the folder",
            path: dir.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a folder"),
        });
    }
    let plan = plan(&[dir.to_path_buf()], Some(out_dir))?;
    Ok(bake_all(plan.jobs, settings, observer))
}
