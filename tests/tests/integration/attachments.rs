//! Attachments. A rigid prop on a hand follows the hand on
//! *every* instance it is attached to (UAI #90 attached to only one): its
//! GPU-skinned world position equals the CPU bone query, for two instances at
//! different times. A skinned attachment (clothing sharing the skeleton,
//! bones matched by name) follows the character's palette exactly.

use glam::{Mat4, Quat, Vec3};
use throng_bake::sample::PoseEvaluator;
use throng_bake::{BakeOptions, bake, bake_file, bake_skinned_attachment, import_slice};
use throng_crowd::crowd::{Attachment, Crowd, DrawList, ModelHandle, Spawn};
use throng_tests::gltf_builder::{Channel, GltfBuilder, Interpolation, Node, Primitive};
use throng_tests::readback::skin_on_gpu;
use throng_tests::require_gpu;

/// A 0.2-unit box prop with no skin (a rigid, static model).
fn prop() -> ModelHandle {
    let mut b = GltfBuilder::new();
    let c = |x: f32, y: f32, z: f32| [x * 0.1, y * 0.1, z * 0.1];
    let p = [
        c(-1., -1., -1.),
        c(1., -1., -1.),
        c(1., 1., -1.),
        c(-1., 1., -1.),
        c(-1., -1., 1.),
        c(1., -1., 1.),
        c(1., 1., 1.),
        c(-1., 1., 1.),
    ];
    let idx = [
        0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2, 0, 4, 7, 0, 7, 3,
        1, 2, 6, 1, 6, 5,
    ];
    let mesh = b.mesh("box", vec![Primitive::new(&p).indices(&idx)]);
    let n = b.node(Node::new("box").mesh(mesh));
    b.scene(&[n]);
    let scene = import_slice(&b.to_gltf(), None, "box").unwrap().scene;
    ModelHandle::new(bake(&scene, &BakeOptions::default(), &|_, _| {}).unwrap().0).unwrap()
}

#[test]
fn a_prop_on_the_hand_follows_it_on_every_instance_on_the_gpu() {
    let gpu = require_gpu("attachments");
    let (woman, _) = bake_file(
        &throng_tests::asset("gszauer_Woman.gltf"),
        &BakeOptions::default(),
        &|_, _| {},
    )
    .unwrap();
    let radius = woman.bounding_radius;
    let hand = woman
        .bones
        .iter()
        .position(|b| b.name == "RightHand")
        .unwrap();
    let woman = ModelHandle::new(woman).unwrap();
    let prop = prop();
    let mut crowd = Crowd::new();
    let w = crowd.add_model(&woman);
    let p = crowd.add_model(&prop);
    let walk = crowd.clip_index(w, "Walking").unwrap();
    let punch = crowd.clip_index(w, "Punch").unwrap();
    let a = crowd
        .spawn(
            w,
            Spawn {
                transform: Mat4::from_translation(Vec3::new(-3.0, 0.0, 0.0)),
                clip: Some(walk),
                time: 0.3,
                ..Spawn::default()
            },
        )
        .unwrap();
    let b = crowd
        .spawn(
            w,
            Spawn {
                transform: Mat4::from_scale_rotation_translation(
                    Vec3::splat(1.5),
                    Quat::from_rotation_y(2.0),
                    Vec3::new(4.0, 0.0, 1.0),
                ),
                clip: Some(punch),
                time: 0.7,
                ..Spawn::default()
            },
        )
        .unwrap();
    let offset = Mat4::from_translation(Vec3::new(0.0, 0.15, 0.05));
    let pa = crowd.attach(a, p, hand, offset).unwrap();
    let pb = crowd.attach(b, p, hand, offset).unwrap();
    crowd.cross_fade(b, walk, 0.5).unwrap();
    crowd.update(0.2); // b mid-fade: the prop follows the blended hand
    assert_eq!(crowd.attachments(a).count(), 1);
    assert!(matches!(
        crowd.attachments(b).next().unwrap().1,
        Attachment::Bone { .. }
    ));

    let mut list = DrawList::default();
    crowd.build_draw_list(None, &mut list);
    let group = list
        .groups
        .iter()
        .find(|g| g.model == p)
        .expect("props are drawn in their own group");
    assert_eq!(group.count, 2, "a prop on each instance");
    let records = &list.records[group.first as usize..(group.first + group.count) as usize];
    let out = skin_on_gpu(&gpu, &prop, records);

    let mut worst = 0.0f32;
    for (parent, child) in [(a, pa), (b, pb)] {
        // Which record is this prop's? Match by the prop's own world matrix.
        let world = crowd.state(child).unwrap().world_from_model;
        let r = records
            .iter()
            .position(|r| r.world_from_model() == world)
            .expect("the prop's record");
        let expected_world = crowd.bone_world_transform(parent, hand).unwrap() * offset;
        for (v, gv) in prop.model().lods[0].vertices.iter().zip(&out[r]) {
            let e = expected_world.transform_point3(Vec3::from(v.position));
            worst = worst.max((e - gv.position).length());
        }
    }
    println!(
        "prop vertices vs CPU bone query on {}: worst {worst:.3e} units",
        gpu.adapter_summary()
    );
    assert!(worst < 1e-5 * radius, "worst {worst} (radius {radius})");
    // Different instances, different times: the props are in different places.
    let (wa, wb) = (
        crowd.state(pa).unwrap().world_from_model,
        crowd.state(pb).unwrap().world_from_model,
    );
    assert!((wa.w_axis - wb.w_axis).length() > 1.0);
    // Despawning a parent takes its prop.
    crowd.despawn(a).unwrap();
    assert!(!crowd.contains(pa) && crowd.contains(pb));
}

/// A two-joint arm (root, hand) animated at the hand, and a "glove" mesh
/// skinned to a separate skeleton whose joints carry the same names.
fn arm_and_glove() -> (Vec<u8>, Vec<u8>) {
    let mut b = GltfBuilder::new();
    let hand = b.node(Node::new("hand").translation([0.0, 1.0, 0.0]));
    let root = b.node(Node::new("root").children(&[hand]));
    let mesh = b.mesh(
        "arm",
        vec![
            Primitive::new(&[[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.0, 1.0, 0.0]])
                .skin_set(&[[0, 0, 0, 0]; 3], &[[1.0, 0.0, 0.0, 0.0]; 3])
                .indices(&[0, 1, 2]),
        ],
    );
    let ibm = [
        Mat4::IDENTITY,
        Mat4::from_translation(Vec3::new(0.0, -1.0, 0.0)),
    ];
    let skin = b.skin("skin", &[root, hand], Some(&ibm));
    let holder = b.node(Node::new("holder").mesh(mesh).skin(skin));
    b.scene(&[root, holder]);
    let q = |a: f32| Quat::from_rotation_z(a).to_array();
    b.animation(
        "wave",
        vec![Channel::rotation(
            hand,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[q(0.0), q(1.2)],
        )],
    );
    let arm = b.to_gltf();

    // The glove: the same joint names in the opposite order, its own mesh.
    let mut g = GltfBuilder::new();
    let ghand = g.node(Node::new("hand").translation([0.0, 1.0, 0.0]));
    let groot = g.node(Node::new("root").children(&[ghand]));
    let gmesh = g.mesh(
        "glove",
        vec![
            Primitive::new(&[[0.0, 1.0, 0.0], [0.2, 1.2, 0.0], [0.0, 1.3, 0.1]])
                .skin_set(&[[0, 0, 0, 0]; 3], &[[1.0, 0.0, 0.0, 0.0]; 3])
                .indices(&[0, 1, 2]),
        ],
    );
    let gibm = [
        Mat4::from_translation(Vec3::new(0.0, -1.0, 0.0)),
        Mat4::IDENTITY,
    ];
    let gskin = g.skin("skin", &[ghand, groot], Some(&gibm));
    let gholder = g.node(Node::new("holder").mesh(gmesh).skin(gskin));
    g.scene(&[groot, gholder]);
    (arm, g.to_gltf())
}

#[test]
fn a_skinned_attachment_follows_the_characters_palette() {
    let (arm, glove) = arm_and_glove();
    let arm_scene = import_slice(&arm, None, "arm").unwrap().scene;
    let (arm_model, _) = bake(&arm_scene, &BakeOptions::default(), &|_, _| {}).unwrap();
    let glove_scene = import_slice(&glove, None, "glove").unwrap().scene;
    let (glove_model, _) = bake_skinned_attachment(&arm_model, &glove_scene, "glove").unwrap();
    let hand = arm_model
        .bones
        .iter()
        .position(|b| b.name == "hand")
        .unwrap() as u16;
    assert!(
        glove_model.lods[0]
            .vertices
            .iter()
            .all(|v| v.joints[0] == hand),
        "bound to the character's hand by name"
    );
    let arm_h = ModelHandle::new(arm_model).unwrap();
    let glove_h = ModelHandle::new(glove_model).unwrap();
    let mut crowd = Crowd::new();
    let am = crowd.add_model(&arm_h);
    let gm = crowd.add_model(&glove_h);
    let place = Mat4::from_translation(Vec3::new(2.0, 0.0, 0.0));
    let id = crowd
        .spawn(
            am,
            Spawn {
                transform: place,
                clip: Some(0),
                ..Spawn::default()
            },
        )
        .unwrap();
    let glove_id = crowd.attach_skinned(id, gm).unwrap();
    crowd.update(0.5);
    // The glove shows the character's frames: G_hand(0.5) · IBM_glove · v.
    let blend = crowd.frame_blend(glove_id).unwrap();
    assert_eq!(blend, crowd.frame_blend(id).unwrap());
    let skinned = throng_core::baked::skin_lod(glove_h.model(), 0, &blend);
    let g_hand = PoseEvaluator::new(&arm_scene).globals(Some(&arm_scene.clips[0]), 0.5)[0];
    for (i, p) in [[0.0, 1.0, 0.0], [0.2, 1.2, 0.0], [0.0, 1.3, 0.1f32]]
        .iter()
        .enumerate()
    {
        let expected = (g_hand * Mat4::from_translation(Vec3::new(0.0, -1.0, 0.0)))
            .transform_point3(Vec3::from(*p));
        let got = skinned[0].positions[i];
        assert!(
            (got - expected).length() < 1e-5,
            "glove vertex {i}: {got} vs {expected}"
        );
    }
    assert_eq!(crowd.state(glove_id).unwrap().world_from_model, place);
    // A model with a different skeleton or frames is refused.
    let other = prop();
    let om = crowd.add_model(&other);
    let e = crowd.attach_skinned(id, om).unwrap_err().to_string();
    assert!(e.contains("skeleton"), "{e}");
    // A glove whose bone is missing from the character is refused at bake time.
    let mut bad = glove_scene.clone();
    bad.nodes[0].name = "claw".into();
    let e = bake_skinned_attachment(arm_h.model(), &bad, "bad")
        .unwrap_err()
        .to_string();
    assert!(e.contains("claw"), "{e}");
}
