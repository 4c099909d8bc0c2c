//! Morph targets through the `throng` binary, on the builder-made
//! `morph_bar` (`throng_tests::morph_models`): `throng inspect` lists the
//! glTF's targets and the baked slots with their deltas; `throng sample`
//! includes morphs on both sources, so the baked model sampled between
//! frames agrees with the reference within the stored bound, and differs
//! from the bar's bind pose by more than the morphs' size. No GPU needed.

use std::path::{Path, PathBuf};

mod common;
use common::{positions, throng_json as json, throng_stdout as throng, worst_distance};

fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("throng-morphs-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn inspect_lists_morphs_and_sample_includes_them() {
    let dir = scratch_dir();
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
