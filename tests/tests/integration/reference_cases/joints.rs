//! Hand-worked joint cases: a matrix joint is used as given, two skins
//! sharing joints share palette entries only when their inverse binds match,
//! a rigid mesh under a joint follows it, and the transform of the skinned
//! node is ignored.

use glam::{Mat4, Vec3};
use throng_tests::gltf_builder::{GltfBuilder, Node, Primitive};

use super::{
    Case, HAND_TOLERANCE, RZ90, inverse_bind_of_t010, move_over_a_second, only, skinned_triangle,
    turn_rz90_over_a_second, unit_triangle,
};

#[test]
fn matrix_joint_is_used_as_given() {
    let mut b = GltfBuilder::new();
    // M = T(1,2,3)·Rx90·S(2), column-major: M·(x,y,z) = (2x + 1, 2 − 2z, 2y + 3).
    let parent = b.node(Node::new("matrix_joint").matrix([
        2.0, 0.0, 0.0, 0.0, // column 0
        0.0, 0.0, 2.0, 0.0, // column 1
        0.0, -2.0, 0.0, 0.0, // column 2
        1.0, 2.0, 3.0, 1.0, // column 3
    ]));
    let child = b.node(Node::new("child").translation([0.0, 1.0, 0.0]));
    b.add_child(parent, child);
    let mesh = skinned_triangle(
        &mut b,
        "tri",
        &[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        &[only(0), only(1), ([0, 1, 0, 0], [0.5, 0.5, 0.0, 0.0])],
    );
    let skin = b.skin("skin", &[parent, child], None);
    b.node(Node::new("skinned").mesh(mesh).skin(skin));
    move_over_a_second(&mut b, "child", child, [0.0, 1.0, 0.0], [0.0, 3.0, 0.0]);
    let case = Case::build("matrix", &b);

    // v0 on the matrix joint: M·(1,0,0) = (3, 2, 3) at every time.
    // v1 on the child: M·((0,1,0) + T_child); v2: half M·(0,0,1) = (1,0,3),
    // half M·((0,0,1) + T_child).
    // t = 0, T_child = (0,1,0): v1 = M·(0,2,0) = (1,2,7);
    //   v2 = ½(1,0,3) + ½·M·(0,1,1) = ½(1,0,3) + ½(1,0,5) = (1,0,4).
    case.check(
        0,
        0,
        0.0,
        &[&[[3.0, 2.0, 3.0], [1.0, 2.0, 7.0], [1.0, 0.0, 4.0]]],
    );
    // t = 0.5, T_child = (0,2,0): v1 = M·(0,3,0) = (1,2,9);
    //   v2 = ½(1,0,3) + ½·M·(0,2,1) = ½(1,0,3) + ½(1,0,7) = (1,0,5).
    case.check(
        0,
        15,
        0.5,
        &[&[[3.0, 2.0, 3.0], [1.0, 2.0, 9.0], [1.0, 0.0, 5.0]]],
    );
    // t = 1, T_child = (0,3,0): v1 = M·(0,4,0) = (1,2,11);
    //   v2 = ½(1,0,3) + ½·M·(0,3,1) = ½(1,0,3) + ½(1,0,9) = (1,0,6).
    case.check(
        0,
        30,
        1.0,
        &[&[[3.0, 2.0, 3.0], [1.0, 2.0, 11.0], [1.0, 0.0, 6.0]]],
    );
}

#[test]
fn two_skins_sharing_joints_share_palette_entries_only_when_inverse_binds_match() {
    let mut b = GltfBuilder::new();
    let hip = b.node(Node::new("hip"));
    let knee = b.node(Node::new("knee").translation([0.0, 1.0, 0.0]));
    b.add_child(hip, knee);
    // One mesh: v0 on skin joint 0, v1 and v2 on skin joint 1.
    let mesh = skinned_triangle(
        &mut b,
        "shared",
        &[[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0]],
        &[only(0), only(1), only(1)],
    );
    // Skin A: [hip, knee], no inverse binds (identity).
    let skin_a = b.skin("a", &[hip, knee], None);
    // Skin B: the same joints in the other order, explicit identity binds.
    let skin_b = b.skin("b", &[knee, hip], Some(&[Mat4::IDENTITY, Mat4::IDENTITY]));
    // Skin C: [hip, knee], the knee's inverse bind is T(0,−1,0).
    let skin_c = b.skin(
        "c",
        &[hip, knee],
        Some(&[Mat4::IDENTITY, inverse_bind_of_t010()]),
    );
    b.node(Node::new("body_a").mesh(mesh).skin(skin_a));
    b.node(Node::new("body_b").mesh(mesh).skin(skin_b));
    b.node(Node::new("body_c").mesh(mesh).skin(skin_c));
    turn_rz90_over_a_second(&mut b, "bend", hip);
    let case = Case::build("two_skins", &b);

    // docs/DESIGN.md#palette-matrices: entries are shared only when node and inverse bind are
    // equal: (hip, I), (knee, I) from A; B adds nothing (absent binds are the
    // identity); C adds (knee, T(0,−1,0)). Three entries.
    let nodes: Vec<u32> = case.model.bones.iter().map(|b| b.node).collect();
    assert_eq!(nodes, [0, 1, 1], "palette nodes");
    assert_eq!(case.model.bones.len(), 3);
    assert_eq!(case.report.bones, 3);

    // Rest (t = 0): G_hip = I, G_knee = T(0,1,0).
    // A: v0 hip (1,0,0); v1 knee (0,3,0); v2 knee (1,2,0).
    // B: v0 knee (1,1,0); v1 hip (0,2,0); v2 hip (1,1,0).
    // C: v0 hip (1,0,0); v1 knee·T(0,−1,0) = identity: (0,2,0); v2 (1,1,0).
    case.check(
        0,
        0,
        0.0,
        &[
            &[[1.0, 0.0, 0.0], [0.0, 3.0, 0.0], [1.0, 2.0, 0.0]],
            &[[1.0, 1.0, 0.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0]],
            &[[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [1.0, 1.0, 0.0]],
        ],
    );
    // t = 1: G_hip = Rz90, G_knee = Rz90·T(0,1,0); Rz90(x,y,z) = (−y,x,z).
    // A: v0 Rz90(1,0,0) = (0,1,0); v1 Rz90(0,3,0) = (−3,0,0); v2 Rz90(1,2,0) = (−2,1,0).
    // B: v0 Rz90(1,1,0) = (−1,1,0); v1 Rz90(0,2,0) = (−2,0,0); v2 Rz90(1,1,0) = (−1,1,0).
    // C: v0 (0,1,0); v1 Rz90(0,2,0) = (−2,0,0); v2 Rz90(1,1,0) = (−1,1,0).
    case.check(
        0,
        30,
        1.0,
        &[
            &[[0.0, 1.0, 0.0], [-3.0, 0.0, 0.0], [-2.0, 1.0, 0.0]],
            &[[-1.0, 1.0, 0.0], [-2.0, 0.0, 0.0], [-1.0, 1.0, 0.0]],
            &[[0.0, 1.0, 0.0], [-2.0, 0.0, 0.0], [-1.0, 1.0, 0.0]],
        ],
    );
}

#[test]
fn rigid_mesh_under_a_joint_follows_it() {
    let mut b = GltfBuilder::new();
    let arm = b.node(Node::new("arm").translation([0.0, 1.0, 0.0]));
    let prop_mesh = b.mesh(
        "prop",
        vec![Primitive::new(&[
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
        ])],
    );
    let prop = b.node(
        Node::new("prop")
            .translation([2.0, 0.0, 0.0])
            .scale([0.5, 0.5, 0.5])
            .mesh(prop_mesh),
    );
    b.add_child(arm, prop);
    let body_mesh = skinned_triangle(
        &mut b,
        "body",
        &[[0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 2.0, 0.0]],
        &[only(0); 3],
    );
    // The arm's bind pose is T(0,1,0), so its inverse bind is T(0,−1,0).
    let skin = b.skin("skin", &[arm], Some(&[inverse_bind_of_t010()]));
    b.node(Node::new("body").mesh(body_mesh).skin(skin));
    turn_rz90_over_a_second(&mut b, "swing", arm);
    let case = Case::build("rigid_under_joint", &b);

    // Palette: the prop (node 1, first instance) and the arm (node 0).
    let nodes: Vec<u32> = case.model.bones.iter().map(|b| b.node).collect();
    assert_eq!(nodes, [1, 0], "palette nodes");
    // The prop's entry has inverse bind G_prop(rest)⁻¹ = (T(2,1,0)·S(½))⁻¹
    // = S(2)·T(−2,−1,0): (x,y,z) ↦ (2x − 4, 2y − 2, 2z).
    let expected_ibm = Mat4::from_cols_array(&[
        2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, -4.0, -2.0, 0.0, 1.0,
    ]);
    assert!(
        case.model.bones[0]
            .inverse_bind
            .abs_diff_eq(expected_ibm, 1e-6),
        "prop inverse bind {:?}",
        case.model.bones[0].inverse_bind
    );
    // Its vertices are pre-transformed by G_prop(rest) = T(2,1,0)·S(½) and
    // bound to that entry with weight 1: v ↦ ½v + (2,1,0).
    let lod = &case.model.lods[0];
    let sub = &lod.submeshes[0];
    assert_eq!(sub.source_node, 1);
    let pre = [[2.0, 1.0, 0.0], [2.5, 1.0, 0.0], [2.0, 1.5, 0.0]];
    for (v, p) in pre.iter().enumerate() {
        let vert = &lod.vertices[sub.base_vertex as usize + v];
        assert!(
            (Vec3::from(vert.position) - Vec3::from_array(*p)).length() <= HAND_TOLERANCE,
            "prop vertex {v} baked at {:?}, expected {p:?}",
            vert.position
        );
        assert_eq!((vert.joints[0], vert.weights), (0, [1.0, 0.0, 0.0, 0.0]));
    }

    // t = 0: prop G = T(0,1,0)·T(2,0,0)·S(½): v ↦ ½v + (2,1,0).
    // body: G_arm·IBM = T(0,1,0)·T(0,−1,0) = I.
    case.check(
        0,
        0,
        0.0,
        &[
            &[[2.0, 1.0, 0.0], [2.5, 1.0, 0.0], [2.0, 1.5, 0.0]],
            &[[0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 2.0, 0.0]],
        ],
    );
    // t = 1: prop G = T(0,1,0)·Rz90·T(2,0,0)·S(½):
    //   (0,0,0) → (2,0,0) → (0,2,0) → (0,3,0);
    //   (1,0,0) → (2.5,0,0) → (0,2.5,0) → (0,3.5,0);
    //   (0,1,0) → (2,0.5,0) → (−0.5,2,0) → (−0.5,3,0).
    // body: T(0,1,0)·Rz90·T(0,−1,0):
    //   (0,1,0) → (0,0,0) → (0,0,0) → (0,1,0);
    //   (1,1,0) → (1,0,0) → (0,1,0) → (0,2,0);
    //   (0,2,0) → (0,1,0) → (−1,0,0) → (−1,1,0).
    case.check(
        0,
        30,
        1.0,
        &[
            &[[0.0, 3.0, 0.0], [0.0, 3.5, 0.0], [-0.5, 3.0, 0.0]],
            &[[0.0, 1.0, 0.0], [0.0, 2.0, 0.0], [-1.0, 1.0, 0.0]],
        ],
    );
}

#[test]
fn transform_of_the_skinned_node_is_ignored() {
    let mut b = GltfBuilder::new();
    // The joint's ancestors count; the node holding the skinned mesh does not.
    let armature = b.node(Node::new("armature").translation([0.0, 0.0, 5.0]));
    let bone = b.node(Node::new("bone"));
    b.add_child(armature, bone);
    let mesh = unit_triangle(&mut b, &[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
    let skin = b.skin("skin", &[bone], None);
    b.node(
        Node::new("skinned")
            .translation([10.0, 0.0, 0.0])
            .rotation(RZ90)
            .scale([3.0, 3.0, 3.0])
            .mesh(mesh)
            .skin(skin),
    );
    move_over_a_second(&mut b, "lift", bone, [0.0, 0.0, 0.0], [0.0, 4.0, 0.0]);
    let case = Case::build("skinned_node_transform", &b);

    // G_bone = T(0,0,5)·T_bone(t); the skinned node's T(10,0,0)·Rz90·S(3) is
    // ignored. t = 0: v + (0,0,5).
    case.check(
        0,
        0,
        0.0,
        &[&[[1.0, 0.0, 5.0], [0.0, 1.0, 5.0], [0.0, 0.0, 6.0]]],
    );
    // t = 0.5: T_bone = (0,2,0): v + (0,2,5).
    case.check(
        0,
        15,
        0.5,
        &[&[[1.0, 2.0, 5.0], [0.0, 3.0, 5.0], [0.0, 2.0, 6.0]]],
    );
    // t = 1: v + (0,4,5).
    case.check(
        0,
        30,
        1.0,
        &[&[[1.0, 4.0, 5.0], [0.0, 5.0, 5.0], [0.0, 4.0, 6.0]]],
    );
}
