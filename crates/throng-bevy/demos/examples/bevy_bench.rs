//! `bevy_bench`: frame time of a Throng crowd in Bevy against Bevy's
//! own way of drawing many animated characters — one glTF scene and one
//! `AnimationPlayer` per Fox, as Bevy's `many_foxes` stress test does — at
//! the same counts, in the same scene (a ground plane, one directional
//! light, a camera over a grid of Foxes running), into an image target of
//! the same size, in one run. With shadows the light casts them: Bevy's
//! cascades for Bevy's Foxes; for the crowd, as `--shadows` says — `bevy`
//! (`on`, [`ThrongShadows`]' default: cast into and receive Bevy's
//! cascades), `own` (Throng's own map only: the crowd shadows itself),
//! `cast` (cast into Bevy's cascades only) or `own-cast` (cast into Bevy's,
//! receive Throng's own map); `all` runs off and each of them. With
//! `--prepass` the camera has Bevy's depth, normal and motion-vector
//! prepasses (what SSAO and TAA read), and the crowd is drawn there too.
//! Headless: each frame is `App::update` plus a wait for the GPU, so the
//! figure is the whole frame's wall time on whatever adapter wgpu finds.
//!
//! ```text
//! cargo +1.97.1 run --release --manifest-path crates/throng-bevy/Cargo.toml \
//!     -p throng-bevy-demos --example bevy_bench -- [--counts 1000,10000] [--frames 30] \
//!     [--size 640x360] [--shadows off|on|own|cast|bevy|own-cast|all] [--bevy-up-to 10000] \
//!     [--prepass]
//! ```

use std::path::Path;
use std::time::Instant;

use bevy::animation::AnimationPlayer;
use bevy::animation::graph::{AnimationGraph, AnimationGraphHandle, AnimationNodeIndex};
use bevy::camera::{ImageRenderTarget, RenderTarget};
use bevy::core_pipeline::prepass::{DepthPrepass, MotionVectorPrepass, NormalPrepass};
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::gltf::GltfAssetLabel;
use bevy::light::DirectionalLight;
use bevy::prelude::*;
use bevy::render::RenderApp;
use bevy::render::render_resource::{TextureFormat, TextureUsages};
use bevy::render::renderer::RenderDevice;
use bevy::world_serialization::{WorldAssetRoot, WorldInstanceReady};
use throng_bevy::throng_crowd::crowd::Spawn;
use throng_bevy::{ThrongCrowd, ThrongModel, ThrongReceive, ThrongShadows, ThrongStats};

/// Metres between Foxes in the grid.
const SPACING: f32 = 2.0;
/// The Fox's glTF is in centimetres.
const SCALE: f32 = 0.01;
/// Frames drawn after everything is loaded, before measuring.
const WARM_UP: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Approach {
    /// A `ThrongCrowd` drawn by `ThrongPlugin`.
    Throng,
    /// One `WorldAssetRoot` and `AnimationPlayer` per Fox.
    Bevy,
}

struct Args {
    counts: Vec<usize>,
    frames: usize,
    size: (u32, u32),
    /// Shadow settings to run.
    shadows: Vec<Shadows>,
    /// Bevy's per-Fox scenes are run up to this count only (they take
    /// minutes a frame past ten thousand on a software rasteriser).
    bevy_up_to: usize,
    /// The camera has Bevy's depth, normal and motion-vector prepasses.
    prepass: bool,
    /// Run this one case (the first count and shadow setting) with the
    /// assets in this folder, in this process: how the bench runs each
    /// case in a process of its own (winit makes one event loop a process).
    case: Option<(Approach, std::path::PathBuf)>,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        prepass: false,
        counts: vec![1000, 10_000],
        frames: 30,
        size: (640, 360),
        shadows: vec![Shadows::Off],
        bevy_up_to: usize::MAX,
        case: None,
    };
    let mut approach = None;
    let mut assets = None;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--prepass" {
            a.prepass = true;
            continue;
        }
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--counts" => {
                a.counts = value
                    .split(',')
                    .map(|c| {
                        c.trim()
                            .parse()
                            .map_err(|_| format!("--counts: {c:?} is not a count"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--frames" => a.frames = value.parse().map_err(|_| format!("--frames: {value:?}"))?,
            "--size" => {
                let (w, h) = value
                    .split_once('x')
                    .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
                    .filter(|&(w, h): &(u32, u32)| w > 0 && h > 0)
                    .ok_or_else(|| format!("--size: {value:?} is not WIDTHxHEIGHT"))?;
                a.size = (w, h);
            }
            "--case" => {
                approach = Some(match value.as_str() {
                    "throng" => Approach::Throng,
                    "bevy" => Approach::Bevy,
                    _ => return Err(format!("--case: {value:?} is not throng or bevy")),
                })
            }
            "--assets" => assets = Some(std::path::PathBuf::from(value)),
            "--bevy-up-to" => {
                a.bevy_up_to = value
                    .parse()
                    .map_err(|_| format!("--bevy-up-to: {value:?} is not a count"))?
            }
            "--shadows" => {
                a.shadows = match value.as_str() {
                    "all" => Shadows::ALL.to_vec(),
                    v => vec![Shadows::parse(v).ok_or_else(|| {
                        format!(
                            "--shadows: {value:?} is not off, on, own, cast, bevy, own-cast or all"
                        )
                    })?],
                }
            }
            other => {
                return Err(format!(
                    "unknown flag {other} (--counts, --frames, --size, --shadows, --bevy-up-to, --prepass)"
                ));
            }
        }
    }
    if a.frames == 0 || a.counts.contains(&0) {
        return Err("counts and frames must be positive".into());
    }
    a.case = match (approach, assets) {
        (Some(approach), Some(assets)) => Some((approach, assets)),
        (None, None) => None,
        _ => return Err("--case and --assets go together".into()),
    };
    Ok(a)
}

#[derive(Resource, Clone, Copy)]
struct Case {
    approach: Approach,
    count: usize,
    size: (u32, u32),
    /// The light's shadows.
    shadows: Shadows,
    /// The camera's prepasses (depth, normals, motion vectors).
    prepass: bool,
}

/// The light's shadows: none, or Bevy's cascades for Bevy's Foxes and,
/// for the crowd, one of [`ThrongShadows`]' choices.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Shadows {
    Off,
    /// Throng's own map only (the crowd shadows itself).
    Own,
    /// Cast into Bevy's cascades only (Bevy's ground shows the crowd's
    /// shadow; the crowd receives none).
    Cast,
    /// Cast into and receive Bevy's cascades: the default.
    Bevy,
    /// Cast into Bevy's cascades and receive Throng's own map.
    OwnCast,
}

impl Shadows {
    const ALL: [Shadows; 5] = [
        Shadows::Off,
        Shadows::Own,
        Shadows::Cast,
        Shadows::Bevy,
        Shadows::OwnCast,
    ];

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "on" => Shadows::Bevy,
            _ => *Self::ALL.iter().find(|m| m.name() == s)?,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Shadows::Off => "off",
            Shadows::Own => "own",
            Shadows::Cast => "cast",
            Shadows::Bevy => "bevy",
            Shadows::OwnCast => "own-cast",
        }
    }

    /// The crowd's shadows.
    fn throng(self) -> ThrongShadows {
        ThrongShadows {
            cast_into_bevy: matches!(self, Shadows::Cast | Shadows::Bevy | Shadows::OwnCast),
            receive: match self {
                Shadows::Own | Shadows::OwnCast => ThrongReceive::OwnMap,
                Shadows::Off | Shadows::Cast => ThrongReceive::None,
                Shadows::Bevy => ThrongReceive::BevyCascades,
            },
        }
    }
}

#[derive(Resource)]
struct Clips {
    nodes: Vec<AnimationNodeIndex>,
    graph: Handle<AnimationGraph>,
}

#[derive(Resource)]
struct FoxModel(Handle<ThrongModel>);

/// Where Fox `i` of `n` stands: a square grid around the origin.
fn spot(i: usize, n: usize) -> Vec3 {
    let side = (n as f32).sqrt().ceil() as usize;
    let half = (side as f32 - 1.0) * SPACING * 0.5;
    Vec3::new(
        (i % side) as f32 * SPACING - half,
        0.0,
        (i / side) as f32 * SPACING - half,
    )
}

fn scene(
    case: Res<Case>,
    mut commands: Commands,
    mut images: ResMut<Assets<Image>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut graphs: ResMut<Assets<AnimationGraph>>,
    assets: Res<AssetServer>,
) {
    let mut image = Image::new_target_texture(
        case.size.0,
        case.size.1,
        TextureFormat::Rgba8UnormSrgb,
        None,
    );
    image.texture_descriptor.usage |= TextureUsages::COPY_SRC;
    let side = (case.count as f32).sqrt().ceil() * SPACING;
    let mut camera = commands.spawn((
        Camera3d::default(),
        RenderTarget::Image(ImageRenderTarget::from(images.add(image))),
        // The default needs the `tonemapping_luts` feature; both cases alike.
        Tonemapping::None,
        Transform::from_xyz(side * 0.6, side * 0.35, side * 0.75).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    if case.prepass {
        camera.insert((DepthPrepass, NormalPrepass, MotionVectorPrepass));
    }
    commands.spawn((
        DirectionalLight {
            shadow_maps_enabled: case.shadows != Shadows::Off,
            ..default()
        },
        Transform::from_xyz(-0.6, 0.9, 0.25).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(side * 3.0, side * 3.0))),
        MeshMaterial3d(materials.add(Color::srgb(0.3, 0.5, 0.3))),
    ));
    match case.approach {
        Approach::Throng => {
            commands.insert_resource(FoxModel(assets.load("fox.throng")));
            commands.spawn(ThrongCrowd::default());
        }
        Approach::Bevy => {
            let clips =
                [2, 1, 0].map(|i| assets.load(GltfAssetLabel::Animation(i).from_asset("fox.glb")));
            let mut graph = AnimationGraph::new();
            let nodes = graph.add_clips(clips, 1.0, graph.root).collect();
            commands.insert_resource(Clips {
                nodes,
                graph: graphs.add(graph),
            });
            let fox = assets.load(GltfAssetLabel::Scene(0).from_asset("fox.glb"));
            for i in 0..case.count {
                commands
                    .spawn((
                        WorldAssetRoot(fox.clone()),
                        Transform::from_translation(spot(i, case.count))
                            .with_scale(Vec3::splat(SCALE)),
                    ))
                    .observe(play_once_loaded);
            }
        }
    }
}

/// Bevy's Foxes: start the run clip once a Fox's scene is in the world.
fn play_once_loaded(
    ready: On<WorldInstanceReady>,
    clips: Res<Clips>,
    mut commands: Commands,
    children: Query<&Children>,
    mut players: Query<&mut AnimationPlayer>,
) {
    for child in children.iter_descendants(ready.entity) {
        if let Ok(mut player) = players.get_mut(child) {
            player
                .play(clips.nodes[0])
                .repeat()
                .seek_to(ready.entity.index_u32() as f32 / 10.0);
            commands
                .entity(child)
                .insert(AnimationGraphHandle(clips.graph.clone()));
        }
    }
}

/// Throng's Foxes: spawn the crowd once the model is loaded.
fn populate(
    case: Res<Case>,
    fox: Option<Res<FoxModel>>,
    models: Res<Assets<ThrongModel>>,
    mut crowds: Query<&mut ThrongCrowd>,
) {
    let (Some(fox), Ok(mut crowd)) = (fox, crowds.single_mut()) else {
        return;
    };
    if !crowd.crowd.is_empty() {
        return;
    }
    let Some(model) = crowd.add_model(&fox.0, &models) else {
        return;
    };
    for i in 0..case.count {
        let at = spot(i, case.count);
        let transform = glam::Mat4::from_scale_rotation_translation(
            glam::Vec3::splat(SCALE),
            glam::Quat::IDENTITY,
            glam::Vec3::new(at.x, at.y, at.z),
        );
        let spawn = Spawn {
            transform,
            clip: Some(2),
            time: i as f32 / 10.0,
            ..Spawn::default()
        };
        crowd.crowd.spawn(model, spawn).expect("a Fox spawns");
    }
}

/// Everything the case draws is in the world.
fn ready(app: &mut App, case: Case) -> bool {
    let world = app.world_mut();
    match case.approach {
        Approach::Throng => world
            .query::<&ThrongCrowd>()
            .iter(world)
            .any(|c| c.crowd.len() == case.count),
        Approach::Bevy => {
            world
                .query_filtered::<(), (With<AnimationPlayer>, With<AnimationGraphHandle>)>()
                .iter(world)
                .count()
                == case.count
        }
    }
}

fn app(dir: &Path, case: Case) -> App {
    let mut app = throng_bevy::headless::app(dir).unwrap_or_else(|e| panic!("{e}"));
    app.insert_resource(case)
        .insert_resource(case.shadows.throng())
        .add_systems(Startup, scene)
        .add_systems(Update, populate);
    app
}

/// One frame, the GPU's work included.
fn frame(app: &mut App) {
    app.update();
    let device = app
        .sub_app(RenderApp)
        .world()
        .resource::<RenderDevice>()
        .clone();
    let _ = device
        .wgpu_device()
        .poll(throng_render::wgpu::PollType::wait_indefinitely());
}

/// Frame times (ms) of `case`, sorted, and the mean CPU time of Throng's
/// extract and render-world prepare (ms; 0 for Bevy's own Foxes).
fn measure(dir: &Path, case: Case, frames: usize) -> (Vec<f64>, f64) {
    let mut app = app(dir, case);
    let mut loading = 0;
    while !ready(&mut app, case) {
        frame(&mut app);
        loading += 1;
        assert!(
            loading < 600,
            "{:?} with {} Foxes: not loaded after 600 frames",
            case.approach,
            case.count
        );
    }
    for _ in 0..WARM_UP {
        frame(&mut app);
    }
    let mut prepare = 0.0;
    let mut ms: Vec<f64> = (0..frames)
        .map(|_| {
            let t = Instant::now();
            frame(&mut app);
            let stats = app.world().resource::<ThrongStats>().frame();
            prepare += (stats.extract_time + stats.prepare_time).as_secs_f64() * 1e3;
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    (ms, prepare / frames as f64)
}

/// Measures one case in this process and prints its row.
fn run_case(args: &Args, approach: Approach, dir: &Path) {
    let (count, shadows) = (args.counts[0], args.shadows[0]);
    let case = Case {
        approach,
        count,
        size: args.size,
        shadows,
        prepass: args.prepass,
    };
    let (ms, prepare) = measure(dir, case, args.frames);
    let mean = ms.iter().sum::<f64>() / ms.len() as f64;
    println!(
        "| {count} | {} | {}{} | {:.1} | {mean:.1} | {:.1} | {:.1} | {prepare:.2} | |",
        match approach {
            Approach::Throng => "ThrongCrowd (throng-bevy)",
            Approach::Bevy => "a scene + AnimationPlayer per Fox",
        },
        match approach {
            Approach::Throng => shadows.name(),
            Approach::Bevy if shadows == Shadows::Off => "off",
            Approach::Bevy => "on (Bevy's cascades)",
        },
        if args.prepass { " + prepass" } else { "" },
        ms[ms.len() / 2],
        ms[0],
        ms[ms.len() - 1]
    );
}

fn main() {
    let args = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bevy_bench: {e}");
            std::process::exit(2);
        }
    };
    if let Some((approach, dir)) = &args.case {
        run_case(&args, *approach, dir);
        return;
    }
    let dir = throng_bevy_demos::fox_assets("throng-bevy-bench", throng_bevy_demos::Chain::Bare);
    println!(
        "| Foxes | approach | shadows | median frame ms | mean | fastest | slowest | Throng's extract + prepare (CPU) ms | ({} frames at {}×{}) |",
        args.frames, args.size.0, args.size.1
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let me = std::env::current_exe().expect("the bench's own path");
    for &count in &args.counts {
        let mut bevy_shadowed = false;
        for &shadows in &args.shadows {
            for approach in ["throng", "bevy"] {
                if approach == "bevy" && count > args.bevy_up_to {
                    continue;
                }
                // Bevy's Foxes have one shadowed case, whatever the crowd's.
                if approach == "bevy" && shadows != Shadows::Off {
                    if bevy_shadowed {
                        continue;
                    }
                    bevy_shadowed = true;
                }
                // Each case in a process of its own: a build with Bevy's
                // window stack makes one winit event loop a process.
                let status = std::process::Command::new(&me)
                    .args(["--counts", &count.to_string()])
                    .args(["--frames", &args.frames.to_string()])
                    .args(["--size", &format!("{}x{}", args.size.0, args.size.1)])
                    .args(["--shadows", shadows.name()])
                    .args(["--case", approach])
                    .args(args.prepass.then_some("--prepass"))
                    .arg("--assets")
                    .arg(&dir)
                    .status()
                    .expect("the bench runs itself");
                if !status.success() {
                    eprintln!("bevy_bench: {approach} with {count} Foxes failed ({status})");
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
