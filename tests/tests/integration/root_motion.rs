//! Root motion, end to end (bake → crowd): a walker's baked displacement
//! moves its instances, across loops, rotated and scaled by the instance,
//! blended during a cross-fade; a real model (Woman sitting down) moves by
//! its baked displacement.

use std::f32::consts::FRAC_PI_2;

use glam::{Mat4, Quat, Vec3};
use throng_bake::sample::PoseEvaluator;
use throng_bake::{BakeOptions, RootMotionSource, bake_file};
use throng_crowd::crowd::{Crowd, ModelHandle, Spawn, WrapMode};
use throng_tests::one_instance;
use throng_tests::walker::bake_walker;

/// Positions must match within this many model units (models are ~2 units).
const TOLERANCE: f32 = 1e-4;

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).length() < TOLERANCE
}

#[test]
fn straight_walk_moves_loops_times_the_displacement_rotated_and_scaled_by_the_instance() {
    let (scene, handle) = bake_walker([0.0, 1.0, 2.0], 0.0);
    let model = handle.model();
    let walk = model.clip_index("walk").unwrap();
    // In place: the baked hips never leave x = z = 0.
    let end = model.root_motion
        [(model.clips[walk].first_frame + model.clips[walk].frame_count - 1) as usize];
    assert!(
        close(Vec3::from(end.translation), Vec3::new(0.0, 0.0, 2.0)) && end.yaw.abs() < 1e-6,
        "{end:?}"
    );

    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    // Instance: at (10, 0, 5), turned 90° (so its +z is world +x), scaled 2.
    let start = Mat4::from_scale_rotation_translation(
        Vec3::splat(2.0),
        Quat::from_rotation_y(FRAC_PI_2),
        Vec3::new(10.0, 0.0, 5.0),
    );
    let id = crowd
        .spawn(
            m,
            Spawn {
                transform: start,
                clip: Some(walk),
                root_motion: true,
                ..Spawn::default()
            },
        )
        .unwrap();
    // Three whole loops in uneven steps, one of them spanning more than a loop.
    for dt in [0.1, 0.35, 1.3, 0.25, 0.5, 0.2, 0.3] {
        crowd.update(dt);
    }
    // 3 loops × 2 units along the instance's +z, scaled 2 → 12 units along world +x.
    let moved = crowd.state(id).unwrap().world_from_model.w_axis.truncate();
    assert!(
        close(moved, Vec3::new(22.0, 0.0, 5.0)),
        "instance at {moved}, expected (22, 0, 5)"
    );
    // The pose relative to the instance is the in-place bake: hips over the origin.
    let hips_world = crowd.bone_world_transform(id, 0).unwrap().w_axis.truncate();
    assert!(
        close(hips_world, Vec3::new(22.0, 2.0, 5.0)),
        "hips at {hips_world}"
    );

    // Half a loop more: the original animation, continued.
    crowd.update(0.5);
    let eval = PoseEvaluator::new(&scene);
    let g = eval.globals(Some(&scene.clips[0]), 0.5)[0];
    let expected = start * Mat4::from_translation(Vec3::new(0.0, 0.0, 6.0)) * g;
    let hips = crowd.bone_world_transform(id, 0).unwrap();
    assert!(
        close(hips.w_axis.truncate(), expected.w_axis.truncate()),
        "{} vs {}",
        hips.w_axis,
        expected.w_axis
    );
}

#[test]
fn turning_walk_reproduces_the_original_motion_across_loops() {
    // Walk 1 unit along +z while turning 90°: four loops make a closed square.
    let turn = FRAC_PI_2;
    let (scene, handle) = bake_walker([0.0, 1.0, 1.0], turn);
    let eval = PoseEvaluator::new(&scene);
    let start = Mat4::from_translation(Vec3::new(3.0, 0.0, -1.0));
    let (mut crowd, m, id) = one_instance(
        &handle,
        Spawn {
            transform: start,
            clip: Some(0),
            root_motion: true,
            ..Spawn::default()
        },
    );
    // One loop's motion of the original: A = G(end)·G(0)⁻¹ restricted to the
    // horizontal plane (the hips' height is part of the pose).
    let g0 = eval.globals(Some(&scene.clips[0]), 0.0)[0];
    let g1 = eval.globals(Some(&scene.clips[0]), 1.0)[0];
    let lift = Mat4::from_translation(Vec3::Y);
    let a = g1 * g0.inverse();
    let a = Mat4::from_translation(
        a.w_axis.truncate() - lift.w_axis.truncate() + a.transform_vector3(Vec3::Y),
    ) * Mat4::from_quat(Quat::from_mat4(&a));
    let mut elapsed = 0.0f32;
    for step in [0.3f32, 0.45, 0.9, 0.05, 1.6, 0.2] {
        crowd.update(step);
        elapsed += step;
        let loops = (elapsed + 1e-4).floor();
        let t = (elapsed - loops).max(0.0);
        let expected = start * a.powf_int(loops as u32) * eval.globals(Some(&scene.clips[0]), t)[0];
        let got = crowd.bone_world_transform(id, 0).unwrap();
        assert!(
            close(got.w_axis.truncate(), expected.w_axis.truncate()),
            "after {elapsed} s: hips at {} expected {}",
            got.w_axis,
            expected.w_axis
        );
        let (fx, fe) = (
            got.transform_vector3(Vec3::Z),
            expected.transform_vector3(Vec3::Z),
        );
        assert!(
            close(fx, fe),
            "after {elapsed} s: facing {fx} expected {fe}"
        );
    }
    // Four loops close the square: back where it started.
    let mut c2 = crowd.clone();
    let id2 = c2
        .spawn(
            m,
            Spawn {
                transform: start,
                clip: Some(0),
                root_motion: true,
                ..Spawn::default()
            },
        )
        .unwrap();
    c2.update(4.0);
    let back = c2.state(id2).unwrap().world_from_model;
    assert!(back.abs_diff_eq(start, 1e-4), "{back} vs {start}");
}

/// `m^n` by repeated multiplication.
trait PowInt {
    fn powf_int(&self, n: u32) -> Mat4;
}
impl PowInt for Mat4 {
    fn powf_int(&self, n: u32) -> Mat4 {
        (0..n).fold(Mat4::IDENTITY, |acc, _| acc * *self)
    }
}

#[test]
fn cross_fade_blends_root_motion_by_the_fade_weight() {
    let (_, handle) = bake_walker([0.0, 1.0, 2.0], 0.0);
    let (mut crowd, _, id) = one_instance(
        &handle,
        Spawn {
            clip: Some(0),
            root_motion: true,
            ..Spawn::default()
        },
    );
    crowd.cross_fade(id, 1, 1.0).unwrap(); // walk → idle (idle has no motion)
    let mut expected = 0.0;
    for i in 1..=10 {
        crowd.update(0.1);
        // Walk moves 0.2 per 0.1 s; its weight after this step is 1 − i/10.
        expected += 0.2 * (1.0 - i as f32 / 10.0);
    }
    let z = crowd.state(id).unwrap().world_from_model.w_axis.z;
    assert!(
        (z - expected).abs() < TOLERANCE,
        "moved {z}, expected {expected}"
    );
}

#[test]
fn woman_sitting_down_moves_by_her_baked_displacement() {
    let path = throng_tests::asset("gszauer_Woman.gltf");
    let opts = BakeOptions {
        root_motion: Some(RootMotionSource::SkeletonRoot),
        clips: Some(vec!["Sitting".into()]),
        ..BakeOptions::default()
    };
    let (model, report) = bake_file(&path, &opts, &|_, _| {}).unwrap();
    assert_eq!(report.root_motion_node.as_deref(), Some("Hips"));
    assert!(
        report.error.rel < throng_tests::BAKED_F32_TOLERANCE,
        "in-place bake still matches the corrected reference: {}",
        report.error.rel
    );
    let last =
        model.root_motion[(model.clips[0].first_frame + model.clips[0].frame_count - 1) as usize];
    let disp = Vec3::from(last.translation);
    assert!(disp.length() > 1.0, "Sitting travels: {disp}");
    let handle = ModelHandle::new(model).unwrap();
    let (mut crowd, _, id) = one_instance(
        &handle,
        Spawn {
            clip: Some(0),
            wrap: WrapMode::Once,
            root_motion: true,
            ..Spawn::default()
        },
    );
    for _ in 0..300 {
        crowd.update(1.0 / 60.0);
    }
    let at = crowd.state(id).unwrap().world_from_model;
    assert!(
        close(at.w_axis.truncate(), Vec3::new(disp.x, 0.0, disp.z)),
        "{} vs {disp}",
        at.w_axis
    );
}
