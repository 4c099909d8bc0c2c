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

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use throng_bake::{
    BakeOptions, ImportError, ImportOptions, Imported, bake, import_file_with, import_slice,
};
use throng_core::limits::{DEFAULT_MAX_BAKE_BYTES, MAX_CLIPS, MAX_IMAGE_BYTES};
use throng_tests::gltf_builder::{GltfBuilder, component, gltf_bytes, long_clip, skinned_triangle};
use throng_tests::{assert_mentions, expect_refusal};

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

/// URIs that leave the folder, each naming `outer/secret.bin` (the real
/// buffer, so a read would succeed) or `outer/secret.png`; `None` where the
/// platform cannot make the case.
fn escaping_uris(outer: &Path, model: &Path, name: &str) -> Vec<(String, String)> {
    let secret = outer.join(name);
    let mut uris = vec![
        ("dot-dot".to_owned(), format!("../{name}")),
        ("nested dot-dot".to_owned(), format!("sub/../../{name}")),
        ("encoded dot-dot".to_owned(), format!("%2e%2e%2f{name}")),
        ("absolute".to_owned(), secret.display().to_string()),
        (
            "file URI".to_owned(),
            format!("file://{}", secret.display()),
        ),
    ];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&secret, model.join(format!("link-{name}"))).unwrap();
        uris.push(("symlink".to_owned(), format!("link-{name}")));
    }
    #[cfg(not(unix))]
    let _ = model;
    uris
}

#[test]
fn buffer_uris_outside_the_model_folder_are_refused_unless_allowed() {
    let (outer, model) = folders("buffer_escape");
    std::fs::create_dir(model.join("sub")).unwrap();
    std::fs::write(outer.join("secret.bin"), base().bin()).unwrap();
    for (case, uri) in escaping_uris(&outer, &model, "secret.bin") {
        let path = write_model(&model, &with_buffer_uri(&uri));
        let msg = refused(&case, &path, options(false));
        assert_mentions(&case, &msg, &["buffers[0].uri", &uri, "model's folder"]);
        // The opt-in reads the same file.
        let imported =
            import_guarded(&path, options(true)).unwrap_or_else(|e| panic!("{case}, allowed: {e}"));
        assert_eq!(imported.scene.meshes.len(), 1, "{case}");
    }
}

#[test]
fn buffer_uris_inside_the_model_folder_are_read() {
    let (_, model) = folders("buffer_inside");
    std::fs::create_dir(model.join("data")).unwrap();
    std::fs::write(model.join("data/my model.bin"), base().bin()).unwrap();
    for uri in [
        "data/my%20model.bin",
        "./data/my model.bin",
        "data/./my model.bin",
    ] {
        let path = write_model(&model, &with_buffer_uri(uri));
        import_guarded(&path, options(false)).unwrap_or_else(|e| panic!("{uri}: {e}"));
    }
}

#[test]
fn image_uris_outside_the_model_folder_are_refused_unless_allowed() {
    let (outer, model) = folders("image_escape");
    std::fs::create_dir(model.join("sub")).unwrap();
    // A real picture: the import decodes it, so its texels show it was read.
    let picture = image::RgbaImage::from_fn(3, 2, |x, y| {
        image::Rgba([x as u8 * 80, y as u8 * 90, 7, 255])
    });
    let secret = throng_tests::material_models::png(&picture);
    std::fs::write(outer.join("secret.png"), &secret).unwrap();
    for (case, uri) in escaping_uris(&outer, &model, "secret.png") {
        let path = write_model(&model, &with_image_uri(&uri));
        let msg = refused(&case, &path, options(false));
        assert_mentions(&case, &msg, &["images[0].uri", &uri, "model's folder"]);
        let imported =
            import_guarded(&path, options(true)).unwrap_or_else(|e| panic!("{case}, allowed: {e}"));
        assert_eq!(imported.scene.images.len(), 1, "{case}");
        assert_eq!(&imported.scene.images[0].rgba, picture.as_raw(), "{case}");
    }
    // Inside the folder, the image is embedded.
    std::fs::write(model.join("tex.png"), &secret).unwrap();
    let path = write_model(&model, &with_image_uri("tex.png"));
    let imported = import_guarded(&path, options(false)).unwrap();
    assert_eq!(&imported.scene.images[0].rgba, picture.as_raw());
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

#[cfg(unix)]
#[test]
fn special_files_are_refused_without_blocking_or_reading() {
    let (_, model) = folders("special_files");
    mkfifo(&model.join("pipe"));
    std::os::unix::fs::symlink("/dev/zero", model.join("zero")).unwrap();
    std::fs::create_dir(model.join("dir")).unwrap();
    for (uri, allow, kind) in [
        ("pipe", false, "a FIFO"),
        ("dir", false, "a directory"),
        ("zero", true, "a character device"),
        ("/dev/zero", true, "a character device"),
    ] {
        let case = format!("{uri} (allow_outside_uris {allow})");
        let path = write_model(&model, &with_buffer_uri(uri));
        let msg = refused(&case, &path, options(allow));
        assert_mentions(
            &case,
            &msg,
            &["buffers[0].uri", uri, kind, "not a regular file"],
        );
        let path = write_model(&model, &with_image_uri(uri));
        let msg = refused(&case, &path, options(allow));
        assert_mentions(
            &case,
            &msg,
            &["images[0].uri", uri, kind, "not a regular file"],
        );
    }
    // Without the opt-in, the link to /dev/zero already leaves the folder.
    let path = write_model(&model, &with_buffer_uri("zero"));
    let msg = refused("zero", &path, options(false));
    assert_mentions(
        "zero",
        &msg,
        &["buffers[0].uri", "/dev/zero", "model's folder"],
    );
}

/// Runs `f` on a thread, failing the test if it takes longer than
/// [`HANG_GUARD`].
fn guarded<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(HANG_GUARD)
        .unwrap_or_else(|_| panic!("{what}: blocked"))
}

/// Makes a file of `kind` at `path` (a socket's listener is returned: the
/// socket lives while it does).
#[cfg(unix)]
fn make_special(kind: &str, path: &Path) -> Option<std::os::unix::net::UnixListener> {
    match kind {
        "a FIFO" => mkfifo(path),
        "a socket" => return Some(std::os::unix::net::UnixListener::bind(path).unwrap()),
        "a directory" => std::fs::create_dir(path).unwrap(),
        "a character device" => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
        _ => unreachable!("{kind}"),
    }
    None
}

/// The provenance hash and the up-to-date check's read of an existing
/// output, with each special kind in each place they open a file: nothing
/// blocks, the special file is hashed as not read (the hash differs from a
/// missing file's), and the output's provenance read is refused by name.
#[cfg(unix)]
#[test]
fn provenance_and_the_up_to_date_check_open_no_special_file() {
    use throng_bake::provenance::provenance;
    use throng_core::format::peek_provenance;
    for kind in ["a FIFO", "a socket", "a directory", "a character device"] {
        let (_, folder) = folders(&format!("provenance-{}", kind.replace(' ', "-")));
        let special = folder.join("special");
        // A model naming the special file as its buffer and its image.
        let mut doc = with_image_uri("special");
        doc["buffers"][0]["uri"] = json!("special");
        let model = write_model(&folder, &doc);
        let places: [(&str, PathBuf, BakeOptions); 4] = [
            ("the model", special.clone(), BakeOptions::default()),
            (
                "a buffer and an image URI",
                model.clone(),
                BakeOptions {
                    allow_outside_uris: true,
                    ..BakeOptions::default()
                },
            ),
            (
                "the events file",
                model.clone(),
                BakeOptions {
                    events_file: Some(special.clone()),
                    ..BakeOptions::default()
                },
            ),
            (
                "a LOD file",
                model.clone(),
                BakeOptions {
                    lod_files: vec![special.clone()],
                    ..BakeOptions::default()
                },
            ),
        ];
        for (place, path, opts) in places {
            let case = format!("{kind} as {place}");
            let listener = make_special(kind, &special);
            let (p, o) = (path.clone(), opts.clone());
            let with_special = guarded(&case, move || provenance(&p, &o, String::new()));
            if kind == "a directory" {
                std::fs::remove_dir(&special).unwrap();
            } else {
                std::fs::remove_file(&special).unwrap();
            }
            drop(listener);
            let absent = provenance(&path, &opts, String::new());
            println!("{case}: {} files hashed", with_special.files);
            assert_eq!(with_special.files, absent.files, "{case}: read");
            assert_ne!(
                with_special.inputs, absent.inputs,
                "{case}: hashed as if missing"
            );
        }
        let _listener = make_special(kind, &special);
        let s = special.clone();
        let e = guarded(&format!("{kind}: peek_provenance"), move || {
            peek_provenance(&s).expect_err("a special output")
        });
        assert_mentions(kind, &e.to_string(), &[kind, "not a regular file"]);
    }
}

#[test]
fn buffers_are_read_up_to_their_byte_length() {
    let (_, model) = folders("buffer_length");
    let bin = base().bin().to_vec();
    // Longer than byteLength (padding): read, and only byteLength of it.
    let mut long = bin.clone();
    long.extend_from_slice(&[0xAB; 1000]);
    std::fs::write(model.join("long.bin"), &long).unwrap();
    let path = write_model(&model, &with_buffer_uri("long.bin"));
    import_guarded(&path, options(false)).unwrap_or_else(|e| panic!("long: {e}"));
    // An accessor reaching into the padding is out of the buffer.
    let mut doc = with_buffer_uri("long.bin");
    doc["bufferViews"][POSITION]["byteLength"] = json!(bin.len() + 500);
    let path = write_model(&model, &doc);
    let msg = refused("view into padding", &path, options(false));
    assert_mentions(
        "view into padding",
        &msg,
        &[
            "bufferViews[0]",
            &format!("buffers[0] has {} bytes", bin.len()),
        ],
    );
    // Shorter than byteLength: an error naming the buffer.
    std::fs::write(model.join("short.bin"), &bin[..bin.len() - 4]).unwrap();
    let path = write_model(&model, &with_buffer_uri("short.bin"));
    let msg = refused("short", &path, options(false));
    assert_mentions("short", &msg, &["buffers[0]", "byteLength"]);
}

#[test]
fn an_image_over_the_limit_is_refused_without_reading_it() {
    let (_, model) = folders("image_limit");
    let big = model.join("big.png");
    std::fs::write(&big, PNG_MAGIC).unwrap();
    // A sparse file: as large as the limit allows plus one, nothing written.
    std::fs::File::options()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(MAX_IMAGE_BYTES + 1)
        .unwrap();
    let path = write_model(&model, &with_image_uri("big.png"));
    let msg = refused("big image", &path, options(false));
    assert_mentions(
        "big image",
        &msg,
        &[
            "images[0].uri",
            "big.png",
            &format!("{} bytes", MAX_IMAGE_BYTES + 1),
            &format!("{MAX_IMAGE_BYTES}-byte limit"),
        ],
    );
}

#[test]
fn a_bake_over_the_budget_is_refused_before_sampling_naming_the_clip() {
    // 10⁶ s at 30 fps: 3·10⁷ frames, 1.4 GB of f32 texels for one bone.
    let imported = import_slice(&long_clip(1e6), None, "forever").unwrap();
    let start = Instant::now();
    let err = bake(&imported.scene, &BakeOptions::default(), &|_, _| {})
        .expect_err("forever: baked 3·10⁷ frames");
    let msg = err.to_string();
    println!("forever: {msg} ({:?})", start.elapsed());
    assert_mentions(
        "forever",
        &msg,
        &[
            "\"forever\"",
            "1000000 s",
            "30000001 frames",
            &format!("({DEFAULT_MAX_BAKE_BYTES} bytes) bake budget"),
            "--max-bake-bytes",
        ],
    );

    // The budget is exact: a model baked with its own estimate as the budget
    // passes, one byte less is refused.
    let imported = import_slice(&base().to_gltf(), None, "base").unwrap();
    let (_, report) = bake(&imported.scene, &BakeOptions::default(), &|_, _| {}).unwrap();
    let estimate = report.estimated_bytes;
    assert!(estimate > 0);
    let at = |max_bake_bytes| BakeOptions {
        max_bake_bytes,
        ..BakeOptions::default()
    };
    bake(&imported.scene, &at(estimate), &|_, _| {}).unwrap();
    let msg = bake(&imported.scene, &at(estimate - 1), &|_, _| {})
        .expect_err("one byte under the estimate")
        .to_string();
    println!("tight: {msg}");
    assert_mentions("tight", &msg, &["\"move\"", "1 s", "31 frames"]);
    let msg = bake(&imported.scene, &at(0), &|_, _| {})
        .expect_err("a budget of 0")
        .to_string();
    assert_mentions("zero budget", &msg, &["--max-bake-bytes 0"]);
}

#[test]
fn too_many_clips_are_refused_before_building_them() {
    // 70,000 copies of the base animation, sharing its accessors.
    let clips = 70_000;
    let mut doc = base().to_json();
    let anim = doc["animations"][0].clone();
    doc["animations"] = Value::Array(
        (0..clips)
            .map(|i| {
                let mut a = anim.clone();
                a["name"] = json!(format!("clip{i}"));
                a
            })
            .collect(),
    );
    let start = Instant::now();
    let msg = import_slice(&gltf_bytes(&doc), None, "many")
        .expect_err("many: imported 70,000 clips")
        .to_string();
    println!("many: {msg} ({:?})", start.elapsed());
    assert_mentions(
        "many",
        &msg,
        &[
            "animations",
            &format!("{clips} animations"),
            &MAX_CLIPS.to_string(),
        ],
    );

    // A scene built in code is refused by the bake, before sampling.
    let mut imported = import_slice(&base().to_gltf(), None, "base").unwrap();
    let clip = imported.scene.clips[0].clone();
    imported.scene.clips = (0..clips)
        .map(|i| throng_bake::scene::Clip {
            name: format!("clip{i}"),
            ..clip.clone()
        })
        .collect();
    let start = Instant::now();
    let msg = bake(&imported.scene, &BakeOptions::default(), &|_, _| {})
        .expect_err("many: baked 70,000 clips")
        .to_string();
    println!("many, baked: {msg} ({:?})", start.elapsed());
    assert_mentions(
        "many, baked",
        &msg,
        &[&format!("{clips} clips"), &MAX_CLIPS.to_string(), "--clips"],
    );
}

#[test]
fn accessors_without_a_buffer_view_are_zeros() {
    // JOINTS_0 stored as joint 1 of a one-joint skin: refused as it is …
    let b = tri_builder([[1, 0, 0, 0]; 3], [[1.0, 0.0, 0.0, 0.0]; 3]);
    let bytes = b.to_gltf();
    let msg = import_slice(&bytes, None, "joint 1")
        .err()
        .unwrap()
        .to_string();
    assert_mentions("joint 1", &msg, &["JOINTS_0", "joint 1"]);
    // … but without its bufferView every joint index is 0.
    let mut doc = b.to_json();
    doc["accessors"][JOINTS]
        .as_object_mut()
        .unwrap()
        .remove("bufferView");
    let imported = import_slice(&gltf_bytes(&doc), None, "zero joints")
        .unwrap_or_else(|e| panic!("zero joints: {e}"));
    let prim = &imported.scene.meshes[0].primitives[0];
    assert_eq!(prim.joints, vec![0u16; 12]);
    assert_eq!(prim.weights, [1.0f32, 0.0, 0.0, 0.0].repeat(3));
    bake(&imported.scene, &BakeOptions::default(), &|_, _| {})
        .unwrap_or_else(|e| panic!("zero joints: bake: {e}"));

    // WEIGHTS_0 without a bufferView: all zero, so every vertex is bound to
    // the root entry and reported.
    let mut doc = base().to_json();
    doc["accessors"][WEIGHTS]
        .as_object_mut()
        .unwrap()
        .remove("bufferView");
    let imported = import_slice(&gltf_bytes(&doc), None, "zero weights").unwrap();
    assert_eq!(
        imported.scene.meshes[0].primitives[0].weights,
        vec![0.0f32; 12]
    );
    let (_, report) = bake(&imported.scene, &BakeOptions::default(), &|_, _| {}).unwrap();
    assert_eq!(report.influences.vertices_zero_weight, 3);
}

/// Makes accessor `acc` of `b` sparse: elements `indices` (u16) replaced
/// by `values` (f32, flattened), stored in two new buffer views.
fn make_sparse(mut b: GltfBuilder, acc: usize, indices: &[u32], values: &[f32]) -> Value {
    let idx = b.accessor_uint("SCALAR", 1, component::U16, false, indices);
    let val = b.accessor_f32("SCALAR", 1, values);
    let mut doc = b.to_json();
    let iv = doc["accessors"][idx]["bufferView"].clone();
    let vv = doc["accessors"][val]["bufferView"].clone();
    doc["accessors"][acc]["sparse"] = json!({
        "count": indices.len(),
        "indices": { "bufferView": iv, "componentType": component::U16 },
        "values": { "bufferView": vv },
    });
    doc
}

#[test]
fn sparse_accessors_with_and_without_a_buffer_view() {
    // POSITION: vertex 1 moved to (5, 6, 7) over its stored values.
    let mut doc = make_sparse(base(), POSITION, &[1], &[5.0, 6.0, 7.0]);
    doc["accessors"][POSITION]["max"] = json!([5.0, 6.0, 7.0]);
    let imported = import_slice(&gltf_bytes(&doc), None, "sparse over data")
        .unwrap_or_else(|e| panic!("sparse over data: {e}"));
    let p = &imported.scene.meshes[0].primitives[0].positions;
    assert_eq!(
        p.iter().map(|v| v.to_array()).collect::<Vec<_>>(),
        [[0.0, 0.0, 0.0], [5.0, 6.0, 7.0], [0.0, 1.0, 0.0]]
    );

    // WEIGHTS_0 without a bufferView: zeros except vertices 0 and 2.
    let mut doc = make_sparse(
        base(),
        WEIGHTS,
        &[0, 2],
        &[0.25, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
    );
    doc["accessors"][WEIGHTS]
        .as_object_mut()
        .unwrap()
        .remove("bufferView");
    let imported = import_slice(&gltf_bytes(&doc), None, "sparse over zeros")
        .unwrap_or_else(|e| panic!("sparse over zeros: {e}"));
    assert_eq!(
        imported.scene.meshes[0].primitives[0].weights,
        [[0.25f32, 0.0, 0.0, 0.0], [0.0; 4], [1.0, 0.0, 0.0, 0.0]].concat()
    );
    let (_, report) = bake(&imported.scene, &BakeOptions::default(), &|_, _| {}).unwrap();
    assert_eq!(report.influences.vertices_zero_weight, 1, "vertex 1");
}

#[test]
fn accessors_without_a_buffer_view_share_a_size_cap() {
    use throng_core::limits::MAX_UNBACKED_COMPONENTS;
    // One accessor alone over the cap: refused before allocating.
    let mut doc = base().to_json();
    let a = &mut doc["accessors"][JOINTS];
    a.as_object_mut().unwrap().remove("bufferView");
    a["count"] = json!(MAX_UNBACKED_COMPONENTS / 4 + 1);
    let msg = import_slice(&gltf_bytes(&doc), None, "huge")
        .expect_err("huge zero-filled accessor")
        .to_string();
    println!("huge: {msg}");
    assert_mentions(
        "huge",
        &msg,
        &[
            "attributes.JOINTS_0",
            "accessors[1] without a bufferView",
            "limit",
        ],
    );
    // Two accessors, each under the cap, together over it.
    let per = MAX_UNBACKED_COMPONENTS / 8 + 1;
    let mut doc = base().to_json();
    for acc in [JOINTS, WEIGHTS] {
        let a = &mut doc["accessors"][acc];
        a.as_object_mut().unwrap().remove("bufferView");
        a["count"] = json!(per);
    }
    let msg = import_slice(&gltf_bytes(&doc), None, "two")
        .expect_err("two zero-filled accessors over the cap")
        .to_string();
    println!("two: {msg}");
    assert_mentions(
        "two",
        &msg,
        &["attributes.WEIGHTS_0", &format!("{} components", per * 4)],
    );
}
