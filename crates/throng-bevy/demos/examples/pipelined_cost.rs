//! `pipelined_cost`: what the crowd costs Bevy's main world with pipelined
//! rendering on (Bevy's default with `multi_threaded`: the render world
//! draws frame N on a thread of its own while the main world simulates
//! frame N+1). Per frame it times, on the main thread:
//! - the `Main` schedule (the game's systems and the plugin's
//!   `PostUpdate` work: agents moved, crowds advanced);
//! - the hand-over to the render thread: waiting for it to finish the
//!   previous frame, then Bevy's extract, during which the main world is
//!   held;
//! - of that extract, Throng's part (`ThrongStats`' `extract_time`);
//! - and, on the render thread, Throng's preparation
//!   (`ThrongStats`' `prepare_time`), which the main world no longer waits
//!   for.
//!
//! The main world's time per frame is the `Main` schedule plus the extract
//! (the wait is the render thread being slower: on a software rasteriser
//! it is most of the frame). The main world's schedules run
//! single-threaded, so that the `Main` schedule's time is the main world's
//! work on the main thread, not a wait for Bevy's compute pool, which the
//! render world uses too. Cases: `agents:N` (N `ThrongAgent` entities
//! whose `Transform`s a game system moves every frame) and `crowd:N` (N
//! Foxes in a `ThrongCrowd` playing their clips, nothing else touched). No
//! window: the camera draws into an image.
//!
//! ```text
//! cargo +1.97.1 run --release --manifest-path crates/throng-bevy/Cargo.toml \
//!     -p throng-bevy-demos --example pipelined_cost -- \
//!     [--cases agents:10000,agents:100000,crowd:100000] [--frames 30] [--shadows off|on]
//! ```

use std::time::{Duration, Instant};

use bevy::app::SubApps;
use bevy::camera::{ImageRenderTarget, RenderTarget};
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::prelude::*;
use bevy::render::render_resource::{TextureFormat, TextureUsages};
use throng_bevy::throng_crowd::crowd::Spawn;
use throng_bevy::{ThrongAgent, ThrongCrowd, ThrongModel, ThrongStats};

/// Metres between Foxes.
const SPACING: f32 = 2.0;
/// The Fox's glTF is in centimetres.
const SCALE: f32 = 0.01;
/// Frames after everything is loaded, before measuring.
const WARM_UP: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Agents,
    Crowd,
}

#[derive(Resource, Clone, Copy, Debug)]
struct Case {
    kind: Kind,
    count: usize,
    /// The light casts shadows (the crowd casts into and receives Bevy's
    /// cascades, `ThrongShadows`' default).
    shadows: bool,
}

#[derive(Resource)]
struct FoxModel(Handle<ThrongModel>);

/// Marks the moved agents, with their index.
#[derive(Component)]
struct Mover(usize);

fn spot(i: usize, n: usize, t: f32) -> Vec3 {
    let side = (n as f32).sqrt().ceil() as usize;
    let half = (side as f32 - 1.0) * SPACING * 0.5;
    Vec3::new(
        (i % side) as f32 * SPACING - half + (t + i as f32).sin() * 0.2,
        0.0,
        (i / side) as f32 * SPACING - half,
    )
}

fn scene(
    case: Res<Case>,
    mut commands: Commands,
    mut images: ResMut<Assets<Image>>,
    assets: Res<AssetServer>,
) {
    let mut image = Image::new_target_texture(640, 360, TextureFormat::Rgba8UnormSrgb, None);
    image.texture_descriptor.usage |= TextureUsages::COPY_SRC;
    let side = (case.count as f32).sqrt().ceil() * SPACING;
    commands.spawn((
        Camera3d::default(),
        RenderTarget::Image(ImageRenderTarget::from(images.add(image))),
        Tonemapping::None,
        Transform::from_xyz(side * 0.6, side * 0.35, side * 0.75).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight {
            shadow_maps_enabled: case.shadows,
            ..default()
        },
        Transform::from_xyz(-0.6, 0.9, 0.25).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    let fox = assets.load("fox.throng");
    match case.kind {
        Kind::Agents => {
            for i in 0..case.count {
                commands.spawn((
                    ThrongAgent {
                        start: i as f32 / 10.0,
                        ..ThrongAgent::new(fox.clone()).playing(2)
                    },
                    Transform::from_translation(spot(i, case.count, 0.0))
                        .with_scale(Vec3::splat(SCALE)),
                    Mover(i),
                ));
            }
        }
        Kind::Crowd => {
            commands.spawn(ThrongCrowd::default());
        }
    }
    commands.insert_resource(FoxModel(fox));
}

/// The game's system: every agent moved, every frame.
fn move_agents(case: Res<Case>, time: Res<Time>, mut q: Query<(&Mover, &mut Transform)>) {
    let t = time.elapsed_secs();
    for (m, mut tr) in &mut q {
        tr.translation = spot(m.0, case.count, t);
    }
}

/// The crowd case: the crowd spawned once the model is loaded.
fn populate(
    case: Res<Case>,
    fox: Res<FoxModel>,
    models: Res<Assets<ThrongModel>>,
    mut crowds: Query<&mut ThrongCrowd>,
) {
    let Ok(mut crowd) = crowds.single_mut() else {
        return;
    };
    if !crowd.crowd.is_empty() {
        return;
    }
    let Some(model) = crowd.add_model(&fox.0, &models) else {
        return;
    };
    for i in 0..case.count {
        let at = spot(i, case.count, 0.0);
        let spawn = Spawn {
            transform: glam::Mat4::from_scale_rotation_translation(
                glam::Vec3::splat(SCALE),
                glam::Quat::IDENTITY,
                glam::Vec3::new(at.x, at.y, at.z),
            ),
            clip: Some(2),
            time: i as f32 / 10.0,
            ..Spawn::default()
        };
        crowd.crowd.spawn(model, spawn).expect("a Fox spawns");
    }
}

/// The headless app with pipelined rendering on, and the case's scene.
fn app(dir: &std::path::Path, case: Case) -> App {
    let mut app = throng_bevy::headless::pipelined_app(dir).unwrap_or_else(|e| panic!("{e}"));
    app.insert_resource(case).add_systems(Startup, scene);
    match case.kind {
        Kind::Agents => app.add_systems(Update, move_agents),
        Kind::Crowd => app.add_systems(Update, populate),
    };
    single_threaded_main(&mut app);
    app
}

/// The main world's schedules run on the main thread alone, so that its
/// CPU time is the main world's work (Bevy's multi-threaded executor would
/// run systems on the compute pool, which the render world uses too).
fn single_threaded_main(app: &mut App) {
    let mut schedules = app.world_mut().resource_mut::<Schedules>();
    for (_, schedule) in schedules.iter_mut() {
        schedule.set_executor(bevy::ecs::schedule::SingleThreadedExecutor::new());
    }
}

/// One frame as `App::update` runs it, timed: the `Main` schedule, then
/// the hand-over to the render thread (its wait and Bevy's extract).
fn frame(app: &mut App) -> (Duration, Duration) {
    let SubApps { main, sub_apps } = app.sub_apps_mut();
    let t0 = Instant::now();
    main.run_default_schedule();
    let t1 = Instant::now();
    for sub in sub_apps.values_mut() {
        sub.extract(main.world_mut());
        sub.update();
    }
    let t2 = Instant::now();
    main.world_mut().clear_trackers();
    (t1 - t0, t2 - t1)
}

fn drawn(app: &App) -> usize {
    let stats = app.world().resource::<ThrongStats>().frame();
    stats.cameras.values().map(|s| s.instances as usize).sum()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn run(dir: &std::path::Path, case: Case, frames: usize) {
    let mut app = app(dir, case);
    let mut loading = 0;
    while drawn(&app) < case.count {
        frame(&mut app);
        loading += 1;
        assert!(loading < 600, "{case:?}: not drawn after 600 frames");
    }
    for _ in 0..WARM_UP {
        frame(&mut app);
    }
    let (mut main, mut handover, mut extract, mut prepare, mut whole) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..frames {
        let (m, h) = frame(&mut app);
        let stats = app.world().resource::<ThrongStats>().frame();
        main.push(m.as_secs_f64() * 1e3);
        handover.push(h.as_secs_f64() * 1e3);
        extract.push(stats.extract_time.as_secs_f64() * 1e3);
        prepare.push(stats.prepare_time.as_secs_f64() * 1e3);
        whole.push((m + h).as_secs_f64() * 1e3);
    }
    let kind = match (case.kind, case.shadows) {
        (Kind::Agents, false) => "agents moved by Transforms",
        (Kind::Crowd, false) => "a ThrongCrowd",
        (Kind::Agents, true) => "agents moved by Transforms, shadows both ways",
        (Kind::Crowd, true) => "a ThrongCrowd, shadows both ways",
    };
    let (m, x) = (median(&mut main), median(&mut extract));
    println!(
        "| {} {kind} | {m:.2} | {x:.2} | {:.2} | {:.2} | {:.2} | {:.1} |",
        case.count,
        m + x,
        median(&mut prepare),
        median(&mut handover),
        median(&mut whole)
    );
}

fn cases() -> Result<(Vec<Case>, usize), String> {
    let mut cases = vec![
        Case {
            kind: Kind::Agents,
            count: 10_000,
            shadows: false,
        },
        Case {
            kind: Kind::Agents,
            count: 100_000,
            shadows: false,
        },
        Case {
            kind: Kind::Crowd,
            count: 100_000,
            shadows: false,
        },
    ];
    let mut frames = 30;
    let mut shadows = false;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--frames" => {
                frames = value
                    .parse()
                    .ok()
                    .filter(|&f| f > 0)
                    .ok_or_else(|| format!("--frames: {value:?}"))?
            }
            "--cases" => {
                cases = value
                    .split(',')
                    .map(|c| {
                        let (kind, n) = c.split_once(':').ok_or(format!("{c:?}: KIND:COUNT"))?;
                        let kind = match kind {
                            "agents" => Kind::Agents,
                            "crowd" => Kind::Crowd,
                            _ => return Err(format!("{kind:?} is not agents or crowd")),
                        };
                        let count = n
                            .parse()
                            .ok()
                            .filter(|&n| n > 0)
                            .ok_or(format!("{n:?} is not a count"))?;
                        Ok(Case {
                            kind,
                            count,
                            shadows: false,
                        })
                    })
                    .collect::<Result<_, String>>()?
            }
            "--shadows" => {
                shadows = match value.as_str() {
                    "on" => true,
                    "off" => false,
                    _ => return Err(format!("--shadows: {value:?} is not on or off")),
                }
            }
            other => {
                return Err(format!(
                    "unknown flag {other} (--cases, --frames, --shadows)"
                ));
            }
        }
    }
    for c in &mut cases {
        c.shadows = shadows;
    }
    Ok((cases, frames))
}

fn main() {
    let (cases, frames) = throng_bevy_demos::flags_or_exit("pipelined_cost", cases());
    let dir = throng_bevy_demos::fox_assets("pipelined-cost", throng_bevy_demos::Chain::Lods);
    println!(
        "| case | Main schedule ms | Throng's extract ms | main world ms (the two) | Throng's prepare ms (render thread) | hand-over ms (wait + extract) | frame ms |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for case in cases {
        run(&dir, case, frames);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
