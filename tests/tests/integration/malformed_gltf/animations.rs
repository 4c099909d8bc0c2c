//! Malformed glTF animations: no channels, NaN or infinite keys,
//! non-increasing key times, bad samplers, skins and node transforms; a
//! single-key clip bakes one frame, and an absurdly long clip is refused
//! before allocating.

use serde_json::json;
use throng_bake::{BakeOptions, bake, import_slice};
use throng_core::baked::skin_lod;
use throng_core::error::Chain;
use throng_core::gpu::FrameBlend;
use throng_tests::assert_mentions;
use throng_tests::gltf_builder::{Channel, Interpolation, long_clip, rigid_triangle_and_joint};

use super::{KEY_TIMES, assert_hand, base_builder, edited, import_and_bake, import_err};

#[test]
fn animation_with_no_channels() {
    let bytes = edited(|d| {
        d["animations"][0]["channels"] = json!([]);
        d["animations"][0]["samplers"] = json!([]);
    });
    let imported = import_and_bake("no channels", &bytes);
    assert!(imported.scene.clips.is_empty(), "the empty clip is skipped");
    assert!(
        imported
            .warnings
            .iter()
            .any(|w| w.contains("animations[0]")
                && w.contains("no transform or morph weight channels")),
        "expected a warning, got {:?}",
        imported.warnings
    );
}

#[test]
fn nan_in_key_times_or_values() {
    let (b, joint) = rigid_triangle_and_joint();
    let mut nan_times = b.clone();
    nan_times.animation(
        "nan_times",
        vec![Channel::translation(
            joint,
            Interpolation::Linear,
            &[0.0, f32::NAN, 1.0],
            &[[0.0; 3]; 3],
        )],
    );
    let msg = import_err("NaN time", &nan_times.to_gltf());
    assert_mentions(
        "NaN time",
        &msg,
        &["animations[0].samplers[0].input", "NaN"],
    );

    let mut nan_values = b.clone();
    nan_values.animation(
        "nan_values",
        vec![Channel::rotation(
            joint,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[[0.0, 0.0, 0.0, 1.0], [0.0, f32::NAN, 0.0, 1.0]],
        )],
    );
    let msg = import_err("NaN value", &nan_values.to_gltf());
    assert_mentions(
        "NaN value",
        &msg,
        &["animations[0].samplers[0].output", "NaN"],
    );

    let mut inf_values = b;
    inf_values.animation(
        "inf_values",
        vec![Channel::scale(
            joint,
            Interpolation::Step,
            &[0.0],
            &[[1.0, f32::INFINITY, 1.0]],
        )],
    );
    let msg = import_err("infinite value", &inf_values.to_gltf());
    assert_mentions(
        "infinite value",
        &msg,
        &["animations[0].samplers[0].output", "infinity"],
    );
}

#[test]
fn non_increasing_key_times() {
    for (case, times) in [
        ("repeated time", [0.0, 0.5, 0.5]),
        ("decreasing time", [0.0, 1.0, 0.5]),
        ("negative time", [-1.0, 0.0, 0.5]),
    ] {
        let mut b = base_builder();
        b.animation(
            case,
            vec![Channel::translation(
                0,
                Interpolation::Step,
                &times,
                &[[0.0; 3]; 3],
            )],
        );
        let msg = import_err(case, &b.to_gltf());
        // The second animation, first sampler.
        assert_mentions(case, &msg, &["animations[1].samplers[0].input"]);
    }
}

#[test]
fn bad_samplers_skins_and_node_transforms() {
    // A channel aimed at a node that does not exist.
    let bytes = edited(|d| d["animations"][0]["channels"][0]["target"]["node"] = json!(99));
    let msg = import_err("channel node", &bytes);
    assert_mentions(
        "channel node",
        &msg,
        &["animations[0].channels[0].target.node"],
    );
    // An unknown target path or interpolation.
    let bytes = edited(|d| d["animations"][0]["channels"][0]["target"]["path"] = json!("bogus"));
    let msg = import_err("channel path", &bytes);
    assert_mentions(
        "channel path",
        &msg,
        &["animations[0].channels[0].target.path"],
    );
    let bytes = edited(|d| d["animations"][0]["samplers"][0]["interpolation"] = json!("BOGUS"));
    let msg = import_err("interpolation", &bytes);
    assert_mentions(
        "interpolation",
        &msg,
        &["animations[0].samplers[0].interpolation"],
    );
    // A default scene that does not exist.
    let bytes = edited(|d| d["scene"] = json!(5));
    let msg = import_err("default scene", &bytes);
    assert_mentions("default scene", &msg, &["scene"]);
    // A cubic spline needs three outputs per key; the file has one.
    let bytes =
        edited(|d| d["animations"][0]["samplers"][0]["interpolation"] = json!("CUBICSPLINE"));
    let msg = import_err("cubic outputs", &bytes);
    assert_mentions(
        "cubic outputs",
        &msg,
        &["animations[0].samplers[0].output", "2 values for 2 keys"],
    );
    // Key times stored as integers.
    let bytes = edited(|d| {
        let a = &mut d["accessors"][KEY_TIMES];
        a["componentType"] = json!(5125);
    });
    let msg = import_err("integer times", &bytes);
    assert_mentions(
        "integer times",
        &msg,
        &["animations[0].samplers[0].input", "accessors[5]"],
    );
    // Two joints, one inverse bind matrix.
    let bytes = edited(|d| d["skins"][0]["joints"] = json!([0, 1]));
    let msg = import_err("short inverse binds", &bytes);
    assert_mentions(
        "short inverse binds",
        &msg,
        &["skins[0].inverseBindMatrices", "1 matrices for 2 joints"],
    );
    // A translation beyond f32 range, and a zero rotation quaternion.
    let bytes = edited(|d| d["nodes"][0]["translation"] = json!([1e39, 0.0, 0.0]));
    let msg = import_err("huge translation", &bytes);
    assert_mentions("huge translation", &msg, &["nodes[0]", "not finite"]);
    let bytes = edited(|d| d["nodes"][0]["rotation"] = json!([0.0, 0.0, 0.0, 0.0]));
    let msg = import_err("zero rotation", &bytes);
    assert_mentions(
        "zero rotation",
        &msg,
        &["nodes[0].rotation", "zero quaternion"],
    );
}

#[test]
fn single_key_animation_bakes_one_frame() {
    // One key at t = 0: a clip of duration 0, baked as a single frame.
    let bytes = edited(|d| {
        d["accessors"][KEY_TIMES]["count"] = json!(1);
        d["accessors"][KEY_TIMES + 1]["count"] = json!(1);
    });
    let imported = import_slice(&bytes, None, "one key").unwrap_or_else(|e| panic!("{e}"));
    let (model, _) = bake(&imported.scene, &BakeOptions::default(), &|_, _| {})
        .unwrap_or_else(|e| panic!("one key: bake: {e}"));
    assert_eq!(model.clips.len(), 1);
    assert_eq!(
        (model.clips[0].duration, model.clips[0].frame_count),
        (0.0, 1)
    );
    // The key holds (0,0,0): the triangle is where it was.
    let baked = skin_lod(
        &model,
        0,
        &FrameBlend::single(model.clips[0].frames_at(0.7)),
    );
    assert_hand(
        "one key: baked",
        &[[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]],
        &baked,
    );
}

#[test]
fn an_absurdly_long_clip_is_refused_before_allocating() {
    // 10⁸ s at 30 fps is 3·10⁹ frames: 144 GB of f32 texels for one bone.
    let imported = import_slice(&long_clip(1e8), None, "forever").unwrap_or_else(|e| panic!("{e}"));
    match bake(&imported.scene, &BakeOptions::default(), &|_, _| {}) {
        Ok(_) => panic!("forever: baked 3·10⁹ frames"),
        Err(e) => {
            let msg = Chain(&e).to_string();
            println!("forever: {msg}");
            assert_mentions("forever", &msg, &["frames", "--fps"]);
        }
    }
}
