//! `throng bake` for asset pipelines: whole folders in parallel, skipped
//! when up to date (by the inputs' hash, options and baker recorded in each
//! output), re-baked when a referenced buffer or texture changes,
//! byte-identical whatever the thread count, one broken model failing alone,
//! and a headless bake that prints only its own summary.
//!
//! The bakes with impostors need a GPU adapter (lavapipe will do); under
//! `CI=true` a missing adapter fails them, as everywhere.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use throng_tests::gltf_builder::{glb_bytes, glb_parts, skinned_triangle};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh scratch folder.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("throng-folders-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `throng` in `dir` with a private runtime folder (lavapipe wants one).
fn throng(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("running the throng binary");
    println!(
        "$ throng {}\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn succeeded(what: &str, out: &Output) -> String {
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(out)
}

/// A glTF whose buffer is `tri.bin` and whose material's base colour is
/// `tri.png` beside it.
fn write_external_model(dir: &Path) {
    let b = skinned_triangle(&[0, 1, 2], [[0; 4]; 3], [[1.0, 0.0, 0.0, 0.0]; 3]);
    let mut doc = b.to_json_external("tri.bin");
    doc["images"] = serde_json::json!([{ "uri": "tri.png" }]);
    doc["textures"] = serde_json::json!([{ "source": 0 }]);
    doc["materials"] =
        serde_json::json!([{ "pbrMetallicRoughness": { "baseColorTexture": { "index": 0 } } }]);
    doc["meshes"][0]["primitives"][0]["material"] = serde_json::json!(0);
    std::fs::write(dir.join("tri.gltf"), serde_json::to_vec(&doc).unwrap()).unwrap();
    std::fs::write(dir.join("tri.bin"), b.bin()).unwrap();
    write_png(&dir.join("tri.png"), [200, 40, 40, 255]);
}

fn write_png(path: &Path, colour: [u8; 4]) {
    image::RgbaImage::from_pixel(4, 4, image::Rgba(colour))
        .save(path)
        .unwrap();
}

#[test]
fn an_untouched_folder_is_skipped_and_an_edited_buffer_or_texture_rebakes() {
    let dir = scratch("incremental");
    let assets = dir.join("assets");
    std::fs::create_dir_all(assets.join("sub")).unwrap();
    write_external_model(&assets.join("sub"));
    std::fs::copy(
        repo_root().join("assets/khronos_RiggedSimple.glb"),
        assets.join("simple.glb"),
    )
    .unwrap();
    let bake = ["bake", "assets", "-o", "out", "--no-impostors"];
    let cold = succeeded("cold bake", &throng(&dir, &bake));
    assert!(cold.contains("2 baked, 0 up to date, 0 failed"), "{cold}");
    let tri = dir.join("out/sub/tri.throng");
    let first = std::fs::read(&tri).expect("the folder's layout is kept below -o");
    assert!(dir.join("out/simple.throng").is_file());

    let warm = succeeded("warm bake", &throng(&dir, &bake));
    assert!(warm.contains("0 baked, 2 up to date, 0 failed"), "{warm}");

    // The texture changes: only its model is baked again, and its output
    // holds the new image.
    write_png(&assets.join("sub/tri.png"), [40, 200, 40, 255]);
    let after_png = succeeded("after a texture edit", &throng(&dir, &bake));
    assert!(after_png.contains("1 baked, 1 up to date"), "{after_png}");
    let second = std::fs::read(&tri).unwrap();
    assert!(second != first, "the re-bake wrote the new texture");

    // The buffer changes (the last key moves the joint further).
    let bin = assets.join("sub/tri.bin");
    let mut bytes = std::fs::read(&bin).unwrap();
    let n = bytes.len();
    bytes[n - 8..n - 4].copy_from_slice(&2.0f32.to_le_bytes());
    std::fs::write(&bin, &bytes).unwrap();
    let after_bin = succeeded("after a buffer edit", &throng(&dir, &bake));
    assert!(after_bin.contains("1 baked, 1 up to date"), "{after_bin}");
    assert!(std::fs::read(&tri).unwrap() != second);

    // Other options are another bake; --force bakes what is up to date.
    let other = succeeded(
        "other options",
        &throng(&dir, &[&bake[..], &["--fps", "24"]].concat()),
    );
    assert!(other.contains("2 baked"), "{other}");
    let forced = succeeded(
        "--force",
        &throng(&dir, &[&bake[..], &["--fps", "24", "--force"]].concat()),
    );
    assert!(forced.contains("2 baked, 0 up to date"), "{forced}");

    // inspect shows what the up-to-date check compares.
    let shown = succeeded("inspect", &throng(&dir, &["inspect", "out/sub/tri.throng"]));
    assert!(
        shown.contains("provenance") && shown.contains("fps=24.0"),
        "{shown}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_broken_model_fails_alone_and_is_named() {
    let dir = scratch("broken");
    let assets = dir.join("assets");
    std::fs::create_dir_all(&assets).unwrap();
    std::fs::copy(
        repo_root().join("assets/khronos_RiggedSimple.glb"),
        assets.join("good.glb"),
    )
    .unwrap();
    std::fs::write(assets.join("broken.gltf"), b"{ this is not json").unwrap();
    let out = throng(&dir, &["bake", "assets", "-o", "out", "--no-impostors"]);
    assert!(
        !out.status.success(),
        "a failed model makes the exit non-zero"
    );
    let text = stdout(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("1 baked, 0 up to date, 1 failed"), "{text}");
    assert!(
        text.contains("FAILED") && text.contains("broken.gltf"),
        "{text}"
    );
    assert!(
        err.contains("1 of 2 models failed") && err.contains("broken.gltf"),
        "{err}"
    );
    assert!(
        dir.join("out/good.throng").is_file(),
        "the good model is still written"
    );
    assert!(!dir.join("out/broken.throng").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rebakes_are_byte_identical_on_one_thread_and_many() {
    let dir = scratch("reproducible");
    // The Fox with its impostor (a small atlas, so the test stays short)
    // and the Woman's ten clips, baked in parallel or not.
    let cases: [(&str, &[&str]); 2] = [
        ("assets/khronos_Fox.glb", &["--impostor-budget", "512KiB"]),
        ("assets/gszauer_Woman.gltf", &["--no-impostors"]),
    ];
    for (model, extra) in cases {
        let model = repo_root().join(model);
        let model = model.to_str().unwrap();
        let mut files = Vec::new();
        for (i, jobs) in ["1", "8", "8", "1"].iter().enumerate() {
            let out = format!("bake{i}.throng");
            let args = [
                &["bake", model, "-o", &out, "--force", "--jobs", jobs][..],
                extra,
            ]
            .concat();
            succeeded("bake", &throng(&dir, &args));
            files.push(std::fs::read(dir.join(&out)).unwrap());
        }
        for (i, f) in files.iter().enumerate().skip(1) {
            assert!(
                *f == files[0],
                "{model}: bake {i} differs from bake 0 ({} vs {} bytes; first difference at byte {:?})",
                f.len(),
                files[0].len(),
                f.iter().zip(&files[0]).position(|(a, b)| a != b)
            );
        }
        println!(
            "{model}: 4 bakes (1, 8, 8, 1 threads) byte-identical, {} bytes",
            files[0].len()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_headless_bake_prints_only_its_summary() {
    let dir = scratch("quiet");
    let model = repo_root().join("assets/khronos_RiggedSimple.glb");
    // No runtime folder, as on a build server: Mesa's device-select layer
    // used to print an XDG_RUNTIME_DIR error per adapter probe.
    let out = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["bake", model.to_str().unwrap(), "-o", "quiet.throng"])
        .args(["--impostor-budget", "256KiB"])
        .env_remove("XDG_RUNTIME_DIR")
        .current_dir(&dir)
        .output()
        .unwrap();
    let text = succeeded("headless bake", &out);
    assert!(
        text.contains("impostor"),
        "an impostor was captured: {text}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.trim().is_empty(), "stderr of a successful bake: {err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Fox's GLB with its JSON edited by `edit`, written to `path`.
fn write_fox(path: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let (mut doc, bin) =
        glb_parts(&std::fs::read(repo_root().join("assets/khronos_Fox.glb")).unwrap());
    edit(&mut doc);
    std::fs::write(path, glb_bytes(&doc, &bin)).unwrap();
}

#[test]
fn bodies_take_a_librarys_clips_and_bake_again_when_it_changes() {
    let dir = scratch("clips-from");
    for folder in ["bodies", "library"] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
    }
    // A body without clips; the library, a folder holding the Fox.
    write_fox(&dir.join("bodies/fox.glb"), |doc| {
        doc.as_object_mut().unwrap().remove("animations");
    });
    write_fox(&dir.join("library/clips.glb"), |_| {});
    let bake = [
        "bake",
        "bodies",
        "-o",
        "out",
        "--no-impostors",
        "--no-lods",
        "--clips-from",
        "library",
    ];
    let cold = succeeded("cold bake", &throng(&dir, &bake));
    assert!(cold.contains("1 baked, 0 up to date, 0 failed"), "{cold}");
    let shown = succeeded("inspect", &throng(&dir, &["inspect", "out/fox.throng"]));
    assert!(
        ["Survey", "Walk", "Run"].iter().all(|c| shown.contains(c)) && shown.contains("clips_from"),
        "{shown}"
    );
    let warm = succeeded("warm bake", &throng(&dir, &bake));
    assert!(warm.contains("0 baked, 1 up to date"), "{warm}");
    // The library changes (a clip renamed): the body is baked again.
    write_fox(&dir.join("library/clips.glb"), |doc| {
        doc["animations"][1]["name"] = "Stroll".into();
    });
    let after = succeeded("after a library edit", &throng(&dir, &bake));
    assert!(after.contains("1 baked, 0 up to date"), "{after}");
    let shown = succeeded("inspect", &throng(&dir, &["inspect", "out/fox.throng"]));
    assert!(
        shown.contains("Stroll") && !shown.contains("Walk"),
        "{shown}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
