//! The bake's error report, end to end through the `throng` binary: the bake
//! summary and `throng inspect --json` show each clip's rate, frames, bytes
//! and errors, and `throng sample --source baked` between baked frames
//! interpolates like the shader, so comparing it with `--source reference`
//! checks the stored bound. No GPU needed.

use std::path::{Path, PathBuf};

use crate::common::{positions, throng_json as json, throng_stdout as throng, worst_distance};

fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("throng-error-report-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn bake_inspect_and_sample_report_the_error_between_frames() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let fox = root.join("assets/khronos_Fox.glb");
    let dir = scratch_dir();
    let out = dir.join("fox.throng");
    let path = |p: &Path| p.to_str().unwrap().to_owned();

    let summary = throng(&["bake", &path(&fox), "-o", &path(&out)]);
    println!("{summary}");
    assert!(summary.contains("between frames"), "{summary}");

    let info = json(&["inspect", &path(&out), "--json"]);
    let radius = info["bounding_radius"].as_f64().unwrap();
    let clips = info["clips"].as_array().unwrap();
    let run = clips
        .iter()
        .find(|c| c["name"] == "Run")
        .expect("a Run clip");
    for c in clips {
        let name = c["name"].as_str().unwrap();
        for key in [
            "fps",
            "frames",
            "bytes",
            "error_at_frames_rel",
            "error_between_frames_rel",
            "max_error_rel",
        ] {
            assert!(c[key].is_number(), "clip {name}: {key} missing in {c}");
        }
        // The summary lists the same rate and frames.
        let row = summary
            .lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("no summary row for {name}"));
        assert!(
            row.contains(&format!("{:.1}", c["fps"].as_f64().unwrap())),
            "{row}"
        );
        assert!(row.contains(&c["frames"].to_string()), "{row}");
    }

    // Midway between two baked frames of Run.
    let n = run["frames"].as_u64().unwrap();
    let duration = run["duration"].as_f64().unwrap();
    let k = n / 2;
    let h = duration / (n - 1) as f64;
    let times = [k as f64 * h, (k as f64 + 0.5) * h, (k + 1) as f64 * h].map(|t| t.to_string());
    let sample = |model: &Path, source: &str, t: &str| {
        positions(&json(&[
            "sample",
            &path(model),
            "--clip",
            "Run",
            "--source",
            source,
            "--times",
            t,
        ]))
    };
    let baked_mid = sample(&out, "baked", &times[1]);
    let reference_mid = sample(&fox, "reference", &times[1]);
    let off = worst_distance(&baked_mid, &reference_mid) / radius;
    let bound = run["max_error_rel"].as_f64().unwrap();
    let stored = run["error_between_frames_rel"].as_f64().unwrap();
    println!(
        "Run midway between frames {k} and {}: {off:.3e} × radius (stored {stored:.3e}, bound {bound:.1e})",
        k + 1
    );
    assert!(off <= bound, "{off:e} > {bound:e}");
    // It is an interpolation, not a held frame: the neighbours differ from it.
    for t in [&times[0], &times[2]] {
        let frame = sample(&out, "baked", t);
        assert!(
            worst_distance(&frame, &baked_mid) > 0.0,
            "t={t} equals the midpoint"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
