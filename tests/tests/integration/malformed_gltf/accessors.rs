//! Malformed glTF accessors: past the end of their buffer view, of count
//! zero, of the wrong type, sparse (well-formed, huge, past their view, with
//! an index beyond the accessor), and vertex or joint indices beyond the
//! vertices or the skin.

use glam::Vec3;
use serde_json::{Value, json};
use throng_bake::reference;
use throng_tests::assert_mentions;

use super::{
    HAND_TOLERANCE, INDICES, JOINTS, KEY_TIMES, POSITION, base_builder_with, edited,
    import_and_bake, import_err,
};

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
