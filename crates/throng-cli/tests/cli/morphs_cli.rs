//! Morph targets through the `throng` binary, on the builder-made
//! `morph_bar` (`throng_tests::morph_models`): `throng inspect` lists the
//! glTF's targets and the baked slots with their deltas; `throng sample`
//! includes morphs on both sources, so the baked model sampled between
//! frames agrees with the reference within the stored bound, and differs
//! from the bar's bind pose by more than the morphs' size. No GPU needed.

use std::path::{Path, PathBuf};

use crate::common::{positions, throng_json as json, throng_stdout as throng, worst_distance};

/// A scratch folder of test `name` (each test its own: one removes its
/// folder when done while the other may still run).
fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("throng-morphs-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn inspect_lists_morphs_and_sample_includes_them() {
    let dir = scratch_dir("inspect");
    let src = dir.join("morph_bar.gltf");
    std::fs::write(&src, throng_tests::morph_models::morph_bar()).unwrap();
    let out = dir.join("morph_bar.throng");
    let path = |p: &Path| p.to_str().unwrap().to_owned();

    let gltf = throng(&["inspect", &path(&src)]);
    assert!(
        gltf.contains("morph targets  in 2 meshes, 4 weight channels"),
        "{gltf}"
    );
    assert!(gltf.contains("strip: bulge, lift"), "{gltf}");

    throng(&["bake", &path(&src), "-o", &path(&out), "--no-impostors"]);
    let text = throng(&["inspect", &path(&out)]);
    assert!(text.contains("morph targets  3 slots, 13 deltas"), "{text}");
    assert!(text.contains("bulge"), "{text}");
    let info = json(&["inspect", &path(&out), "--json"]);
    let slots = info["morphs"]["slots"].as_array().expect("morph slots");
    assert_eq!(slots.len(), 3);
    assert_eq!(slots[0]["deltas"], 4);
    assert_eq!(slots[0]["rest_weight"], 0.25);

    let radius = info["bounding_radius"].as_f64().unwrap();
    let talk = info["clips"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "talk")
        .expect("a talk clip");
    let bound = talk["max_error_rel"].as_f64().unwrap();
    let sample = |model: &Path, source: &str, clip: &str, t: &str| {
        positions(&json(&[
            "sample",
            &path(model),
            "--clip",
            clip,
            "--source",
            source,
            "--times",
            t,
        ]))
    };
    // Between frames, where "lift" is near its peak.
    let baked = sample(&out, "baked", "talk", "0.6833");
    let reference = sample(&src, "reference", "talk", "0.6833");
    let off = worst_distance(&baked, &reference) / radius;
    // At 0 s the tip is straight and both weights are 0.
    let moved = worst_distance(&baked, &sample(&out, "baked", "talk", "0")) / radius;
    println!(
        "talk at 0.6833 s: baked vs reference {off:.3e} × radius (bound {bound:.1e}); vs t = 0: {moved:.3}"
    );
    assert!(off <= bound, "{off:e} > {bound:e}");
    assert!(
        moved > 0.1,
        "the morphs and the turn moved the bar by only {moved}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--layer morph=…` on `throng sample --source baked`: a preset layer at
/// full weight moves the bar by about its target's deltas, at half weight
/// it samples as the midpoint of none and full (morphing and skinning are
/// linear in the weights), a slot index reads as the target's name, and an
/// unknown target is refused with the model's list.
#[test]
fn a_morph_preset_layer_moves_its_targets_weights() {
    let dir = scratch_dir("preset");
    let src = dir.join("morph_bar.gltf");
    std::fs::write(&src, throng_tests::morph_models::morph_bar()).unwrap();
    let out = dir.join("morph_bar.throng");
    let out_s = out.to_str().unwrap().to_owned();
    throng(&[
        "bake",
        src.to_str().unwrap(),
        "-o",
        &out_s,
        "--no-impostors",
    ]);
    let info = json(&["inspect", &out_s, "--json"]);
    let radius = info["bounding_radius"].as_f64().unwrap();
    let slots = info["morphs"]["slots"].as_array().expect("morph slots");
    let bulge = slots
        .iter()
        .position(|s| s["name"] == "bulge")
        .expect("a bulge slot");
    let base = ["sample", &out_s, "--source", "baked", "--clip", "talk"];
    let at = |layer: Option<&str>| {
        let mut args = base.to_vec();
        args.extend(["--times", "0"]);
        if let Some(l) = layer {
            args.extend(["--layer", l]);
        }
        positions(&json(&args))
    };
    let none = at(None);
    let full = at(Some("morph=bulge:1"));
    let half = at(Some("morph=bulge:1,weight=0.5"));
    let by_slot = at(Some(&format!("morph={bulge}:1")));
    let mid: Vec<[f64; 3]> = none
        .iter()
        .zip(&full)
        .map(|(a, b)| [0, 1, 2].map(|i| (a[i] + b[i]) * 0.5))
        .collect();
    let moved = worst_distance(&full, &none) / radius;
    let off = worst_distance(&half, &mid) / radius;
    println!("bulge preset: moved {moved:.3} × radius; half weight from the midpoint {off:.2e}");
    assert!(moved > 0.01, "the preset moved the bar by only {moved}");
    assert!(
        off < 1e-5,
        "half weight is {off:e} × radius from the midpoint"
    );
    assert_eq!(
        worst_distance(&by_slot, &full),
        0.0,
        "slot {bulge} is bulge"
    );

    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(base)
        .args(["--times", "0", "--layer", "morph=wink:1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "an unknown target was accepted");
    assert!(err.contains("wink") && err.contains("bulge"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `throng inspect` of a bake whose clip moves only morph weights reports
/// a between-frame error for it (morph displacement is measured), within
/// the bound, with more frames than the base rate.
#[test]
fn inspect_reports_the_error_morph_weights_cause() {
    let dir = scratch_dir("waves");
    let src = dir.join("morph_waves.gltf");
    std::fs::write(&src, throng_tests::morph_models::morph_waves()).unwrap();
    let out = dir.join("morph_waves.throng");
    let path = |p: &Path| p.to_str().unwrap().to_owned();
    throng(&["bake", &path(&src), "-o", &path(&out), "--no-impostors"]);
    let info = json(&["inspect", &path(&out), "--json"]);
    let breathe = info["clips"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "breathe")
        .expect("a breathe clip");
    println!("{breathe}");
    let between = breathe["error_between_frames_rel"].as_f64().unwrap();
    let bound = breathe["max_error_rel"].as_f64().unwrap();
    let frames = breathe["frames"].as_u64().unwrap();
    assert!(
        between > 0.0 && between <= bound,
        "breathe's between-frame error {between:e} (bound {bound:e})"
    );
    // 1.5 s at the default 30 fps base rate is 46 frames.
    assert!(frames > 46, "breathe has {frames} frames");
    let _ = std::fs::remove_dir_all(&dir);
}
