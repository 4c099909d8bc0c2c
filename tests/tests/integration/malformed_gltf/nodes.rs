//! Node hierarchies: cycles are rejected wherever they are, and a model
//! with no skin and no animation bakes a static model whose positions are
//! worked out by hand.

use glam::Vec3;
use serde_json::json;
use throng_bake::reference;
use throng_bake::{BakeOptions, bake, import_slice};
use throng_core::baked::skin_lod;
use throng_core::gpu::FrameBlend;
use throng_core::layout::FramePair;
use throng_core::limits::REST_FRAME;
use throng_tests::assert_mentions;
use throng_tests::gltf_builder::{GltfBuilder, Node, Primitive};

use super::{HAND_TOLERANCE, assert_hand, edited, import_err};

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
