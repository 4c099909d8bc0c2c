//! Characters as entities: `ThrongAgent` entities spawn, move, replay and
//! despawn their instances within the frame; a prop hung from a
//! `ThrongBone` is where the glTF's own animation puts that bone, within
//! the bake's error bound; a ray picks the agent it passes through first;
//! the footsteps an agent's Walk crosses arrive as messages naming it;
//! Bevy's pointer events reach the agent under a pointer.

use std::time::Duration;

use bevy::ecs::system::SystemState;
use bevy::prelude::*;
use bevy::shape::Ray3d;
use bevy::time::TimeUpdateStrategy;
use throng_bevy::{
    ThrongAgent, ThrongAgentCrowd, ThrongAgents, ThrongBone, ThrongCrowd, ThrongEvent,
    ThrongInstance, ThrongModel, ThrongPicker, ThrongStats, ThrongSystems,
};

use super::{app, assets, camera, run_until, with_fox};

/// An agent like `agent` at each of `spots`, in order.
fn agents_at(app: &mut App, agent: &ThrongAgent, spots: &[Vec3]) -> Vec<Entity> {
    spots
        .iter()
        .map(|&at| {
            let placed = (agent.clone(), Transform::from_translation(at));
            app.world_mut().spawn(placed).id()
        })
        .collect()
}

/// The plugin's agent crowd.
fn agent_crowd(app: &mut App) -> &ThrongCrowd {
    let world = app.world_mut();
    let mut q = world.query_filtered::<&ThrongCrowd, With<ThrongAgentCrowd>>();
    q.single(world).expect("one agent crowd")
}

fn instance(app: &App, agent: Entity) -> ThrongInstance {
    *app.world()
        .get::<ThrongInstance>(agent)
        .expect("the agent has its instance")
}

/// Live instances the renderer was handed for the scene's camera this
/// frame.
fn drawn_instances(app: &mut App) -> u32 {
    let cam = camera(app);
    let stats = app.world().resource::<ThrongStats>().camera(cam);
    stats.expect("the camera drew the crowds").instances
}

#[test]
fn agents_spawn_move_replay_and_despawn_within_a_frame() {
    let dir = assets("agents");
    let mut app = app(&dir);
    let fox = with_fox(&mut app);
    let spots = [-80.0, 0.0, 80.0];
    let at = spots.map(|x| Vec3::new(x, 0.0, 0.0));
    let agents = agents_at(&mut app, &ThrongAgent::new(fox.clone()).playing(1), &at);
    app.update();
    assert_eq!(app.world().resource::<ThrongAgents>().len(), 3);
    assert_eq!(
        agent_crowd(&mut app).crowd.len(),
        3,
        "spawned the frame they were"
    );
    assert_eq!(
        drawn_instances(&mut app),
        3,
        "and handed to the renderer that frame"
    );
    for (&a, &x) in agents.iter().zip(&spots) {
        let i = instance(&app, a);
        let state = agent_crowd(&mut app).crowd.state(i.id).unwrap();
        assert_eq!(state.world_from_model.w_axis.x, x);
        assert_eq!(state.current.map(|c| c.0), Some(1), "playing Walk");
    }

    // Move one: only it moves, the frame it is moved.
    let moved = agents[1];
    app.world_mut()
        .get_mut::<Transform>(moved)
        .unwrap()
        .translation = Vec3::new(10.0, 0.0, -50.0);
    app.update();
    for (&a, &x) in agents.iter().zip(&spots) {
        let i = instance(&app, a);
        let m = agent_crowd(&mut app)
            .crowd
            .state(i.id)
            .unwrap()
            .world_from_model;
        let want = if a == moved {
            glam::Vec3::new(10.0, 0.0, -50.0)
        } else {
            glam::Vec3::new(x, 0.0, 0.0)
        };
        assert_eq!(m.w_axis.truncate(), want, "agent {a}");
    }

    // Hidden, it is not drawn (a zero transform) and keeps playing; shown
    // again, it is back where its Transform says.
    *app.world_mut().get_mut::<Visibility>(moved).unwrap() = Visibility::Hidden;
    app.update();
    let i = instance(&app, moved);
    let state = agent_crowd(&mut app).crowd.state(i.id).unwrap();
    let zero = glam::Mat4::from_cols(
        glam::Vec4::ZERO,
        glam::Vec4::ZERO,
        glam::Vec4::ZERO,
        glam::Vec4::W,
    );
    assert_eq!(state.world_from_model, zero, "hidden: a zero transform");
    assert!(!state.paused);
    *app.world_mut().get_mut::<Visibility>(moved).unwrap() = Visibility::Inherited;
    app.update();
    let state = agent_crowd(&mut app).crowd.state(i.id).unwrap();
    assert_eq!(
        state.world_from_model.w_axis.truncate(),
        glam::Vec3::new(10.0, 0.0, -50.0)
    );

    // Replay: a new clip cross-fades, a pause holds.
    {
        let mut a = app.world_mut().get_mut::<ThrongAgent>(agents[0]).unwrap();
        a.clip = Some(2);
        a.fade = 0.5;
    }
    app.world_mut()
        .get_mut::<ThrongAgent>(agents[2])
        .unwrap()
        .paused = true;
    app.update();
    let (i0, i2) = (instance(&app, agents[0]), instance(&app, agents[2]));
    let c = &agent_crowd(&mut app).crowd;
    let s0 = c.state(i0.id).unwrap();
    assert_eq!(s0.current.map(|c| c.0), Some(2), "running now");
    assert_eq!(s0.previous.map(|c| c.0), Some(1), "fading from Walk");
    assert!(c.state(i2.id).unwrap().paused);

    // Despawning the entity, or removing the component, despawns it.
    app.world_mut().despawn(agents[0]);
    app.world_mut()
        .entity_mut(agents[2])
        .remove::<ThrongAgent>();
    app.update();
    let c = &agent_crowd(&mut app).crowd;
    assert_eq!(c.len(), 1);
    assert!(!c.contains(i0.id) && !c.contains(i2.id));
    assert!(app.world().get::<ThrongInstance>(agents[2]).is_none());
    assert_eq!(app.world().resource::<ThrongAgents>().len(), 1);
    assert_eq!(drawn_instances(&mut app), 1);

    // A new model (still loading): the old instance goes at once, the new
    // one comes the frame the model arrives.
    std::fs::copy(dir.join("fox.throng"), dir.join("fox2.throng")).unwrap();
    let fox2: Handle<ThrongModel> = app.world().resource::<AssetServer>().load("fox2.throng");
    let before = instance(&app, agents[1]);
    app.world_mut()
        .get_mut::<ThrongAgent>(agents[1])
        .unwrap()
        .model = fox2.clone();
    app.update();
    if app
        .world()
        .resource::<Assets<ThrongModel>>()
        .get(&fox2)
        .is_none()
    {
        assert!(
            app.world().get::<ThrongInstance>(agents[1]).is_none(),
            "no stale instance"
        );
        assert!(!agent_crowd(&mut app).crowd.contains(before.id));
    }
    run_until(&mut app, "the agent's new model", |app| {
        app.world().get::<ThrongInstance>(agents[1]).is_some()
    });
    let after = instance(&app, agents[1]);
    assert_ne!(
        after.model, before.model,
        "the instance is of the new model"
    );
    assert_eq!(agent_crowd(&mut app).crowd.len(), 1);

    // The game despawns the agent crowd: its agent joins a new one.
    let old_crowd = instance(&app, agents[1]).crowd;
    app.world_mut().despawn(old_crowd);
    app.update();
    let i1 = instance(&app, agents[1]);
    assert_ne!(i1.crowd, old_crowd);
    assert_eq!(
        app.world().resource::<ThrongAgents>().crowd(),
        Some(i1.crowd)
    );
    assert!(agent_crowd(&mut app).crowd.contains(i1.id));
    assert_eq!(drawn_instances(&mut app), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_prop_on_a_bone_follows_the_gltf_animation_of_that_bone() {
    let dir = assets("bones");
    let mut app = app(&dir);
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(
        1.0 / 24.0,
    )));
    let fox = with_fox(&mut app);
    let place = Transform::from_xyz(30.0, 0.0, -40.0)
        .with_rotation(Quat::from_rotation_y(0.7))
        .with_scale(Vec3::splat(1.5));
    let agent = app
        .world_mut()
        .spawn((
            ThrongAgent::new(fox.clone()).playing(1).starting_at(0.3),
            place,
        ))
        .id();
    // A prop 12 units along the head bone's y axis.
    let offset = Vec3::new(0.0, 12.0, 0.0);
    let head = app
        .world_mut()
        .spawn((ThrongBone::new("b_Head_05"), ChildOf(agent)))
        .id();
    let prop = app
        .world_mut()
        .spawn((Transform::from_translation(offset), ChildOf(head)))
        .id();

    // The glTF's own animation of that node, sampled directly.
    let source =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/khronos_Fox.glb");
    let scene = throng_bake::import_file(&source).unwrap().scene;
    let eval = throng_bake::sample::PoseEvaluator::new(&scene);
    let fox_model = app
        .world()
        .resource::<Assets<ThrongModel>>()
        .get(&fox)
        .unwrap()
        .0
        .clone();
    let model = fox_model.model();
    let bone = model
        .bones
        .iter()
        .position(|b| b.name == "b_Head_05")
        .unwrap();
    let node = model.bones[bone].node as usize;
    // The bake's bound: the error Walk was baked for (`--max-error`, of
    // the bounding radius), in model units, scaled by the agent's scale.
    let error = model.clips[1].error;
    assert!(error.max_error > 0.0, "the bake records its bound");
    let bound = error.max_error * model.bounding_radius * 1.5;

    let mut worst = (0.0f32, 0.0f32);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..30 {
        app.update();
        let i = instance(&app, agent);
        let (clip, t) = agent_crowd(&mut app)
            .crowd
            .state(i.id)
            .unwrap()
            .current
            .unwrap();
        assert_eq!(clip, 1);
        seen.insert((t * 1000.0) as i32);
        let globals = eval.globals(Some(&scene.clips[clip]), t);
        let want = (place.to_matrix() * Mat4::from_cols_array(&globals[node].to_cols_array()))
            .transform_point3(offset);
        let got = app
            .world()
            .get::<GlobalTransform>(prop)
            .unwrap()
            .translation();
        let err = got.distance(want);
        if err > worst.0 {
            worst = (err, t);
        }
    }
    println!(
        "prop on b_Head_05 vs the glTF's animation over 30 frames: worst {:.4} units at {:.3} s (bake bound {:.4}; Walk's measured skinned-vertex error between frames {:.4})",
        worst.0,
        worst.1,
        bound,
        error.between_frames * model.bounding_radius * 1.5
    );
    assert!(
        seen.len() > 20,
        "the clip advanced: {} distinct times",
        seen.len()
    );
    assert!(
        worst.0 <= bound,
        "the prop is {:.4} units from the bone at {:.3} s, over the bake's bound {bound:.4}",
        worst.0,
        worst.1
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_ray_picks_the_agent_it_meets_first() {
    let dir = assets("picking");
    let mut app = app(&dir);
    let fox = with_fox(&mut app);
    // Three Foxes in a row along x, a fourth behind the middle one.
    let spots = [
        Vec3::new(-100.0, 0.0, 0.0),
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(100.0, 0.0, 0.0),
        Vec3::new(0.0, 0.0, -150.0),
    ];
    let agents = agents_at(&mut app, &ThrongAgent::new(fox.clone()), &spots);
    app.update();
    let mut picker = SystemState::<ThrongPicker>::new(app.world_mut());
    let pick = |app: &mut App, picker: &mut SystemState<ThrongPicker>, origin: Vec3, to: Vec3| {
        let ray = Ray3d::new(origin, Dir3::new(to - origin).unwrap());
        picker.get(app.world()).unwrap().cast(ray)
    };
    // The Fox stands about 0..~90 units tall on its spot: a level ray at
    // 30 units through the middle Fox's spot from the front.
    let front = Vec3::new(0.0, 30.0, 400.0);
    let hit = pick(&mut app, &mut picker, front, Vec3::new(0.0, 30.0, 0.0)).expect("a hit");
    assert_eq!(
        hit.agent,
        Some(agents[1]),
        "the middle Fox, in front of the fourth"
    );
    assert!(hit.point.z > -40.0 && hit.point.z < 80.0, "{hit:?}");
    for (k, &at) in spots.iter().enumerate().take(3) {
        let hit = pick(
            &mut app,
            &mut picker,
            at + Vec3::new(0.0, 500.0, 1.0),
            at + Vec3::Y * 20.0,
        );
        assert_eq!(
            hit.and_then(|h| h.agent),
            Some(agents[k]),
            "straight down on Fox {k}"
        );
    }
    // Between the Foxes, and over their heads.
    assert_eq!(
        pick(
            &mut app,
            &mut picker,
            Vec3::new(50.0, 500.0, 0.0),
            Vec3::new(50.0, 0.0, 0.0)
        ),
        None
    );
    assert_eq!(
        pick(
            &mut app,
            &mut picker,
            Vec3::new(-400.0, 300.0, 0.0),
            Vec3::new(400.0, 300.0, 0.0)
        ),
        None
    );
    // Moved away, the middle Fox no longer hides the fourth.
    app.world_mut()
        .get_mut::<Transform>(agents[1])
        .unwrap()
        .translation
        .x = -300.0;
    app.update();
    let hit = pick(&mut app, &mut picker, front, Vec3::new(0.0, 30.0, 0.0));
    assert_eq!(hit.and_then(|h| h.agent), Some(agents[3]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every `ThrongEvent` of the frame, collected.
#[derive(Resource, Default)]
struct Heard(Vec<ThrongEvent>);

fn listen(mut events: MessageReader<ThrongEvent>, mut heard: ResMut<Heard>) {
    heard.0.extend(events.read().copied());
}

#[test]
fn animation_events_arrive_as_messages_naming_the_agent() {
    let dir = assets("events");
    let mut app = app(&dir);
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f32(
        1.0 / 24.0,
    )))
    .init_resource::<Heard>()
    .add_systems(PostUpdate, listen.after(ThrongSystems::Advance));
    let fox = with_fox(&mut app);
    let agent = app
        .world_mut()
        .spawn((
            ThrongAgent::new(fox.clone()).playing(1),
            Transform::default(),
        ))
        .id();
    let walk = {
        let m = app
            .world()
            .resource::<Assets<ThrongModel>>()
            .get(&fox)
            .unwrap();
        m.0.model().clips[1].duration
    };
    app.update();
    app.world_mut().resource_mut::<Heard>().0.clear();
    // The footsteps the agent's clip time passes, frame by frame.
    let mut expected = std::collections::HashMap::<&str, u32>::new();
    let clip_time = |app: &mut App| {
        let i = instance(app, agent);
        agent_crowd(app)
            .crowd
            .state(i.id)
            .unwrap()
            .current
            .unwrap()
            .1
    };
    let mut before = clip_time(&mut app);
    for _ in 0..40 {
        app.update();
        let now = clip_time(&mut app);
        for (name, at) in [("left", 0.1f32), ("right", 0.45)] {
            let crossed = if now >= before {
                before < at && at <= now
            } else {
                at > before || at <= now // wrapped past the loop's end
            };
            *expected.entry(name).or_default() += crossed as u32;
        }
        before = now;
    }
    let heard = std::mem::take(&mut app.world_mut().resource_mut::<Heard>().0);
    let crowd = agent_crowd(&mut app);
    let mut got = std::collections::HashMap::<&str, u32>::new();
    for e in &heard {
        assert_eq!(e.agent, Some(agent), "{e:?}");
        *got.entry(e.name(crowd).expect("a named event"))
            .or_default() += e.event.count;
    }
    println!(
        "footsteps over 40 frames of {walk:.3} s Walk: heard {got:?}, clock says {expected:?}"
    );
    assert!(
        expected.values().sum::<u32>() >= 4,
        "the clip looped: {expected:?}"
    );
    assert_eq!(got, expected);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Agents that Bevy's picking pointed at.
#[derive(Resource, Default)]
struct Overs(Vec<(Entity, Option<throng_bevy::ThrongHit>)>);

#[test]
fn bevys_pointer_events_reach_the_agent_under_the_pointer() {
    use bevy::asset::uuid::Uuid;
    use bevy::camera::RenderTarget;
    use bevy::picking::events::PointerOver;
    use bevy::picking::pointer::{Location, PointerId, PointerLocation};

    let dir = assets("pointer");
    let mut app = app(&dir);
    app.init_resource::<Overs>();
    let fox = with_fox(&mut app);
    let spots = [Vec3::new(-90.0, 0.0, 0.0), Vec3::new(90.0, 0.0, 0.0)];
    let agents = agents_at(&mut app, &ThrongAgent::new(fox.clone()), &spots);
    for &agent in &agents {
        app.world_mut().entity_mut(agent).observe(
            |over: On<PointerOver>, mut overs: ResMut<Overs>| {
                let hit = throng_bevy::picking::throng_hit(&over.hit);
                overs.0.push((over.entity, hit));
            },
        );
    }
    app.update();
    // A pointer on the camera's target, over the second Fox's body.
    let cam = camera(&mut app);
    let world = app.world_mut();
    let (camera, transform, target) = world
        .query::<(&Camera, &GlobalTransform, &RenderTarget)>()
        .get(world, cam)
        .map(|(c, t, r)| (c.clone(), *t, r.clone()))
        .unwrap();
    let over = camera
        .world_to_viewport(&transform, spots[1] + Vec3::Y * 30.0)
        .unwrap();
    // Bevy 0.20's picking casts no ray at all without a primary window
    // (`Location::is_in_viewport`), even for a pointer on an image target:
    // mark one, which no window backs (the app has no winit).
    app.world_mut().spawn(bevy::window::PrimaryWindow);
    app.world_mut().spawn((
        PointerId::Custom(Uuid::from_u128(45)),
        PointerLocation::new(Location {
            target: target.normalize(None).unwrap(),
            position: over,
        }),
    ));
    for _ in 0..3 {
        app.update();
    }
    let overs = std::mem::take(&mut app.world_mut().resource_mut::<Overs>().0);
    println!("pointer at {over:?}: over {overs:?}");
    assert_eq!(overs.len(), 1, "one PointerOver event: {overs:?}");
    let (entity, hit) = overs[0];
    assert_eq!(entity, agents[1]);
    let hit = hit.expect("the backend's ThrongHit");
    assert_eq!(hit.agent, Some(agents[1]));
    assert_eq!(
        Some(hit.instance),
        app.world().get::<ThrongInstance>(agents[1]).map(|i| i.id)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
