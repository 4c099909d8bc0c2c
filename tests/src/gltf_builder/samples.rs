//! Ready-made documents: a skinned, animated triangle (the base of the
//! malformed and hostile glTF tests), a rigid triangle beside a joint, and a
//! clip of hostile length.

use glam::Mat4;

use super::{Channel, GltfBuilder, Interpolation, Node, Primitive};

/// A skinned, animated triangle: node 0 "joint" (animated, clip "move"),
/// node 1 "skinned" (mesh 0, skin 0). Accessors: 0 POSITION, 1 JOINTS_0,
/// 2 WEIGHTS_0, 3 indices, 4 inverse binds, 5 key times, 6 key values; each
/// has its own buffer view with the same index. The base of the malformed
/// and hostile glTF tests, which edit it.
pub fn skinned_triangle(
    indices: &[u32],
    joints: [[u16; 4]; 3],
    weights: [[f32; 4]; 3],
) -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let joint = b.node(Node::new("joint"));
    let mesh = b.mesh(
        "tri",
        vec![
            Primitive::new(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
                .skin_set(&joints, &weights)
                .indices(indices),
        ],
    );
    let skin = b.skin("skin", &[joint], Some(&[Mat4::IDENTITY]));
    b.node(Node::new("skinned").mesh(mesh).skin(skin));
    b.animation(
        "move",
        vec![Channel::translation(
            joint,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        )],
    );
    b
}

/// A document with an unskinned node "joint" (for channels to animate) and
/// a rigid triangle under node "rigid"; returns the builder and the joint.
pub fn rigid_triangle_and_joint() -> (GltfBuilder, usize) {
    let mut b = GltfBuilder::new();
    let joint = b.node(Node::new("joint"));
    let mesh = b.mesh(
        "tri",
        vec![Primitive::new(&[
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
        ])],
    );
    b.node(Node::new("rigid").mesh(mesh));
    (b, joint)
}

/// A rigid triangle under node "rigid" and one clip, "forever", that moves
/// node "joint" with a last key at `last_key` seconds: a hostile duration
/// for the bake's size checks.
pub fn long_clip(last_key: f32) -> Vec<u8> {
    let (mut b, joint) = rigid_triangle_and_joint();
    b.animation(
        "forever",
        vec![Channel::translation(
            joint,
            Interpolation::Linear,
            &[0.0, last_key],
            &[[0.0; 3]; 2],
        )],
    );
    b.to_gltf()
}
