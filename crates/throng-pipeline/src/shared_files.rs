//! Shared frames on disk ([`crate::Settings::shared_clips`]): after the
//! bodies are evened out ([`crate::shared_clips`]), the bodies of one
//! output folder whose frames are equal keep them in one frames file
//! there (`frames-HASH.throng-frames`, `throng_core::format::frames`), each
//! body's `.throng` referring to it instead of holding a copy. Twenty
//! bodies of one build take one copy of their frames on disk, as they take
//! one on the GPU.
//!
//! A body whose frames no other body in its folder shares keeps them in
//! its own file. Files whose bytes would not change are not written again
//! (a second run leaves them as they were); a frames file no body refers
//! to any more is left where it is (the step does not delete files).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use throng_core::BakedModel;
use throng_core::format::frames::{FRAMES_EXTENSION, frames_hash};
use throng_core::format::{write_frames, write_model};

use crate::error::PipelineError;
use crate::outcome::{JobResult, Outcome};

/// The frames file's name for frames of BLAKE3 `hash`.
pub fn frames_name(hash: &[u8; 32]) -> String {
    let hex: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("frames-{hex}.{FRAMES_EXTENSION}")
}

/// The output of an up-to-date job, read back (`None` for other jobs:
/// a baked job's model is in its result).
fn read_back(r: &JobResult) -> Option<Result<BakedModel, PipelineError>> {
    match r.result.as_ref().ok()? {
        Outcome::Baked(_) => None,
        Outcome::UpToDate { .. } => Some(throng_core::format::read_file(&r.job.output).map_err(
            |source| PipelineError::Write {
                output: r.job.output.clone(),
                source,
            },
        )),
    }
}

/// Job `i`'s model: baked, or read back into `read`.
fn model<'a>(
    results: &'a [JobResult],
    read: &'a [Option<BakedModel>],
    i: usize,
) -> Option<&'a BakedModel> {
    match results[i].result.as_ref().ok()? {
        Outcome::Baked(b) => Some(&b.model),
        Outcome::UpToDate { .. } => read[i].as_ref(),
    }
}

/// Writes `bytes` to `path` unless it holds them already.
fn write_if_changed(path: &Path, bytes: &[u8]) -> Result<(), throng_core::FormatError> {
    if std::fs::read(path).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    Ok(throng_core::fsio::write_atomic(path, bytes)?)
}

/// Lays the successful jobs of `results` out as the module says, setting
/// each one's [`JobResult::frames_file`] and its file's size; a job whose
/// files cannot be written gets that error as its result.
pub(crate) fn share(results: &mut [JobResult]) {
    let mut read: Vec<Option<BakedModel>> = Vec::with_capacity(results.len());
    for r in results.iter_mut() {
        match read_back(r) {
            Some(Ok(m)) => read.push(Some(m)),
            Some(Err(e)) => {
                r.result = Err(e);
                read.push(None);
            }
            None => read.push(None),
        }
    }
    // Bodies by folder and frames.
    let mut groups: BTreeMap<(PathBuf, [u8; 32]), Vec<usize>> = BTreeMap::new();
    for i in 0..results.len() {
        if let Some(m) = model(results, &read, i) {
            let folder = results[i].job.output.parent().unwrap_or(Path::new(""));
            let key = (folder.to_path_buf(), frames_hash(&m.texture.texels));
            groups.entry(key).or_default().push(i);
        }
    }
    for ((folder, hash), members) in groups {
        let shared = (members.len() > 1).then(|| frames_name(&hash));
        if let Some(name) = &shared {
            let first = model(results, &read, members[0]).expect("a grouped model");
            let path = folder.join(name);
            if let Err(e) = write_if_changed(&path, &write_frames(&first.texture)) {
                for &i in &members {
                    results[i].result = Err(PipelineError::Io {
                        what: "writing the shared frames file",
                        path: path.clone(),
                        source: std::io::Error::other(e.to_string()),
                    });
                }
                continue;
            }
        }
        for i in members {
            let body = model(results, &read, i).expect("a grouped model");
            let bytes = match &shared {
                Some(name) => throng_core::format::write_model_referring(body, name),
                None => write_model(body),
            };
            let r = &mut results[i];
            let written = bytes.and_then(|b| write_if_changed(&r.job.output, &b).map(|()| b.len()));
            match written {
                Ok(len) => {
                    r.frames_file = shared.as_ref().map(|name| folder.join(name));
                    match r.result.as_mut() {
                        Ok(Outcome::Baked(b)) => b.file_bytes = len as u64,
                        Ok(Outcome::UpToDate { file_bytes }) => *file_bytes = len as u64,
                        Err(_) => {}
                    }
                }
                Err(source) => {
                    r.result = Err(PipelineError::Write {
                        output: r.job.output.clone(),
                        source,
                    })
                }
            }
        }
    }
}
