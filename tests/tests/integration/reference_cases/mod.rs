//! The CPU reference and the bake against positions worked out by hand, on
//! small glTF files built by the tests: STEP, CUBICSPLINE, matrix joints, two
//! skins sharing joints, a rigid mesh under a joint, a skinned node with a
//! non-identity transform, weights summing to 0.5, 6 influences.
//!
//! Each case builds a tiny file with [`GltfBuilder`], imports and bakes it,
//! and checks two independent evaluations against positions worked out by
//! hand (the arithmetic is in the comments, the values are literals):
//! the CPU reference (`throng_bake::reference::sample`) and the baked model
//! skinned the shader's way (`throng_core::baked::skin_lod`) at baked frame
//! times. Nothing here computes an expectation with throng code or with a
//! matrix product of the formula under test.
//!
//! Notation: `Rz90` is a rotation by 90° about +z, mapping `(x, y, z)` to
//! `(−y, x, z)`; `T(a, b, c)` a translation.

use std::f32::consts::FRAC_1_SQRT_2;

use glam::{Mat4, Vec3};
use throng_bake::reference::{self, SkinnedPrimitive};
use throng_bake::scene::Scene;
use throng_bake::{BakeOptions, BakeReport, bake, import_slice};
use throng_core::BakedModel;
use throng_core::baked::skin_lod;
use throng_core::gpu::FrameBlend;
use throng_core::layout::frame_time;
use throng_tests::gltf_builder::{
    Channel, GltfBuilder, Interpolation, JointType, Node, Primitive, WeightType,
};

/// Largest distance between a hand-computed and an evaluated position, in
/// model units; the models here are 1–10 units big, so this is about 1e-6
/// of their size: f32 rounding only.
const HAND_TOLERANCE: f32 = 1e-5;

/// Quaternion `[x, y, z, w]` of a 90° rotation about +z.
const RZ90: [f32; 4] = [0.0, 0.0, FRAC_1_SQRT_2, FRAC_1_SQRT_2];
/// The identity quaternion.
const QUAT_ID: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// One weight on joint `j`.
fn only(j: u16) -> ([u16; 4], [f32; 4]) {
    ([j, 0, 0, 0], [1.0, 0.0, 0.0, 0.0])
}

/// An imported and baked test model.
struct Case {
    name: &'static str,
    scene: Scene,
    warnings: Vec<String>,
    model: BakedModel,
    report: BakeReport,
}

impl Case {
    /// Imports `b.to_gltf()` and bakes it with default options.
    fn build(name: &'static str, b: &GltfBuilder) -> Self {
        let bytes = b.to_gltf();
        let imported =
            import_slice(&bytes, None, name).unwrap_or_else(|e| panic!("{name}: import: {e}"));
        let (model, report) = bake(&imported.scene, &BakeOptions::default(), &|_, _| {})
            .unwrap_or_else(|e| panic!("{name}: bake: {e}"));
        Self {
            name,
            scene: imported.scene,
            warnings: imported.warnings,
            model,
            report,
        }
    }

    /// Clip time of baked frame `k` of clip `clip`, checked to be `t` (the
    /// time the hand values were worked out for).
    fn frame_time(&self, clip: usize, k: u32, t: f32) -> f32 {
        let info = &self.model.clips[clip];
        let ft = frame_time(k, info.frame_count, info.duration);
        assert!(
            (ft - t).abs() <= 1e-6,
            "{}: frame {k} of clip {:?} is at {ft}s, not {t}s",
            self.name,
            info.name
        );
        ft
    }

    /// The CPU reference at clip time `t` equals `expected` (per source
    /// primitive, in instance order).
    fn check_reference(&self, clip: usize, t: f32, expected: &[&[[f32; 3]]]) {
        let found = reference::sample(&self.scene, Some(clip), t);
        let what = format!(
            "{}: reference, clip {:?} t={t}s",
            self.name, self.scene.clips[clip].name
        );
        assert_hand(&what, expected, &found);
    }

    /// The baked model at baked frame `k` (clip time `t`) equals `expected`.
    fn check_baked(&self, clip: usize, k: u32, t: f32, expected: &[&[[f32; 3]]]) {
        let t = self.frame_time(clip, k, t);
        let info = &self.model.clips[clip];
        let found = skin_lod(&self.model, 0, &FrameBlend::single(info.frames_at(t)));
        let what = format!(
            "{}: baked, clip {:?} frame {k} t={t}s",
            self.name, info.name
        );
        assert_hand(&what, expected, &found);
    }

    /// Both the reference and the baked model at baked frame `k` (time `t`)
    /// equal `expected`.
    fn check(&self, clip: usize, k: u32, t: f32, expected: &[&[[f32; 3]]]) {
        let t = self.frame_time(clip, k, t);
        self.check_reference(clip, t, expected);
        self.check_baked(clip, k, t, expected);
    }
}

/// Compares positions with [`HAND_TOLERANCE`], printing the worst vertex.
fn assert_hand(what: &str, expected: &[&[[f32; 3]]], found: &[SkinnedPrimitive]) {
    assert_eq!(found.len(), expected.len(), "{what}: primitive count");
    let mut worst: Option<(f32, usize, usize, Vec3, Vec3)> = None;
    for (p, (e, f)) in expected.iter().zip(found).enumerate() {
        assert_eq!(
            e.len(),
            f.positions.len(),
            "{what}: vertex count of primitive {p} (node {}, mesh {}, primitive {})",
            f.node,
            f.mesh,
            f.primitive
        );
        for (v, (a, b)) in e.iter().zip(&f.positions).enumerate() {
            let a = Vec3::from_array(*a);
            let d = (a - *b).length();
            if worst.is_none_or(|w| d.is_nan() || d > w.0) {
                worst = Some((d, p, v, a, *b));
            }
        }
    }
    let Some((d, p, v, a, b)) = worst else { return };
    let f = &found[p];
    let msg = format!(
        "{what}: worst vertex {v} of primitive {p} (node {}, mesh {}, primitive {}): expected {a}, found {b}, off by {d:.3e} (tolerance {HAND_TOLERANCE:e})",
        f.node, f.mesh, f.primitive
    );
    println!("{msg}");
    assert!(d <= HAND_TOLERANCE, "{msg}");
}

/// A mesh `name` of one triangle at `positions`, vertex `v` skinned with
/// `influences[v]` (one set of joints and weights).
fn skinned_triangle(
    b: &mut GltfBuilder,
    name: &str,
    positions: &[[f32; 3]; 3],
    influences: &[([u16; 4], [f32; 4]); 3],
) -> usize {
    let (j, w): (Vec<_>, Vec<_>) = influences.iter().copied().unzip();
    b.mesh(name, vec![Primitive::new(positions).skin_set(&j, &w)])
}

/// A triangle skinned with weight 1 to joint 0 of skin 0, for the cases that
/// test sampling.
fn unit_triangle(b: &mut GltfBuilder, positions: &[[f32; 3]; 3]) -> usize {
    skinned_triangle(b, "tri", positions, &[only(0); 3])
}

/// Adds clip `name`: `node` translated linearly from `from` at 0 s to `to`
/// at 1 s.
fn move_over_a_second(b: &mut GltfBuilder, name: &str, node: usize, from: [f32; 3], to: [f32; 3]) {
    b.animation(
        name,
        vec![Channel::translation(
            node,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[from, to],
        )],
    );
}

/// Adds clip `name`: `node` rotated linearly from the identity at 0 s to
/// `Rz90` at 1 s.
fn turn_rz90_over_a_second(b: &mut GltfBuilder, name: &str, node: usize) {
    b.animation(
        name,
        vec![Channel::rotation(
            node,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[QUAT_ID, RZ90],
        )],
    );
}

/// `T(0,−1,0)`, column-major: the inverse bind of a joint resting at
/// `T(0,1,0)`.
fn inverse_bind_of_t010() -> Mat4 {
    Mat4::from_cols_array(&[
        1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 1.0,
    ])
}

#[test]
fn step_holds_each_key_until_the_next() {
    let mut b = GltfBuilder::new();
    let joint = b.node(Node::new("joint"));
    let mesh = unit_triangle(&mut b, &[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
    let skin = b.skin("skin", &[joint], None);
    b.node(Node::new("skinned").mesh(mesh).skin(skin));
    b.animation(
        "step",
        vec![
            Channel::translation(
                joint,
                Interpolation::Step,
                &[0.0, 0.5, 1.0],
                &[[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]],
            ),
            Channel::rotation(joint, Interpolation::Step, &[0.0, 0.5], &[QUAT_ID, RZ90]),
        ],
    );
    let case = Case::build("step", &b);
    assert_eq!(case.model.clips[0].duration, 1.0);
    assert_eq!(case.model.clips[0].frame_count, 31); // 30 fps × 1 s + 1

    // Keys 0: T(1,0,0), R = identity: v + (1,0,0).
    let first: &[[f32; 3]] = &[[2.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0, 1.0]];
    case.check(0, 0, 0.0, &[first]);
    // Just before the key at 0.5 s the first key still holds.
    case.check(0, 14, 14.0 / 30.0, &[first]);
    case.check_reference(0, 0.4999, &[first]);
    // At 0.5 s: T(0,2,0)·Rz90: (1,0,0) → (0,1,0) → (0,3,0);
    // (0,1,0) → (−1,0,0) → (−1,2,0); (0,0,1) → (0,0,1) → (0,2,1).
    let second: &[[f32; 3]] = &[[0.0, 3.0, 0.0], [-1.0, 2.0, 0.0], [0.0, 2.0, 1.0]];
    case.check(0, 15, 0.5, &[second]);
    case.check(0, 29, 29.0 / 30.0, &[second]);
    case.check_reference(0, 0.9999, &[second]);
    // At 1 s: T(0,0,3), the rotation key of 0.5 s still holds (its last key):
    // (1,0,0) → (0,1,3); (0,1,0) → (−1,0,3); (0,0,1) → (0,0,4).
    case.check(
        0,
        30,
        1.0,
        &[&[[0.0, 1.0, 3.0], [-1.0, 0.0, 3.0], [0.0, 0.0, 4.0]]],
    );
}

#[test]
fn cubic_spline_tangents_are_scaled_by_the_key_interval() {
    let mut b = GltfBuilder::new();
    let joint = b.node(Node::new("joint"));
    let mesh = unit_triangle(&mut b, &[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
    let skin = b.skin("skin", &[joint], None);
    b.node(Node::new("skinned").mesh(mesh).skin(skin));
    // Keys at 0 s and 2 s (interval dt = 2). Per key (in-tangent, value,
    // out-tangent); the in-tangent of the first key and the out-tangent of
    // the last are never used, so they are set to garbage (9, 9, 9).
    b.animation(
        "cubic",
        vec![Channel::translation(
            joint,
            Interpolation::CubicSpline,
            &[0.0, 2.0],
            &[
                [9.0, 9.0, 9.0],  // a0 (unused)
                [0.0, 0.0, 0.0],  // p0
                [1.0, 0.0, 2.0],  // b0, out-tangent of key 0
                [1.0, -2.0, 0.0], // a1, in-tangent of key 1
                [2.0, 4.0, 0.0],  // p1
                [9.0, 9.0, 9.0],  // b1 (unused)
            ],
        )],
    );
    let case = Case::build("cubic", &b);
    assert_eq!(case.model.clips[0].duration, 2.0);
    assert_eq!(case.model.clips[0].frame_count, 61);
    let tri = |p: [f32; 3]| -> [[f32; 3]; 3] {
        [
            [p[0], p[1], p[2]],
            [p[0] + 1.0, p[1], p[2]],
            [p[0], p[1] + 1.0, p[2]],
        ]
    };

    // p(s) = h00·p0 + h10·dt·b0 + h01·p1 + h11·dt·a1.
    // s = 0.5 (t = 1 s, frame 30): h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = −0.125.
    //   p = 0 + 0.25·(1,0,2) + 0.5·(2,4,0) − 0.25·(1,−2,0)
    //     = (0.25 + 1 − 0.25, 0 + 2 + 0.5, 0.5) = (1, 2.5, 0.5).
    //   (Unscaled tangents would give (1, 2.25, 0.25).)
    case.check(0, 30, 1.0, &[&tri([1.0, 2.5, 0.5])]);
    // s = 0.25 (t = 0.5 s, frame 15): h00 = 0.84375, h10 = 0.140625,
    // h01 = 0.15625, h11 = −0.046875.
    //   p = 0 + 0.28125·(1,0,2) + 0.15625·(2,4,0) − 0.09375·(1,−2,0)
    //     = (0.28125 + 0.3125 − 0.09375, 0.625 + 0.1875, 0.5625)
    //     = (0.5, 0.8125, 0.5625).
    case.check(0, 15, 0.5, &[&tri([0.5, 0.8125, 0.5625])]);
    // At the keys the value element is used, never a tangent.
    case.check(0, 0, 0.0, &[&tri([0.0, 0.0, 0.0])]);
    case.check(0, 60, 2.0, &[&tri([2.0, 4.0, 0.0])]);
}

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

#[test]
fn weights_summing_to_half_are_renormalised() {
    let mut b = GltfBuilder::new();
    let a = b.node(Node::new("a").translation([1.0, 0.0, 0.0]));
    let bj = b.node(Node::new("b"));
    // Primitive 0: u8 joints, normalised u8 weights (64/255 twice, 128/255).
    let p0 = Primitive::new(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]).skin_set_as(
        &[[0, 1, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]],
        &[
            [64.0 / 255.0, 64.0 / 255.0, 0.0, 0.0],
            [128.0 / 255.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
        ],
        JointType::U8,
        WeightType::UnormU8,
    );
    // Primitive 1: u16 joints, normalised u16 weights (16384/65535 twice,
    // 32768/65535).
    let p1 = Primitive::new(&[[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]]).skin_set_as(
        &[[1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]],
        &[
            [16384.0 / 65535.0, 16384.0 / 65535.0, 0.0, 0.0],
            [32768.0 / 65535.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
        ],
        JointType::U16,
        WeightType::UnormU16,
    );
    let mesh = b.mesh("half", vec![p0, p1]);
    let skin = b.skin("skin", &[a, bj], None);
    b.node(Node::new("skinned").mesh(mesh).skin(skin));
    move_over_a_second(&mut b, "move_b", bj, [0.0, 0.0, 0.0], [0.0, 2.0, 0.0]);
    let case = Case::build("half_weights", &b);

    // Two vertices per primitive sum to ≈ 0.5 and are counted.
    assert_eq!(case.report.influences.vertices_renormalised, 4);
    assert_eq!(case.report.influences.vertices_zero_weight, 0);
    // Baked weights sum to 1: the half-half vertex becomes 0.5/0.5.
    let v0 = &case.model.lods[0].vertices[0];
    assert!(
        (v0.weights[0] - 0.5).abs() <= 1e-6 && (v0.weights[1] - 0.5).abs() <= 1e-6,
        "baked weights {:?}",
        v0.weights
    );

    // G_a·v = v + (1,0,0); G_b·v = v + T_b(t). Equal weights → ½ each; a lone
    // weight of ½ → 1.
    // t = 0, T_b = 0:
    //   p0: v0 ½(1,0,0) + ½(0,0,0) = (0.5,0,0); v1 a: (2,0,0); v2 b: (0,1,0).
    //   p1: v0 ½(0,0,0) + ½(1,0,0) = (0.5,0,0); v1 b: (0,0,1); v2 a: (2,1,0).
    case.check(
        0,
        0,
        0.0,
        &[
            &[[0.5, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            &[[0.5, 0.0, 0.0], [0.0, 0.0, 1.0], [2.0, 1.0, 0.0]],
        ],
    );
    // t = 1, T_b = (0,2,0):
    //   p0: v0 ½(1,0,0) + ½(0,2,0) = (0.5,1,0); v1 (2,0,0); v2 (0,3,0).
    //   (Without renormalising, v0 would be at (0.25,0.5,0) and v1 at (1,0,0).)
    //   p1: v0 ½(0,2,0) + ½(1,0,0) = (0.5,1,0); v1 (0,2,1); v2 (2,1,0).
    case.check(
        0,
        30,
        1.0,
        &[
            &[[0.5, 1.0, 0.0], [2.0, 0.0, 0.0], [0.0, 3.0, 0.0]],
            &[[0.5, 1.0, 0.0], [0.0, 2.0, 1.0], [2.0, 1.0, 0.0]],
        ],
    );
}

#[test]
fn all_zero_weights_bind_to_the_skins_first_joint() {
    let mut b = GltfBuilder::new();
    let a = b.node(Node::new("a").translation([1.0, 0.0, 0.0]));
    let bj = b.node(Node::new("b"));
    // Skin joint 0 is node b, joint 1 node a. v0 has all-zero weights and
    // names joint 1 (a) everywhere: it must bind to skin joint 0 (b), not to
    // the joint its first slot names.
    let mesh = b.mesh(
        "zero",
        vec![
            Primitive::new(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]).skin_set(
                &[[1, 1, 1, 1], [1, 0, 0, 0], [0, 0, 0, 0]],
                &[
                    [0.0, 0.0, 0.0, 0.0],
                    [1.0, 0.0, 0.0, 0.0],
                    [1.0, 0.0, 0.0, 0.0],
                ],
            ),
        ],
    );
    let skin = b.skin("skin", &[bj, a], None);
    b.node(Node::new("skinned").mesh(mesh).skin(skin));
    move_over_a_second(&mut b, "move_b", bj, [0.0, 0.0, 0.0], [0.0, 2.0, 0.0]);
    let case = Case::build("zero_weights", &b);
    assert_eq!(case.report.influences.vertices_zero_weight, 1);

    // t = 0: v0 on b (identity): (0,0,0); v1 on a: (2,0,0); v2 on b: (0,1,0).
    case.check(
        0,
        0,
        0.0,
        &[&[[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 1.0, 0.0]]],
    );
    // t = 1, T_b = (0,2,0): v0 (0,2,0) (bound to a it would be (1,0,0));
    // v1 (2,0,0); v2 (0,3,0).
    case.check(
        0,
        30,
        1.0,
        &[&[[0.0, 2.0, 0.0], [2.0, 0.0, 0.0], [0.0, 3.0, 0.0]]],
    );
}

#[test]
fn six_influences_reference_uses_all_bake_keeps_four() {
    let mut b = GltfBuilder::new();
    // Six root joints, joint k at translation d_k.
    let d = [
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [-1.0, 0.0, 0.0],
        [0.0, -1.0, 0.0],
        [0.0, 0.0, -1.0],
    ];
    let joints: Vec<usize> = d
        .iter()
        .enumerate()
        .map(|(k, t)| b.node(Node::new(&format!("j{k}")).translation(*t)))
        .collect();
    // v0 at the origin has six weights over two sets, not in weight order,
    // summing to 0.5: j0 20/128, j1 16/128, j2 12/128, j3 8/128, j4 5/128,
    // j5 3/128 (all exact in binary).
    // v1 = (1,0,0) has weight 1 on j5 (set 1, slot 1); v2 = (0,1,0) on j4.
    let prim = Primitive::new(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
        .skin_set_as(
            &[[4, 0, 5, 1], [0, 0, 0, 0], [4, 0, 0, 0]],
            &[
                [5.0 / 128.0, 20.0 / 128.0, 3.0 / 128.0, 16.0 / 128.0],
                [0.0; 4],
                [1.0, 0.0, 0.0, 0.0],
            ],
            JointType::U16,
            WeightType::F32,
        )
        .skin_set_as(
            &[[2, 3, 0, 0], [0, 5, 0, 0], [0, 0, 0, 0]],
            &[
                [12.0 / 128.0, 8.0 / 128.0, 0.0, 0.0],
                [0.0, 1.0, 0.0, 0.0],
                [0.0; 4],
            ],
            JointType::U16,
            WeightType::F32,
        );
    let mesh = b.mesh("six", vec![prim]);
    let skin = b.skin("skin", &joints, None);
    b.node(Node::new("skinned").mesh(mesh).skin(skin));
    move_over_a_second(
        &mut b,
        "move_j0",
        joints[0],
        [1.0, 0.0, 0.0],
        [3.0, 0.0, 0.0],
    );
    let case = Case::build("six_influences", &b);

    // The bake keeps j0..j3 (20, 16, 12, 8), drops j4 (5) and j5 (3); the
    // largest dropped weight relative to the source sum is (5/128)/(64/128)
    // = 5/64 = 0.078125.
    let stats = &case.report.influences;
    assert_eq!(stats.vertices_truncated, 1);
    assert!(
        (stats.max_dropped_weight - 0.078125).abs() <= 1e-6,
        "max dropped weight {}",
        stats.max_dropped_weight
    );
    assert_eq!(stats.vertices_renormalised, 1);

    // v1 on j5: (1,0,0) + (0,0,−1) = (1,0,−1); v2 on j4: (0,1,0) + (0,−1,0) = 0.
    let v1 = [1.0, 0.0, -1.0];
    let v2 = [0.0, 0.0, 0.0];
    // Reference, all six renormalised by 64/128:
    //   v0 = (20·d0 + 16·d1 + 12·d2 + 8·d3 + 5·d4 + 3·d5) / 64.
    //   t = 0 (d0 = (1,0,0)): ((20 − 8)/64, (16 − 5)/64, (12 − 3)/64)
    //                        = (0.1875, 0.171875, 0.140625).
    //   t = 1 (d0 = (3,0,0)): x = (60 − 8)/64 = 0.8125.
    // Bake, four largest renormalised by 56/128:
    //   v0 = (20·d0 + 16·d1 + 12·d2 + 8·d3) / 56.
    //   t = 0: (12/56, 16/56, 12/56) = (0.21428571, 0.28571429, 0.21428571).
    //   t = 1: x = (60 − 8)/56 = 0.92857143.
    case.check_reference(0, 0.0, &[&[[0.1875, 0.171875, 0.140625], v1, v2]]);
    case.check_baked(
        0,
        0,
        0.0,
        &[&[[12.0 / 56.0, 16.0 / 56.0, 12.0 / 56.0], v1, v2]],
    );
    case.check_reference(0, 1.0, &[&[[0.8125, 0.171875, 0.140625], v1, v2]]);
    case.check_baked(
        0,
        30,
        1.0,
        &[&[[52.0 / 56.0, 16.0 / 56.0, 12.0 / 56.0], v1, v2]],
    );
    assert!(
        case.warnings.is_empty(),
        "{}: unexpected warnings {:?}",
        case.name,
        case.warnings
    );
}
