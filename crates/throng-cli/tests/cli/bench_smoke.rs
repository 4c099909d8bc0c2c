//! Smoke test of `throng bench`: every mode on 8 Foxes for 3 frames at
//! 64×64, checking the JSON's fields and draw counts, never the speed.
//!
//! Needs a GPU adapter (lavapipe is enough). Without one the test fails,
//! anywhere: a test that did not run never passes.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

const MODES: [&str; 7] = [
    "gpu-driven",
    "pose-cache",
    "baked",
    "baked-unbounded",
    "static",
    "static-gpu-driven",
    "cpu-skinned",
];
const INSTANCES: u64 = 8;

fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("throng-bench-smoke-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn number(v: &Value, path: &str) -> f64 {
    v.pointer(path)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("{path} is missing or not a number in {v}"))
}

#[test]
fn bench_runs_every_mode_and_writes_sane_json() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = scratch_dir();
    let json_path = dir.join("bench.json");
    let runtime = dir.join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_throng"))
        .arg("bench")
        .arg(root.join("assets/khronos_Fox.glb"))
        .args(["--instances", &INSTANCES.to_string()])
        .args(["--mode", &MODES.join(",")])
        .args(["--frames", "3", "--warmup", "1", "--size", "64x64"])
        .arg("--json")
        .arg(&json_path)
        .env("XDG_RUNTIME_DIR", &runtime)
        .output()
        .expect("running the throng binary");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        let _ = std::fs::remove_dir_all(&dir);
        if stderr.contains("no GPU adapter") {
            panic!(
                "throng bench needs a GPU adapter (./tools/test.sh installs lavapipe):\n{stderr}"
            );
        }
        panic!(
            "throng bench failed ({}):\n{stdout}\n{stderr}",
            output.status
        );
    }
    let text = std::fs::read_to_string(&json_path).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let report: Value = serde_json::from_str(&text).unwrap();

    assert_eq!(report["schema"], "throng-bench/1");
    for field in [
        "/machine/cpu",
        "/adapter/summary",
        "/adapter/name",
        "/adapter/backend",
        "/model/name",
    ] {
        let s = report.pointer(field).and_then(Value::as_str);
        assert!(s.is_some_and(|s| !s.is_empty()), "{field} is empty: {text}");
    }
    assert!(number(&report, "/machine/cores") >= 1.0);
    assert_eq!(number(&report, "/settings/size/0"), 64.0);
    assert_eq!(number(&report, "/settings/frames"), 3.0);
    assert_eq!(
        report["settings"]["shadows"], false,
        "the CPU-skinned baseline has no shadow pass, so no mode may have one"
    );
    assert_eq!(report["model"]["submeshes"], 1, "the Fox has one submesh");
    let triangles = number(&report, "/model/triangles");
    let vertex_storage = report["adapter"]["vertex_storage"]
        .as_bool()
        .expect("adapter.vertex_storage");

    let results = report["results"].as_array().expect("results");
    assert_eq!(results.len(), MODES.len(), "one cell per mode: {text}");
    let cell = |mode: &str| {
        results
            .iter()
            .find(|c| c["mode"] == mode)
            .unwrap_or_else(|| panic!("no {mode} cell: {text}"))
    };
    for mode in MODES {
        let c = cell(mode);
        assert_eq!(c["instances"], INSTANCES);
        if c["status"] == "unsupported" {
            // Only where the adapter cannot read storage buffers in the
            // vertex stage; lavapipe can.
            assert!(
                !vertex_storage
                    && matches!(
                        mode,
                        "gpu-driven"
                            | "pose-cache"
                            | "static-gpu-driven"
                            | "baked-unbounded"
                            | "cpu-skinned"
                    ),
                "{mode} unsupported on an adapter with vertex storage: {c}"
            );
            assert!(c["reason"].as_str().is_some_and(|r| !r.is_empty()));
            continue;
        }
        assert_eq!(c["status"], "ok", "{mode}: {c}");
        assert_eq!(c["frames_measured"], 3, "{mode}");
        assert_eq!(
            c["visible"], INSTANCES,
            "{mode}: the camera frames the grid"
        );
        assert_eq!(
            number(c, "/triangles"),
            triangles * INSTANCES as f64,
            "{mode}"
        );
        for q in ["cpu_ms", "gpu_ms", "queue_wait_ms", "frame_ms"] {
            for stat in ["median", "p95", "mean", "min"] {
                let v = number(c, &format!("/{q}/{stat}"));
                assert!(v.is_finite() && v >= 0.0, "{mode} {q}.{stat} = {v}");
            }
            assert!(
                number(c, &format!("/{q}/p95")) >= number(c, &format!("/{q}/median")),
                "{mode} {q}: p95 below the median"
            );
        }
        assert!(number(c, "/cpu_ms/median") > 0.0, "{mode}: no CPU time");
        assert!(number(c, "/frame_ms/median") > 0.0, "{mode}: no frame time");
        assert!(number(c, "/fps") > 0.0, "{mode}");
        assert!(
            matches!(c["gpu_source"].as_str(), Some("timestamp" | "queue-wall")),
            "{mode}: gpu_source {}",
            c["gpu_source"]
        );
        assert!(c["path"].as_str().is_some_and(|p| !p.is_empty()));
    }
    // 8 instances of a one-submesh model: one package, one draw.
    assert_eq!(cell("baked")["draws"], 1);
    assert_eq!(cell("baked")["packages"], 1);
    assert_eq!(cell("static")["draws"], cell("baked")["draws"]);
    assert_eq!(
        cell("static")["path"]
            .as_str()
            .map(|p| p.contains("skinning skipped")),
        Some(true)
    );
    if cell("gpu-driven")["status"] == "ok" {
        // One indirect draw per (LOD, fading) of the one-LOD, one-submesh
        // Fox, in each of occlusion culling's two phases (on by default).
        assert_eq!(cell("gpu-driven")["draws"], 4);
        assert_eq!(cell("gpu-driven")["occlusion"], true);
        assert!(cell("gpu-driven")["occluded"].is_u64());
        assert_eq!(
            cell("gpu-driven")["path"]
                .as_str()
                .map(|p| p.contains("gpu-driven")),
            Some(true)
        );
    }
    if cell("pose-cache")["status"] == "ok" {
        // Every frame of the Fox's one LOD, 16 bytes a vertex, filled once
        // before the measured frames; no other mode caches.
        let c = cell("pose-cache");
        let frames = number(c, "/cached_poses");
        assert!(frames > 0.0, "{c}");
        assert_eq!(
            number(c, "/pose_cache_bytes"),
            frames * number(&report, "/model/vertices") * 16.0
        );
        assert!(number(c, "/pose_fill_ms") > 0.0, "{c}");
        assert_eq!(c["pose_fallback_draws"], 0);
        assert_eq!(c["draws"], cell("gpu-driven")["draws"]);
        for other in ["gpu-driven", "baked-unbounded", "static-gpu-driven"] {
            assert_eq!(cell(other)["pose_cache_bytes"], 0, "{other} caches");
        }
        let ratio = report["pose_cache_over_static_gpu_driven"]
            .as_array()
            .expect("pose_cache_over_static_gpu_driven");
        assert_eq!(ratio.len(), 1);
        assert!(number(&ratio[0], "/gpu") > 0.0);
    }
    if cell("baked-unbounded")["status"] == "ok" {
        assert_eq!(cell("baked-unbounded")["draws"], 1);
    }
    if cell("cpu-skinned")["status"] == "ok" {
        assert_eq!(
            cell("cpu-skinned")["draws"],
            INSTANCES,
            "one draw per character"
        );
    }
    let ratio = report["baked_over_static"]
        .as_array()
        .expect("baked_over_static");
    assert_eq!(ratio.len(), 1);
    assert!(number(&ratio[0], "/gpu") > 0.0);
}
