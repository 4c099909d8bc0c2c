//! Hostile glTF files: a bake reads nothing it was not given, never hangs,
//! and refuses absurd sizes before doing the work.
//!
//! * Buffer and image URIs that leave the model's folder (absolute paths,
//!   `file:` URIs, `..`, percent-encoded `..`, symbolic links) are refused
//!   with the JSON path and the URI; `allow_outside_uris` reads them.
//! * URIs naming special files (a FIFO, `/dev/zero`, a directory) are refused
//!   without blocking or reading; buffers are read up to their
//!   `byteLength`, images up to `MAX_IMAGE_BYTES`. The provenance hash
//!   (run before the import, on the model, its buffers and images, the
//!   events file and LOD files) and the up-to-date check's read of an
//!   existing output open none of them either: each special kind in each
//!   of those places is hashed as unreadable, or refused by name.
//! * The bake budget: a clip of 10⁶ s, or 70,000 clips, is refused before
//!   anything is sampled, naming the clip.
//! * Accessors without a `bufferView` read as zeros, then their sparse
//!   substitutions; their total size is capped.
//!
//! The files are generated here (in `CARGO_TARGET_TMPDIR`), never committed.
//! Nothing is wrapped in `catch_unwind`: a panic fails the test. A read that
//! would block forever (a FIFO) runs on a thread the test stops waiting for
//! after [`HANG_GUARD`], so a regression fails instead of hanging.
//!
//! - `uris`: buffer and image URIs inside and outside the model's folder;
//! - `special_files`: FIFOs, sockets, directories and devices, in the import,
//!   the provenance hash and the up-to-date check (Unix only);
//! - `budgets`: buffers read up to their length, images over the limit, and
//!   bakes over the budget or with too many clips;
//! - `accessors`: accessors without a buffer view, sparse or not, and their
//!   size cap.
//!
//! This file holds the base document, the model folders and the guarded
//! import the modules share.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use throng_bake::{ImportError, ImportOptions, Imported, import_file_with};
use throng_tests::expect_refusal;
use throng_tests::gltf_builder::{GltfBuilder, gltf_bytes, skinned_triangle};

mod accessors;
mod budgets;
#[cfg(unix)]
mod special_files;
mod uris;

/// How long a test waits for an import that might block (on a FIFO) before
/// failing: a guard against hanging the suite, not a timing assertion.
const HANG_GUARD: Duration = Duration::from_secs(10);

/// The start of a PNG file: all the importer checks of an image.
const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// A skinned, animated triangle: node 0 "joint" (animated), node 1 "skinned".
/// Accessors: 0 POSITION, 1 JOINTS_0, 2 WEIGHTS_0, 3 indices,
/// 4 inverse binds, 5 key times, 6 key values; each has its own buffer view
/// with the same index.
fn tri_builder(joints: [[u16; 4]; 3], weights: [[f32; 4]; 3]) -> GltfBuilder {
    skinned_triangle(&[0, 1, 2], joints, weights)
}

fn base() -> GltfBuilder {
    tri_builder([[0; 4]; 3], [[1.0, 0.0, 0.0, 0.0]; 3])
}

/// Accessor indices of [`tri_builder`].
const POSITION: usize = 0;
const JOINTS: usize = 1;
const WEIGHTS: usize = 2;

/// A fresh `outer/model/` pair of folders for `case`.
fn folders(case: &str) -> (PathBuf, PathBuf) {
    let outer = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("hostile_gltf")
        .join(case);
    if outer.exists() {
        std::fs::remove_dir_all(&outer).unwrap();
    }
    let model = outer.join("model");
    std::fs::create_dir_all(&model).unwrap();
    (outer, model)
}

/// Writes `doc` as `folder/model.gltf`; returns its path.
fn write_model(folder: &Path, doc: &Value) -> PathBuf {
    let path = folder.join("model.gltf");
    std::fs::write(&path, gltf_bytes(doc)).unwrap();
    path
}

/// The base document with its buffer at `uri`.
fn with_buffer_uri(uri: &str) -> Value {
    let mut doc = base().to_json();
    doc["buffers"][0]["uri"] = json!(uri);
    doc
}

/// The base document with a base-colour image at `uri` (the buffer stays
/// embedded).
fn with_image_uri(uri: &str) -> Value {
    let mut doc = base().to_json();
    doc["images"] = json!([{ "uri": uri }]);
    doc["textures"] = json!([{ "source": 0 }]);
    doc["materials"] = json!([{ "pbrMetallicRoughness": { "baseColorTexture": { "index": 0 } } }]);
    doc["meshes"][0]["primitives"][0]["material"] = json!(0);
    doc
}

fn options(allow_outside_uris: bool) -> ImportOptions {
    ImportOptions { allow_outside_uris }
}

/// Imports `path` on a thread, failing the test if that takes longer than
/// [`HANG_GUARD`] (a FIFO opened for reading blocks until a writer comes).
fn import_guarded(path: &Path, opts: ImportOptions) -> Result<Imported, ImportError> {
    let (tx, rx) = mpsc::channel();
    let p = path.to_path_buf();
    let start = Instant::now();
    std::thread::spawn(move || {
        let _ = tx.send(import_file_with(&p, &opts));
    });
    let result = rx
        .recv_timeout(HANG_GUARD)
        .unwrap_or_else(|_| panic!("{}: the import blocked", path.display()));
    println!("{}: {:?}", path.display(), start.elapsed());
    result
}

/// An import that must fail; returns the message.
fn refused(case: &str, path: &Path, opts: ImportOptions) -> String {
    expect_refusal(case, import_guarded(path, opts))
}
