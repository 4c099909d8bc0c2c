//! A one-joint "walker" model, built in memory: the fixture of the
//! root-motion and event tests.

use glam::Quat;
use throng_bake::scene::Scene;
use throng_bake::{BakeOptions, RootMotionSource, bake, import_slice};
use throng_crowd::crowd::ModelHandle;

use crate::gltf_builder::{Channel, GltfBuilder, Interpolation, Node, Primitive};

/// A one-joint "walker": the hips start at (0, 1, 0) and walk to `end` over
/// 1 s while turning by `turn` radians about +y; a triangle hangs off them.
pub fn walker(end: [f32; 3], turn: f32) -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let hips = b.node(Node::new("hips").translation([0.0, 1.0, 0.0]));
    let mesh = b.mesh(
        "body",
        vec![
            Primitive::new(&[[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [0.0, 1.0, 0.0]])
                .skin_set(&[[0, 0, 0, 0]; 3], &[[1.0, 0.0, 0.0, 0.0]; 3])
                .indices(&[0, 1, 2]),
        ],
    );
    let skin = b.skin("skin", &[hips], None);
    let body = b.node(Node::new("body").mesh(mesh).skin(skin));
    b.scene(&[hips, body]);
    let q = |a: f32| Quat::from_rotation_y(a).to_array();
    b.animation(
        "walk",
        vec![
            Channel::translation(
                hips,
                Interpolation::Linear,
                &[0.0, 0.5, 1.0],
                &[[0.0, 1.0, 0.0], [end[0] * 0.5, 1.0, end[2] * 0.5], end],
            ),
            Channel::rotation(
                hips,
                Interpolation::Linear,
                &[0.0, 0.5, 1.0],
                &[q(0.0), q(turn * 0.5), q(turn)],
            ),
        ],
    );
    b.animation(
        "idle",
        vec![Channel::translation(
            hips,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]],
        )],
    );
    b.to_gltf()
}

/// The walker imported and baked with root motion from its skeleton root
/// at 60 fps.
pub fn bake_walker(end: [f32; 3], turn: f32) -> (Scene, ModelHandle) {
    let scene = import_slice(&walker(end, turn), None, "walker")
        .unwrap()
        .scene;
    let opts = BakeOptions {
        root_motion: Some(RootMotionSource::SkeletonRoot),
        fps: 60.0,
        ..BakeOptions::default()
    };
    let (model, report) = bake(&scene, &opts, &|_, _| {}).unwrap();
    assert_eq!(report.root_motion_node.as_deref(), Some("hips"));
    (scene, ModelHandle::new(model).unwrap())
}
