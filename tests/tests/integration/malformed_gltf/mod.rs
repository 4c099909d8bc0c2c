//! Malformed glTF (missing buffers, bad accessors, joint index beyond the
//! skin, empty animations, NaN keys, a model with no skin and no animation)
//! gives a clear error or a correct static bake, never a panic.
//!
//! Each case starts from a small valid file built with [`GltfBuilder`] and
//! breaks one thing, usually by editing its JSON. Errors are printed and
//! their messages checked for what was wrong and where (the glTF JSON path).
//! Nothing is wrapped in `catch_unwind`: a panic fails the test.

use glam::Vec3;
use serde_json::{Value, json};
use throng_bake::reference::{self, SkinnedPrimitive};
use throng_bake::{BakeOptions, Imported, bake, import_slice};
use throng_core::baked::skin_lod;
use throng_core::error::Chain;
use throng_core::gpu::FrameBlend;
use throng_core::layout::FramePair;
use throng_core::limits::REST_FRAME;
use throng_tests::gltf_builder::{
    Channel, GltfBuilder, Interpolation, Node, Primitive, glb_bytes, gltf_bytes, long_clip,
    rigid_triangle_and_joint, skinned_triangle,
};
use throng_tests::{assert_mentions, asset, expect_refusal};

/// Largest distance between a hand-computed and an evaluated position, in
/// model units (the static model is about 4 units big: f32 rounding only).
const HAND_TOLERANCE: f32 = 1e-5;

/// A valid skinned, animated triangle: node 0 "joint" (animated), node 1
/// "skinned" (mesh 0, skin 0). Accessors: 0 POSITION, 1 JOINTS_0,
/// 2 WEIGHTS_0, 3 indices, 4 inverse binds, 5 key times, 6 key values; each
/// has its own buffer view with the same index.
fn base_builder() -> GltfBuilder {
    base_builder_with(&[0, 1, 2], [[0, 0, 0, 0]; 3], [[1.0, 0.0, 0.0, 0.0]; 3])
}

fn base_builder_with(
    indices: &[u32],
    joints: [[u16; 4]; 3],
    weights: [[f32; 4]; 3],
) -> GltfBuilder {
    skinned_triangle(indices, joints, weights)
}

/// Accessor indices of [`base_builder`].
const POSITION: usize = 0;
const JOINTS: usize = 1;
const INDICES: usize = 3;
const KEY_TIMES: usize = 5;

/// The base document after `edit`, as `.gltf` bytes.
fn edited(edit: impl FnOnce(&mut Value)) -> Vec<u8> {
    let mut doc = base_builder().to_json();
    edit(&mut doc);
    gltf_bytes(&doc)
}

/// Imports bytes that must be rejected; prints and returns the message.
fn import_err(case: &str, bytes: &[u8]) -> String {
    expect_refusal(case, import_slice(bytes, None, case))
}

/// Imports bytes that must be accepted, and bakes them.
fn import_and_bake(case: &str, bytes: &[u8]) -> Imported {
    let imported = import_slice(bytes, None, case).unwrap_or_else(|e| panic!("{case}: {e}"));
    bake(&imported.scene, &BakeOptions::default(), &|_, _| {})
        .unwrap_or_else(|e| panic!("{case}: bake: {e}"));
    println!("{case}: warnings {:?}", imported.warnings);
    imported
}

#[test]
fn the_base_file_is_valid() {
    let imported = import_and_bake("base", &base_builder().to_gltf());
    assert!(imported.warnings.is_empty(), "{:?}", imported.warnings);
    import_and_bake("base.glb", &base_builder().to_glb());
}

#[test]
fn buffer_shorter_than_its_byte_length() {
    let bytes = edited(|d| {
        let n = d["buffers"][0]["byteLength"].as_u64().unwrap();
        d["buffers"][0]["byteLength"] = json!(n + 100);
    });
    let msg = import_err("short buffer", &bytes);
    assert_mentions("short buffer", &msg, &["buffers[0]", "byteLength"]);
}

#[test]
fn missing_buffers() {
    // No `buffers` at all: the buffer views point at nothing.
    let bytes = edited(|d| {
        d.as_object_mut().unwrap().remove("buffers");
    });
    let msg = import_err("no buffers", &bytes);
    assert_mentions("no buffers", &msg, &["bufferViews[0].buffer"]);

    // A `.gltf` buffer without a URI (only a GLB may do that).
    let bytes = edited(|d| {
        d["buffers"][0].as_object_mut().unwrap().remove("uri");
    });
    let msg = import_err("buffer without uri", &bytes);
    assert_mentions("buffer without uri", &msg, &["buffers[0]", "binary chunk"]);

    // A GLB whose buffer refers to a BIN chunk that is not there.
    let mut doc = base_builder().to_json();
    doc["buffers"][0].as_object_mut().unwrap().remove("uri");
    let msg = import_err("glb without bin", &glb_bytes(&doc, &[]));
    assert_mentions("glb without bin", &msg, &["buffers[0]", "binary chunk"]);

    // A GLB whose BIN chunk is shorter than the buffer's byteLength.
    let b = base_builder();
    let mut doc = b.to_json();
    doc["buffers"][0].as_object_mut().unwrap().remove("uri");
    let short = &b.bin()[..b.bin().len() / 2];
    let msg = import_err("glb short bin", &glb_bytes(&doc, short));
    assert_mentions("glb short bin", &msg, &["buffers[0]", "byteLength"]);
}

#[test]
fn missing_external_buffer_file() {
    let bytes = edited(|d| d["buffers"][0]["uri"] = json!("missing.bin"));
    // Without a base directory the URI cannot be resolved.
    let msg = import_err("external, no base", &bytes);
    assert_mentions("external, no base", &msg, &["buffers[0]", "missing.bin"]);
    // With one, the file is not there.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let msg = match import_slice(&bytes, Some(dir), "external") {
        Ok(_) => panic!("external: imported a file whose buffer is missing"),
        Err(e) => Chain(&e).to_string(),
    };
    println!("external: {msg}");
    assert_mentions("external", &msg, &["buffers[0]", "missing.bin"]);
}

#[test]
fn accessor_past_the_end_of_its_buffer_view() {
    // Offset pushes the last element out of the 36-byte view.
    let bytes = edited(|d| d["accessors"][POSITION]["byteOffset"] = json!(4));
    let msg = import_err("accessor offset", &bytes);
    assert_mentions(
        "accessor offset",
        &msg,
        &[
            "meshes[0].primitives[0].attributes.POSITION",
            "bufferViews[0]",
        ],
    );
    // More elements than the view holds.
    let bytes = edited(|d| d["accessors"][KEY_TIMES]["count"] = json!(3));
    let msg = import_err("accessor count", &bytes);
    assert_mentions(
        "accessor count",
        &msg,
        &["animations[0].samplers[0].input", "bufferViews[5]"],
    );
    // A count so large that its byte size overflows.
    let bytes = edited(|d| d["accessors"][INDICES]["count"] = json!(u64::MAX / 2));
    let msg = import_err("accessor huge count", &bytes);
    assert_mentions(
        "accessor huge count",
        &msg,
        &["meshes[0].primitives[0].indices"],
    );
}

#[test]
fn accessor_with_count_zero() {
    let bytes = edited(|d| d["accessors"][INDICES]["count"] = json!(0));
    let msg = import_err("count 0", &bytes);
    assert_mentions(
        "count 0",
        &msg,
        &["meshes[0].primitives[0].indices", "count 0"],
    );
}

#[test]
fn accessor_of_the_wrong_type() {
    // POSITION as VEC2 (its min/max made VEC2 too, so only the type is wrong).
    let bytes = edited(|d| {
        let a = &mut d["accessors"][POSITION];
        a["type"] = json!("VEC2");
        a["min"] = json!([0.0, 0.0]);
        a["max"] = json!([1.0, 1.0]);
    });
    let msg = import_err("POSITION VEC2", &bytes);
    assert_mentions("POSITION VEC2", &msg, &["POSITION"]);

    // JOINTS_0 as floats.
    let bytes = edited(|d| d["accessors"][JOINTS]["componentType"] = json!(5126));
    let msg = import_err("JOINTS float", &bytes);
    assert_mentions(
        "JOINTS float",
        &msg,
        &[
            "meshes[0].primitives[0].attributes.JOINTS_0",
            "accessors[1]",
            "F32",
        ],
    );

    // Indices as floats.
    let bytes = edited(|d| d["accessors"][INDICES]["componentType"] = json!(5126));
    let msg = import_err("indices float", &bytes);
    assert_mentions(
        "indices float",
        &msg,
        &["meshes[0].primitives[0].indices", "accessors[3]"],
    );

    // An accessor index beyond the accessors.
    let bytes = edited(|d| {
        d["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"] = json!(99);
    });
    let msg = import_err("JOINTS index", &bytes);
    assert_mentions("JOINTS index", &msg, &["JOINTS_0"]);
    let bytes = edited(|d| {
        d["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = json!(99);
    });
    let msg = import_err("POSITION index", &bytes);
    assert_mentions("POSITION index", &msg, &["POSITION"]);
}

/// Makes the inverse-bind accessor (4) sparse with no bufferView: `count`
/// matrices, all zero except element 0, whose indices come from bufferView 3
/// (the u16 triangle indices 0, 1, 2: index 0 first) and values from
/// bufferView 4 (the identity).
fn sparse_inverse_binds(d: &mut Value, count: u64, sparse_count: u64) {
    let a = &mut d["accessors"][4];
    a.as_object_mut().unwrap().remove("bufferView");
    a["count"] = json!(count);
    a["sparse"] = json!({
        "count": sparse_count,
        "indices": { "bufferView": 3, "componentType": 5123 },
        "values": { "bufferView": 4 },
    });
}

#[test]
fn sparse_accessors() {
    // A well-formed one: matrix 0 is the identity, as the joint needs.
    let bytes = edited(|d| sparse_inverse_binds(d, 2, 1));
    let imported = import_and_bake("sparse", &bytes);
    assert_eq!(
        imported.scene.skins[0].inverse_binds[0],
        glam::Mat4::IDENTITY
    );
    // 2²⁵ matrices from a few hundred bytes: refused before allocating.
    let bytes = edited(|d| sparse_inverse_binds(d, 1 << 25, 1));
    let msg = import_err("huge sparse", &bytes);
    assert_mentions(
        "huge sparse",
        &msg,
        &["skins[0].inverseBindMatrices", "sparse accessors[4]"],
    );
    // More sparse indices than the view holds (3 u16 indices, 1 matrix).
    let bytes = edited(|d| sparse_inverse_binds(d, 4, 3));
    let msg = import_err("sparse past view", &bytes);
    assert_mentions(
        "sparse past view",
        &msg,
        &["skins[0].inverseBindMatrices", "bufferViews[4]"],
    );
    // A sparse index beyond the accessor (index 2 of 2 elements).
    let bytes = edited(|d| {
        sparse_inverse_binds(d, 2, 1);
        d["accessors"][4]["sparse"]["indices"]["byteOffset"] = json!(4);
    });
    let msg = import_err("sparse index", &bytes);
    assert_mentions(
        "sparse index",
        &msg,
        &["skins[0].inverseBindMatrices", "sparse index 2"],
    );
}

#[test]
fn buffer_view_past_the_buffer() {
    let bytes = edited(|d| d["bufferViews"][POSITION]["byteLength"] = json!(100_000));
    let msg = import_err("view length", &bytes);
    assert_mentions(
        "view length",
        &msg,
        &[
            "meshes[0].primitives[0].attributes.POSITION",
            "bufferViews[0]",
            "buffers[0]",
        ],
    );
    let bytes = edited(|d| d["bufferViews"][KEY_TIMES]["byteOffset"] = json!(1u64 << 40));
    let msg = import_err("view offset", &bytes);
    assert_mentions(
        "view offset",
        &msg,
        &["animations[0].samplers[0].input", "bufferViews[5]"],
    );
}

#[test]
fn index_beyond_the_vertex_count() {
    let bytes = base_builder_with(&[0, 1, 7], [[0; 4]; 3], [[1.0, 0.0, 0.0, 0.0]; 3]).to_gltf();
    let msg = import_err("index 7", &bytes);
    assert_mentions(
        "index 7",
        &msg,
        &["meshes[0].primitives[0].indices", "7", "3 vertices"],
    );
}

#[test]
fn joint_index_beyond_the_skin() {
    // Vertex 1 uses joint 5 of a one-joint skin with weight 0.5: an error.
    let bytes = base_builder_with(
        &[0, 1, 2],
        [[0, 0, 0, 0], [0, 5, 0, 0], [0, 0, 0, 0]],
        [
            [1.0, 0.0, 0.0, 0.0],
            [0.5, 0.5, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
        ],
    )
    .to_gltf();
    let msg = import_err("weighted joint 5", &bytes);
    assert_mentions(
        "weighted joint 5",
        &msg,
        &[
            "meshes[0].primitives[0].attributes.JOINTS_0",
            "vertex 1",
            "joint 5",
        ],
    );

    // With zero weight it is harmless: accepted, with a warning, and the
    // vertex follows joint 0 alone.
    let bytes = base_builder_with(
        &[0, 1, 2],
        [[0, 0, 0, 0], [0, 5, 0, 0], [0, 0, 0, 0]],
        [[1.0, 0.0, 0.0, 0.0]; 3],
    )
    .to_gltf();
    let imported = import_and_bake("zero-weight joint 5", &bytes);
    assert!(
        imported
            .warnings
            .iter()
            .any(|w| w.contains("meshes[0].primitives[0]") && w.contains("beyond the skin")),
        "expected a warning, got {:?}",
        imported.warnings
    );
    // t = 1: the joint is at T(0,1,0), so vertex 1 = (1,0,0) + (0,1,0).
    let skinned = reference::sample(&imported.scene, Some(0), 1.0);
    assert!((skinned[0].positions[1] - Vec3::new(1.0, 1.0, 0.0)).length() <= HAND_TOLERANCE);
}

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

#[test]
fn node_cycles_are_rejected() {
    // A node that is its own child.
    let bytes = edited(|d| d["nodes"][0]["children"] = json!([0]));
    let msg = import_err("own child", &bytes);
    assert_mentions("own child", &msg, &["nodes[0].children"]);

    // Two nodes that are each other's child, reachable from the scene.
    let bytes = edited(|d| {
        d["nodes"][0]["children"] = json!([1]);
        d["nodes"][1]["children"] = json!([0]);
    });
    let msg = import_err("cycle in scene", &bytes);
    assert_mentions("cycle in scene", &msg, &["nodes["]);

    // The same cycle in a file without scenes, and one beside a valid scene.
    let bytes = edited(|d| {
        d["nodes"][0]["children"] = json!([1]);
        d["nodes"][1]["children"] = json!([0]);
        let o = d.as_object_mut().unwrap();
        o.remove("scene");
        o.remove("scenes");
    });
    let msg = import_err("cycle, no scene", &bytes);
    assert_mentions("cycle, no scene", &msg, &["nodes[", "cycle"]);
    let bytes = edited(|d| {
        let nodes = d["nodes"].as_array_mut().unwrap();
        nodes.push(json!({ "name": "x", "children": [3] }));
        nodes.push(json!({ "name": "y", "children": [2] }));
    });
    let msg = import_err("cycle outside scene", &bytes);
    assert_mentions("cycle outside scene", &msg, &["nodes[", "cycle"]);
}

#[test]
fn not_gltf_at_all() {
    for (case, bytes) in [
        ("empty file", &b""[..]),
        ("invalid JSON", &b"{ \"asset\": { \"version\": \"2.0\" "[..]),
        ("JSON but not glTF", &b"[1, 2, 3]"[..]),
        ("no asset", &b"{}"[..]),
        ("GLB magic only", &b"glTF"[..]),
    ] {
        let msg = import_err(case, bytes);
        assert_mentions(case, &msg, &["not a valid glTF 2.0 file"]);
    }
}

#[test]
fn truncated_and_corrupt_glb() {
    let glb = base_builder().to_glb();
    let msg = import_err("half a GLB", &glb[..glb.len() / 2]);
    assert_mentions("half a GLB", &msg, &["not a valid glTF 2.0 file"]);

    // A header whose total length is smaller than the header itself (gltf
    // 1.4 subtracts the header size from it unchecked).
    for length in [0u32, 11] {
        let mut bad = glb.clone();
        bad[8..12].copy_from_slice(&length.to_le_bytes());
        let case = format!("GLB length {length}");
        let msg = import_err(&case, &bad);
        assert_mentions(&case, &msg, &["not a valid glTF 2.0 file", "GLB header"]);
    }
    // Shorter than the chunks but not than the header: the reader is lenient
    // (it reads the chunks that are there); either answer is fine, no panic.
    for length in [12u32, 19, 20] {
        let mut bad = glb.clone();
        bad[8..12].copy_from_slice(&length.to_le_bytes());
        let _ = import_slice(&bad, None, "short GLB length");
    }
    // A JSON chunk longer than the file.
    let mut bad = glb.clone();
    bad[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    let msg = import_err("JSON chunk length", &bad);
    assert_mentions("JSON chunk length", &msg, &["not a valid glTF 2.0 file"]);
}

/// Every prefix of a valid file is rejected cleanly (or, for the whole file,
/// accepted): as is, and with the GLB header's total length patched to the
/// prefix so that chunk parsing is reached.
#[test]
fn every_truncated_prefix_fails_cleanly() {
    let built = base_builder().to_glb();
    let rigged = std::fs::read(asset("khronos_RiggedSimple.glb")).expect("bundled asset");
    let gltf = base_builder().to_gltf();
    for (name, file) in [
        ("built.glb", &built),
        ("khronos_RiggedSimple.glb", &rigged),
        ("built.gltf", &gltf),
    ] {
        let mut accepted = 0;
        for len in 0..=file.len() {
            let mut prefix = file[..len].to_vec();
            if import_slice(&prefix, None, name).is_ok() {
                accepted += 1;
            }
            if len >= 12 && prefix.starts_with(b"glTF") {
                prefix[8..12].copy_from_slice(&(len as u32).to_le_bytes());
                if let Ok(imported) = import_slice(&prefix, None, name) {
                    // Only a cut at the very end of a chunk can still parse;
                    // whatever parses must also bake or fail cleanly.
                    let _ = bake(&imported.scene, &BakeOptions::default(), &|_, _| {});
                }
            }
        }
        assert_eq!(accepted, 1, "{name}: only the whole file imports");
        println!("{name}: {} prefixes checked", file.len() + 1);
    }
}

/// Every byte of the binary chunk set to 0xFF in turn (joint indices, counts
/// of float bits, NaN patterns): import and bake give `Ok` or `Err`, never a
/// panic.
#[test]
fn corrupt_binary_data_never_panics() {
    let b = base_builder();
    let mut doc = b.to_json();
    doc["buffers"][0].as_object_mut().unwrap().remove("uri");
    let (mut ok, mut err) = (0, 0);
    for i in 0..b.bin().len() {
        let mut bin = b.bin().to_vec();
        bin[i] = 0xFF;
        match import_slice(&glb_bytes(&doc, &bin), None, "corrupt") {
            Ok(imported) => {
                ok += 1;
                let _ = bake(&imported.scene, &BakeOptions::default(), &|_, _| {});
            }
            Err(_) => err += 1,
        }
    }
    println!("corrupt bytes: {ok} imported, {err} rejected");
    assert!(err > 0, "some corruption must be detected");
}

/// Every number and string of the base document replaced in turn by values
/// that break indices, counts, offsets, types and enums: import and bake give
/// `Ok` or `Err`, never a panic.
#[test]
fn every_json_value_replaced_never_panics() {
    fn leaves(v: &Value, at: String, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => o
                .iter()
                .for_each(|(k, v)| leaves(v, format!("{at}/{k}"), out)),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, v)| leaves(v, format!("{at}/{i}"), out)),
            Value::Number(_) | Value::String(_) => out.push(at),
            _ => {}
        }
    }
    let base = base_builder().to_json();
    let mut pointers = Vec::new();
    leaves(&base, String::new(), &mut pointers);
    let replacements = [
        json!(0),
        json!(1),
        json!(7),
        json!(99),
        json!(-1),
        json!(4_294_967_296u64),
        json!(0.5),
        json!("bogus"),
        json!(null),
    ];
    let (mut ok, mut err) = (0, 0);
    for pointer in &pointers {
        for r in &replacements {
            let mut doc = base.clone();
            *doc.pointer_mut(pointer).expect("a leaf") = r.clone();
            match import_slice(&gltf_bytes(&doc), None, "mutated") {
                Ok(imported) => {
                    ok += 1;
                    let _ = bake(&imported.scene, &BakeOptions::default(), &|_, _| {});
                }
                Err(_) => err += 1,
            }
        }
    }
    println!(
        "{} values × {} replacements: {ok} imported, {err} rejected",
        pointers.len(),
        replacements.len()
    );
    assert!(err > 0);
}

#[test]
fn no_skin_and_no_animation_bakes_a_static_model() {
    let mut b = GltfBuilder::new();
    let mesh = b.mesh(
        "tri",
        vec![
            Primitive::new(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
                .normals(&[[0.0, 0.0, 1.0]; 3]),
        ],
    );
    let base = b.node(Node::new("base").translation([1.0, 2.0, 3.0]).mesh(mesh));
    // Rz90 = rotation by 90° about +z: (x, y, z) ↦ (−y, x, z).
    let child = b.node(
        Node::new("child")
            .rotation([
                0.0,
                0.0,
                std::f32::consts::FRAC_1_SQRT_2,
                std::f32::consts::FRAC_1_SQRT_2,
            ])
            .scale([2.0, 2.0, 2.0])
            .mesh(mesh),
    );
    b.add_child(base, child);
    let bytes = b.to_gltf();
    let imported = import_slice(&bytes, None, "static").unwrap_or_else(|e| panic!("static: {e}"));
    let (model, report) = bake(&imported.scene, &BakeOptions::default(), &|_, _| {})
        .unwrap_or_else(|e| panic!("static: bake: {e}"));

    // One palette entry per rigid mesh instance, no clips, the rest frame only.
    assert_eq!(model.bones.len(), 2);
    assert!(model.clips.is_empty());
    assert_eq!(report.frames, 1);
    assert_eq!(model.texture.texels.len(), 2 * 3); // 1 frame × 2 bones × 3 rows
    assert_eq!(model.frame_bounds.len(), 1);

    // base: G = T(1,2,3): (0,0,0) → (1,2,3); (1,0,0) → (2,2,3); (0,1,0) → (1,3,3).
    // child: G = T(1,2,3)·Rz90·S(2):
    //   (0,0,0) → (1,2,3);
    //   (1,0,0) → (2,0,0) → (0,2,0) → (1,4,3);
    //   (0,1,0) → (0,2,0) → (−2,0,0) → (−1,2,3).
    let expected: [[[f32; 3]; 3]; 2] = [
        [[1.0, 2.0, 3.0], [2.0, 2.0, 3.0], [1.0, 3.0, 3.0]],
        [[1.0, 2.0, 3.0], [1.0, 4.0, 3.0], [-1.0, 2.0, 3.0]],
    ];
    let reference = reference::sample(&imported.scene, None, 0.0);
    assert_hand("static: reference", &expected, &reference);
    let baked = skin_lod(
        &model,
        0,
        &FrameBlend::single(FramePair::single(REST_FRAME)),
    );
    assert_hand("static: baked", &expected, &baked);
    // The normals stay +z under both transforms (rotation about z, uniform scale).
    for prim in &baked {
        for n in &prim.normals {
            assert!((*n - Vec3::Z).length() <= HAND_TOLERANCE, "normal {n}");
        }
    }
}

/// Compares positions with [`HAND_TOLERANCE`], printing the worst vertex.
fn assert_hand(what: &str, expected: &[[[f32; 3]; 3]], found: &[SkinnedPrimitive]) {
    assert_eq!(found.len(), expected.len(), "{what}: primitive count");
    let mut worst = (0.0f32, 0, 0, Vec3::ZERO, Vec3::ZERO);
    for (p, (e, f)) in expected.iter().zip(found).enumerate() {
        assert_eq!(f.positions.len(), 3, "{what}: vertex count");
        for (v, (a, b)) in e.iter().zip(&f.positions).enumerate() {
            let a = Vec3::from_array(*a);
            let d = (a - *b).length();
            if d.is_nan() || d > worst.0 {
                worst = (d, p, v, a, *b);
            }
        }
    }
    let (d, p, v, a, b) = worst;
    let msg = format!(
        "{what}: worst vertex {v} of primitive {p} (node {}): expected {a}, found {b}, off by {d:.3e}",
        found[p].node
    );
    println!("{msg}");
    assert!(d <= HAND_TOLERANCE, "{msg}");
}

/// A message either prints its cause or returns it as its
/// `source`, never both, so the chain the CLI prints says each thing once.
#[test]
fn errors_print_their_cause_once() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let missing = throng_bake::import_file(&dir.join("no-such-model.glb")).unwrap_err();
    let invalid = import_slice(
        &edited(|d| d["scenes"][0]["nodes"] = json!([7])),
        None,
        "bad scene",
    )
    .unwrap_err();
    for (case, e, cause) in [
        ("missing file", &missing, "os error"),
        ("invalid glTF", &invalid, "invalid glTF"),
    ] {
        let chain = Chain(e).to_string();
        println!("{case}: {chain}");
        let n = chain.matches(cause).count();
        assert_eq!(n, 1, "{case}: {cause:?} appears {n} times: {chain}");
    }
    assert!(Chain(&missing).to_string().contains("no-such-model.glb"));
}
