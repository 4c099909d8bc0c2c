//! Hand-worked weight cases: weights summing to 0.5 are renormalised,
//! all-zero weights bind to the skin's first joint, and with 6 influences the
//! reference uses all of them while the bake keeps four.

use throng_tests::gltf_builder::{GltfBuilder, JointType, Node, Primitive, WeightType};

use super::{Case, move_over_a_second};

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
