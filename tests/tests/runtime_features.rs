//! Issue #5: root motion, events and bone queries, end to end (bake → crowd).

use std::f32::consts::FRAC_PI_2;

use glam::{Mat4, Quat, Vec3};
use proptest::prelude::*;
use throng_bake::sample::PoseEvaluator;
use throng_bake::scene::Scene;
use throng_bake::{BakeOptions, RootMotionSource, bake, bake_file, import_slice};
use throng_core::BakedModel;
use throng_crowd::crowd::{Crowd, CrowdEvent, ModelHandle, Spawn, WrapMode};
use throng_tests::gltf_builder::{Channel, GltfBuilder, Interpolation, Node, Primitive};

/// Positions must match within this many model units (models are ~2 units).
const TOLERANCE: f32 = 1e-4;

/// A one-joint "walker": the hips start at (0, 1, 0) and walk to `end` over
/// 1 s while turning by `turn` radians about +y; a triangle hangs off them.
fn walker(end: [f32; 3], turn: f32) -> Vec<u8> {
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

fn bake_walker(end: [f32; 3], turn: f32) -> (Scene, ModelHandle) {
    let scene = import_slice(&walker(end, turn), None, "walker")
        .unwrap()
        .scene;
    let opts = BakeOptions {
        root_motion: Some(RootMotionSource::SkeletonRoot),
        fps: 60.0,
        ..BakeOptions::default()
    };
    let (model, report) = bake(&scene, &opts, &mut |_, _| {}).unwrap();
    assert_eq!(report.root_motion_node.as_deref(), Some("hips"));
    (scene, ModelHandle::new(model).unwrap())
}

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
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let start = Mat4::from_translation(Vec3::new(3.0, 0.0, -1.0));
    let id = crowd
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
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let id = crowd
        .spawn(
            m,
            Spawn {
                clip: Some(0),
                root_motion: true,
                ..Spawn::default()
            },
        )
        .unwrap();
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
    let (model, report) = bake_file(&path, &opts, &mut |_, _| {}).unwrap();
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
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let id = crowd
        .spawn(
            m,
            Spawn {
                clip: Some(0),
                wrap: WrapMode::Once,
                root_motion: true,
                ..Spawn::default()
            },
        )
        .unwrap();
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

// ---------------------------------------------------------------- events

/// The walker with events in a sidecar and in the glTF extras (baked once).
fn evented() -> BakedModel {
    static MODEL: std::sync::OnceLock<BakedModel> = std::sync::OnceLock::new();
    MODEL.get_or_init(bake_evented).clone()
}

fn bake_evented() -> BakedModel {
    let dir = std::env::temp_dir().join(format!("throng-events-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut gltf: serde_json::Value =
        serde_json::from_slice(&walker([0.0, 1.0, 0.0], 0.0)).unwrap();
    gltf["animations"][1]["extras"] =
        serde_json::json!({"events": [{"time": 0.5, "name": "yawn", "data": {"volume": 2}}]});
    let model = dir.join("walker.gltf");
    std::fs::write(&model, serde_json::to_vec(&gltf).unwrap()).unwrap();
    std::fs::write(
        dir.join("walker.events.json"),
        r#"{"walk": [{"time": 0.0, "name": "start"}, {"time": 0.25, "name": "step"}, {"time": 1.0, "name": "end"}]}"#,
    )
    .unwrap();
    let (baked, report) = bake_file(&model, &BakeOptions::default(), &mut |_, _| {}).unwrap();
    assert_eq!(report.events, 4);
    baked
}

#[test]
fn events_come_from_the_sidecar_and_the_gltf_extras() {
    let model = evented();
    let names: Vec<(u32, f32, &str)> = model
        .events
        .iter()
        .map(|e| (e.clip, e.time, e.name.as_str()))
        .collect();
    assert_eq!(
        names,
        vec![
            (0, 0.0, "start"),
            (0, 0.25, "step"),
            (0, 1.0, "end"),
            (1, 0.5, "yawn")
        ]
    );
    assert_eq!(model.events[3].data, r#"{"volume":2}"#);
    // And they survive the file.
    let bytes = throng_core::format::write_model(&model).unwrap();
    assert_eq!(
        throng_core::format::read_model(&bytes).unwrap().events,
        model.events
    );
}

#[test]
fn each_event_fires_once_per_crossing_including_start_end_and_every_loop() {
    let handle = ModelHandle::new(evented()).unwrap();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let id = crowd
        .spawn(
            m,
            Spawn {
                clip: Some(0),
                ..Spawn::default()
            },
        )
        .unwrap();
    let mut seen: Vec<&str> = Vec::new();
    for _ in 0..25 {
        crowd.update(0.1); // 2.5 s: loops 0..1, 1..2, and half of a third
        for e in crowd.drain_events() {
            assert_eq!(e.instance, id);
            for _ in 0..e.count {
                seen.push(&handle.model().events[e.event].name);
            }
        }
    }
    // start fires at 0 (the fresh start), then at each loop point with "end".
    assert_eq!(
        seen.iter().filter(|n| **n == "start").count(),
        3,
        "{seen:?}"
    );
    assert_eq!(seen.iter().filter(|n| **n == "end").count(), 2, "{seen:?}");
    assert_eq!(seen.iter().filter(|n| **n == "step").count(), 3, "{seen:?}");
    // One huge step across 100 loops reports counts, not 100 entries each.
    crowd.update(100.0);
    let burst: Vec<CrowdEvent> = crowd.drain_events().collect();
    assert!(burst.len() <= 3, "{burst:?}");
    let total: u32 = burst.iter().map(|e| e.count).sum();
    assert_eq!(total, 300, "100 loops × 3 events: {burst:?}");
}

/// Total crossings of every event for a path cut into the given steps.
fn fire_counts(
    handle: &ModelHandle,
    wrap: WrapMode,
    speed: f32,
    start: f32,
    steps: &[f32],
) -> Vec<u64> {
    let mut crowd = Crowd::new();
    let m = crowd.add_model(handle);
    crowd
        .spawn(
            m,
            Spawn {
                clip: Some(0),
                time: start,
                speed,
                wrap,
                ..Spawn::default()
            },
        )
        .unwrap();
    let mut counts = vec![0u64; handle.model().events.len()];
    for &dt in steps {
        crowd.update(dt);
        for e in crowd.drain_events() {
            counts[e.event] += e.count as u64;
        }
    }
    counts
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Cutting a path into any steps fires exactly the events one step does.
    #[test]
    fn any_split_of_a_path_fires_the_same_events(
        wrap in prop_oneof![Just(WrapMode::Loop), Just(WrapMode::PingPong), Just(WrapMode::Once)],
        speed in prop_oneof![-3.0f32..-0.1, 0.1f32..3.0],
        start in 0.0f32..1.0,
        steps in proptest::collection::vec(0.001f32..0.7, 1..40),
    ) {
        let handle = ModelHandle::new(evented()).unwrap();
        let total: f32 = steps.iter().sum();
        let split = fire_counts(&handle, wrap, speed, start, &steps);
        let whole = fire_counts(&handle, wrap, speed, start, &[total]);
        // Float sums of many small steps can land a hair away from an event
        // exactly on a boundary: allow that one crossing, never more.
        for (s, w) in split.iter().zip(&whole) {
            prop_assert!(s.abs_diff(*w) <= 1, "split {split:?} vs whole {whole:?}");
        }
    }

    /// With steps that sum exactly (multiples of 1/64 s), the counts are the
    /// exact number of crossings of each event on the unwrapped path.
    #[test]
    fn counts_equal_the_crossings_of_the_unwrapped_path(
        speed_n in prop_oneof![-128i32..-1, 1i32..128],
        steps in proptest::collection::vec(1u32..48, 1..30),
    ) {
        let handle = ModelHandle::new(evented()).unwrap();
        let speed = speed_n as f32 / 64.0;
        let dts: Vec<f32> = steps.iter().map(|&k| k as f32 / 64.0).collect();
        let counts = fire_counts(&handle, WrapMode::Loop, speed, 0.0, &dts);
        let distance: f32 = dts.iter().sum::<f32>() * speed;
        for (e, count) in handle.model().events.iter().zip(&counts).filter(|(e, _)| e.clip == 0) {
            // Positions t_e + k (k integer) strictly after the start up to the
            // end of the path (in its direction), plus the event that sits
            // exactly at the start's clip time (0): the documented rule.
            let crossed = if distance >= 0.0 {
                (distance - e.time).floor() - (0.0 - e.time).floor()
            } else {
                (0.0 - e.time).ceil() - (distance - e.time).ceil()
            };
            let expected = crossed.max(0.0) as u64 + u64::from(e.time == 0.0);
            prop_assert_eq!(*count, expected, "event {} at {} over {}", e.name, e.time, distance);
        }
    }
}

// ---------------------------------------------------------------- bone queries

#[test]
fn bone_queries_equal_the_cpu_reference_at_frame_times_and_mid_fade() {
    let path = throng_tests::asset("khronos_Fox.glb");
    let scene = throng_bake::import_file(&path).unwrap().scene;
    let (model, _) = bake(&scene, &BakeOptions::default(), &mut |_, _| {}).unwrap();
    let radius = model.bounding_radius;
    let handle = ModelHandle::new(model).unwrap();
    let model = handle.model();
    let eval = PoseEvaluator::new(&scene);
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let w = Mat4::from_scale_rotation_translation(
        Vec3::splat(0.5),
        Quat::from_rotation_y(0.3),
        Vec3::new(4.0, 0.0, -2.0),
    );
    let walk = model.clip_index("Walk").unwrap();
    let run = model.clip_index("Run").unwrap();
    // Frame 7 of Walk: spawn exactly there.
    let clip = &model.clips[walk];
    let t = throng_core::layout::frame_time(7, clip.frame_count, clip.duration);
    let id = crowd
        .spawn(
            m,
            Spawn {
                transform: w,
                clip: Some(walk),
                time: t,
                ..Spawn::default()
            },
        )
        .unwrap();
    let g = eval.globals(Some(&scene.clips[walk]), t);
    let mut worst = 0.0f32;
    for (b, bone) in model.bones.iter().enumerate() {
        let got = crowd.bone_world_transform(id, b).unwrap();
        let expected = w * g[bone.node as usize];
        worst = worst.max((got.w_axis - expected.w_axis).length());
    }
    assert!(
        worst < 1e-5 * radius,
        "worst bone position {worst} (radius {radius})"
    );
    // Mid-fade: both clips advance, mixed half-way.
    crowd
        .cross_fade(
            id,
            run,
            2.0 * clip.duration / (clip.frame_count - 1) as f32 * 5.0,
        )
        .unwrap();
    let fade = crowd.state(id).unwrap();
    let dt = 5.0 * clip.duration / (clip.frame_count - 1) as f32; // 5 Walk frames
    crowd.update(dt);
    let st = crowd.state(id).unwrap();
    assert!((st.fade - 0.5).abs() < 1e-4, "{fade:?} → {st:?}");
    let (pc, pt) = st.previous.unwrap();
    let (cc, ct) = st.current.unwrap();
    let gp = eval.globals(Some(&scene.clips[pc]), pt);
    let gc = eval.globals(Some(&scene.clips[cc]), ct);
    let blend = crowd.frame_blend(id).unwrap();
    let mut worst = 0.0f32;
    for (b, bone) in model.bones.iter().enumerate() {
        let got = crowd.bone_world_transform(id, b).unwrap();
        // Mid-fade the shader mixes palette matrices; the bone's node follows
        // the same mix: W · ((1−f)·G_prev + f·G_cur), evaluated where both
        // clips sit between baked frames (so compare with the mirror too).
        let mirror = w * throng_core::baked::bone_model_transform(model, b as u32, &blend);
        worst = worst.max((got.w_axis - mirror.w_axis).length());
        let reference =
            w * (gp[bone.node as usize] * (1.0 - st.fade) + gc[bone.node as usize] * st.fade);
        // Between frames the reference differs by the bake's interpolation error.
        assert!(
            (got.w_axis - reference.w_axis).length() < 0.02 * radius,
            "bone {b}: {} vs {}",
            got.w_axis,
            reference.w_axis
        );
    }
    assert!(worst < 1e-5 * radius, "query vs shader mirror: {worst}");
}

#[test]
fn root_motion_and_event_rules_are_validated() {
    let (_, handle) = bake_walker([0.0, 1.0, 2.0], 0.5);
    let mut with_events = handle.model().clone();
    with_events.events = evented().events;
    assert!(with_events.validate().is_ok());
    let bytes = throng_core::format::write_model(&with_events).unwrap();
    assert_eq!(
        throng_core::format::read_model(&bytes).unwrap(),
        with_events,
        "root motion and events round-trip"
    );
    let expect = |m: BakedModel, what: &str| {
        let e = m.validate().unwrap_err().to_string();
        println!("{e}");
        assert!(e.contains(what), "{e} should mention {what}");
    };
    let mut m = with_events.clone();
    m.root_motion.pop();
    expect(m, "root-motion keys");
    let mut m = with_events.clone();
    m.root_motion[3].yaw = f32::NAN;
    expect(m, "not finite");
    let mut m = with_events.clone();
    m.root_motion[m.clips[0].first_frame as usize].translation[0] = 1.0;
    expect(m, "start at zero");
    let mut m = with_events.clone();
    m.events.swap(0, 1);
    expect(m, "sorted");
    let mut m = with_events.clone();
    m.events[0].time = 9.0;
    expect(m, "outside clip");
    let mut m = with_events.clone();
    m.events[0].clip = 7;
    expect(m, "names clip 7");
}
