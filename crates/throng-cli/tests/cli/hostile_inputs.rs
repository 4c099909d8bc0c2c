//! `throng bake` against hostile inputs a user can hand it, each run with a
//! deadline (a hang fails the test instead of stalling it):
//!
//! * images that break glTF 2.0's rules (neither `uri` nor `bufferView`, a
//!   `bufferView` without `mimeType`, an index that names no buffer view,
//!   …): the model still bakes, without that texture, and a warning names
//!   the image and the rule;
//! * special files — a FIFO, a socket, a directory, a character device —
//!   in every place the bake opens a file: the model itself, a buffer or
//!   image URI, the events file and the events sidecar, a LOD file, and the
//!   output whose provenance the up-to-date check reads. Each is refused by
//!   name, nothing blocks, and the special file is still there afterwards.
//!
//! None of these needs a GPU (`--no-impostors`).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long one bake of the small test model may take before it counts as
/// hung: a debug build refuses or bakes it in well under a second, so a
/// hang (a FIFO opened without the guard) fails the test within this, not
/// minutes later; the margin is for a loaded 2-core machine running other
/// tests beside it.
const DEADLINE: Duration = Duration::from_secs(15);

/// The textured skinned model the image cases break (a fuzz seed: two
/// bones, one clip, an 8×8 PNG as a data URI used by three texture slots).
const TEXTURED: &str = "fuzz/seeds/gltf/textured_skin.gltf";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh scratch directory for `case`.
fn scratch(case: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "throng-hostile-{}-{}",
        case.replace([' ', '/'], "-"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What a bake run gave.
struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

/// Runs `throng bake ARGS --no-lods --no-impostors` in `dir`, killing it at
/// [`DEADLINE`]. Output goes to files (a full pipe cannot block the child).
fn bake(case: &str, dir: &Path, args: &[&str]) -> Run {
    let (out, err) = (dir.join(".stdout"), dir.join(".stderr"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_throng"))
        .arg("bake")
        .args(args)
        .args(["--no-lods", "--no-impostors"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .expect("running the throng binary");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{case}: `throng bake {args:?}` hung (killed after {DEADLINE:?}); stderr:\n{}",
                std::fs::read_to_string(&err).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let run = Run {
        status,
        stdout: std::fs::read_to_string(&out).unwrap(),
        stderr: std::fs::read_to_string(&err).unwrap(),
    };
    println!(
        "{case}: exit {:?}\n{}{}",
        run.status.code(),
        run.stdout,
        run.stderr
    );
    assert_ne!(
        run.status.code(),
        Some(101),
        "{case}: throng panicked:\n{}",
        run.stderr
    );
    run
}

/// The textured model's JSON, changed by `edit`.
fn textured(edit: impl FnOnce(&mut Value)) -> Value {
    let text = std::fs::read_to_string(repo_root().join(TEXTURED)).unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    edit(&mut doc);
    doc
}

/// The model's PNG moved into a buffer of its own, viewed by a new buffer
/// view; returns that view's index.
fn png_in_a_view(doc: &mut Value) -> usize {
    let uri = doc["images"][0]["uri"].as_str().unwrap().to_owned();
    let png = uri.split_once(',').unwrap().1.to_owned();
    use base64::Engine as _;
    let len = base64::engine::general_purpose::STANDARD
        .decode(&png)
        .unwrap()
        .len();
    let buffers = doc["buffers"].as_array_mut().unwrap();
    buffers.push(json!({
        "uri": format!("data:application/octet-stream;base64,{png}"),
        "byteLength": len,
    }));
    let buffer = buffers.len() - 1;
    let views = doc["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": buffer, "byteLength": len}));
    views.len() - 1
}

/// Broken images: each bakes, without the texture (or, where only a rule
/// of form is broken and the bytes are there, with it), and warns naming
/// the image and the rule.
#[test]
fn images_that_break_the_rules_drop_their_texture_with_a_warning() {
    type Edit = fn(&mut Value);
    let cases: [(&str, Edit, &[&str], bool); 7] = [
        (
            "an empty image object",
            |d| d["images"][0] = json!({}),
            &["images[0]", "neither uri nor bufferView"],
            false,
        ),
        (
            "a bufferView without mimeType",
            |d| {
                let v = png_in_a_view(d);
                d["images"][0] = json!({ "bufferView": v });
            },
            &["images[0]", "no mimeType"],
            true,
        ),
        (
            "a bufferView index that names no view",
            |d| d["images"][0] = json!({"bufferView": 99, "mimeType": "image/png"}),
            &["images[0].bufferView", "bufferViews[99]"],
            false,
        ),
        (
            "a bufferView that runs past its buffer",
            |d| {
                let v = png_in_a_view(d);
                d["bufferViews"][v]["byteOffset"] = json!(4096);
                d["images"][0] = json!({"bufferView": v, "mimeType": "image/png"});
            },
            &["images[0].bufferView", "spans bytes 4096"],
            false,
        ),
        (
            "both uri and bufferView",
            |d| {
                let v = png_in_a_view(d);
                d["images"][0]["bufferView"] = json!(v);
                d["images"][0]["mimeType"] = json!("image/png");
            },
            &["images[0]", "both uri and bufferView"],
            true,
        ),
        (
            "a texture whose source names no image",
            |d| d["textures"][0]["source"] = json!(7),
            &["textures[0].source", "images[7]"],
            false,
        ),
        (
            "a texture whose sampler names no sampler",
            |d| d["textures"][0]["sampler"] = json!(3),
            &["textures[0].sampler", "samplers[3]"],
            false,
        ),
    ];
    for (case, edit, says, keeps_texture) in cases {
        let dir = scratch(case);
        std::fs::write(
            dir.join("model.gltf"),
            serde_json::to_vec(&textured(edit)).unwrap(),
        )
        .unwrap();
        let run = bake(case, &dir, &["model.gltf", "-o", "model.throng"]);
        assert!(run.status.success(), "{case}: the model bakes without it");
        let all = format!("{}{}", run.stdout, run.stderr);
        for part in says {
            assert!(all.contains(part), "{case}: the warning names {part:?}");
        }
        let model = throng_core::format::read_file(&dir.join("model.throng")).unwrap();
        let textured_slots = model
            .materials
            .iter()
            .flat_map(|m| m.textures.iter().flatten())
            .count();
        assert_eq!(
            textured_slots > 0,
            keeps_texture,
            "{case}: {textured_slots} texture slots baked"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The special kinds of file, and how a test makes one at `path`.
const KINDS: [&str; 4] = ["a FIFO", "a socket", "a directory", "a character device"];

/// Makes a file of `kind` at `path`; the socket's listener must stay alive
/// while the file is used.
fn make_special(kind: &str, path: &Path) -> Option<std::os::unix::net::UnixListener> {
    match kind {
        "a FIFO" => {
            let ok = Command::new("mkfifo").arg(path).status().unwrap();
            assert!(ok.success(), "mkfifo {}", path.display());
            None
        }
        "a socket" => Some(std::os::unix::net::UnixListener::bind(path).unwrap()),
        "a directory" => {
            std::fs::create_dir(path).unwrap();
            None
        }
        "a character device" => {
            // A link inside the folder: the device is outside it, so these
            // runs lift the folder policy to reach the kind check.
            std::os::unix::fs::symlink("/dev/zero", path).unwrap();
            None
        }
        _ => unreachable!("{kind}"),
    }
}

/// Where a special file sits: a name for the place, the special file's
/// name in the scratch folder, the bake's arguments, and which list of the
/// model's JSON (buffers or images) names it as its first entry's URI
/// (the model is the textured one, written as `model.gltf`).
type Place = (
    &'static str,
    &'static str,
    &'static [&'static str],
    Option<&'static str>,
);

#[rustfmt::skip]
const PLACES: [Place; 7] = [
    ("the model", "special.gltf", &["special.gltf", "-o", "out.throng"], None),
    ("a buffer URI", "special.bin", &["model.gltf", "-o", "out.throng"], Some("buffers")),
    ("an image URI", "special.png", &["model.gltf", "-o", "out.throng"], Some("images")),
    ("the events file", "special.json", &["model.gltf", "-o", "out.throng", "--events", "special.json"], None),
    ("the events sidecar", "model.events.json", &["model.gltf", "-o", "out.throng"], None),
    ("a LOD file", "special.glb", &["model.gltf", "-o", "out.throng", "--lod", "special.glb"], None),
    ("the output the up-to-date check reads", "out.throng", &["model.gltf", "-o", "out.throng"], None),
];

/// Every special kind in every place the bake opens a file: a named
/// refusal, no hang, and the special file left as it was.
#[cfg(unix)]
#[test]
fn special_files_are_refused_by_name_wherever_the_bake_opens_one() {
    for &(place, file, place_args, names) in &PLACES {
        for kind in KINDS {
            let case = format!("{kind} as {place}");
            let dir = scratch(&case);
            let doc = textured(|d| {
                if let Some(list) = names {
                    d[list][0]["uri"] = json!(file);
                }
            });
            std::fs::write(dir.join("model.gltf"), serde_json::to_vec(&doc).unwrap()).unwrap();
            let special = dir.join(file);
            let _listener = make_special(kind, &special);
            let mut args = place_args.to_vec();
            if kind == "a character device" {
                args.push("--allow-outside-uris");
            }
            let run = bake(&case, &dir, &args);
            assert!(!run.status.success(), "{case}: the bake must fail");
            // A folder given as the model is a folder of models to bake.
            let says = match (place, kind) {
                ("the model", "a directory") => "holds no .gltf or .glb file",
                _ => kind,
            };
            assert!(
                run.stderr.contains(says),
                "{case}: the error says {says:?}:\n{}",
                run.stderr
            );
            let still = std::fs::symlink_metadata(&special).unwrap().file_type();
            assert!(!still.is_file(), "{case}: replaced by a regular file");
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}
