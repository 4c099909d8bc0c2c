//! The scene's tests: actions on the crowd, the rest pose and back, the
//! skeleton lines, and the upper-body layer through respawns.

use super::*;
use crate::test_model::fox;

fn scene(n: u32) -> Scene {
    Scene::new(vec![fox()], n, 3, 16.0 / 9.0, true).unwrap()
}

#[test]
fn actions_change_the_crowd() {
    let mut s = scene(100);
    assert!(s.apply(
        Action::FadeToClip {
            clip: 1,
            target: Target::All
        },
        1.0
    ));
    for &(id, _) in &s.instances {
        assert_eq!(s.crowd.state(id).unwrap().current.unwrap().0, 1);
    }
    s.apply(
        Action::FadeToClip {
            clip: 2,
            target: Target::RandomFifth,
        },
        1.0,
    );
    let on_two = s
        .instances
        .iter()
        .filter(|&&(id, _)| s.crowd.state(id).unwrap().current.unwrap().0 == 2)
        .count();
    assert_eq!(on_two, 20);
    s.apply(
        Action::FadeToClip {
            clip: 8,
            target: Target::All,
        },
        1.0,
    );
    assert!(s.status.contains("has 3"), "{}", s.status);

    s.apply(Action::MoreInstances, 1.0);
    assert_eq!(s.crowd.len(), 200);
    s.apply(Action::FewerInstances, 1.0);
    s.apply(Action::FewerInstances, 1.0);
    assert_eq!(s.crowd.len(), 50);

    s.apply(Action::FasterSpeed, 1.0);
    assert_eq!(s.speed, 2.0);
    s.apply(Action::SlowerSpeed, 1.0);
    s.apply(Action::SlowerSpeed, 1.0);
    assert_eq!(s.speed, 0.5);

    s.apply(Action::TogglePause, 1.0);
    let id = s.instances[0].0;
    let before = s.crowd.state(id).unwrap().current;
    s.advance(0.5);
    assert_eq!(s.crowd.state(id).unwrap().current, before, "paused");
    s.apply(Action::TogglePause, 1.0);
    s.advance(0.1);
    assert_ne!(s.crowd.state(id).unwrap().current, before, "playing");

    s.apply(Action::ToggleFly, 1.0);
    assert_eq!(s.camera.mode, Mode::Fly);
    assert!(s.apply(Action::Escape, 1.0), "Esc leaves fly mode first");
    assert_eq!(s.camera.mode, Mode::Orbit);
    assert!(!s.apply(Action::Escape, 1.0), "then quits");
}

#[test]
fn rest_pose_and_back_keeps_clips_and_speeds() {
    let mut s = scene(30);
    let before: Vec<_> = s
        .instances
        .iter()
        .map(|&(id, _)| s.crowd.state(id).unwrap().current)
        .collect();
    s.apply(Action::ToggleRestPose, 1.0);
    assert!(s.rest);
    assert!(
        s.instances
            .iter()
            .all(|&(id, _)| s.crowd.state(id).unwrap().current.is_none())
    );
    s.apply(Action::ToggleRestPose, 1.0);
    assert!(!s.rest);
    let after: Vec<_> = s
        .instances
        .iter()
        .map(|&(id, _)| s.crowd.state(id).unwrap().current)
        .collect();
    assert_eq!(before, after);
    // Speeds survive: two instances with different speeds drift apart
    // the same way before and after.
    let (a, sa) = s.instances[0];
    let t0 = s.crowd.state(a).unwrap().current.unwrap().1;
    s.advance(0.01);
    let t1 = s.crowd.state(a).unwrap().current.unwrap().1;
    assert!(
        ((t1 - t0) - 0.01 * sa).abs() < 1e-4 || t1 < t0,
        "speed {sa}"
    );
}

#[test]
fn skeleton_toggle_and_lines() {
    let mut s = scene(40);
    s.apply(Action::ToggleSkeletons, 1.0);
    assert!(s.skeletons);
    let camera = s.camera.camera(16.0 / 9.0);
    skeleton::nearest_instances(
        &s.crowd,
        camera.eye,
        &camera.frustum(),
        skeleton::NEAREST,
        &mut s.nearest,
    );
    assert_eq!(
        s.nearest.len(),
        skeleton::NEAREST,
        "the framed crowd is in view"
    );
    skeleton::skeleton_lines(&s.crowd, &s.nearest, &mut s.lines);
    assert!(!s.lines.is_empty());
}

#[test]
fn the_upper_body_layer_goes_on_every_instance_and_stays_through_respawns() {
    let mut s = scene(8);
    s.apply(Action::ToggleUpperBody, 1.0);
    assert!(
        s.status.contains("b_Spine01_02") && s.status.contains("Survey"),
        "{}",
        s.status
    );
    let layered = |s: &Scene| {
        s.instances
            .iter()
            .filter(|&&(id, _)| !s.crowd.layers(id).unwrap().is_empty())
            .count()
    };
    assert_eq!(layered(&s), 8);
    s.apply(Action::MoreInstances, 1.0);
    assert_eq!(layered(&s), 16);
    s.apply(Action::ToggleUpperBody, 1.0);
    assert_eq!(layered(&s), 0);
}

#[test]
fn a_mixed_crowd_alternates_its_models_and_each_wears_one_outfit() {
    use throng_bench::demo::{DEMO_OUTFITS, outfit_look, outfitted};
    let fox = fox();
    let other = ModelHandle::new(fox.model().clone()).unwrap();
    let handles = vec![outfitted(&fox).unwrap(), outfitted(&other).unwrap()];
    let mut s = Scene::new(handles.clone(), 20, 3, 16.0 / 9.0, true).unwrap();
    s.set_outfits(true).unwrap();
    let check = |s: &Scene| {
        assert_eq!(s.instances().len(), 20);
        for (i, &(id, _)) in s.instances().iter().enumerate() {
            let state = s.crowd.state(id).unwrap();
            let model = s.crowd.model_handle(state.model).unwrap();
            assert_eq!(model.key(), handles[i % 2].key(), "instance {i}'s model");
            let hidden = s.crowd.look(id).unwrap().hidden;
            assert_eq!(hidden, outfit_look(model, i as u32).hidden, "instance {i}");
            assert_eq!(
                hidden.count_zeros(),
                32 - (DEMO_OUTFITS - 1),
                "one outfit worn"
            );
        }
    };
    check(&s);
    // A respawn keeps the mix and the outfits.
    s.respawn(20).unwrap();
    check(&s);
}
