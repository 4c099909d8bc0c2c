//! `throng soak` (GPU test, CI-sized): a crowd under churn — spawns and
//! despawns across buffer capacities, plays, cross-fades, speeds,
//! transforms, motions and layers — holds for its run: no frame fails, the
//! picture matches a CPU path's at every check, and after the warm-up
//! resident memory (on llvmpipe GL) and device bytes (on lavapipe, which
//! counts them) stay within their bounds. Bad arguments are refused by
//! name. The half-hour run is in the closing note of issue #26.

use std::process::{Command, Output};

fn throng(args: &[&str], backend: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .env("WGPU_BACKEND", backend)
        .output()
        .expect("running the throng binary")
}

fn soak(backend: &str, extra: &[&str]) -> String {
    let fox = throng_tests::asset("khronos_Fox.glb");
    let mut args = vec![
        "soak",
        fox.to_str().unwrap(),
        "--seconds",
        "24",
        "--warmup",
        "8",
        "--instances",
        "300",
        "--check-every",
        "20",
    ];
    args.extend_from_slice(extra);
    let run = throng(&args, backend);
    let out = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "the {backend} soak failed:\n{out}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    println!("{out}");
    assert!(out.contains("held: no growth past the bounds"), "{out}");
    let checks: usize = out
        .lines()
        .find_map(|l| l.split(" picture checks").next()?.trim().parse().ok())
        .expect("a count of picture checks");
    assert!(checks >= 2, "{checks} picture checks: {out}");
    assert!(
        out.contains("despawned") && out.contains("layer stacks"),
        "{out}"
    );
    out
}

#[test]
fn a_churned_crowd_holds_on_gl_memory_and_pictures_judged() {
    let out = soak("gl", &[]);
    assert!(out.contains("bounded to 32.0 MiB of growth"), "{out}");
}

#[test]
fn a_churned_crowd_holds_on_vulkan_device_bytes_and_pictures_judged() {
    let out = soak("vulkan", &["--rss-bound", "none", "--path", "gpu-driven"]);
    assert!(out.contains("not judged (lavapipe"), "{out}");
    assert!(out.contains("path gpu-driven"), "{out}");
    let after = out
        .lines()
        .find(|l| l.starts_with("after the warm-up"))
        .expect("the after-warm-up line");
    assert!(
        !after.contains("GPU buffers n/a"),
        "Vulkan counts device bytes: {after}"
    );
}

#[test]
fn bad_soak_arguments_are_refused_by_name() {
    let fox = throng_tests::asset("khronos_Fox.glb");
    let fox = fox.to_str().unwrap();
    for (args, says) in [
        (vec!["--instances", "0"], "--instances 0"),
        (vec!["--seconds", "0"], "--seconds 0"),
        (vec!["--seconds", "5", "--warmup", "9"], "--warmup 9"),
        (vec!["--rss-bound", "lots"], "lots"),
    ] {
        let mut all = vec!["soak", fox];
        all.extend(args);
        let run = throng(&all, "gl");
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(
            !run.status.success() && err.contains(says),
            "{all:?}: {err}"
        );
    }
    let run = throng(&["soak", "missing.glb", "--seconds", "1"], "gl");
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        !run.status.success() && err.contains("missing.glb"),
        "{err}"
    );
}
