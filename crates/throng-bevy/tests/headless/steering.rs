//! Crowds steered on the GPU from Bevy (`throng_bevy::steer`): Foxes
//! walk around a `ThrongObstacle` wall to a `ThrongGoal` on the far side
//! without overlapping beyond the native navigation test's bar; a wall
//! added at run time is in the GPU's field within two frames and turns
//! the agents' paths; the poses read back are the GPU's within the frames
//! between, and steered agents' `Transform`s, bones and picking follow
//! them; a field too large for the frame is made on a worker and set when
//! done.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use throng_bevy::prepare::ThrongRenderState;
use throng_bevy::steer::field::ThrongGoalShape;
use throng_bevy::steer::{ThrongSteeredAgent, walk_to};
use throng_bevy::{
    ThrongAgent, ThrongBone, ThrongCrowd, ThrongGoal, ThrongInstance, ThrongNavigation,
    ThrongObstacle, ThrongPicker, ThrongStats, ThrongSteered, ThrongSteeredPoses, ThrongSteering,
};
use throng_crowd::crowd::{InstanceId, Spawn};

use super::{app, assets, camera, with_fox};

/// An agent's radius and speed, model units (the Fox is about 150 long:
/// a run, so that the test's frames are few).
const RADIUS: f32 = 45.0;
const SPEED: f32 = 250.0;
/// Seconds a frame (the steering's step: 10 a second).
const DT: f32 = 0.1;
/// The native navigation test's bar: at most 1 % of the agents overlap
/// another (centres nearer than 0.8 × the two radii).
const OVERLAP: f32 = 0.8;
const MAX_OVERLAP_SHARE: f64 = 0.01;
/// The wall: a box about the origin, half sides along x and z.
const WALL: Vec2 = Vec2::new(40.0, 220.0);

/// The scene's crowd, steered over the ground around the origin, and the
/// goal on the far side (x from 330 to 630).
fn steered_crowd(app: &mut App) -> Entity {
    let world = app.world_mut();
    let crowd = world
        .query_filtered::<Entity, With<ThrongCrowd>>()
        .single(world)
        .unwrap();
    let mut steering = ThrongSteering::new(
        RADIUS,
        SPEED,
        (Vec2::new(-700.0, -500.0), Vec2::new(700.0, 500.0)),
    );
    steering.cell_size = 20.0;
    world.entity_mut(crowd).insert(steering);
    // Room for the herd to stand in: 300 × 800 for twenty agents of radius
    // 45 (a smaller goal jams them short of their points).
    world.spawn((
        ThrongGoal {
            layer: 0,
            shape: ThrongGoalShape::Box(Vec2::new(150.0, 400.0)),
        },
        Transform::from_xyz(480.0, 0.0, 0.0),
    ));
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(
        DT,
    )));
    crowd
}

/// Twenty Foxes in a lattice at x = −480, handed to the steering.
fn herd(app: &mut App, crowd: Entity, fox: &Handle<throng_bevy::ThrongModel>) -> Vec<InstanceId> {
    let handle = super::loaded_model(app, fox).unwrap();
    let mut c = app.world_mut().get_mut::<ThrongCrowd>(crowd).unwrap();
    let m = c.crowd.add_model(&handle);
    let walk = c.crowd.clip_index(m, "Walk").unwrap();
    (0..20)
        .map(|i| {
            let at = glam::Vec3::new(
                -480.0 - (i / 5) as f32 * 110.0,
                0.0,
                (i % 5) as f32 * 110.0 - 220.0,
            );
            let spawn = Spawn {
                transform: glam::Mat4::from_translation(at),
                clip: Some(walk),
                ..Spawn::default()
            };
            let id = c.crowd.spawn(m, spawn).unwrap();
            c.crowd.set_motion(id, walk_to(0)).unwrap();
            id
        })
        .collect()
}

/// One frame of `DT`: the crowd's clock (manual time) and the app.
fn step(app: &mut App, crowd: Entity) {
    app.world_mut()
        .get_mut::<ThrongCrowd>(crowd)
        .unwrap()
        .crowd
        .update(DT);
    app.update();
}

/// The agents' positions (x, z) the GPU last reported, with its tick.
fn positions(app: &App, crowd: Entity) -> Option<(u64, Vec<(Vec2, bool)>)> {
    let poses = app.world().resource::<ThrongSteeredPoses>().crowd(crowd)?;
    let points = poses
        .poses
        .iter()
        .filter_map(|p| p.agent)
        .map(|a| (Vec2::new(a.position.x, a.position.z), a.arrived))
        .collect();
    Some((poses.tick, points))
}

/// Agents overlapping another (centres nearer than `limit`).
fn overlapping(points: &[Vec2], limit: f32) -> usize {
    (0..points.len())
        .filter(|&i| (0..points.len()).any(|j| j != i && points[j].distance(points[i]) < limit))
        .count()
}

/// At the goal: inside its box, or within an agent's width of it (queued
/// behind those standing in it).
fn in_goal(p: Vec2) -> bool {
    let margin = 2.0 * RADIUS;
    (p.x - 480.0).abs() <= 150.0 + margin && p.y.abs() <= 400.0 + margin
}

fn inside_wall(p: Vec2) -> bool {
    p.x.abs() < WALL.x && p.y.abs() < WALL.y
}

fn wall() -> (ThrongObstacle, Transform) {
    (
        ThrongObstacle::Box { half_size: WALL },
        Transform::from_xyz(0.0, 0.0, 0.0),
    )
}

/// The field generation the GPU steers crowd `crowd` by (from the render
/// world's report).
fn gpu_field(app: &App, crowd: Entity) -> Option<u64> {
    let frame = app.world().resource::<ThrongStats>().frame();
    frame.steered_fields.get(&crowd).copied()
}

#[test]
fn steered_foxes_go_around_a_wall_to_their_goal_without_overlapping() {
    let dir = assets("steer");
    let mut app = app(&dir);
    let fox = with_fox(&mut app);
    let crowd = steered_crowd(&mut app);
    app.world_mut().spawn(wall());
    let ids = herd(&mut app, crowd, &fox);
    let limit = OVERLAP * 2.0 * RADIUS;
    let (mut worst, mut checks, mut went_round) = (0.0f64, 0, false);
    let mut arrived = 0;
    for frame in 0..200 {
        step(&mut app, crowd);
        let Some((_, points)) = positions(&app, crowd) else {
            assert!(frame < 5, "no poses read back by frame {frame}");
            continue;
        };
        assert_eq!(points.len(), ids.len(), "every agent read back");
        let xz: Vec<Vec2> = points.iter().map(|p| p.0).collect();
        for p in &xz {
            assert!(
                !inside_wall(*p),
                "frame {frame}: an agent at {p} is inside the wall"
            );
            went_round |= p.x.abs() < WALL.x + RADIUS && p.y.abs() > WALL.y;
        }
        if frame as f32 * DT >= 2.0 {
            worst = worst.max(overlapping(&xz, limit) as f64 / xz.len() as f64);
            checks += 1;
        }
        // At the goal, or arrived at the point the GPU chose there.
        arrived = points.iter().filter(|p| p.1 || in_goal(p.0)).count();

        if arrived == ids.len() {
            break;
        }
    }
    println!(
        "steered in Bevy: {} Foxes, {checks} checks, worst overlap share {:.1} % (bar {:.1} %), {arrived} at the goal",
        ids.len(),
        worst * 100.0,
        MAX_OVERLAP_SHARE * 100.0
    );
    assert!(went_round, "no agent passed the wall's ends");
    assert!(
        worst <= MAX_OVERLAP_SHARE,
        "worst overlap share {:.1} % > {:.1} %",
        worst * 100.0,
        MAX_OVERLAP_SHARE * 100.0
    );
    assert!(
        arrived * 10 >= ids.len() * 9,
        "{arrived} of {} at the goal",
        ids.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wall_added_at_run_time_is_steered_by_within_two_frames() {
    let dir = assets("steer-late");
    let mut app = app(&dir);
    let fox = with_fox(&mut app);
    let crowd = steered_crowd(&mut app);
    let ids = herd(&mut app, crowd, &fox);
    for _ in 0..10 {
        step(&mut app, crowd);
    }
    let before = gpu_field(&app, crowd).expect("the GPU steers by a field");
    app.world_mut().spawn(wall());
    step(&mut app, crowd);
    let built = app
        .world()
        .get::<ThrongNavigation>(crowd)
        .expect("a field")
        .generation;
    assert!(built > before, "the wall's frame built a new field");
    step(&mut app, crowd);
    let now = gpu_field(&app, crowd);
    assert_eq!(
        now,
        Some(built),
        "the GPU steers by the new field within two frames"
    );
    // Without the wall the herd walks straight (|z| ≤ 220 + a little);
    // with it, agents go round its ends and none enters it.
    let mut went_round = false;
    for _ in 0..60 {
        step(&mut app, crowd);
        let (_, points) = positions(&app, crowd).unwrap();
        for (p, _) in points {
            assert!(!inside_wall(p), "an agent at {p} is inside the wall added");
            went_round |= p.x.abs() < WALL.x + RADIUS && p.y.abs() > WALL.y;
        }
    }
    assert!(went_round, "no agent turned to the wall's ends");
    assert_eq!(ids.len(), 20);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn steered_agents_follow_the_gpu_in_transform_bones_and_picking() {
    let dir = assets("steer-agents");
    let mut app = app(&dir);
    let fox = with_fox(&mut app);
    let crowd = steered_crowd(&mut app);
    app.world_mut().spawn(wall());
    let agents: Vec<Entity> = (0..6)
        .map(|i| {
            let at = Vec3::new(-480.0, 0.0, i as f32 * 110.0 - 275.0);
            let agent = ThrongAgent::new(fox.clone()).playing(1).in_crowd(crowd);
            app.world_mut()
                .spawn((agent, ThrongSteered::to(0), Transform::from_translation(at)))
                .id()
        })
        .collect();
    let head = app
        .world_mut()
        .spawn((ThrongBone::new("b_Head_05"), ChildOf(agents[2])))
        .id();
    for _ in 0..20 {
        step(&mut app, crowd);
    }
    // The latest readback against the GPU now: no older than two frames,
    // and apart by no more than the agents' fastest motion since.
    let (tick, read) = positions(&app, crowd).unwrap();
    let ids: Vec<InstanceId> = agents
        .iter()
        .map(|&a| app.world().get::<ThrongInstance>(a).unwrap().id)
        .collect();
    let (now_tick, now) = gpu_poses(&mut app, crowd, &ids);
    let per_frame = throng_core::clock::ticks_of(DT as f64);
    let frames = (now_tick - tick) as f64 / per_frame as f64;
    assert!(frames <= 2.0 + 1e-6, "the readback is {frames} frames old");
    let seconds = throng_core::clock::seconds_of(now_tick - tick) as f32;
    // Speeds spread ±15 % (navigate_params).
    let reach = 1.15 * SPEED * seconds + 1e-2;
    let poses = app
        .world()
        .resource::<ThrongSteeredPoses>()
        .crowd(crowd)
        .unwrap();
    for (&id, p) in ids.iter().zip(&now) {
        let was = poses.get(id).unwrap().agent.unwrap().position;
        let moved = Vec2::new(p.x - was.x, p.z - was.z).length();
        assert!(
            moved <= reach,
            "{id:?} moved {moved} in {seconds} s (at most {reach})"
        );
    }
    assert_eq!(read.len(), 6);
    // Each agent's Transform is the pose it was given this frame (the
    // newest one the main world had: at most a frame older than the
    // newest now); its bone rides it.
    for &a in &agents {
        let seen = *app.world().get::<ThrongSteeredAgent>(a).unwrap();
        let t = app.world().get::<Transform>(a).unwrap().translation;
        let want = seen.agent.position;
        assert!(
            t.distance(want) < 1e-3,
            "agent {a}: Transform at {t}, pose at {want}"
        );
        assert!(
            poses.tick - seen.tick <= per_frame,
            "agent {a} follows a pose {} ticks old",
            poses.tick - seen.tick
        );
    }
    let head_at = app
        .world()
        .get::<GlobalTransform>(head)
        .unwrap()
        .translation();
    let body_at = app.world().get::<Transform>(agents[2]).unwrap().translation;
    assert!(
        head_at.distance(body_at) < 200.0 && head_at.y > 20.0,
        "the head bone at {head_at} rides its agent at {body_at}"
    );
    // A ray down onto an agent's read-back position picks it.
    let target = app.world().get::<Transform>(agents[4]).unwrap().translation;
    let ray = bevy::shape::Ray3d::new(target + Vec3::Y * 500.0, Dir3::NEG_Y);
    let mut picker = bevy::ecs::system::SystemState::<ThrongPicker>::new(app.world_mut());
    let hit = picker.get(app.world()).unwrap().cast(ray);
    assert_eq!(hit.and_then(|h| h.agent), Some(agents[4]), "picked {hit:?}");
    let _ = camera(&mut app);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The agents' positions as the GPU has them now (a readback waited for
/// in the render world), with the crowd tick.
fn gpu_poses(app: &mut App, crowd: Entity, ids: &[InstanceId]) -> (u64, Vec<Vec3>) {
    let cam = camera(app);
    let render = app.sub_app(bevy::render::RenderApp).world();
    let device = render
        .resource::<bevy::render::renderer::RenderDevice>()
        .wgpu_device()
        .clone();
    let replicas = render.resource::<throng_bevy::extract::ThrongReplicas>();
    let index = replicas.index_of(crowd).unwrap();
    let c = replicas.crowd_at(index);
    let state = render.resource::<ThrongRenderState>();
    let renderer = &state.views[&cam].renderer;
    let read = renderer
        .read_poses(index, c, ids)
        .unwrap()
        .wait(&device)
        .unwrap();
    let tick = c.clock();
    let points = read
        .iter()
        .map(|p| Vec3::from_array(p.agent.unwrap().position))
        .collect();
    (tick, points)
}

#[test]
fn a_large_field_is_made_on_a_worker_and_set_when_done() {
    let dir = assets("steer-large");
    let mut app = app(&dir);
    let _fox = with_fox(&mut app);
    let world = app.world_mut();
    let crowd = world
        .query_filtered::<Entity, With<ThrongCrowd>>()
        .single(world)
        .unwrap();
    // 1,040² cells of 5 units, one goal: more than FIELD_ON_WORKER_CELLS,
    // so the field is computed on a worker and set when it is done.
    let mut steering =
        ThrongSteering::new(RADIUS, SPEED, (Vec2::splat(-2600.0), Vec2::splat(2600.0)));
    steering.cell_size = 5.0;
    world.entity_mut(crowd).insert(steering);
    world.spawn((
        ThrongGoal {
            layer: 0,
            shape: ThrongGoalShape::Circle(100.0),
        },
        Transform::from_xyz(2000.0, 0.0, 0.0),
    ));
    world.spawn(wall());
    let mut frames = 0;
    super::run_until(&mut app, "the worker's field", |app| {
        frames += 1;
        app.world().get::<ThrongNavigation>(crowd).is_some()
    });
    let field = app
        .world()
        .get::<ThrongNavigation>(crowd)
        .unwrap()
        .field
        .clone();
    let cells = u64::from(field.width()) * u64::from(field.height()) * u64::from(field.layers());
    println!(
        "a {}² field ({cells} cells) set after {frames} frames",
        field.width()
    );
    assert!(cells > throng_bevy::steer::field::FIELD_ON_WORKER_CELLS);
    // It is the scene's: the goal at distance 0, the wall blocked, and the
    // way from west of the wall leads round it (toward an end, not into it).
    assert_eq!(
        field.distance_at(0, glam::Vec2::new(2000.0, 0.0)),
        Some(0.0)
    );
    assert!(
        field.clearance_at(glam::Vec2::ZERO) < 0.0,
        "the wall is blocked"
    );
    let way = field
        .direction_at(0, glam::Vec2::new(-100.0, 10.0))
        .unwrap();
    assert!(
        way.y.abs() > 0.5,
        "west of the wall the way turns to an end: {way}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
