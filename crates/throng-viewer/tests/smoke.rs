//! Smoke tests of the built viewer binary: a real window under Xvfb on
//! whatever adapter wgpu finds (lavapipe in CI).
//!
//! * `--instances 50 --screenshot … --frames 30` and `--frames 31` give
//!   images that are neither empty nor uniform, show the Fox crowd, and
//!   differ from each other (the crowd animates); the same frame with the
//!   HUD differs again (the HUD is drawn).
//! * A model that does not load, and a missing display, end with exit code 1
//!   and a one-line message, never a panic.
//! * A lost device, and surface faults (resizes, 0 × 0, lost, outdated,
//!   timed out, occluded), are lived through: the last frame equals the one
//!   a run without them draws.
//!
//! Without `xvfb-run` the window tests fail (anywhere, not only in CI): a
//! test that did not run never passes. `./tools/test.sh` installs Xvfb.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const VIEWER: &str = env!("CARGO_BIN_EXE_throng-viewer");

/// Small, so the debug build on lavapipe takes seconds.
const SIZE: &str = "400x240";

fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// `xvfb-run`.
///
/// # Panics
///
/// When it is not installed: the window tests need it.
fn xvfb(test: &str) -> PathBuf {
    find_on_path("xvfb-run").unwrap_or_else(|| {
        panic!(
            "{test}: xvfb-run is needed to test the viewer's window \
             (./tools/test.sh installs it; or apt-get install -y xvfb xauth)"
        )
    })
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("throng-viewer-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("runtime")).unwrap();
    dir
}

/// Runs the viewer under Xvfb with `args`.
fn run_viewer(xvfb: &Path, dir: &Path, args: &[&str]) -> Output {
    Command::new(xvfb)
        .args(["-a", "-s", "-screen 0 1280x720x24", VIEWER])
        .args(args)
        // lavapipe complains without a runtime directory.
        .env("XDG_RUNTIME_DIR", dir.join("runtime"))
        .output()
        .expect("xvfb-run starts")
}

fn describe(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn screenshot(xvfb: &Path, dir: &Path, frames: u32, hud: bool) -> image::RgbaImage {
    let name = format!("frame{frames}{}.png", if hud { "-hud" } else { "" });
    screenshot_with(xvfb, dir, &name, frames, hud, &[]).0
}

/// A `--screenshot` run of `frames` frames saved as `name` in `dir`, with
/// `extra` arguments; the image and the viewer's standard error.
fn screenshot_with(
    xvfb: &Path,
    dir: &Path,
    name: &str,
    frames: u32,
    hud: bool,
    extra: &[&str],
) -> (image::RgbaImage, String) {
    let path = dir.join(name);
    let path_arg = path.to_string_lossy().into_owned();
    let frames_arg = frames.to_string();
    let mut args = vec![
        "--instances",
        "50",
        "--screenshot",
        &path_arg,
        "--frames",
        &frames_arg,
        "--size",
        SIZE,
    ];
    if !hud {
        args.push("--no-hud");
    }
    args.extend_from_slice(extra);
    let out = run_viewer(xvfb, dir, &args);
    assert!(out.status.success(), "viewer failed: {}", describe(&out));
    let image = image::open(&path)
        .unwrap_or_else(|e| panic!("{}: {e}\n{}", path.display(), describe(&out)))
        .to_rgba8();
    (image, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Distinct colours, share of the most common colour, share of fox-orange
/// pixels.
fn census(img: &image::RgbaImage) -> (usize, f64, f64) {
    let mut counts = std::collections::HashMap::new();
    let mut orange = 0usize;
    for p in img.pixels() {
        *counts.entry(p.0).or_insert(0usize) += 1;
        let [r, g, b, _] = p.0.map(i32::from);
        if r > g + 30 && g > b + 10 && r > 120 {
            orange += 1;
        }
    }
    let n = img.pixels().len() as f64;
    let top = *counts.values().max().unwrap_or(&0) as f64 / n;
    (counts.len(), top, orange as f64 / n)
}

fn differing_fraction(a: &image::RgbaImage, b: &image::RgbaImage) -> f64 {
    assert_eq!(a.dimensions(), b.dimensions());
    let differ = a
        .pixels()
        .zip(b.pixels())
        .filter(|(p, q)| p.0.iter().zip(q.0).any(|(x, y)| x.abs_diff(y) > 2))
        .count();
    differ as f64 / a.pixels().len() as f64
}

fn dark_fraction(img: &image::RgbaImage) -> f64 {
    let dark = img
        .pixels()
        .filter(|p| p.0[..3].iter().map(|&c| c as u32).sum::<u32>() < 3 * 70)
        .count();
    dark as f64 / img.pixels().len() as f64
}

#[test]
fn screenshots_show_an_animating_crowd_and_the_hud() {
    let xvfb = xvfb("screenshots_show_an_animating_crowd_and_the_hud");
    let dir = scratch("shots");
    let a = screenshot(&xvfb, &dir, 30, false);
    let b = screenshot(&xvfb, &dir, 31, false);
    let hud = screenshot(&xvfb, &dir, 30, true);
    let (w, h) = a.dimensions();
    assert_eq!(
        format!("{w}x{h}"),
        SIZE,
        "the screenshot has the window's size"
    );
    for (name, img) in [("frame 30", &a), ("frame 31", &b)] {
        let (colours, top, orange) = census(img);
        eprintln!(
            "{name}: {colours} colours, top colour {:.1} %, fox-orange {:.1} %, dark {:.1} %",
            top * 100.0,
            orange * 100.0,
            dark_fraction(img) * 100.0
        );
        assert!(colours >= 200, "{name}: only {colours} colours");
        assert!(
            top < 0.5,
            "{name}: {:.0} % of the image is one colour (empty?)",
            top * 100.0
        );
        assert!(
            orange > 0.01,
            "{name}: {:.2} % fox-orange pixels; is the crowd drawn?",
            orange * 100.0
        );
    }
    let moved = differing_fraction(&a, &b);
    eprintln!(
        "frames 30 → 31: {:.2} % of pixels changed; HUD frame: dark {:.1} %",
        moved * 100.0,
        dark_fraction(&hud) * 100.0
    );
    assert!(
        moved > 0.002,
        "frames 30 and 31 differ in {:.3} % of pixels: the crowd does not animate",
        moved * 100.0
    );
    let hud_share = dark_fraction(&hud) - dark_fraction(&a);
    assert!(
        hud_share > 0.05,
        "the HUD adds {:.1} % dark pixels; is it drawn?",
        hud_share * 100.0
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_lost_device_is_built_again_and_draws_what_it_would_have() {
    let xvfb = xvfb("a_lost_device_is_built_again_and_draws_what_it_would_have");
    let dir = scratch("lost");
    // Analytic loops: a steered crowd lives on the GPU and starts again
    // from where the CPU last placed it after a loss (docs/design/
    // device-loss.md), so only the loops can be compared frame for frame.
    let (lost, stderr) = screenshot_with(
        &xvfb,
        &dir,
        "lost.png",
        12,
        false,
        &["--lose-device-after", "5", "--loops"],
    );
    assert!(
        stderr.contains("the GPU device was destroyed; building it again")
            && stderr.contains("recovered on"),
        "{stderr}"
    );
    let (kept, _) = screenshot_with(&xvfb, &dir, "kept.png", 12, false, &["--loops"]);
    let (_, _, orange) = census(&lost);
    let differ = differing_fraction(&lost, &kept);
    eprintln!(
        "after the loss: fox-orange {:.1} %, {:.3} % of pixels differ from the run without one",
        orange * 100.0,
        differ * 100.0
    );
    assert!(orange > 0.01, "the crowd is drawn after the recovery");
    assert!(
        differ < 0.005,
        "frame 12 after a loss at frame 5 differs from frame 12 without one in {:.2} % of pixels",
        differ * 100.0
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a window system and a driver do to a running window, each at its
/// own frame (`--faults`): a real resize there and back, a 0 × 0 resize
/// (what a minimise reports) and the restore, the surface lost, outdated,
/// a timed-out acquire, the window occluded and shown again.
const SURFACE_FAULTS: &str = "3:resize=200x120,6:resize=400x240,8:zero,10:restore,12:lost,14:outdated,15:timeout,16:occluded,18:visible";

#[test]
fn surface_faults_are_lived_through_and_change_nothing_in_the_picture() {
    let xvfb = xvfb("surface_faults_are_lived_through_and_change_nothing_in_the_picture");
    let dir = scratch("surface");
    // Analytic loops: a steered crowd steps once per frame drawn, so frames
    // skipped by the faults change where it walks.
    let (faulted, stderr) = screenshot_with(
        &xvfb,
        &dir,
        "faulted.png",
        24,
        false,
        &["--faults", SURFACE_FAULTS, "--loops"],
    );
    for handled in [
        "surface configured at 200x120",
        "a 0x0 window: surface left unconfigured",
        "surface configured at 400x240",
        "the surface was lost: recreated",
        "the surface was outdated: reconfigured",
        "no surface texture this frame: skipped",
    ] {
        assert!(stderr.contains(handled), "not handled: {handled}\n{stderr}");
    }
    let (kept, _) = screenshot_with(&xvfb, &dir, "kept.png", 24, false, &["--loops"]);
    let (_, _, orange) = census(&faulted);
    let differ = differing_fraction(&faulted, &kept);
    eprintln!(
        "after the surface faults: fox-orange {:.1} %, {:.3} % of pixels differ from the run without them",
        orange * 100.0,
        differ * 100.0
    );
    assert!(orange > 0.01, "the crowd is drawn after the faults");
    assert!(
        differ < 0.005,
        "frame 24 after the faults differs from frame 24 without them in {:.2} % of pixels",
        differ * 100.0
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_model_that_does_not_load_exits_1_with_the_error_chain() {
    let xvfb = xvfb("a_model_that_does_not_load_exits_1_with_the_error_chain");
    let dir = scratch("badmodel");
    let bad = dir.join("broken.throng");
    std::fs::write(&bad, b"\x89THRONG\nnot really").unwrap();
    let out = run_viewer(&xvfb, &dir, &["--model", &bad.to_string_lossy()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(stderr.contains("broken.throng"), "{}", describe(&out));
    assert!(!stderr.contains("panicked"), "{}", describe(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_display_exits_1_with_one_line() {
    let out = Command::new(VIEWER)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .expect("the viewer starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}", describe(&out));
    assert!(!stderr.contains("panicked"), "{}", describe(&out));
    assert_eq!(stderr.trim().lines().count(), 1, "{}", describe(&out));
    assert!(stderr.contains("display"), "{}", describe(&out));
}
