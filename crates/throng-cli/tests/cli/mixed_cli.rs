//! `throng render FOLDER --outfits` (GPU test): a mixed crowd of bodies that
//! share their clips binds one bone texture for bodies of equal frames and,
//! worn as outfits on the GPU-driven path, leaves every hidden outfit out
//! of the draws — the report says so in figures; models whose clips differ
//! are refused, naming both.

use std::path::Path;
use std::process::{Command, Output};

fn throng(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_throng"))
        .current_dir(dir)
        .args(args)
        .output()
        .expect("running the throng binary")
}

/// The number after `label` on the report line that starts with `line`.
fn figure(stdout: &str, line: &str, label: &str) -> f64 {
    let l = stdout
        .lines()
        .find(|l| l.starts_with(line))
        .unwrap_or_else(|| panic!("no {line:?} line in:\n{stdout}"));
    let before = l
        .split(label)
        .next()
        .unwrap_or_else(|| panic!("no {label:?} in {l:?}"));
    before
        .split_whitespace()
        .last()
        .and_then(|w| w.trim_matches(|c| c == '(' || c == ':').parse().ok())
        .unwrap_or_else(|| panic!("no figure before {label:?} in {l:?}"))
}

#[test]
fn a_mixed_crowd_shares_its_frames_and_culls_the_outfits_it_hides() {
    let dir = std::env::temp_dir().join(format!("throng-mixed-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fox = throng_tests::asset("khronos_Fox.glb");
    for name in ["a.glb", "b.glb"] {
        std::fs::copy(&fox, dir.join(name)).unwrap();
    }
    let baked = throng(
        &dir,
        &[
            "bake",
            "a.glb",
            "b.glb",
            "-o",
            "out",
            "--no-impostors",
            "--shared-clips",
        ],
    );
    assert!(
        baked.status.success(),
        "{}",
        String::from_utf8_lossy(&baked.stderr)
    );

    let r = throng(
        &dir,
        &[
            "render",
            // The bake's output folder: its .throng files, in name order.
            "out",
            "--outfits",
            "--path",
            "gpu-driven",
            "--instances",
            "16",
            "--size",
            "256x256",
            "-o",
            "mixed.png",
        ],
    );
    let stdout = String::from_utf8_lossy(&r.stdout);
    assert!(
        r.status.success(),
        "{}\n{}",
        stdout,
        String::from_utf8_lossy(&r.stderr)
    );
    println!("{stdout}");
    let on_gpu = figure(&stdout, "models", "KiB on the GPU");
    let shared = figure(&stdout, "models", "KiB shared");
    assert!(
        on_gpu > 0.0 && shared == on_gpu,
        "two bodies, one texture: {on_gpu} and {shared} KiB"
    );
    let visible = figure(&stdout, "instances", "visible),");
    let culled = figure(&stdout, "outfits", "parts culled");
    assert!(visible > 0.0);
    assert_eq!(
        culled,
        7.0 * visible,
        "each visible instance leaves 7 of 8 outfits out"
    );

    // Clips that differ are refused, naming both models.
    let man = throng_tests::asset("khronos_CesiumMan.gltf");
    let r = throng(
        &dir,
        &[
            "render",
            "out/a.throng",
            man.to_str().unwrap(),
            "-o",
            "refused.png",
        ],
    );
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success());
    assert!(
        stderr.contains("CesiumMan")
            && stderr.contains("a.throng")
            && stderr.contains("share their clips"),
        "{stderr}"
    );
    assert!(!dir.join("refused.png").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
