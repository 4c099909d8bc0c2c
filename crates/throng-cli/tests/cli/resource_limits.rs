//! Absurd requests end in a clear error that names the limit, never in a
//! panic or the kernel's out-of-memory killer (issue: hardening).
//!
//! Runs the built `throng` binary on the bundled Fox. Needs a GPU adapter
//! (lavapipe is enough): without one these tests fail, like every GPU test.

use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("throng-limits-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("xdg")).unwrap();
    dir
}

fn render(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_throng"))
        .arg("render")
        .arg(root().join("assets/khronos_Fox.glb"))
        .args(args)
        .arg("-o")
        .arg(dir.join("out.png"))
        .env("XDG_RUNTIME_DIR", dir.join("xdg"))
        .output()
        .expect("running the throng binary")
}

/// Exit 1 with an `error:` line (anyhow's report), not a panic (101) or a
/// signal, and no output file.
fn assert_clean_failure(out: &Output, dir: &std::path::Path, wanted: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "expected a clean failure (exit 1), got {:?}:\n{stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "a panic:\n{stderr}");
    assert!(
        wanted.iter().any(|w| stderr.contains(w)),
        "the error names none of {wanted:?}:\n{stderr}"
    );
    assert!(!dir.join("out.png").exists(), "an image was written");
}

#[test]
fn a_hundred_million_instances_are_refused_before_they_are_allocated() {
    let dir = scratch("instances");
    let out = render(&dir, &["--instances", "100000000", "--size", "64x64"]);
    // Either the host's memory (the crowd's storage) or the device's record
    // buffer is the limit, whichever is smaller on this machine.
    assert_clean_failure(
        &out,
        &dir,
        &["bytes available", "instance records of one frame"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_render_target_the_device_may_not_hold_is_drawn_or_refused_never_a_panic() {
    let dir = scratch("target");
    // 12000² with 4× MSAA passes the size check. On lavapipe (Vulkan) the
    // depth target then runs out of memory, which wgpu's default handler
    // turned into a panic; llvmpipe's GL draws it. A host with too little
    // memory refuses it before allocating. Each is fine; a panic is not.
    let out = render(
        &dir,
        &["--instances", "1", "--size", "12000x12000", "--msaa", "4"],
    );
    if out.status.success() {
        assert!(dir.join("out.png").exists(), "exit 0 but no image");
    } else {
        assert_clean_failure(&out, &dir, &["the GPU failed while", "bytes available"]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
