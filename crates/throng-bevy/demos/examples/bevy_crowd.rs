//! `bevy_crowd`: 10,000 Foxes walking on a plane in a Bevy window, drawn by
//! `ThrongPlugin` in Bevy's own pass with Bevy's camera, light and HDR
//! target, and a text overlay with the frame rate and what the crowd drew.
//!
//! Every Fox walks a wandering waypoint loop at its walk clip's
//! speed-matched playback (`throng_demo::walkers::Walkers`, as the
//! viewer's walking crowd): the motions are analytic, so the CPU re-targets
//! 1 % of the walkers a second and the crowd's per-frame cost is what a
//! standing crowd's is. The light casts shadows through Bevy's cascades:
//! the crowd casts into them (Bevy's ground shows its shadows) and
//! receives them (`ThrongShadows`' default).
//!
//! Controls are Bevy's `FreeCamera`: WASD and QE move, the mouse looks
//! while the right button is held (M toggles), shift runs, the wheel
//! changes speed.
//!
//! ```text
//! cargo +1.97.1 run --release --manifest-path crates/throng-bevy/Cargo.toml \
//!     -p throng-bevy-demos --example bevy_crowd -- [--count 10000] [--frames N]
//! ```
//!
//! `--frames N` quits after N frames and prints the overlay's last text,
//! and `--screenshot PATH` saves the window's picture ten frames before
//! (what a run under Xvfb checks).

use bevy::camera_controller::free_camera::{FreeCamera, FreeCameraPlugin};
use bevy::diagnostic::{DiagnosticsStore, FrameTimeDiagnosticsPlugin};
use bevy::light::DirectionalLight;
use bevy::prelude::*;
use throng_bevy::throng_crowd::crowd::Spawn;
use throng_bevy::{ThrongCrowd, ThrongModel, ThrongPlugin, ThrongStats};
use throng_bevy_demos::{
    Ending, Overlay, flags_or_exit, ground, hdr_camera, overlay_text, quit_after, window_plugins,
};
use throng_core::math::Aabb;
use throng_demo::walkers::Walkers;

/// Model units (the Fox's glTF is in centimetres) between Foxes at spawn.
const SPACING: f32 = 150.0;

#[derive(Resource, Clone)]
struct Settings {
    count: usize,
    ending: Ending,
}

#[derive(Resource)]
struct Fox(Handle<ThrongModel>);

/// The walkers, once the crowd is spawned.
#[derive(Resource)]
struct Walking(Walkers);

fn settings() -> Result<Settings, String> {
    let mut s = Settings {
        count: 10_000,
        ending: Ending {
            demo: "bevy_crowd",
            ..Ending::default()
        },
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        if flag == "--screenshot" {
            s.ending.screenshot = Some(value.into());
            continue;
        }
        let n: u64 = value
            .parse()
            .map_err(|_| format!("{flag}: {value:?} is not a count"))?;
        match flag.as_str() {
            "--count" if (1..=4_000_000).contains(&n) => s.count = n as usize,
            "--count" => return Err(format!("--count: {n} is not in 1..=4000000")),
            "--frames" if n > 0 => s.ending.frames = Some(n),
            "--frames" => return Err("--frames must be positive".into()),
            other => {
                return Err(format!(
                    "unknown flag {other} (--count, --frames, --screenshot)"
                ));
            }
        }
    }
    if s.ending.screenshot.is_some() && s.ending.frames.is_none_or(|n| n <= 10) {
        return Err("--screenshot needs --frames over 10".into());
    }
    Ok(s)
}

/// Side of the square the crowd starts in, model units.
fn side(count: usize) -> f32 {
    (count as f32).sqrt().ceil() * SPACING
}

fn setup(
    settings: Res<Settings>,
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    assets: Res<AssetServer>,
) {
    let side = side(settings.count);
    commands.insert_resource(Fox(assets.load("fox.throng")));
    commands.spawn(ThrongCrowd::default());
    commands.spawn((
        hdr_camera(),
        FreeCamera {
            walk_speed: 600.0,
            run_speed: 3000.0,
            ..default()
        },
        // At a person's eye height, at the crowd's edge, looking in.
        Transform::from_xyz(-side * 0.5 - 300.0, 170.0, side * 0.5 + 300.0)
            .looking_at(Vec3::new(0.0, 0.0, 0.0), Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 8_000.0,
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::from_xyz(-0.6, 0.9, 0.25).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.insert_resource(GlobalAmbientLight {
        color: Color::srgb(0.75, 0.85, 1.0),
        brightness: 800.0,
        ..default()
    });
    commands.insert_resource(ClearColor(Color::srgb(0.45, 0.6, 0.8)));
    commands.spawn(ground(side * 4.0, &mut meshes, &mut materials));
    commands.spawn(overlay_text("loading fox.throng…"));
}

/// Spawns the crowd on a grid once the model is loaded, and sets it
/// walking.
fn populate(
    settings: Res<Settings>,
    fox: Res<Fox>,
    models: Res<Assets<ThrongModel>>,
    walking: Option<Res<Walking>>,
    mut crowd: Single<&mut ThrongCrowd>,
    mut commands: Commands,
) {
    if walking.is_some() {
        return;
    }
    let Some(model) = crowd.add_model(&fox.0, &models) else {
        return;
    };
    let n = settings.count;
    let row = (n as f32).sqrt().ceil() as usize;
    let half = side(n) * 0.5;
    let mut bounds = Aabb::EMPTY;
    for i in 0..n {
        let at = glam::Vec3::new(
            (i % row) as f32 * SPACING - half,
            0.0,
            (i / row) as f32 * SPACING - half,
        );
        bounds.add_point(at);
        let spawn = Spawn {
            transform: glam::Mat4::from_translation(at),
            clip: Some(0),
            time: (i % 97) as f32 * 0.05,
            ..Spawn::default()
        };
        if let Err(e) = crowd.crowd.spawn(model, spawn) {
            error!("spawning Fox {i}: {e}");
            return;
        }
    }
    match Walkers::new(&mut crowd.crowd, model, &bounds, 100.0) {
        Ok(w) => commands.insert_resource(Walking(w)),
        Err(e) => error!("the crowd cannot walk: {e}"),
    }
}

/// Re-targets the walkers owed this frame.
fn walk(time: Res<Time>, walking: Option<ResMut<Walking>>, mut crowd: Single<&mut ThrongCrowd>) {
    if let Some(mut w) = walking
        && let Err(e) = w.0.step(&mut crowd.crowd, time.delta_secs())
    {
        error!("walking: {e}");
    }
}

/// The overlay: frame rate, crowd size, and what the camera drew.
fn overlay(
    diagnostics: Res<DiagnosticsStore>,
    stats: Res<ThrongStats>,
    camera: Single<Entity, With<Camera3d>>,
    crowd: Single<&ThrongCrowd>,
    mut text: Single<&mut Text, With<Overlay>>,
) {
    let fps = diagnostics
        .get(&FrameTimeDiagnosticsPlugin::FPS)
        .and_then(|d| d.smoothed())
        .unwrap_or(0.0);
    let ms = diagnostics
        .get(&FrameTimeDiagnosticsPlugin::FRAME_TIME)
        .and_then(|d| d.smoothed())
        .unwrap_or(0.0);
    let frame = stats.frame();
    let drawn = frame.cameras.get(&*camera).copied().unwrap_or_default();
    text.0 = format!(
        "{fps:.1} fps ({ms:.1} ms) | {} Foxes walking | {} visible ({} as impostors) | {} draws | Throng's prepare {:.2} ms CPU",
        crowd.crowd.len(),
        drawn.visible,
        drawn.impostors,
        drawn.draws,
        frame.prepare_time.as_secs_f64() * 1e3,
    );
}

fn main() {
    let settings = flags_or_exit("bevy_crowd", settings());
    let dir = throng_bevy_demos::fox_assets("throng-bevy-crowd", true);
    App::new()
        .add_plugins(window_plugins(
            &dir,
            format!("throng-bevy: {} Foxes", settings.count),
        ))
        .add_plugins((
            ThrongPlugin,
            FreeCameraPlugin,
            FrameTimeDiagnosticsPlugin::default(),
        ))
        .insert_resource(settings.ending.clone())
        .insert_resource(settings.clone())
        .add_systems(Startup, setup)
        .add_systems(Update, (populate, walk, overlay, quit_after).chain())
        .run();
    let _ = std::fs::remove_dir_all(&dir);
}
