//! Special files (a FIFO, a socket, a directory, a character device) named
//! by buffer and image URIs, or met by the provenance hash and the
//! up-to-date check, are refused or hashed as unread, never opened for
//! reading and never blocking.

use std::path::{Path, PathBuf};
use std::sync::mpsc;

use serde_json::json;
use throng_bake::BakeOptions;
use throng_tests::assert_mentions;

use super::{HANG_GUARD, folders, options, refused, with_buffer_uri, with_image_uri, write_model};

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
