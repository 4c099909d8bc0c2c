//! Accessors without a `bufferView` read as zeros, then their sparse
//! substitutions (with and without a view), and share a size cap.

use serde_json::{Value, json};
use throng_bake::{BakeOptions, bake, import_slice};
use throng_tests::assert_mentions;
use throng_tests::gltf_builder::{GltfBuilder, component, gltf_bytes};

use super::{JOINTS, POSITION, WEIGHTS, base, tri_builder};

#[test]
fn accessors_without_a_buffer_view_are_zeros() {
    // JOINTS_0 stored as joint 1 of a one-joint skin: refused as it is …
    let b = tri_builder([[1, 0, 0, 0]; 3], [[1.0, 0.0, 0.0, 0.0]; 3]);
    let bytes = b.to_gltf();
    let msg = import_slice(&bytes, None, "joint 1")
        .err()
        .unwrap()
        .to_string();
    assert_mentions("joint 1", &msg, &["JOINTS_0", "joint 1"]);
    // … but without its bufferView every joint index is 0.
    let mut doc = b.to_json();
    doc["accessors"][JOINTS]
        .as_object_mut()
        .unwrap()
        .remove("bufferView");
    let imported = import_slice(&gltf_bytes(&doc), None, "zero joints")
        .unwrap_or_else(|e| panic!("zero joints: {e}"));
    let prim = &imported.scene.meshes[0].primitives[0];
    assert_eq!(prim.joints, vec![0u16; 12]);
    assert_eq!(prim.weights, [1.0f32, 0.0, 0.0, 0.0].repeat(3));
    bake(&imported.scene, &BakeOptions::default(), &|_, _| {})
        .unwrap_or_else(|e| panic!("zero joints: bake: {e}"));

    // WEIGHTS_0 without a bufferView: all zero, so every vertex is bound to
    // the root entry and reported.
    let mut doc = base().to_json();
    doc["accessors"][WEIGHTS]
        .as_object_mut()
        .unwrap()
        .remove("bufferView");
    let imported = import_slice(&gltf_bytes(&doc), None, "zero weights").unwrap();
    assert_eq!(
        imported.scene.meshes[0].primitives[0].weights,
        vec![0.0f32; 12]
    );
    let (_, report) = bake(&imported.scene, &BakeOptions::default(), &|_, _| {}).unwrap();
    assert_eq!(report.influences.vertices_zero_weight, 3);
}

/// Makes accessor `acc` of `b` sparse: elements `indices` (u16) replaced
/// by `values` (f32, flattened), stored in two new buffer views.
fn make_sparse(mut b: GltfBuilder, acc: usize, indices: &[u32], values: &[f32]) -> Value {
    let idx = b.accessor_uint("SCALAR", 1, component::U16, false, indices);
    let val = b.accessor_f32("SCALAR", 1, values);
    let mut doc = b.to_json();
    let iv = doc["accessors"][idx]["bufferView"].clone();
    let vv = doc["accessors"][val]["bufferView"].clone();
    doc["accessors"][acc]["sparse"] = json!({
        "count": indices.len(),
        "indices": { "bufferView": iv, "componentType": component::U16 },
        "values": { "bufferView": vv },
    });
    doc
}

#[test]
fn sparse_accessors_with_and_without_a_buffer_view() {
    // POSITION: vertex 1 moved to (5, 6, 7) over its stored values.
    let mut doc = make_sparse(base(), POSITION, &[1], &[5.0, 6.0, 7.0]);
    doc["accessors"][POSITION]["max"] = json!([5.0, 6.0, 7.0]);
    let imported = import_slice(&gltf_bytes(&doc), None, "sparse over data")
        .unwrap_or_else(|e| panic!("sparse over data: {e}"));
    let p = &imported.scene.meshes[0].primitives[0].positions;
    assert_eq!(
        p.iter().map(|v| v.to_array()).collect::<Vec<_>>(),
        [[0.0, 0.0, 0.0], [5.0, 6.0, 7.0], [0.0, 1.0, 0.0]]
    );

    // WEIGHTS_0 without a bufferView: zeros except vertices 0 and 2.
    let mut doc = make_sparse(
        base(),
        WEIGHTS,
        &[0, 2],
        &[0.25, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
    );
    doc["accessors"][WEIGHTS]
        .as_object_mut()
        .unwrap()
        .remove("bufferView");
    let imported = import_slice(&gltf_bytes(&doc), None, "sparse over zeros")
        .unwrap_or_else(|e| panic!("sparse over zeros: {e}"));
    assert_eq!(
        imported.scene.meshes[0].primitives[0].weights,
        [[0.25f32, 0.0, 0.0, 0.0], [0.0; 4], [1.0, 0.0, 0.0, 0.0]].concat()
    );
    let (_, report) = bake(&imported.scene, &BakeOptions::default(), &|_, _| {}).unwrap();
    assert_eq!(report.influences.vertices_zero_weight, 1, "vertex 1");
}

#[test]
fn accessors_without_a_buffer_view_share_a_size_cap() {
    use throng_core::limits::MAX_UNBACKED_COMPONENTS;
    // One accessor alone over the cap: refused before allocating.
    let mut doc = base().to_json();
    let a = &mut doc["accessors"][JOINTS];
    a.as_object_mut().unwrap().remove("bufferView");
    a["count"] = json!(MAX_UNBACKED_COMPONENTS / 4 + 1);
    let msg = import_slice(&gltf_bytes(&doc), None, "huge")
        .expect_err("huge zero-filled accessor")
        .to_string();
    println!("huge: {msg}");
    assert_mentions(
        "huge",
        &msg,
        &[
            "attributes.JOINTS_0",
            "accessors[1] without a bufferView",
            "limit",
        ],
    );
    // Two accessors, each under the cap, together over it.
    let per = MAX_UNBACKED_COMPONENTS / 8 + 1;
    let mut doc = base().to_json();
    for acc in [JOINTS, WEIGHTS] {
        let a = &mut doc["accessors"][acc];
        a.as_object_mut().unwrap().remove("bufferView");
        a["count"] = json!(per);
    }
    let msg = import_slice(&gltf_bytes(&doc), None, "two")
        .expect_err("two zero-filled accessors over the cap")
        .to_string();
    println!("two: {msg}");
    assert_mentions(
        "two",
        &msg,
        &["attributes.WEIGHTS_0", &format!("{} components", per * 4)],
    );
}
