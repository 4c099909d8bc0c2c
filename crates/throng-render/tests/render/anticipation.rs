//! Anticipation in Throng's built-in steering (`steer_avoid.wgsl`,
//! `avoid_neighbours`; docs/design/navigation.md), which the obstacle
//! course does not need: pairs of agents walking head-on at each other,
//! each to the other's start, on open ground, some exactly on one line
//! and some a few hundredths off it. With anticipation every agent passes
//! its partner and arrives (its right-hand bias breaks the exact head-on
//! case). The same pairs with anticipation off (a horizon of a
//! millisecond: no neighbour is anticipated) are run beside them: there
//! the exactly head-on pairs stand face to face, parted by the contact
//! rules and never passing, so fewer arrive. Lanes (`keep_to_side`) are
//! off in both, and on alone in a third run, where the sidestep from
//! oncoming traffic passes every pair too — the test asserts all three.
//! Goal exchange is off in all three: a pair of one goal layer walking at
//! each other would hand each other their points and turn back
//! (`counter_flow.rs` tests it).

use glam::{Mat4, Quat, Vec2, Vec3};
use throng_crowd::crowd::{Crowd, Motion, Spawn};
use throng_crowd::navigation::{FlowField, Goal, ObstacleGrid};
use throng_render::GpuModel;
use throng_render::simulation::navigate::{goal_data, navigate_params, navigate_simulation};
use throng_tests::require_gpu;

/// Pairs, each on a line of its own far from the others.
const PAIRS: usize = 12;
/// Between the pairs' lines, world units (ten times an agent's reach).
const LINE_GAP: f32 = 6.0;
/// An agent's radius and cruising speed.
const RADIUS: f32 = 0.3;
const SPEED: f32 = 1.5;
/// Where each pair starts, ± along x.
const HALF_RUN: f32 = 5.0;
/// Simulated seconds and steps a second: long enough for every pair to
/// have passed.
const SECONDS: u32 = 9;
const STEPS_PER_SECOND: u32 = 20;
/// How many agents arrived at their partner's start, and the pairs'
/// closest approaches (centre to centre), with anticipation `horizon`
/// seconds ahead and lanes of strength `lanes`.
fn head_on(horizon: f32, lanes: f32) -> (usize, Vec<f32>) {
    let gpu = require_gpu("anticipation");
    let handle = throng_tests::bake_asset("khronos_Fox.glb");
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let half_z = PAIRS as f32 * LINE_GAP * 0.5 + 2.0;
    let grid = ObstacleGrid::covering(
        Vec2::new(-HALF_RUN - 3.0, -half_z),
        Vec2::new(HALF_RUN + 3.0, half_z),
        0.5,
    )
    .unwrap();
    // The whole ground is the goal region: every agent walks straight to
    // its own point.
    let field = FlowField::compute(
        &grid,
        &[Goal::Rect {
            min: Vec2::new(-HALF_RUN - 3.0, -half_z),
            max: Vec2::new(HALF_RUN + 3.0, half_z),
        }],
    )
    .unwrap();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let walk = crowd.clip_index(m, "Walk").unwrap();
    let scale = {
        let b = handle.model().bounds;
        0.7 / (b.max - b.min).max_element()
    };
    let mut pairs = Vec::new();
    for k in 0..PAIRS {
        let z = (k as f32 - (PAIRS - 1) as f32 * 0.5) * LINE_GAP;
        // A few hundredths off the line, differently per pair, so that
        // neither rule meets an exactly symmetric case.
        let off = 0.01 * (k % 4) as f32;
        let mut ids = [None; 2];
        for (side, id) in ids.iter_mut().enumerate() {
            let s = if side == 0 { -1.0 } else { 1.0 };
            let start = Vec2::new(s * HALF_RUN, z + s * off);
            let goal = Vec2::new(-s * HALF_RUN, z + s * off);
            let spawned = crowd
                .spawn(
                    m,
                    Spawn {
                        transform: Mat4::from_scale_rotation_translation(
                            Vec3::splat(scale),
                            Quat::IDENTITY,
                            Vec3::new(start.x, 0.0, start.y),
                        ),
                        clip: Some(walk),
                        ..Spawn::default()
                    },
                )
                .unwrap();
            crowd
                .set_motion(
                    spawned,
                    Motion::Simulated {
                        velocity: Vec3::ZERO,
                        ground_speed: 0.0,
                        data: goal_data(0, Some(goal)),
                    },
                )
                .unwrap();
            *id = Some(spawned);
        }
        pairs.push(ids.map(Option::unwrap));
    }
    let ids: Vec<_> = crowd.ids().collect();
    let params = throng_core::simulation::NavigateParams {
        horizon,
        lanes,
        speed_spread: 0.0,
        exchange_goals: 0,
        ..navigate_params(RADIUS, SPEED)
    };
    let mut sim = navigate_simulation(&gpu.device, &params).unwrap();
    sim.set_navigation(&gpu.device, &field).unwrap();
    let mut stepper = super::navigation::Stepper::new(&gpu, sim);
    let dt = 1.0 / STEPS_PER_SECOND as f32;
    let mut closest = vec![f32::MAX; PAIRS];
    let mut arrived = 0;
    stepper.frame(&gpu, &crowd, &model);
    for _ in 0..SECONDS * STEPS_PER_SECOND {
        crowd.update(dt);
        stepper.frame(&gpu, &crowd, &model);
        let poses = stepper.poses(&gpu, &crowd, &ids);
        let at = |id| {
            let pose = poses.iter().find(|p| p.id == id).unwrap();
            let a = pose.agent.unwrap();
            Vec2::new(a.position[0], a.position[2])
        };
        for (k, [a, b]) in pairs.iter().enumerate() {
            closest[k] = closest[k].min(at(*a).distance(at(*b)));
        }
        arrived = poses
            .iter()
            .filter(|p| p.agent.is_some_and(|a| a.data[3] > 0.0))
            .count();
    }
    println!(
        "anticipation {horizon} s, lanes {lanes}: arrived {arrived} of {}; closest approach per pair {closest:?}",
        2 * PAIRS
    );
    (arrived, closest)
}

#[test]
fn pairs_walking_head_on_pass_each_other_and_arrive() {
    let horizon = navigate_params(RADIUS, SPEED).horizon;
    // Anticipation alone (lanes off), neither, and lanes alone.
    let (with, closest) = head_on(horizon, 0.0);
    let (without, _) = head_on(1e-3, 0.0);
    let (lanes, lanes_closest) = head_on(1e-3, 1.0);
    println!(
        "anticipation: {with} of {} arrived with it, {without} without; {lanes} with lanes alone",
        2 * PAIRS
    );
    assert_eq!(
        with,
        2 * PAIRS,
        "with anticipation every agent passes its partner and arrives; closest approaches {closest:?}"
    );
    assert!(
        without < with,
        "without anticipation (or lanes) the exactly head-on pairs should stand face to face: {without} arrived"
    );
    assert_eq!(
        lanes,
        2 * PAIRS,
        "lanes alone step each agent aside from its oncoming partner; closest approaches {lanes_closest:?}"
    );
}
