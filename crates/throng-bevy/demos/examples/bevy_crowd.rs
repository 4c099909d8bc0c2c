//! `bevy_crowd`: the plaza. 10,000 Foxes cross a square in a Bevy window,
//! around a fountain and a ring of pillars, drawn by `ThrongPlugin` in
//! Bevy's own pass with Bevy's camera, light and HDR target, and a text
//! overlay with the frame rate and what the crowd drew.
//!
//! The crowd is steered on the GPU (`throng_bevy::steer`): the pillars and
//! the fountain are Bevy meshes with a `ThrongObstacle`, the four sides of
//! the square are `ThrongGoal`s (the layout of the viewer's plaza,
//! `throng_demo::plaza`), and every Fox walks to a side, stands a while
//! and leaves for another, around the obstacles and the others, its clip
//! following its speed (idle, walk, run). Each Fox has a tint of its own.
//! The light casts shadows through Bevy's cascades: the crowd casts into
//! them (Bevy's ground shows its shadows) and receives them, the pillars'
//! shadows falling on it (`ThrongShadows`' default).
//!
//! A left click promotes the Fox under the pointer (`throng_bevy::promote`):
//! it leaves the steered crowd as an agent standing where it was, and is
//! drawn by Bevy's own glTF Fox and `AnimationPlayer` (the game's to
//! drive from then on); the next click returns it to the crowd, steered to
//! a side again.
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
use throng_bevy::steer::field::ThrongGoalShape;
use throng_bevy::steer::walk_to;
use throng_bevy::throng_crowd::crowd::Spawn;
use throng_bevy::throng_crowd::navigation::Goal;
use throng_bevy::{
    ThrongAgent, ThrongCrowd, ThrongGoal, ThrongModel, ThrongObstacle, ThrongPicker, ThrongPlugin,
    ThrongPromote, ThrongPromoted, ThrongStats, ThrongSteered, ThrongSteeredPoses, ThrongSteering,
};
use throng_bevy_demos::{
    Ending, Overlay, flags_or_exit, ground, hdr_camera, overlay_text, quit_after, window_plugins,
};
use throng_demo::herd::Rng;
use throng_demo::plaza::Plaza;
use throng_render::simulation::navigate::navigate_params;

/// Model units (the Fox's glTF is in centimetres) between Foxes at spawn.
const SPACING: f32 = 150.0;

#[derive(Resource, Clone)]
struct Settings {
    count: usize,
    ending: Ending,
}

#[derive(Resource)]
struct Fox(Handle<ThrongModel>);

/// The Fox's glTF, for the promoted character (the demo's assets name it
/// `fox.glb`, not the file the bake recorded).
#[derive(Resource)]
struct FoxGltf(Handle<bevy::gltf::Gltf>);

/// The Fox a click promoted (its agent), or the one returning to the
/// crowd (steered again once demoted).
#[derive(Resource, Default)]
enum Promoted {
    #[default]
    None,
    Shown(Entity),
    Leaving(Entity),
}

/// The crowd is spawned and steered.
#[derive(Resource)]
struct Walking;

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
    commands.insert_resource(FoxGltf(assets.load("fox.glb")));
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

/// Spawns the crowd on a grid once the model is loaded, lays the plaza out
/// around it (obstacles as Bevy meshes, its four goals) and hands every Fox
/// to the GPU's steering.
fn populate(
    settings: Res<Settings>,
    fox: Res<Fox>,
    models: Res<Assets<ThrongModel>>,
    walking: Option<Res<Walking>>,
    crowd: Single<(Entity, &mut ThrongCrowd)>,
    (mut meshes, mut materials): (ResMut<Assets<Mesh>>, ResMut<Assets<StandardMaterial>>),
    mut commands: Commands,
) {
    let (crowd_entity, mut crowd) = crowd.into_inner();
    if walking.is_some() {
        return;
    }
    let Some(model) = crowd.add_model(&fox.0, &models) else {
        return;
    };
    let body = models.get(&fox.0).map_or(150.0, |m| {
        let b = m.0.model().bounds;
        (b.max - b.min).max_element()
    });
    let n = settings.count;
    let half = side(n) * 0.5;
    let plaza = match Plaza::around(glam::Vec2::ZERO, half, body) {
        Ok(p) => p,
        Err(e) => {
            error!("the plaza: {e}");
            return;
        }
    };
    let mut rng = Rng::new(7);
    let row = (n as f32).sqrt().ceil() as usize;
    for i in 0..n {
        let mut at = glam::Vec2::new(
            (i % row) as f32 * SPACING - half,
            (i / row) as f32 * SPACING - half,
        );
        // Not inside a pillar: pushed out to its edge and a body beyond.
        for p in &plaza.pillars {
            let c = glam::Vec2::new(p[0], p[1]);
            if at.distance(c) < p[2] + body {
                at = c + (at - c).normalize_or(glam::Vec2::X) * (p[2] + body);
            }
        }
        let spawn = Spawn {
            transform: glam::Mat4::from_translation(glam::Vec3::new(at.x, 0.0, at.y)),
            clip: Some(0),
            time: (i % 97) as f32 * 0.05,
            tint: glam::Vec4::new(
                rng.range(0.6, 1.0),
                rng.range(0.6, 1.0),
                rng.range(0.6, 1.0),
                1.0,
            ),
            ..Spawn::default()
        };
        let id = crowd.crowd.spawn(model, spawn);
        if let Err(e) = id.and_then(|id| crowd.crowd.set_motion(id, walk_to(i as u32 % 4))) {
            error!("spawning Fox {i}: {e}");
            return;
        }
    }
    lay_out(&plaza, &mut meshes, &mut materials, &mut commands);
    let params = throng_core::simulation::NavigateParams {
        dwell: 2.0,
        ..navigate_params(plaza.agent_radius, 1.15 * plaza.walk_speed)
    };
    commands.entity(crowd_entity).insert(ThrongSteering {
        params,
        area: (Vec2::splat(-plaza.half), Vec2::splat(plaza.half)),
        cell_size: plaza.grid.cell_size(),
        gaits: Some((plaza.walk_speed, 2.6 * plaza.walk_speed)),
        readback_every: 0,
    });
    commands.insert_resource(Walking);
}

/// The plaza's pillars and fountain as Bevy meshes that are obstacles, and
/// its four sides as goals.
fn lay_out(
    plaza: &Plaza,
    meshes: &mut Assets<Mesh>,
    materials: &mut Assets<StandardMaterial>,
    commands: &mut Commands,
) {
    let stone = materials.add(StandardMaterial {
        base_color: Color::srgb(0.72, 0.68, 0.6),
        perceptual_roughness: 0.9,
        ..default()
    });
    for &[x, z, radius, height] in &plaza.pillars {
        commands.spawn((
            Mesh3d(meshes.add(Cylinder::new(radius, height))),
            MeshMaterial3d(stone.clone()),
            Transform::from_xyz(x, height * 0.5, z),
            ThrongObstacle::Circle { radius },
        ));
    }
    for (layer, goal) in plaza.goals.iter().enumerate() {
        let Goal::Rect { min, max } = *goal else {
            continue;
        };
        let (centre, half) = ((min + max) * 0.5, (max - min) * 0.5);
        commands.spawn((
            ThrongGoal {
                layer: layer as u32,
                shape: ThrongGoalShape::Box(Vec2::new(half.x, half.y)),
            },
            Transform::from_xyz(centre.x, 0.0, centre.y),
        ));
    }
}

/// A left click on a steered Fox makes it an agent standing where the GPU
/// had it, playing the clip its speed asks for, and promotes it; the next
/// click demotes it.
#[allow(clippy::too_many_arguments)]
fn click(
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform), With<Camera3d>>,
    mut crowds: ParamSet<(ThrongPicker, Single<(Entity, &mut ThrongCrowd)>)>,
    poses: Res<ThrongSteeredPoses>,
    (fox, gltf): (Res<Fox>, Res<FoxGltf>),
    mut promoted: ResMut<Promoted>,
    mut commands: Commands,
) {
    if !buttons.just_pressed(MouseButton::Left) {
        return;
    }
    if let Promoted::Shown(agent) = *promoted {
        commands.entity(agent).remove::<ThrongPromote>();
        *promoted = Promoted::Leaving(agent);
        return;
    }
    let (camera, at) = *camera;
    let Some(ray) = window
        .cursor_position()
        .and_then(|c| camera.viewport_to_world(at, c).ok())
    else {
        return;
    };
    let Some(hit) = crowds.p0().cast(ray) else {
        return;
    };
    let (crowd_entity, mut crowd) = crowds.p1().into_inner();
    let Some(pose) = poses.crowd(crowd_entity).and_then(|p| p.get(hit.instance).copied()) else {
        return;
    };
    // Idle, walk or run, as the GPU's gaits choose by speed.
    let speed = pose.agent.map_or(0.0, |a| a.velocity.length());
    let clip = if speed < 20.0 { 0 } else if speed < 200.0 { 1 } else { 2 };
    let _ = crowd.crowd.despawn(hit.instance);
    let (_, rotation, translation) = pose.world.to_scale_rotation_translation();
    let agent = commands
        .spawn((
            ThrongAgent::new(fox.0.clone()).playing(clip).in_crowd(crowd_entity),
            Transform::from_translation(Vec3::from_array(translation.to_array()))
                .with_rotation(Quat::from_array(rotation.to_array())),
            ThrongPromote {
                gltf: Some(gltf.0.clone()),
            },
        ))
        .id();
    *promoted = Promoted::Shown(agent);
}

/// A demoted Fox walks on, steered to a side again.
fn walk_on(
    mut promoted: ResMut<Promoted>,
    agents: Query<(), With<ThrongPromoted>>,
    mut commands: Commands,
    mut goal: Local<u32>,
) {
    if let Promoted::Leaving(agent) = *promoted
        && !agents.contains(agent)
    {
        *goal = (*goal + 1) % 4;
        commands.entity(agent).insert(ThrongSteered::to(*goal));
        *promoted = Promoted::None;
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
        "{fps:.1} fps ({ms:.1} ms) | {} Foxes steered on the GPU | {} visible ({} as impostors) | {} draws | Throng's extract {:.2} ms, prepare {:.2} ms CPU",
        crowd.crowd.len(),
        drawn.visible,
        drawn.impostors,
        drawn.draws,
        frame.extract_time.as_secs_f64() * 1e3,
        frame.prepare_time.as_secs_f64() * 1e3,
    );
}

fn main() {
    let settings = flags_or_exit("bevy_crowd", settings());
    let dir = throng_bevy_demos::fox_assets("throng-bevy-crowd", throng_bevy_demos::Chain::Far);
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
        .init_resource::<Promoted>()
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (populate, click, walk_on, overlay, quit_after).chain(),
        )
        .run();
    let _ = std::fs::remove_dir_all(&dir);
}
