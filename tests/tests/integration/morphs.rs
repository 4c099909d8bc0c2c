//! Morph targets on the CPU: import, the reference, the bake, the file.
//!
//! Models (`throng_tests::morph_models`): `morph_bar`, built with the glTF
//! builder (a skinned strip with two sparse targets and a rigid, rotated,
//! non-uniformly scaled badge with one; linear, step and cubic-spline weight
//! channels), and the bundled `khronos_SimpleSkin.gltf` with a target and a
//! weight channel added to its own clip. Throng bundles no model with morph
//! targets.
//!
//! * A hand-worked case checks the reference and the baked model against
//!   positions computed by hand.
//! * The baked model evaluated the shader's way (`throng_core::baked`)
//!   equals the reference within the bake's error bound (the default
//!   `--max-error` × bounding radius) at every frame time, halfway between
//!   frames and at seeded random times, and normals at frame times; the
//!   same comparison with the morph weights left out fails by far, so the
//!   check can fail.
//! * Morph displacement is in the bake's error bound: on `morph_waves`
//!   (sine-wave weights, three targets, three clips, one of them moving no
//!   bone), each clip's stored between-frame error is at least what its
//!   midpoints are off by and at most the bound, and the clip that moves
//!   only weights was given more frames than its base rate for them.
//! * The file keeps slots, weights and deltas; generated LODs keep every
//!   vertex's deltas.
//! * Bad input: target counts that disagree, offsets with too few elements,
//!   weight channels with the wrong value count or a NaN weight, default
//!   weights of the wrong length: each a clear error naming where.

use glam::Vec3;
use throng_bake::reference;
use throng_bake::scene::Scene;
use throng_bake::{BakeOptions, bake, import_slice};
use throng_core::BakedModel;
use throng_core::baked::skin_lod;
use throng_core::gpu::FrameBlend;
use throng_core::layout::frame_time;
use throng_core::limits::DEFAULT_MAX_ERROR;
use throng_tests::gltf_builder::{Channel, GltfBuilder, Interpolation, Node, Primitive, glb_bytes};
use throng_tests::morph_models::{
    morph_bar, morph_bar_builder, morph_waves, simple_skin_with_morph,
};
use throng_tests::rng::Rng;

/// Hand-worked positions against evaluated ones: f32 rounding only.
const HAND_TOLERANCE: f32 = 1e-5;

/// Baked normals against the reference's at frame times (unit vectors; the
/// bake stores f32 frames, so only rounding separates them).
const NORMAL_TOLERANCE: f32 = 1e-4;

fn import(bytes: &[u8], name: &str) -> Scene {
    import_slice(bytes, None, name)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .scene
}

/// The clip of `morph_bar` whose weight steps: no frame rate interpolates
/// a step within the bound, and the bake says so.
const STEPPED: &str = "snap";

fn baked(bytes: &[u8], name: &str) -> (Scene, BakedModel) {
    let scene = import(bytes, name);
    let (model, report) =
        bake(&scene, &BakeOptions::default(), &|_, _| {}).unwrap_or_else(|e| panic!("{name}: {e}"));
    for w in report.warnings.iter().filter(|w| w.contains("exceeds")) {
        assert!(w.contains(&format!("{STEPPED:?}")), "{name}: {w}");
    }
    (scene, model)
}

/// A rigid triangle at `T(1, 0, 0)` with one target moving vertex 1 by
/// `(0, 2, 0)`; weights 0 → 1 linearly over 1 s.
#[test]
fn a_hand_worked_morph() {
    let mut b = GltfBuilder::new();
    let mesh = b.mesh(
        "tri",
        vec![
            Primitive::new(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
                .target(&[[0.0; 3], [0.0, 2.0, 0.0], [0.0; 3]], None),
        ],
    );
    let node = b.node(Node::new("n").translation([1.0, 0.0, 0.0]).mesh(mesh));
    b.scene(&[node]);
    b.animation(
        "open",
        vec![Channel::weights(
            node,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[0.0, 1.0],
        )],
    );
    let (scene, model) = baked(&b.to_gltf(), "tri");
    // At t = 0.25 the weight is 0.25: vertex 1 = T(1,0,0)·((1,0,0) + 0.25·(0,2,0)) = (2, 0.5, 0).
    // At t = 1: (2, 2, 0). Vertex 0 never moves: (1, 0, 0).
    let clip = &model.clips[0];
    for (t, v1) in [
        (0.25f32, Vec3::new(2.0, 0.5, 0.0)),
        (1.0, Vec3::new(2.0, 2.0, 0.0)),
    ] {
        let r = reference::sample(&scene, Some(0), t);
        assert!(
            (r[0].positions[1] - v1).length() < HAND_TOLERANCE,
            "reference at {t}: {:?}",
            r[0].positions
        );
        assert!((r[0].positions[0] - Vec3::X).length() < HAND_TOLERANCE);
        let b = skin_lod(&model, 0, &FrameBlend::single(clip.frames_at(t)));
        assert!(
            (b[0].positions[1] - v1).length() < HAND_TOLERANCE,
            "baked at {t}: {:?}",
            b[0].positions
        );
    }
    assert_eq!(model.morphs.slots.len(), 1);
    assert_eq!(
        model.morphs.deltas.len(),
        1,
        "only vertex 1 moves: one delta"
    );
}

#[test]
fn targets_names_defaults_and_channels_are_imported() {
    let scene = import(&morph_bar(), "morph_bar");
    let strip = &scene.meshes[0];
    assert_eq!(strip.target_names, ["bulge", "lift"]);
    assert_eq!(strip.weights, [0.25, 0.0]);
    assert_eq!(strip.primitives[0].targets.len(), 2);
    assert!(strip.primitives[0].targets[0].normals.is_some());
    let talk = &scene.clips[0];
    assert_eq!(talk.weights.len(), 2);
    let blink = scene.clips.iter().find(|c| c.name == "blink").unwrap();
    assert_eq!(blink.weights[0].interpolation, Interpolation::CubicSpline);
    let scene = import(&simple_skin_with_morph(), "simple_skin_morph");
    assert_eq!(scene.meshes[0].target_names, ["lean"]);
    assert_eq!(scene.clips[0].weights.len(), 1);
}

/// The baked model, evaluated as the shader evaluates it, against the
/// reference: positions within the bound everywhere, normals at frames.
fn check_against_reference(bytes: &[u8], name: &str) {
    let (scene, model) = baked(bytes, name);
    let radius = model.bounding_radius;
    let bound = DEFAULT_MAX_ERROR * radius;
    assert!(!model.morphs.is_empty(), "{name}: no morph slots baked");
    let mut rng = Rng(25);
    let (mut worst, mut worst_at) = (0.0f32, String::new());
    let mut worst_normal = 0.0f32;
    let mut morph_effect = 0.0f32;
    for (c, clip) in model.clips.iter().enumerate() {
        let stepped = clip.name == STEPPED;
        assert!(
            clip.error.at_frames <= DEFAULT_MAX_ERROR,
            "{name} {}: {:?}",
            clip.name,
            clip.error
        );
        // A step is reported over the bound between frames, not hidden.
        assert_eq!(
            clip.error.between_frames > DEFAULT_MAX_ERROR,
            stepped,
            "{name} {}: bake reports {:?}",
            clip.name,
            clip.error
        );
        let n = clip.frame_count;
        let mut times: Vec<(f32, bool)> = (0..n)
            .map(|k| (frame_time(k, n, clip.duration), true))
            .collect();
        if !stepped {
            times.extend((0..n - 1).map(|k| {
                (
                    (frame_time(k, n, clip.duration) + frame_time(k + 1, n, clip.duration)) / 2.0,
                    false,
                )
            }));
            times.extend((0..8).map(|_| (rng.unit() * clip.duration, false)));
        }
        for (t, at_frame) in times {
            let expected = reference::sample(&scene, Some(c), t);
            let got = skin_lod(&model, 0, &FrameBlend::single(clip.frames_at(t)));
            // The same pose without morphs, to show they are there.
            let mut globals_only = reference::Pose::of(&scene, Some(c), t);
            globals_only.weights.iter_mut().for_each(|w| *w = 0.0);
            let unmorphed = reference::sample_cross_fade(&scene, &globals_only, &globals_only, 1.0);
            for ((e, g), u) in expected.iter().zip(&got).zip(&unmorphed) {
                assert_eq!(e.positions.len(), g.positions.len());
                for (v, ((pe, pg), pu)) in e
                    .positions
                    .iter()
                    .zip(&g.positions)
                    .zip(&u.positions)
                    .enumerate()
                {
                    let d = (*pe - *pg).length();
                    if d > worst {
                        worst = d;
                        worst_at = format!(
                            "{} t={t:.4} node {} vertex {v}: expected {pe}, baked {pg}",
                            clip.name, e.node
                        );
                    }
                    morph_effect = morph_effect.max((*pe - *pu).length());
                }
                if at_frame {
                    for (ne, ng) in e.normals.iter().zip(&g.normals) {
                        worst_normal = worst_normal.max((*ne - *ng).length());
                    }
                }
            }
        }
    }
    println!(
        "{name}: worst {:.3e} × radius at {worst_at}; worst normal at frames {worst_normal:.2e}; morphs move vertices by up to {:.3} × radius",
        worst / radius,
        morph_effect / radius
    );
    assert!(
        worst <= bound,
        "{name}: {:.3e} × radius > {DEFAULT_MAX_ERROR:e}: {worst_at}",
        worst / radius
    );
    assert!(
        worst_normal <= NORMAL_TOLERANCE,
        "{name}: normal off by {worst_normal:.3e}"
    );
    assert!(
        morph_effect > 100.0 * bound,
        "{name}: morphs move vertices by only {morph_effect}: the comparison could not tell them from none"
    );
}

#[test]
fn morph_bar_baked_equals_the_reference() {
    check_against_reference(&morph_bar(), "morph_bar");
}

#[test]
fn simple_skin_with_a_morph_baked_equals_the_reference() {
    check_against_reference(&simple_skin_with_morph(), "simple_skin_morph");
}

#[test]
fn sine_wave_weights_baked_equal_the_reference() {
    check_against_reference(&morph_waves(), "morph_waves");
}

/// The bake's rate search and measurement count what morph weights move:
/// the stored between-frame error bounds every midpoint's (morphed and
/// skinned, evaluated the shader's way against the reference), is within
/// the default bound, and the clip that moves only weights needed more
/// frames than its base rate gives.
#[test]
fn morph_displacement_is_in_the_stored_error_bound() {
    let bytes = morph_waves();
    let scene = import(&bytes, "morph_waves");
    let opts = BakeOptions::default();
    let (model, report) = bake(&scene, &opts, &|_, _| {}).expect("morph_waves bakes");
    let radius = model.bounding_radius;
    for (c, clip) in model.clips.iter().enumerate() {
        let n = clip.frame_count;
        let base = report.clips[c].base_frames;
        let stored = clip.error.between_frames;
        let (mut worst_mid, mut at) = (0.0f32, 0.0f32);
        for k in 0..n - 1 {
            let t = (frame_time(k, n, clip.duration) + frame_time(k + 1, n, clip.duration)) / 2.0;
            let expected = reference::sample(&scene, Some(c), t);
            let found = skin_lod(&model, 0, &FrameBlend::single(clip.frames_at(t)));
            let w = throng_tests::worst_difference(&expected, &found);
            if w.dist / radius > worst_mid {
                (worst_mid, at) = (w.dist / radius, t);
            }
        }
        println!(
            "{}: {n} frames (base {base}), stored between-frame error {stored:.3e}, worst midpoint {worst_mid:.3e} at {at:.4} s",
            clip.name
        );
        assert!(
            worst_mid <= stored,
            "{}: the midpoint at {at} s is off by {worst_mid:e} × radius, more than the stored {stored:e}",
            clip.name
        );
        assert!(
            stored <= DEFAULT_MAX_ERROR,
            "{}: stored {stored:e} > the bound {DEFAULT_MAX_ERROR:e}",
            clip.name
        );
        if clip.name == "breathe" {
            assert!(
                n > base && stored > 0.0,
                "breathe moves only morph weights: {n} frames for a base of {base}, error {stored:e}"
            );
        }
    }
}

#[test]
fn the_rest_frame_holds_the_default_weights_and_deltas_are_sparse() {
    let (_, model) = baked(&morph_bar(), "morph_bar");
    let m = &model.morphs;
    let names: Vec<&str> = m.slots.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["bulge", "lift", "target0"]);
    assert_eq!(
        (m.weight(0, 0), m.weight(0, 1), m.weight(0, 2)),
        (0.25, 0.0, 0.0)
    );
    // "hold" animates no weight: its frames keep the defaults.
    let hold = &model.clips[model.clip_index("hold").unwrap()];
    assert_eq!(m.weight(hold.first_frame + 1, 0), 0.25);
    // bulge moves 4 vertices, lift 6, the badge's target 3 (normals) of
    // 14 + 3: 13 deltas, not 17 × 3.
    assert_eq!(m.deltas.len(), 13, "{:?}", m.deltas);
    let moved = model.lods[0]
        .vertices
        .iter()
        .filter(|v| v.morph[1] > 0)
        .count();
    assert_eq!(moved, 4 + 6 + 3);
}

#[test]
fn the_file_keeps_the_morphs() {
    let (_, model) = baked(&morph_bar(), "morph_bar");
    let bytes = throng_core::format::write_model(&model).expect("write");
    let back = throng_core::format::read_model(&bytes).expect("read");
    assert_eq!(back.morphs, model.morphs);
    assert_eq!(back.lods[0].vertices, model.lods[0].vertices);
}

#[test]
fn generated_lods_keep_each_vertex_deltas() {
    let scene = import(&morph_bar(), "morph_bar");
    let opts = BakeOptions {
        lod_ratios: vec![0.5],
        ..BakeOptions::default()
    };
    let (model, _) = bake(&scene, &opts, &|_, _| {}).expect("bake");
    assert!(model.lods.len() >= 2, "no generated LOD");
    let lod1 = &model.lods[1];
    // Every LOD 1 vertex is a LOD 0 vertex, deltas and all: skinned at a
    // frame with weights on, it lands where that LOD 0 vertex does.
    let talk = &model.clips[0];
    let blend = FrameBlend::single(talk.frames_at(0.7));
    let skin0: Vec<Vec3> = skin_lod(&model, 0, &blend)
        .iter()
        .flat_map(|p| p.positions.clone())
        .collect();
    let skin1: Vec<Vec3> = skin_lod(&model, 1, &blend)
        .iter()
        .flat_map(|p| p.positions.clone())
        .collect();
    for (v, (vert, p)) in lod1.vertices.iter().zip(&skin1).enumerate() {
        let i = model.lods[0]
            .vertices
            .iter()
            .position(|w| w == vert)
            .unwrap_or_else(|| panic!("LOD 1 vertex {v} is no LOD 0 vertex"));
        assert!(
            (skin0[i] - *p).length() < HAND_TOLERANCE,
            "LOD 1 vertex {v}"
        );
    }
    assert!(
        lod1.vertices.iter().any(|v| v.morph[1] > 0),
        "LOD 1 lost its deltas"
    );
}

/// An error and its sources, as the CLI prints them.
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out += &format!(": {s}");
        source = s.source();
    }
    out
}

fn import_error(doc: &serde_json::Value, bin: &[u8]) -> String {
    let bytes = glb_bytes(doc, bin);
    match import_slice(&bytes, None, "bad") {
        Ok(imported) => match bake(&imported.scene, &BakeOptions::default(), &|_, _| {}) {
            Ok(_) => panic!("accepted"),
            Err(e) => chain(&e),
        },
        Err(e) => chain(&e),
    }
}

#[test]
fn bad_morph_input_gets_a_clear_error() {
    let b = morph_bar_builder();
    let doc = b.to_json_glb();
    let bin = b.bin();
    let mut cases: Vec<(&str, serde_json::Value, Vec<&str>)> = Vec::new();
    // A second primitive with one target where the first has two.
    let mut d = doc.clone();
    let mut second = d["meshes"][0]["primitives"][0].clone();
    let first_target = second["targets"][0].clone();
    second["targets"] = serde_json::json!([first_target]);
    d["meshes"][0]["primitives"]
        .as_array_mut()
        .unwrap()
        .push(second);
    cases.push((
        "target counts disagree",
        d,
        vec!["morph targets", "mesh 0 primitive 1", "2", "1"],
    ));
    // Offsets with fewer elements than the vertices: point the strip's
    // target at the badge's 3-element one.
    let mut d = doc.clone();
    d["meshes"][0]["primitives"][0]["targets"][0]["POSITION"] =
        d["meshes"][1]["primitives"][0]["targets"][0]["POSITION"].clone();
    cases.push((
        "short offsets",
        d,
        vec![
            "meshes[0].primitives[0].targets[0].POSITION",
            "3 elements",
            "14",
        ],
    ));
    // Default weights of the wrong length.
    let mut d = doc.clone();
    d["meshes"][0]["weights"] = serde_json::json!([0.5]);
    cases.push((
        "mesh weights",
        d,
        vec!["default morph weights", "mesh 0", "2", "1"],
    ));
    // A node's weights of the wrong length.
    let mut d = doc.clone();
    let body = d["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["name"] == "body")
        .unwrap();
    d["nodes"][body]["weights"] = serde_json::json!([1.0, 0.0, 0.0]);
    cases.push(("node weights", d, vec!["morph weights", "body", "2", "3"]));
    // A weight channel whose output has a key too few.
    let mut d = doc.clone();
    let out = d["animations"][0]["samplers"][1]["output"]
        .as_u64()
        .unwrap() as usize;
    d["accessors"][out]["count"] = serde_json::json!(6);
    cases.push((
        "weight count",
        d,
        vec![
            "animations[0].samplers[1].output",
            "6 weights for 4 keys of 2 morph targets",
        ],
    ));
    for (what, d, needles) in cases {
        let e = import_error(&d, bin);
        for n in needles {
            assert!(e.contains(n), "{what}: {e:?} lacks {n:?}");
        }
    }
    // A NaN weight in the binary data.
    let doc = b.to_json_glb();
    let out = doc["animations"][0]["samplers"][1]["output"]
        .as_u64()
        .unwrap() as usize;
    let view = doc["accessors"][out]["bufferView"].as_u64().unwrap() as usize;
    let at = doc["bufferViews"][view]["byteOffset"].as_u64().unwrap_or(0) as usize;
    let mut bin = b.bin().to_vec();
    bin[at + 4 * 3..at + 4 * 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let e = import_error(&doc, &bin);
    assert!(
        e.contains("animations[0].samplers[1].output") && e.contains("NaN"),
        "NaN weight: {e:?}"
    );
}
