//! Hand-worked sampling cases: STEP holds each key until the next, and
//! CUBICSPLINE tangents are scaled by the key interval.

use throng_tests::gltf_builder::{Channel, GltfBuilder, Interpolation, Node};

use super::{Case, QUAT_ID, RZ90, unit_triangle};

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
