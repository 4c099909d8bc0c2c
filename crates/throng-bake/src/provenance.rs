//! Hashing a bake's inputs for [`throng_core::provenance::Provenance`]: the
//! model file, every buffer and image file its glTF references, the events
//! file (or the sidecar `MODEL.events.json`, hashed as missing when there is
//! none, so that adding one re-bakes), and each LOD file with its own
//! references — with BLAKE3, in a fixed order, each under its role, the name
//! the bake knows it by (the model's file name, the URI as written) and its
//! length, so that neither renaming the folder nor moving bytes between
//! files goes unnoticed or forces a re-bake for nothing.
//!
//! Only the glTF's JSON is parsed here (no buffer is decoded, no object
//! looked up: the URIs are listed from the JSON through
//! `gltf_doc::Doc`), so checking whether a bake is up to date costs
//! reading its inputs once. Every file is opened through
//! [`throng_core::input_file`]: a FIFO, device, socket or directory is never
//! opened, and no file over [`MAX_FILE_SIZE`] is read. A reference that
//! cannot be resolved or read (refused by the URI policy, missing, not a
//! regular file) is hashed as such: the bake itself then fails with the
//! import's own message.

use std::path::{Path, PathBuf};

use throng_core::limits::MAX_FILE_SIZE;
use throng_core::provenance::Provenance;

use crate::gltf_doc::Doc;
use crate::options::BakeOptions;
use crate::uri::UriReader;

/// The baker's name and version, stored in every provenance.
pub const BAKER: &str = concat!("throng-bake ", env!("CARGO_PKG_VERSION"));

/// The hash of `model`'s inputs for a bake with `opts`, with `options` as
/// the provenance's options text (the caller's canonical text of every
/// option that changes the output, [`BakeOptions::canonical`] and any it
/// adds, such as the impostor's).
pub fn provenance(model: &Path, opts: &BakeOptions, options: String) -> Provenance {
    let mut h = InputHasher::default();
    h.model("model", model, opts.allow_outside_uris);
    let sidecar = crate::events::sidecar_path(model);
    let events = opts.events_file.as_deref().unwrap_or(&sidecar);
    h.file("events", &display_name(events), events);
    for library in &opts.clips_from {
        h.model("clips", library, opts.allow_outside_uris);
    }
    if let Some(map) = &opts.bone_map {
        h.file("bone map", &display_name(map), map);
    }
    for lod in &opts.lod_files {
        h.model("lod", lod, opts.allow_outside_uris);
    }
    Provenance {
        inputs: *h.hasher.finalize().as_bytes(),
        files: h.files,
        options,
        baker: BAKER.to_owned(),
    }
}

/// The name an input is hashed under: its file name (not its folder).
fn display_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

#[derive(Default)]
struct InputHasher {
    hasher: blake3::Hasher,
    files: u32,
}

impl InputHasher {
    fn tag(&mut self, role: &str, name: &str) {
        for s in [role, name] {
            self.hasher.update(&(s.len() as u64).to_le_bytes());
            self.hasher.update(s.as_bytes());
        }
    }

    /// Hashes a file's length and bytes, or a "missing" marker.
    fn file(&mut self, role: &str, name: &str, path: &Path) -> Option<Vec<u8>> {
        self.tag(role, name);
        match throng_core::input_file::read(path, MAX_FILE_SIZE) {
            Ok(bytes) => {
                self.hasher.update(b"present");
                self.hasher.update(&(bytes.len() as u64).to_le_bytes());
                self.hasher.update(&bytes);
                self.files += 1;
                Some(bytes)
            }
            Err(e) => {
                self.hasher.update(b"missing");
                self.hasher.update(e.reason().as_bytes());
                None
            }
        }
    }

    /// Hashes a glTF or GLB and every external file it references.
    fn model(&mut self, role: &str, path: &Path, allow_outside: bool) {
        let Some(bytes) = self.file(role, &display_name(path), path) else {
            return;
        };
        for (kind, uri, file) in references(&bytes, path, allow_outside) {
            match file {
                Ok(file) => {
                    self.file(kind, &uri, &file);
                }
                Err(why) => {
                    self.tag(kind, &uri);
                    self.hasher.update(b"unresolved");
                    self.hasher.update(why.as_bytes());
                }
            }
        }
    }
}

/// The external files (kind, URI, resolved path or why not) that the glTF
/// or GLB `bytes` read from `path` references; `data:` URIs and GLB chunks
/// are inside `bytes`. Nothing when the JSON does not parse (the bake
/// reports that).
fn references(
    bytes: &[u8],
    path: &Path,
    allow_outside: bool,
) -> Vec<(&'static str, String, Result<PathBuf, String>)> {
    let Ok(gltf::Gltf { document, .. }) = gltf::Gltf::from_slice_without_validation(bytes) else {
        return Vec::new();
    };
    let root = document.into_json();
    let reader = UriReader::new(path.parent(), allow_outside);
    Doc::new(&root)
        .external_uris()
        .filter(|(_, uri)| !uri.starts_with("data:"))
        .map(|(kind, uri)| {
            (
                kind,
                uri.to_owned(),
                reader.resolve(uri).map_err(|e| format!("{e:?}")),
            )
        })
        .collect()
}
