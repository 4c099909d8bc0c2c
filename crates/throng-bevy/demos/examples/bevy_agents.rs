//! `bevy_agents`: Foxes as entities. Twelve `ThrongAgent`s walk a circle,
//! moved by their `Transform`s in a system of the game's own; the first
//! wears a hat — a Bevy cube parented to a `ThrongBone` that follows its
//! head; their footsteps (events baked onto the Walk clip) arrive as
//! `ThrongEvent` messages naming the agent; a click on a Fox reaches its
//! entity as Bevy's `PointerClick` (Throng's picking backend), and the Fox
//! switches between walking and running and turns red.
//!
//! ```text
//! cargo +1.97.1 run --release --manifest-path crates/throng-bevy/Cargo.toml \
//!     -p throng-bevy-demos --example bevy_agents -- [--frames N] [--screenshot PATH]
//! ```
//!
//! `--frames N` quits after N frames, having picked at frame 30 where the
//! hatted Fox is on screen with the plain ray cast (`ThrongPicker`), and prints what was picked and
//! heard; `--screenshot PATH` saves the window ten frames before.

use bevy::picking::events::PointerClick;
use bevy::prelude::*;
use throng_bevy::{
    ThrongAgent, ThrongBone, ThrongCrowd, ThrongEvent, ThrongInstance, ThrongModel, ThrongPicker,
    ThrongPlugin,
};
use throng_bevy_demos::{
    Ending, Overlay, flags_or_exit, ground, hdr_camera, overlay_text, quit_after, window_plugins,
};

/// Foxes on the circle, its radius (model units: the Fox's glTF is in
/// centimetres) and their pace around it (radians a second).
const FOXES: usize = 12;
const RADIUS: f32 = 400.0;
const PACE: f32 = 0.2;
/// The Fox's clips.
const WALK: usize = 1;
const RUN: usize = 2;
/// Footsteps on Walk and Run, baked into the Fox.
const STEPS: &str = r#"{"Walk": [{"time": 0.1, "name": "left"}, {"time": 0.45, "name": "right"}],
                        "Run": [{"time": 0.1, "name": "left"}, {"time": 0.35, "name": "right"}]}"#;

/// Where on the circle each agent is.
#[derive(Component)]
struct Walker {
    angle: f32,
    /// Its pace's factor (2 while running).
    pace: f32,
}

/// The agent with the hat.
#[derive(Component)]
struct Hatted;

/// What the overlay says: footsteps heard, the last pick.
#[derive(Resource, Default)]
struct Log {
    steps: u64,
    last_step: Option<(Entity, String)>,
    picked: Option<String>,
}

fn ending() -> Result<Ending, String> {
    let mut s = Ending {
        demo: "bevy_agents",
        ..Ending::default()
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--screenshot" => s.screenshot = Some(value.into()),
            "--frames" => match value.parse::<u64>() {
                Ok(n) if n > 30 => s.frames = Some(n),
                _ => return Err(format!("--frames: {value:?} is not a count over 30")),
            },
            other => return Err(format!("unknown flag {other} (--frames, --screenshot)")),
        }
    }
    if s.screenshot.is_some() && s.frames.is_none() {
        return Err("--screenshot needs --frames".into());
    }
    Ok(s)
}

fn setup(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    assets: Res<AssetServer>,
) {
    let fox: Handle<ThrongModel> = assets.load("fox.throng");
    commands.spawn((
        hdr_camera(),
        Transform::from_xyz(0.0, 520.0, 900.0).looking_at(Vec3::new(0.0, 40.0, 0.0), Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 6_000.0,
            ..default()
        },
        Transform::from_xyz(-0.6, 0.9, 0.25).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.insert_resource(GlobalAmbientLight {
        color: Color::srgb(0.75, 0.85, 1.0),
        brightness: 600.0,
        ..default()
    });
    commands.spawn(ground(3000.0, &mut meshes, &mut materials));
    let hat = (
        Mesh3d(meshes.add(Cuboid::new(14.0, 14.0, 14.0))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::srgb(0.9, 0.75, 0.1),
            ..default()
        })),
    );
    for i in 0..FOXES {
        let angle = i as f32 / FOXES as f32 * std::f32::consts::TAU;
        let agent = commands
            .spawn((
                ThrongAgent::new(fox.clone())
                    .playing(WALK)
                    .starting_at(i as f32 * 0.13),
                Walker { angle, pace: 1.0 },
                place(angle),
            ))
            .observe(clicked)
            .id();
        if i == 0 {
            commands.entity(agent).insert(Hatted);
            // The hat rides the head: a child of the bone, a little above it.
            commands
                .spawn((ThrongBone::new("b_Head_05"), ChildOf(agent)))
                .with_child((hat.clone(), Transform::from_xyz(0.0, 14.0, 4.0)));
        }
    }
    commands.spawn(overlay_text(""));
}

/// On the circle at `angle`, facing along it.
fn place(angle: f32) -> Transform {
    let at = Vec3::new(angle.cos(), 0.0, angle.sin()) * RADIUS;
    let ahead = Vec3::new(-angle.sin(), 0.0, angle.cos());
    Transform::from_translation(at).looking_to(-ahead, Vec3::Y)
}

/// The game's own movement: each agent's `Transform`, every frame.
fn walk(time: Res<Time>, mut walkers: Query<(&mut Walker, &mut Transform)>) {
    for (mut w, mut t) in &mut walkers {
        w.angle += PACE * w.pace * time.delta_secs();
        *t = place(w.angle);
    }
}

/// Footsteps, as messages naming the agent.
fn listen(
    mut steps: MessageReader<ThrongEvent>,
    crowds: Query<&ThrongCrowd>,
    mut log: ResMut<Log>,
) {
    for e in steps.read() {
        log.steps += u64::from(e.event.count);
        if let (Some(agent), Ok(c)) = (e.agent, crowds.get(e.crowd)) {
            log.last_step = Some((agent, e.name(c).unwrap_or("?").to_string()));
        }
    }
}

/// A Fox to switch between walking and running (and paint).
#[derive(Message, Clone, Copy)]
struct Toggle {
    agent: Entity,
    distance: f32,
}

/// Bevy's picking reports a click on a Fox to its entity (Throng's picking
/// backend casts the pointer's ray against the crowd's posed bounds).
fn clicked(click: On<PointerClick>, mut toggles: MessageWriter<Toggle>) {
    toggles.write(Toggle {
        agent: click.entity,
        distance: click.hit.depth,
    });
}

/// With `--frames`, frame 30 picks where the hatted Fox is on screen, as a
/// click there would, with the plain ray cast (`ThrongPicker`).
fn scripted_pick(
    ending: Res<Ending>,
    mut frame: Local<u64>,
    camera: Single<(&Camera, &GlobalTransform)>,
    picker: ThrongPicker,
    hatted: Single<&Transform, With<Hatted>>,
    mut toggles: MessageWriter<Toggle>,
    mut log: ResMut<Log>,
) {
    *frame += 1;
    if ending.frames.is_none() || *frame != 30 {
        return;
    }
    let (camera, transform) = *camera;
    let aim = hatted.translation + Vec3::Y * 30.0;
    let Some(ray) = camera
        .world_to_viewport(transform, aim)
        .and_then(|at| camera.viewport_to_world(transform, at))
        .ok()
    else {
        return;
    };
    match picker
        .cast(ray)
        .and_then(|hit| Some((hit.agent?, hit.distance)))
    {
        Some((agent, distance)) => {
            toggles.write(Toggle { agent, distance });
        }
        None => log.picked = Some("the scripted pick missed".into()),
    }
}

/// A picked Fox runs, or walks again, and turns red (or back).
fn toggle(
    mut toggles: MessageReader<Toggle>,
    mut agents: Query<(&mut ThrongAgent, &mut Walker, &ThrongInstance)>,
    mut crowds: Query<&mut ThrongCrowd>,
    mut log: ResMut<Log>,
) {
    for t in toggles.read() {
        let Ok((mut agent, mut walker, instance)) = agents.get_mut(t.agent) else {
            continue;
        };
        let running = agent.clip == Some(RUN);
        agent.clip = Some(if running { WALK } else { RUN });
        walker.pace = if running { 1.0 } else { 2.0 };
        if let Ok(mut c) = crowds.get_mut(instance.crowd) {
            let tint = if running {
                glam::Vec4::ONE
            } else {
                glam::Vec4::new(1.0, 0.35, 0.3, 1.0)
            };
            let _ = c.crowd.set_tint(instance.id, tint);
        }
        log.picked = Some(format!(
            "agent {} at {:.0} units: now {}",
            t.agent,
            t.distance,
            if running { "walking" } else { "running" }
        ));
    }
}

fn overlay(log: Res<Log>, mut text: Single<&mut Text, With<Overlay>>) {
    text.0 = format!(
        "{FOXES} agents | footsteps heard: {} (last: {}) | click a Fox: {}",
        log.steps,
        log.last_step
            .as_ref()
            .map_or("none".to_string(), |(a, n)| format!("{n} of {a}")),
        log.picked.as_deref().unwrap_or("not yet"),
    );
}

fn main() {
    let ending = flags_or_exit("bevy_agents", ending());
    let dir = throng_bevy_demos::fox_assets_with("throng-bevy-agents", throng_bevy_demos::Chain::Lods, Some(STEPS));
    App::new()
        .add_plugins(window_plugins(&dir, "throng-bevy: agents".into()))
        .add_plugins(ThrongPlugin)
        .insert_resource(ending)
        .init_resource::<Log>()
        .add_systems(Startup, setup)
        .add_message::<Toggle>()
        .add_systems(
            Update,
            (walk, listen, scripted_pick, toggle, overlay, quit_after).chain(),
        )
        .run();
    let _ = std::fs::remove_dir_all(&dir);
}
