//! The ground on the GPU (`passes/ground.wgsl`) against its CPU twin
//! (`throng_core::ground`), GPU tests: a crowd walking every kind of
//! analytic motion over hills, a ramp and a stair, upright and turned to
//! the slope, is placed by the motion pass where [`Crowd::world_transform`]
//! places it (within motion.rs's [`RELATIVE_EPS`]); and a steered crowd
//! crossing that ground stands on it at every checked step (never below
//! it, never inside a step).

use std::sync::Arc;

use glam::{Mat4, Quat, Vec2, Vec3};
use throng_core::ground::{Ground, GroundAlign, Heightfield, Piece};
use throng_core::motion::MotionKind;
use throng_core::simulation::NavigateParams;
use throng_crowd::crowd::{Crowd, InstanceId, Motion, Spawn};
use throng_crowd::navigation::{FlowField, Goal, ObstacleGrid};
use throng_render::GpuModel;
use throng_render::cull::CullPass;
use throng_render::mirror::CrowdMirror;
use throng_render::simulation::navigate::{goal_data, navigate_params, navigate_simulation};
use throng_tests::require_gpu;
use throng_tests::rng::Rng;
use throng_tests::walker::bake_walker;

use crate::motion::{RELATIVE_EPS, compare, moving_crowd};
use crate::navigation::{STEPS_PER_SECOND, Stepper};

/// Largest distance between a steered agent's height and the ground's
/// under it, world units.
const ON_GROUND_EPS: f32 = 1e-4;

/// Rolling hills over ±80 (heights within ±2.5) with a ramp and a
/// four-step stair on them.
pub(crate) fn hills() -> Ground {
    let h = Heightfield::from_fn(Vec2::splat(-80.0), 0.5, 321, 321, |p| {
        1.5 * (p.x * 0.11).sin() * (p.y * 0.07).cos() + 0.8 * (p.x * 0.031 + p.y * 0.05).sin()
    })
    .unwrap();
    let mut pieces = Piece::stairs_along_x(Vec2::new(10.0, -6.0), 1.0, 4, 0.8, 0.3, 6.0, 2.0);
    pieces.push(Piece {
        min: Vec2::new(-20.0, 10.0),
        max: Vec2::new(-8.0, 16.0),
        height: 0.5,
        slope: Vec2::new(0.2, 0.0),
    });
    Ground::new(Some(h), pieces).unwrap()
}

#[test]
fn the_motion_pass_places_walkers_on_the_ground_as_the_cpu_does() {
    let gpu = require_gpu("ground");
    let (_, straight) = bake_walker([0.0, 0.0, 1.5], 0.0);
    let (_, turning) = bake_walker([0.2, 0.0, 1.2], 0.35);
    let models = [(straight, true), (turning, true)];
    let mut rng = Rng(0x005e_ed0f_6a0d);
    let (mut crowd, _) = moving_crowd(&mut rng, &models, 400);
    let ground = Arc::new(hills());
    let pass = CullPass::new(&gpu.device);
    let mut mirror = CrowdMirror::new(&gpu.device);
    let mut off_flat = 0;
    for align in [GroundAlign::Upright, GroundAlign::Slope] {
        crowd.set_ground(Some(ground.clone()), align);
        for (frame, dt) in [0.0f32, 1.0 / 60.0, 2.5, 7.25].into_iter().enumerate() {
            if dt > 0.0 {
                crowd.update(dt);
            }
            let (worst, at) = compare(&gpu, &pass, &mut mirror, &crowd);
            eprintln!(
                "{align:?} frame {frame}: worst relative GPU-CPU difference {worst:.2e} ({at})"
            );
            assert!(
                worst <= RELATIVE_EPS,
                "{align:?} frame {frame}: {worst:.3e} > {RELATIVE_EPS:e}: {at}"
            );
            // The ground did something: moving instances off y = 0.
            off_flat += crowd
                .ids()
                .filter(|&id| crowd.motion(id).is_ok_and(|m| m != MotionKind::Still))
                .filter(|&id| crowd.world_transform(id).unwrap().w_axis.y.abs() > 0.1)
                .count();
        }
    }
    assert!(off_flat > 400, "{off_flat} placements off the plane");
}

#[test]
fn steered_agents_stand_on_the_ground_and_never_in_a_step() {
    let gpu = require_gpu("ground");
    let handle = throng_tests::bake_asset("khronos_Fox.glb");
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let ground = Arc::new(hills());
    let grid = ObstacleGrid::covering(Vec2::new(-30.0, -20.0), Vec2::new(30.0, 20.0), 0.5).unwrap();
    let goals = [Goal::Rect {
        min: Vec2::new(18.0, -12.0),
        max: Vec2::new(28.0, 12.0),
    }];
    let field = FlowField::compute(&grid, &goals).unwrap();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let walk = crowd.clip_index(m, "Walk").unwrap();
    let scale = 0.7 / (handle.model().bounds.max - handle.model().bounds.min).max_element();
    for i in 0..300 {
        let p = Vec2::new(-25.0 + (i % 15) as f32 * 1.0, -10.0 + (i / 15) as f32 * 1.0);
        let id = crowd
            .spawn(
                m,
                Spawn {
                    transform: Mat4::from_scale_rotation_translation(
                        Vec3::splat(scale),
                        Quat::from_rotation_y(1.57),
                        Vec3::new(p.x, 0.0, p.y),
                    ),
                    clip: Some(walk),
                    ..Spawn::default()
                },
            )
            .unwrap();
        let data = goal_data(0, Some(Vec2::new(23.0, p.y)));
        let motion = Motion::Simulated {
            velocity: Vec3::ZERO,
            ground_speed: 0.0,
            data,
        };
        crowd.set_motion(id, motion).unwrap();
    }
    crowd.set_ground(Some(ground.clone()), GroundAlign::Slope);
    let ids: Vec<InstanceId> = crowd.ids().collect();
    let params = NavigateParams {
        dwell: -1.0,
        ..navigate_params(0.3, 3.5)
    };
    let mut sim = navigate_simulation(&gpu.device, &params).unwrap();
    sim.set_navigation(&gpu.device, &field).unwrap();
    let mut stepper = Stepper::new(&gpu, sim);
    let dt = 1.0 / STEPS_PER_SECOND as f32;
    stepper.frame(&gpu, &crowd, &model);
    let (mut worst, mut at) = (0.0f32, String::new());
    let (mut on_stair, mut checked) = (0, 0);
    for step in 1..=12 * STEPS_PER_SECOND {
        crowd.update(dt);
        stepper.frame(&gpu, &crowd, &model);
        if step % 10 != 0 {
            continue;
        }
        for pose in stepper.poses(&gpu, &crowd, &ids) {
            let p = pose.world.w_axis.truncate();
            let want = ground.sample(Vec2::new(p.x, p.z));
            let off = (p.y - want.height).abs();
            if off > worst || off.is_nan() {
                worst = if off.is_nan() { f32::INFINITY } else { off };
                at = format!(
                    "{:?} at step {step}: y {} over ground {}",
                    pose.id, p.y, want.height
                );
            }
            // Up is the ground's normal.
            let up = pose.world.y_axis.truncate().normalize();
            assert!(
                up.dot(want.normal()) > 0.9999,
                "{:?} at step {step}: up {up} against the normal {}",
                pose.id,
                want.normal()
            );
            on_stair += usize::from(
                ground.pieces()[..4]
                    .iter()
                    .any(|s| s.covers(Vec2::new(p.x, p.z))),
            );
            checked += 1;
        }
    }
    eprintln!(
        "{checked} placements checked, {on_stair} on the stair; worst height off the ground {worst:.2e} ({at})"
    );
    assert!(
        worst <= ON_GROUND_EPS,
        "{worst:.3e} > {ON_GROUND_EPS:e}: {at}"
    );
    assert!(
        on_stair > 50,
        "the crowd crossed the stair ({on_stair} placements on it)"
    );
}

/// The walking course: a steep cone (45°) between the start and a
/// platform 1.2 high with cliffs on every side but one, where a stair of
/// four 0.3 risers climbs it.
fn climbing_course() -> Ground {
    let rise = 45f32.to_radians().tan();
    let cone = Heightfield::from_fn(Vec2::new(-30.0, -20.0), 0.25, 241, 161, |p| {
        rise * (4.0 - (p - Vec2::new(-2.0, 0.0)).length()).max(0.0)
    })
    .unwrap();
    let mut pieces = Piece::stairs_along_x(Vec2::new(8.8, -3.0), 0.0, 4, 0.8, 0.3, 6.0, 0.0);
    pieces.push(Piece::step(
        Vec2::new(12.0, -9.0),
        Vec2::new(27.0, 9.0),
        1.2,
    ));
    Ground::new(Some(cone), pieces).unwrap()
}

#[test]
fn steered_agents_route_around_a_steep_hill_and_climb_a_low_stair() {
    use throng_crowd::navigation::Walkable;
    let gpu = require_gpu("ground");
    let handle = throng_tests::bake_asset("khronos_Fox.glb");
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let ground = Arc::new(climbing_course());
    let mut grid =
        ObstacleGrid::covering(Vec2::new(-28.0, -18.0), Vec2::new(28.0, 18.0), 0.5).unwrap();
    let walkable = Walkable {
        max_slope_degrees: 35.0,
        step_height: 0.35,
    };
    let blocked = grid.block_unwalkable(&ground, walkable).unwrap();
    // The cone's steep flanks and the platform's cliffs are walls; the
    // stair is open up its middle.
    assert!(grid.is_blocked(Vec2::new(-2.0, 2.5)) && grid.is_blocked(Vec2::new(12.25, 6.0)));
    assert!(!grid.is_blocked(Vec2::new(10.5, 0.25)));
    let goals = [Goal::Rect {
        min: Vec2::new(13.0, -7.5),
        max: Vec2::new(26.0, 7.5),
    }];
    let field = FlowField::compute(&grid, &goals).unwrap();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let walk = crowd.clip_index(m, "Walk").unwrap();
    let scale = 0.7 / (handle.model().bounds.max - handle.model().bounds.min).max_element();
    const AGENTS: usize = 150;
    let mut goal_points = Vec::new();
    for i in 0..AGENTS {
        let p = Vec2::new(-24.0 + (i % 10) as f32, -7.0 + (i / 10) as f32);
        // Goal points fill the platform from its far side.
        let q = Vec2::new(25.0 - (i % 12) as f32, -6.5 + (i / 12) as f32);
        goal_points.push(q);
        let id = crowd
            .spawn(
                m,
                Spawn {
                    transform: Mat4::from_scale_rotation_translation(
                        Vec3::splat(scale),
                        Quat::from_rotation_y(1.57),
                        Vec3::new(p.x, 0.0, p.y),
                    ),
                    clip: Some(walk),
                    ..Spawn::default()
                },
            )
            .unwrap();
        let motion = Motion::Simulated {
            velocity: Vec3::ZERO,
            ground_speed: 0.0,
            data: goal_data(0, Some(q)),
        };
        crowd.set_motion(id, motion).unwrap();
    }
    crowd.set_ground(Some(ground.clone()), GroundAlign::Upright);
    let ids: Vec<InstanceId> = crowd.ids().collect();
    let params = NavigateParams {
        dwell: -1.0,
        arrive: crate::navigation::ARRIVE,
        ..navigate_params(crate::navigation::RADIUS, crate::navigation::SPEED)
    };
    let mut sim = navigate_simulation(&gpu.device, &params).unwrap();
    sim.set_navigation(&gpu.device, &field).unwrap();
    let mut stepper = Stepper::new(&gpu, sim);
    let dt = 1.0 / STEPS_PER_SECOND as f32;
    stepper.frame(&gpu, &crowd, &model);
    let mut on_stair = 0;
    let mut arrived_on_top = 0;
    for step in 1..=60 * STEPS_PER_SECOND {
        crowd.update(dt);
        stepper.frame(&gpu, &crowd, &model);
        if step % 10 != 0 {
            continue;
        }
        let t = step as f32 * dt;
        arrived_on_top = 0;
        for pose in stepper.poses(&gpu, &crowd, &ids) {
            let p = pose.world.w_axis.truncate();
            let xz = Vec2::new(p.x, p.z);
            assert!(
                !grid.is_blocked(xz),
                "{:?} at {t} s: at {p}, in an unwalkable cell (slope {:.1}°)",
                pose.id,
                ground.sample(xz).slope_angle().to_degrees()
            );
            assert!(
                (p.y - ground.height_at(xz)).abs() <= ON_GROUND_EPS,
                "{:?} at {t} s: y {} off the ground {}",
                pose.id,
                p.y,
                ground.height_at(xz)
            );
            on_stair += usize::from(ground.pieces()[..4].iter().any(|s| s.covers(xz)));
            let a = pose.agent.unwrap();
            arrived_on_top += usize::from(a.data[3] > 0.0 && (p.y - 1.2).abs() < 1e-4);
        }
        if arrived_on_top == AGENTS {
            // Every one on the platform: nothing more to watch.
            eprintln!("all arrived at {t} s");
            break;
        }
    }
    let share = arrived_on_top as f64 / AGENTS as f64;
    eprintln!(
        "{blocked} cells unwalkable; {on_stair} placements on the stair; {:.1} % arrived on the platform in 60 s",
        100.0 * share
    );
    assert!(
        on_stair > AGENTS,
        "they climbed the stair ({on_stair} placements on it)"
    );
    assert!(
        share >= crate::navigation::MIN_ARRIVED,
        "{:.1} % arrived",
        100.0 * share
    );
}
