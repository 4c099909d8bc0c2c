//! LODs from simplification and from files; runtime choice
//! by projected size with hysteresis; records grouped per LOD.

use glam::{Mat4, Vec3};
use throng_bake::{BakeOptions, bake_file, bake_with_lods, import_file, import_slice};
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, DrawList, DrawView, LOD_TINTS, ModelHandle, Spawn};
use throng_tests::gltf_builder::{GltfBuilder, Node, Primitive};

#[test]
fn generated_lods_reach_their_ratios_with_lod0_vertices() {
    let opts = BakeOptions {
        lod_ratios: vec![0.5, 0.2],
        ..BakeOptions::default()
    };
    for name in [
        "khronos_Fox.glb",
        "gszauer_Woman.gltf",
        "khronos_CesiumMan.gltf",
    ] {
        let (model, report) = bake_file(&throng_tests::asset(name), &opts, &|_, _| {}).unwrap();
        assert_eq!(model.lods.len(), 3);
        let t0 = model.lods[0].indices.len() as f32;
        for (l, ratio) in [(1, 0.5f32), (2, 0.2)] {
            let lod = &model.lods[l];
            let reached = lod.indices.len() as f32 / t0;
            assert!(
                (reached - ratio).abs() < 0.05,
                "{name} LOD {l}: {reached} of the triangles, asked {ratio}"
            );
            assert!(lod.screen_size < model.lods[l - 1].screen_size);
            // Every LOD vertex is a LOD 0 vertex, bit for bit: it skins identically.
            for v in &lod.vertices {
                assert!(
                    model.lods[0].vertices.contains(v),
                    "{name} LOD {l}: a vertex not in LOD 0"
                );
            }
        }
        assert_eq!(report.lods.len(), 3);
        // The file round-trips with its LODs.
        let bytes = throng_core::format::write_model(&model).unwrap();
        assert_eq!(
            throng_core::format::read_model(&bytes).unwrap().lods,
            model.lods
        );
    }
}

/// A two-joint arm with a triangle per joint; `joint_names` names the joints.
fn arm(joint_names: [&str; 2], extra_triangle: bool, shift: f32) -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let child = b.node(Node::new(joint_names[1]).translation([0.0, 1.0, 0.0]));
    let root = b.node(Node::new(joint_names[0]).children(&[child]));
    let mut positions = vec![
        [0.0, 0.0, 0.0],
        [0.2, 0.0, 0.0],
        [0.0, 0.5, 0.0],
        [0.0, 1.0, 0.0],
        [0.2, 1.0, 0.0],
        [0.0, 1.5, 0.0],
    ];
    let mut joints = vec![
        [0u16, 0, 0, 0],
        [0, 0, 0, 0],
        [0, 0, 0, 0],
        [1, 0, 0, 0],
        [1, 0, 0, 0],
        [1, 0, 0, 0],
    ];
    let mut idx = vec![0, 1, 2, 3, 4, 5];
    if extra_triangle {
        positions.extend([[0.0, 0.2, 0.0], [0.2, 0.2, 0.0], [0.0, 0.4, 0.0]]);
        joints.extend([[0u16, 0, 0, 0]; 3]);
        idx.extend([6, 7, 8]);
    }
    let weights = vec![[1.0, 0.0, 0.0, 0.0]; positions.len()];
    let mesh = b.mesh(
        "arm",
        vec![
            Primitive::new(&positions)
                .skin_set(&joints, &weights)
                .indices(&idx),
        ],
    );
    let ibm = [
        Mat4::IDENTITY,
        Mat4::from_translation(Vec3::new(0.0, -1.0 - shift, 0.0)),
    ];
    let skin = b.skin("skin", &[root, child], Some(&ibm));
    let holder = b.node(Node::new("holder").mesh(mesh).skin(skin));
    b.scene(&[root, holder]);
    b.to_gltf()
}

#[test]
fn lods_from_files_bind_by_bone_name_or_say_why_not() {
    let main = import_slice(&arm(["root", "hand"], true, 0.0), None, "arm")
        .unwrap()
        .scene;
    // Same skeleton, joints listed by the same names: becomes LOD 1.
    let lod = import_slice(&arm(["root", "hand"], false, 0.0), None, "arm_lod1")
        .unwrap()
        .scene;
    let (model, _) = bake_with_lods(
        &main,
        &[("arm_lod1".into(), lod)],
        &BakeOptions::default(),
        &|_, _| {},
    )
    .unwrap();
    assert_eq!(model.lods.len(), 2);
    assert_eq!(model.lods[1].indices.len(), 6);
    let hand = model.bones.iter().position(|b| b.name == "hand").unwrap() as u16;
    assert!(
        model.lods[1].vertices[3..]
            .iter()
            .all(|v| v.joints[0] == hand),
        "bound to the model's hand bone"
    );
    // A bone the model does not have.
    let other = import_slice(&arm(["root", "claw"], false, 0.0), None, "claw")
        .unwrap()
        .scene;
    let e = bake_with_lods(
        &main,
        &[("claw".into(), other)],
        &BakeOptions::default(),
        &|_, _| {},
    )
    .unwrap_err()
    .to_string();
    println!("{e}");
    assert!(
        e.contains("claw") && e.contains("no bone of that name"),
        "{e}"
    );
    // The same name with a different bind pose.
    let moved = import_slice(&arm(["root", "hand"], false, 0.3), None, "moved")
        .unwrap()
        .scene;
    let e = bake_with_lods(
        &main,
        &[("moved".into(), moved)],
        &BakeOptions::default(),
        &|_, _| {},
    )
    .unwrap_err()
    .to_string();
    println!("{e}");
    assert!(e.contains("hand") && e.contains("bind pose"), "{e}");
}

#[test]
fn instances_pick_their_lod_by_projected_size_with_hysteresis() {
    let path = throng_tests::asset("khronos_Fox.glb");
    let opts = BakeOptions {
        lod_ratios: vec![0.5, 0.2],
        ..BakeOptions::default()
    };
    let (model, _) = bake_file(&path, &opts, &|_, _| {}).unwrap();
    let radius = model.bounds.radius();
    let handle = ModelHandle::new(model).unwrap();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let fov = 0.8f32;
    let camera = Camera::look_at(
        Vec3::ZERO,
        Vec3::new(0.0, 0.0, -1.0),
        Vec3::Y,
        fov,
        1.0,
        0.1,
        1e6,
    );
    let scale = 1.0 / (fov * 0.5).tan();
    // Distance at which the clip's sphere covers `size` of the screen height.
    let clip_radius = handle.model().clips[0].bounds.radius();
    let at = |size: f32| clip_radius * scale / size;
    let place = |z: f32| Spawn {
        transform: Mat4::from_translation(Vec3::new(0.0, 0.0, -z)),
        clip: Some(0),
        ..Spawn::default()
    };
    let near = crowd.spawn(m, place(at(0.5))).unwrap();
    let mid = crowd.spawn(m, place(at(0.08))).unwrap();
    let far = crowd.spawn(m, place(at(0.01))).unwrap();
    let _ = radius;
    let view = DrawView::from_camera(&camera, true);
    let mut list = DrawList::default();
    crowd.build_draw_list(view, &mut list);
    let lods: Vec<(u32, u32)> = list.groups.iter().map(|g| (g.lod, g.count)).collect();
    assert_eq!(
        lods,
        vec![(0, 1), (1, 1), (2, 1)],
        "one instance per LOD, grouped"
    );
    // Hysteresis: the mid instance (LOD 1, threshold 0.15 above it) moves
    // to just above the LOD 0 threshold: it stays at LOD 1 until clearly past.
    crowd
        .set_transform(mid, place(at(0.155)).transform)
        .unwrap();
    crowd.build_draw_list(view, &mut list);
    assert!(
        list.groups.iter().any(|g| g.lod == 1 && g.count == 1),
        "inside the band: still LOD 1: {:?}",
        list.groups
    );
    crowd.set_transform(mid, place(at(0.2)).transform).unwrap();
    crowd.build_draw_list(view, &mut list);
    assert!(
        list.groups.iter().any(|g| g.lod == 0 && g.count == 2),
        "past the band: LOD 0: {:?}",
        list.groups
    );
    // LOD tints colour records by LOD.
    let tinted = DrawView {
        lod_tints: true,
        ..view
    };
    crowd.build_draw_list(tinted, &mut list);
    for g in &list.groups {
        for r in &list.records[g.first as usize..(g.first + g.count) as usize] {
            assert_eq!(r.tint, LOD_TINTS[g.lod as usize]);
        }
    }
    let _ = (near, far);
    // Without a camera (no LOD scale) everything is LOD 0.
    crowd.build_draw_list(None, &mut list);
    assert!(list.groups.iter().all(|g| g.lod == 0));
}

#[test]
fn bad_lod_options_are_errors() {
    let scene = import_file(&throng_tests::asset("khronos_Fox.glb"))
        .unwrap()
        .scene;
    for (opts, what) in [
        (
            BakeOptions {
                lod_ratios: vec![1.5],
                ..BakeOptions::default()
            },
            "ratio",
        ),
        (
            BakeOptions {
                lod_ratios: vec![0.5],
                lod_screen_sizes: Some(vec![0.1]),
                ..BakeOptions::default()
            },
            "sizes for 2 LODs",
        ),
        (
            BakeOptions {
                lod_ratios: vec![0.5],
                lod_screen_sizes: Some(vec![0.1, 0.2]),
                ..BakeOptions::default()
            },
            "non-increasing",
        ),
    ] {
        let e = throng_bake::bake(&scene, &opts, &|_, _| {})
            .unwrap_err()
            .to_string();
        println!("{e}");
        assert!(e.contains(what), "{e}");
    }
}
