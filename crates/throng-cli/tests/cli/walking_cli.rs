//! `throng render --walking` (GPU test): a still of a walking crowd after
//! `--walked` seconds differs from the same crowd at 0 s (the instances
//! moved), on the GPU-driven and the unbounded paths, and the two paths
//! draw the same picture within the golden tolerance; bad percentages and
//! durations are refused by name.

use std::path::Path;
use std::process::{Command, Output};

use throng_tests::golden::assert_images_match;

fn throng(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .output()
        .expect("running the throng binary")
}

fn render(dir: &Path, name: &str, path: &str, walked: &str) -> image::RgbaImage {
    let out = dir.join(name);
    let fox = throng_tests::asset("khronos_Fox.glb");
    let r = throng(&[
        "render",
        fox.to_str().unwrap(),
        "--instances",
        "64",
        "--size",
        "160x160",
        "--walking",
        "100",
        "--walked",
        walked,
        "--path",
        path,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(
        r.status.success(),
        "render {name} failed:\n{}",
        String::from_utf8_lossy(&r.stderr)
    );
    image::open(&out).unwrap().to_rgba8()
}

#[test]
fn a_walking_crowd_moves_and_every_path_draws_it_alike() {
    let dir = std::env::temp_dir().join(format!("throng-walking-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let start = render(&dir, "start.png", "gpu-driven", "0");
    let walked = render(&dir, "walked.png", "gpu-driven", "2");
    let cpu = render(&dir, "walked-cpu.png", "unbounded", "2");
    let differ = start
        .pixels()
        .zip(walked.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 8))
        .count() as f64
        / start.pixels().len() as f64;
    assert!(
        differ > 0.02,
        "the crowd did not move: {differ} of the pixels differ"
    );
    assert_images_match("walking_cli", &cpu, &walked, &dir);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_walking_arguments_are_refused_by_name() {
    for (flag, value) in [
        ("--walking", "101"),
        ("--walking", "-1"),
        ("--walked", "NaN"),
        ("--walked", "-2"),
    ] {
        let arg = format!("{flag}={value}");
        let r = throng(&["render", "missing.glb", &arg, "-o", "x.png"]);
        assert!(!r.status.success(), "{flag} {value} accepted");
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(err.contains(flag), "{flag} {value}: {err}");
    }
}
