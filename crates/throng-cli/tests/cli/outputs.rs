//! The `throng` binary never loses data and says each error once: outputs
//! are written atomically, checked (format, identity with an input) before
//! any work, and error messages name the path and print their cause once.
//!
//! None of these needs a GPU: every refusal comes before the adapter is
//! asked for.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The bundled model these tests bake (small, so a bake takes milliseconds).
const MODEL: &str = "assets/khronos_RiggedSimple.glb";

/// What an existing output holds before a command that must not touch it.
const OLD: &[u8] = b"an existing output the command must leave exactly as it was";

/// A fresh scratch directory holding a copy of [`MODEL`] as `model.glb`.
fn scratch(name: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("throng-outputs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let model = dir.join("model.glb");
    std::fs::copy(root.join(MODEL), &model).unwrap();
    (dir, model)
}

/// Runs `throng` in `dir`.
fn throng(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("running the throng binary")
}

/// Asserts the command failed and returns its standard error.
fn failed(what: &str, out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    println!("{what}: {stderr}");
    assert!(
        !out.status.success(),
        "{what}: succeeded but should have failed; stdout:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    stderr
}

/// Asserts `text` contains `part` exactly once.
fn once(what: &str, text: &str, part: &str) {
    let n = text.matches(part).count();
    assert_eq!(n, 1, "{what}: {part:?} appears {n} times in: {text}");
}

/// Asserts `path` still holds `bytes` and that `dir` holds nothing but
/// `keep` (no temporary file left behind).
fn untouched(what: &str, dir: &Path, path: &Path, bytes: &[u8], keep: &[&str]) {
    let now = std::fs::read(path).unwrap();
    assert!(
        now == bytes,
        "{what}: {} changed: {} bytes, was {}",
        path.display(),
        now.len(),
        bytes.len()
    );
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect();
    names.sort();
    assert!(names.is_empty(), "{what}: left behind {names:?}");
}

/// Asserts the command succeeded.
fn succeeded(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `throng sample` of clip 0 of the model at time 0, to which a test adds
/// `-o` and an output.
const SAMPLE: [&str; 6] = ["sample", "model.glb", "--clip", "0", "--times", "0"];

/// Writes [`OLD`] to `dir/name`: an existing output a command must not touch.
fn existing_output(dir: &Path, name: &str) {
    std::fs::write(dir.join(name), OLD).unwrap();
}

/// Asserts `dir/name` still holds [`OLD`] and `dir` holds nothing but it
/// and the model.
fn old_output_untouched(what: &str, dir: &Path, name: &str) {
    untouched(what, dir, &dir.join(name), OLD, &["model.glb", name]);
}

#[test]
fn a_failed_bake_leaves_the_existing_output() {
    let (dir, _) = scratch("failed-bake");
    existing_output(&dir, "out.throng");
    let r = throng(
        &dir,
        &[
            "bake",
            "model.glb",
            "-o",
            "out.throng",
            "--clips",
            "NoSuchClip",
        ],
    );
    let err = failed("unknown clip", &r);
    assert!(err.contains("NoSuchClip"), "{err}");
    old_output_untouched("unknown clip", &dir, "out.throng");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A write that fails halfway (the file-size limit stands in for a full
/// disk: `write` returns EFBIG) leaves the old output, not a truncated one.
#[cfg(unix)]
#[test]
fn a_write_failing_halfway_leaves_the_existing_output() {
    /// `ulimit -f` in blocks (512 or 1024 bytes, by shell): at most 4 KiB.
    const LIMIT_BLOCKS: u64 = 4;
    let (dir, _) = scratch("halfway");
    // The bake must be larger than what the limit lets through.
    let r = throng(&dir, &["bake", "model.glb", "-o", "fresh.throng"]);
    succeeded(&r);
    let size = std::fs::metadata(dir.join("fresh.throng")).unwrap().len();
    assert!(
        size > 2 * 1024 * LIMIT_BLOCKS,
        "the bake is only {size} bytes"
    );
    std::fs::remove_file(dir.join("fresh.throng")).unwrap();

    existing_output(&dir, "out.throng");
    // SIGXFSZ ignored (inherited through exec), so the write fails with
    // EFBIG instead of killing the process.
    let r = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f {LIMIT_BLOCKS} && exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_throng"))
        .args(["bake", "model.glb", "-o", "out.throng"])
        .current_dir(&dir)
        .output()
        .expect("running sh");
    let err = failed("file size limit", &r);
    once("file size limit", &err, "File too large");
    assert!(err.contains("out.throng"), "{err}");
    old_output_untouched("file size limit", &dir, "out.throng");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn render_refuses_an_unsupported_image_format_before_any_work() {
    let (dir, _) = scratch("render-format");
    existing_output(&dir, "good.gif");
    // The model does not even exist: the output is checked first.
    let r = throng(&dir, &["render", "missing.glb", "-o", "good.gif"]);
    let err = failed("render -o good.gif", &r);
    assert!(err.contains("good.gif") && err.contains(".gif"), "{err}");
    assert!(err.contains(".png"), "names the supported formats: {err}");
    assert!(
        !err.contains("missing.glb"),
        "checked after the model: {err}"
    );
    assert!(!err.contains("GPU"), "checked after the GPU: {err}");
    old_output_untouched("render -o good.gif", &dir, "good.gif");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bake_refuses_an_output_that_is_not_a_throng_file() {
    let (dir, _) = scratch("bake-format");
    existing_output(&dir, "picture.png");
    let r = throng(&dir, &["bake", "model.glb", "-o", "picture.png"]);
    let err = failed("bake -o picture.png", &r);
    assert!(
        err.contains("picture.png") && err.contains(".throng"),
        "{err}"
    );
    old_output_untouched("bake -o picture.png", &dir, "picture.png");
    // Same for `sample -o`, which writes JSON.
    let r = throng(&dir, &[&SAMPLE[..], &["-o", "picture.png"]].concat());
    let err = failed("sample -o picture.png", &r);
    assert!(
        err.contains("picture.png") && err.contains(".json"),
        "{err}"
    );
    old_output_untouched("sample -o picture.png", &dir, "picture.png");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn commands_refuse_to_overwrite_their_input() {
    let (dir, model) = scratch("same-file");
    let original = std::fs::read(&model).unwrap();
    std::fs::create_dir_all(dir.join("a")).unwrap();
    // Another spelling of the same path, and other names of the same file.
    std::fs::hard_link(&model, dir.join("link.throng")).unwrap();
    std::fs::hard_link(&model, dir.join("link.png")).unwrap();
    std::fs::hard_link(&model, dir.join("link.json")).unwrap();
    let keep = ["model.glb", "a", "link.throng", "link.png", "link.json"];
    let sample = [&SAMPLE[..], &["-o", "link.json"]].concat();
    let cases: [(&str, &[&str]); 4] = [
        (
            "bake -o ./a/../model.glb",
            &["bake", "model.glb", "-o", "./a/../model.glb"],
        ),
        (
            "bake -o link.throng",
            &["bake", "model.glb", "-o", "link.throng"],
        ),
        (
            "render -o link.png",
            &["render", "model.glb", "-o", "link.png"],
        ),
        ("sample -o link.json", &sample),
    ];
    for (what, args) in cases {
        let err = failed(what, &throng(&dir, args));
        assert!(
            err.contains("is the input") && err.contains("model.glb"),
            "{what}: {err}"
        );
        untouched(what, &dir, &model, &original, &keep);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_file_is_named_with_its_cause_once() {
    let (dir, _) = scratch("missing");
    for args in [
        &["bake", "nope.glb"][..],
        &["inspect", "nope.throng"],
        &["render", "nope.throng", "-o", "x.png"],
    ] {
        let what = args.join(" ");
        let err = failed(&what, &throng(&dir, args));
        once(&what, &err, "No such file or directory");
        assert!(err.contains(args[1]), "{what}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_malformed_gltf_is_named_with_its_cause_once() {
    let (dir, _) = scratch("malformed");
    // Fails the glTF crate's validation: a scene names a node that is not there.
    std::fs::write(
        dir.join("bad.gltf"),
        br#"{"asset":{"version":"2.0"},"scenes":[{"nodes":[3]}]}"#,
    )
    .unwrap();
    let err = failed("bake bad.gltf", &throng(&dir, &["bake", "bad.gltf"]));
    once("bake bad.gltf", &err, "invalid glTF");
    once("bake bad.gltf", &err, "scenes[0].nodes[0]");
    assert!(err.contains("bad.gltf"), "{err}");
    // Not JSON at all.
    std::fs::write(dir.join("junk.glb"), b"{ this is not json").unwrap();
    let err = failed("bake junk.glb", &throng(&dir, &["bake", "junk.glb"]));
    once("bake junk.glb", &err, "line 1 column");
    assert!(err.contains("junk.glb"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn baking_a_throng_file_says_it_is_already_a_bake() {
    let (dir, _) = scratch("rebake");
    let r = throng(&dir, &["bake", "model.glb", "-o", "model.throng"]);
    succeeded(&r);
    let baked = std::fs::read(dir.join("model.throng")).unwrap();
    let err = failed(
        "bake model.throng",
        &throng(&dir, &["bake", "model.throng"]),
    );
    assert!(err.contains("model.throng"), "{err}");
    assert!(err.contains("already a bake"), "{err}");
    assert!(err.contains("throng inspect"), "{err}");
    assert!(!err.contains("glTF 2.0 file"), "{err}");
    untouched(
        "bake model.throng",
        &dir,
        &dir.join("model.throng"),
        &baked,
        &["model.glb", "model.throng"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}
