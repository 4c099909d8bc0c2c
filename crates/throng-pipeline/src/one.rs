//! [`bake_one`]: one job from model to written `.throng` — output checks,
//! the up-to-date check against the output's recorded provenance, the bake
//! (`throng_bake`), the impostor (`throng_impostor`), the atomic write.

use std::path::{Path, PathBuf};
use std::time::Instant;

use throng_core::BakedModel;
use throng_core::provenance::Provenance;
use throng_impostor::{AttachError, CaptureError};

use crate::error::PipelineError;
use crate::jobs::Job;
use crate::observe::{Observer, Phase};
pub use crate::outcome::{Baked, Outcome};
use crate::settings::{ImpostorSettings, Settings};

/// The size of the `.throng` at `output` if it records exactly `wanted` as
/// its provenance (a missing, unreadable, malformed or older file is not
/// up to date, and so is one referring to a frames file that is missing or
/// holds other frames). Reads its header, directory, `STRS`, `PROV` and
/// `FREF` only ([`throng_core::format::peek_provenance`]: not the checksum
/// of the rest, which loading checks); a model referring to a frames file
/// is read whole, with it.
pub fn up_to_date(output: &Path, wanted: &Provenance) -> Option<u64> {
    let found = throng_core::format::peek_provenance(output).ok()??;
    let len = std::fs::metadata(output).ok()?.len();
    (found == *wanted && frames_in_place(output)).then_some(len)
}

/// Whether the output's frames are readable: its own, or a frames file
/// beside it holding the frames it was baked with (a body whose shared
/// frames file was deleted or baked again for other bodies is baked again).
fn frames_in_place(output: &Path) -> bool {
    match throng_core::format::peek_frames_file(output) {
        Ok(None) => true,
        Ok(Some(_)) => throng_core::format::read_file(output).is_ok(),
        Err(_) => false,
    }
}

/// Bakes `job` with `settings`, or finds its output up to date; `observer`
/// sees its phases and frames (not its end: [`crate::bake_all`] reports
/// that). The output is written atomically: a failed job leaves an
/// existing output as it was.
pub fn bake_one(
    job: &Job,
    settings: &Settings,
    observer: &dyn Observer,
) -> Result<Outcome, PipelineError> {
    let opts = &settings.opts;
    let start = Instant::now();
    observer.phase(job, Phase::Checking);
    // Refuse a bad output before the bake, not after it.
    let sidecar = throng_bake::events::sidecar_path(&job.model);
    let events = opts.events_file.as_deref().unwrap_or(&sidecar);
    let mut inputs = vec![job.model.as_path(), events];
    inputs.extend(opts.clips_from.iter().map(PathBuf::as_path));
    inputs.extend(opts.bone_map.as_deref());
    inputs.extend(opts.lod_files.iter().map(PathBuf::as_path));
    throng_core::fsio::check_output(&job.output, "throng", &inputs)?;
    // Hashed before anything is read (an input edited meanwhile makes the
    // record stale, never fresh).
    let provenance = throng_bake::provenance::provenance(&job.model, opts, settings.canonical());
    if !settings.force
        && let Some(file_bytes) = up_to_date(&job.output, &provenance)
    {
        return Ok(Outcome::UpToDate { file_bytes });
    }
    observer.phase(job, Phase::Frames);
    let (model, report) =
        throng_bake::bake_file_recording(&job.model, opts, provenance, &|done, total| {
            observer.frames(job, done, total)
        })
        .map_err(|source| PipelineError::Bake {
            model: job.model.clone(),
            source,
        })?;
    let mut impostor_seconds = None;
    let model = match &settings.impostor {
        Some(i) if !model.clips.is_empty() || settings.impostor_asked => {
            observer.phase(job, Phase::Impostor);
            let captured = Instant::now();
            let model = capture_impostor(model, i, &job.model)?;
            impostor_seconds = Some(captured.elapsed().as_secs_f64());
            model
        }
        _ => model,
    };
    observer.phase(job, Phase::Writing);
    let write_error = |source| PipelineError::Write {
        output: job.output.clone(),
        source,
    };
    let bytes_out = throng_core::format::write_model(&model).map_err(write_error)?;
    if let Some(dir) = job.output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(PipelineError::io("creating the output folder", dir))?;
    }
    throng_core::fsio::write_atomic(&job.output, &bytes_out).map_err(|e| write_error(e.into()))?;
    Ok(Outcome::Baked(Box::new(Baked {
        model,
        report,
        file_bytes: bytes_out.len() as u64,
        seconds: start.elapsed().as_secs_f64(),
        impostor_seconds,
    })))
}

/// `model` with its impostor captured on a headless adapter as `settings`
/// ask.
fn capture_impostor(
    model: BakedModel,
    settings: &ImpostorSettings,
    path: &Path,
) -> Result<BakedModel, PipelineError> {
    throng_impostor::with_impostor(
        model,
        settings.budget,
        settings.request,
        settings.screen_size,
    )
    .map_err(|e| match e {
        AttachError::NoClips => PipelineError::NoClips(path.to_path_buf()),
        AttachError::Capture(CaptureError::Render(throng_render::RenderError::NoAdapter(_))) => {
            PipelineError::NoAdapter {
                model: path.to_path_buf(),
                source: e,
            }
        }
        source => PipelineError::Impostor {
            model: path.to_path_buf(),
            source,
        },
    })
}
