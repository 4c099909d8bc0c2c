//! Bevy renders a scene into an image target on whatever adapter wgpu finds
//! (lavapipe in CI; llvmpipe GL with `WGPU_BACKEND=gl`): a ground plane of
//! Bevy's own (a `StandardMaterial` mesh) and a Throng crowd of Foxes loaded
//! through the asset server.
//!
//! - The crowd's pixels equal Throng's own renderer's picture of the same
//!   crowd from the same camera and light, within the golden tolerances.
//! - A Fox buried under the ground, in full view of the camera were the
//!   ground not there, changes nothing in the picture: the crowd is tested
//!   against Bevy's depth buffer.
//! - A corrupt `.throng` asset is a Bevy asset error carrying Throng's
//!   message, and a crowd with no camera draws nothing without error.
//! - With `ThrongCameras::Marked`, a camera draws the crowd only once it is
//!   marked `ThrongCamera`.
//!
//! The tests, by module: `pictures` (the crowd against Throng's picture,
//! unshadowed, buried, shadowed and fogged), `pipelined` (what the
//! extract copies, and the picture with pipelined rendering), `steering`
//! (GPU steering around obstacles, fields swapped at run time, poses read
//! back),
//! `transparency` (alpha-blended
//! Foxes among Bevy's transparent meshes) and `cameras` (prepasses and
//! deferred shading, a corrupt asset, no camera, marked cameras). This file
//! holds the scene, the app, the screenshot and Throng's own picture that
//! they share.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use bevy::camera::{Camera, ImageRenderTarget, RenderTarget};
use bevy::core_pipeline::tonemapping::{DebandDither, Tonemapping};
use bevy::image::Image;
use bevy::light::{DirectionalLight, GlobalAmbientLight};
use bevy::pbr::DistanceFog;
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use bevy::render::view::Msaa;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use throng_bevy::headless::loaded_model;
use throng_bevy::{ThrongCrowd, ThrongModel, convert};
use throng_crowd::crowd::{Crowd, ModelId, Spawn};
use throng_render::image_diff::{self, diff};
use throng_render::{GpuModel, Offscreen, Renderer, RendererOptions};

mod agents;
mod cameras;
mod pictures;
mod pipelined;
mod prepass;
mod promote;
mod shadows;
mod steering;
mod transparency;

const SIZE: (u32, u32) = (256, 160);
/// The clear colour, sRGB.
const CLEAR: (f32, f32, f32) = (0.30, 0.40, 0.52);

/// Two footsteps a loop of Walk (clip 1), in the baked Fox.
const WALK_EVENTS: &str =
    r#"{"Walk": [{"time": 0.1, "name": "left"}, {"time": 0.45, "name": "right"}]}"#;

/// A scratch folder of test `test` holding the Fox baked by this build, and
/// a corrupt file (each test its own: a test removes its folder when done,
/// while another may still be loading from its own).
fn assets(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("throng-bevy-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fox = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/khronos_Fox.glb");
    // Footsteps on Walk, for the agents' events.
    let events = dir.join("fox.events.json");
    std::fs::write(&events, WALK_EVENTS).unwrap();
    let opts = throng_bake::BakeOptions {
        lod_ratios: Vec::new(),
        events_file: Some(events),
        ..throng_bake::BakeOptions::default()
    };
    let (model, _) = throng_bake::bake_file(&fox, &opts, &|_, _| {}).unwrap();
    throng_core::format::write_file(&model, &dir.join("fox.throng")).unwrap();
    std::fs::write(dir.join("broken.throng"), b"\x89THRONG\nnot really").unwrap();
    dir
}

/// Where each Fox stands: five on the ground, and the buried one.
fn foxes() -> Vec<(glam::Vec3, usize, f32)> {
    (0..5)
        .map(|i| {
            (
                glam::Vec3::new(i as f32 * 70.0 - 140.0, 0.0, -60.0),
                i % 3,
                0.2 * i as f32,
            )
        })
        .collect()
}

/// Three times a Fox's size, its head 100 units under the ground, and in
/// the camera's view were the ground not there.
const BURIED: glam::Vec3 = glam::Vec3::new(0.0, -400.0, -320.0);
const BURIED_SCALE: f32 = 3.0;

/// Where a Fox of scale `s` at `at` stands (the buried one is the only
/// Fox below the ground).
fn placed(at: glam::Vec3) -> glam::Mat4 {
    let s = if at.y < 0.0 { BURIED_SCALE } else { 1.0 };
    glam::Mat4::from_scale_rotation_translation(glam::Vec3::splat(s), glam::Quat::IDENTITY, at)
}

fn spawn(crowd: &mut Crowd, model: ModelId, at: glam::Vec3, clip: usize, time: f32) {
    crowd
        .spawn(
            model,
            Spawn {
                transform: placed(at),
                clip: Some(clip),
                time,
                ..Spawn::default()
            },
        )
        .unwrap();
}

#[derive(Resource, Clone, Default)]
struct Captured(Arc<Mutex<Option<Image>>>);

#[derive(Resource)]
struct Target(Handle<Image>);

fn app(dir: &Path) -> App {
    let mut app = throng_bevy::headless::app(dir).unwrap_or_else(|e| panic!("{e}"));
    app_settings(&mut app);
    app
}

/// The tests' clear colour, ambient light and screenshot slot; says which
/// adapter Bevy renders on.
fn app_settings(app: &mut App) {
    app.insert_resource(ClearColor(Color::srgb(CLEAR.0, CLEAR.1, CLEAR.2)))
        .insert_resource(GlobalAmbientLight {
            color: Color::WHITE,
            brightness: 300.0,
            ..default()
        })
        .init_resource::<Captured>();
    let info = app
        .world()
        .resource::<bevy::render::renderer::RenderAdapterInfo>()
        .clone();
    eprintln!("Bevy renders on {} ({:?})", info.name, info.backend);
}

fn scene(
    mut commands: Commands,
    mut images: ResMut<Assets<Image>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let mut image = Image::new_target_texture(SIZE.0, SIZE.1, TextureFormat::Rgba8UnormSrgb, None);
    image.texture_descriptor.usage |= bevy::render::render_resource::TextureUsages::COPY_SRC;
    let target = images.add(image);
    commands.insert_resource(Target(target.clone()));
    commands.spawn((
        Camera3d::default(),
        RenderTarget::Image(ImageRenderTarget::from(target)),
        Tonemapping::None,
        DebandDither::Disabled,
        Msaa::Off,
        Transform::from_xyz(0.0, 170.0, 420.0).looking_at(Vec3::new(0.0, 20.0, 0.0), Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 3000.0,
            shadow_maps_enabled: false,
            ..default()
        },
        Transform::from_xyz(-0.6, 0.9, 0.25).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(3000.0, 3000.0))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::srgb(0.35, 0.45, 0.30),
            perceptual_roughness: 1.0,
            ..default()
        })),
        Transform::from_xyz(0.0, -0.5, 0.0),
    ));
    commands.spawn(ThrongCrowd {
        manual_time: true,
        ..default()
    });
}

/// A few frames, for a change to reach the picture.
fn settle(app: &mut App) {
    for _ in 0..3 {
        app.update();
    }
}

/// The scene's 3D camera.
fn camera(app: &mut App) -> Entity {
    let world = app.world_mut();
    world
        .query_filtered::<Entity, With<Camera3d>>()
        .single(world)
        .unwrap()
}

/// Runs frames until `done` or a frame limit.
fn run_until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    for _ in 0..600 {
        app.update();
        if done(app) {
            return;
        }
    }
    panic!("{what}: not after 600 frames");
}

/// A screenshot of the camera's target, a few frames after asking.
fn capture(app: &mut App) -> image::RgbaImage {
    let captured = app.world().resource::<Captured>().clone();
    *captured.0.lock().unwrap() = None;
    let target = app.world().resource::<Target>().0.clone();
    let sink = captured.clone();
    app.world_mut().spawn(Screenshot::image(target)).observe(
        move |shot: On<ScreenshotCaptured>| {
            *sink.0.lock().unwrap() = Some(shot.image.clone());
        },
    );
    run_until(app, "the screenshot", |_| {
        captured.0.lock().unwrap().is_some()
    });
    let image = captured.0.lock().unwrap().take().unwrap();
    let bytes = image.data.expect("the screenshot has its pixels");
    image::RgbaImage::from_raw(SIZE.0, SIZE.1, bytes)
        .expect("an RGBA8 picture of the target's size")
}

/// Throng's own picture of `spots` from the Bevy camera, with the mapped
/// light: what the crowd's pixels in Bevy's picture must be.
fn throng_picture(
    app: &mut App,
    model: &throng_crowd::crowd::ModelHandle,
    spots: &[(glam::Vec3, usize, f32)],
    shadows: bool,
) -> image::RgbaImage {
    // A GPU test fails without an adapter, never skips (as
    // throng_tests::require_gpu, which this workspace does not depend on).
    let gpu = throng_render::Gpu::headless().unwrap_or_else(|e| {
        panic!("throng-bevy headless: this GPU test needs an adapter and found none ({e})")
    });
    let world = app.world_mut();
    let (camera, transform, fog) = world
        .query::<(&Camera, &GlobalTransform, Option<&DistanceFog>)>()
        .single(world)
        .map(|(c, t, f)| (c.clone(), *t, f.cloned()))
        .unwrap();
    let light = world
        .query::<(&DirectionalLight, &GlobalTransform)>()
        .single(world)
        .map(|(l, t)| (*l, *t))
        .unwrap();
    let ambient = world.resource::<GlobalAmbientLight>().clone();
    let lighting = convert::lighting(
        Some((&light.0, &light.1)),
        Some(&ambient),
        None,
        fog.as_ref(),
    );
    let shadows = shadows
        .then(|| convert::shadows(Some((&light.0, &light.1)), None))
        .flatten();
    let clear = Color::srgb(CLEAR.0, CLEAR.1, CLEAR.2).to_linear();
    let options = RendererOptions {
        clear_color: throng_render::wgpu::Color {
            r: clear.red as f64,
            g: clear.green as f64,
            b: clear.blue as f64,
            a: 1.0,
        },
        ..throng_bevy::prepare::renderer_options(1, lighting, shadows)
    };
    let mut renderer = Renderer::headless(&gpu, options).unwrap();
    let gpu_model = GpuModel::upload(&gpu.device, &gpu.queue, model).unwrap();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(model);
    for &(at, clip, time) in spots {
        spawn(&mut crowd, m, at, clip, time);
    }
    crowd.update(0.0);
    let target = Offscreen::new(&gpu.device, SIZE).unwrap();
    let cam = convert::camera(
        &camera,
        &transform,
        Some(&Projection::Perspective(PerspectiveProjection::default())),
    );
    renderer
        .render(&target.view, SIZE, &cam, &[&crowd], &[&gpu_model])
        .unwrap();
    target.read(&gpu.device, &gpu.queue).unwrap()
}

/// The scene (its crowd empty) with the Fox loaded; the Fox's asset.
fn with_fox(app: &mut App) -> Handle<ThrongModel> {
    app.add_systems(Startup, scene);
    app.update();
    let fox: Handle<ThrongModel> = app.world().resource::<AssetServer>().load("fox.throng");
    run_until(app, "loading fox.throng", |app| {
        loaded_model(app, &fox).is_some()
    });
    fox
}

/// The scene with the five Foxes standing; the Fox's handle.
fn standing(app: &mut App) -> throng_crowd::crowd::ModelHandle {
    let fox = with_fox(app);
    let handle = loaded_model(app, &fox).unwrap();
    let world = app.world_mut();
    let mut q = world.query::<&mut ThrongCrowd>();
    let mut c = q.single_mut(world).unwrap();
    let m = c.crowd.add_model(&handle);
    for &(at, clip, time) in &foxes() {
        spawn(&mut c.crowd, m, at, clip, time);
    }
    c.crowd.update(0.0);
    handle
}

/// Bevy's picture with Throng's crowd pixels (those of `throng` that are
/// not its background) pasted over it, and how many were pasted.
fn composite(bevy: &image::RgbaImage, throng: &image::RgbaImage) -> (image::RgbaImage, usize) {
    let background = throng.get_pixel(0, 0).0;
    let mut out = bevy.clone();
    let mut covered = 0;
    for (x, y, p) in throng.enumerate_pixels() {
        if p.0 != background {
            out.put_pixel(x, y, *p);
            covered += 1;
        }
    }
    (out, covered)
}

/// The crowd's pixels of Bevy's picture `bevy` are Throng's picture
/// `throng` (drawn over a plain background) within the golden tolerance;
/// returns how many pixels the crowd covers.
fn assert_crowd_matches(
    bevy: &image::RgbaImage,
    throng: &image::RgbaImage,
    dir: &Path,
    what: &str,
) -> usize {
    let (expected, covered) = composite(bevy, throng);
    let d = diff(&expected, bevy);
    println!(
        "{what} crowd in Bevy vs Throng's own: {covered} crowd pixels, {} differ by more than {} levels, mean {:.4}, worst {} at ({}, {})",
        d.differing,
        image_diff::PIXEL_LEVEL_TOLERANCE,
        d.mean,
        d.worst.2,
        d.worst.0,
        d.worst.1
    );
    let _ = bevy.save(dir.join(format!("bevy-{what}.png")));
    let _ = throng.save(dir.join(format!("throng-{what}.png")));
    assert!(
        covered > 1000,
        "Throng's picture shows the crowd ({covered} pixels)"
    );
    assert!(
        d.within_tolerance((SIZE.0 * SIZE.1) as usize),
        "the {what} crowd in Bevy's pass is not Throng's picture (see {})",
        dir.display()
    );
    covered
}

/// The README's Bevy example is the crate docs' first (what docs.rs and
/// the repository show a Bevy user are the same, compiled lines).
#[test]
fn the_readme_example_is_the_crate_docs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("../../README.md")).unwrap();
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let section = &readme[readme.find("## Bevy").expect("README's Bevy section")..];
    let start = section.find("```rust\n").expect("its example") + 8;
    let example = &section[start..start + section[start..].find("```").unwrap()];
    let docs: String = lib
        .lines()
        .skip_while(|l| !l.starts_with("//! ```no_run"))
        .skip(1)
        .take_while(|l| !l.starts_with("//! ```"))
        .map(|l| {
            format!(
                "{}\n",
                l.trim_start_matches("//!").strip_prefix(' ').unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        example, docs,
        "README.md's Bevy example and src/lib.rs's differ"
    );
}
