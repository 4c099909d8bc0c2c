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

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use bevy::asset::LoadState;
use bevy::camera::{Camera, ImageRenderTarget, RenderTarget};
use bevy::core_pipeline::core_3d::Transparent3d;
use bevy::core_pipeline::tonemapping::{DebandDither, Tonemapping};
use bevy::image::Image;
use bevy::light::{DirectionalLight, GlobalAmbientLight};
use bevy::pbr::{DistanceFog, FogFalloff};
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use bevy::render::view::Msaa;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use throng_bevy::{ThrongCamera, ThrongCameras, ThrongCrowd, ThrongModel, convert};
use throng_crowd::crowd::{Crowd, ModelId, Spawn};
use throng_render::image_diff::{self, diff};
use throng_render::{GpuModel, Offscreen, Renderer, RendererOptions};

const SIZE: (u32, u32) = (256, 160);
/// The clear colour, sRGB.
const CLEAR: (f32, f32, f32) = (0.30, 0.40, 0.52);

/// A scratch folder of test `test` holding the Fox baked by this build, and
/// a corrupt file (each test its own: a test removes its folder when done,
/// while another may still be loading from its own).
fn assets(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("throng-bevy-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fox = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/khronos_Fox.glb");
    let opts = throng_bake::BakeOptions {
        lod_ratios: Vec::new(),
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
    app.insert_resource(ClearColor(Color::srgb(CLEAR.0, CLEAR.1, CLEAR.2)))
        .insert_resource(GlobalAmbientLight {
            color: Color::WHITE,
            brightness: 300.0,
            ..default()
        })
        .init_resource::<Captured>();
    let info = app
        .sub_app(bevy::render::RenderApp)
        .world()
        .resource::<bevy::render::renderer::RenderAdapterInfo>()
        .clone();
    eprintln!("Bevy renders on {} ({:?})", info.name, info.backend);
    app
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
    let gpu = throng_render::require_gpu("throng-bevy headless");
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

/// The scene with the five Foxes standing; the Fox's handle.
fn standing(app: &mut App) -> throng_crowd::crowd::ModelHandle {
    app.add_systems(Startup, scene);
    app.update();
    let fox: Handle<ThrongModel> = app.world().resource::<AssetServer>().load("fox.throng");
    run_until(app, "loading fox.throng", |app| {
        app.world()
            .resource::<Assets<ThrongModel>>()
            .get(&fox)
            .is_some()
    });
    let handle = app
        .world()
        .resource::<Assets<ThrongModel>>()
        .get(&fox)
        .unwrap()
        .0
        .clone();
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

#[test]
fn a_crowd_in_bevys_pass_matches_throngs_picture_and_is_hidden_by_bevys_ground() {
    let dir = assets("pass");
    let mut app = app(&dir);
    let handle = standing(&mut app);
    let spots = foxes();
    settle(&mut app);
    let ground = capture(&mut app);
    let throng = throng_picture(&mut app, &handle, &spots, false);
    let background = throng.get_pixel(0, 0).0;
    assert_crowd_matches(&ground, &throng, &dir, "unshadowed");

    // The buried Fox: in view without the ground, hidden by it.
    let buried = throng_picture(&mut app, &handle, &[(BURIED, 0, 0.0)], false);
    let hidden = buried.pixels().filter(|p| p.0 != background).count();
    {
        let world = app.world_mut();
        let mut q = world.query::<&mut ThrongCrowd>();
        let mut c = q.single_mut(world).unwrap();
        let m = c.crowd.add_model(&handle);
        spawn(&mut c.crowd, m, BURIED, 0, 0.0);
        c.crowd.update(0.0);
    }
    let with_buried = capture(&mut app);
    let d = diff(&ground, &with_buried);
    println!(
        "a buried Fox of {hidden} pixels in view: {} pixels of Bevy's picture changed",
        d.differing
    );
    assert!(
        // Twice what the tolerance lets differ: drawn over the ground, it
        // would fail the comparison below.
        hidden as f64 > 2.0 * image_diff::MAX_DIFFERING_FRACTION * (SIZE.0 * SIZE.1) as f64,
        "the buried Fox would cover {hidden} pixels without the ground"
    );
    assert!(
        d.within_tolerance((SIZE.0 * SIZE.1) as usize),
        "the buried Fox shows through Bevy's ground: {} pixels changed",
        d.differing
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_shadow_casting_light_shadows_the_crowd_as_throng_does() {
    let dir = assets("shadow");
    let mut app = app(&dir);
    let handle = standing(&mut app);
    let world = app.world_mut();
    let mut lights = world.query::<&mut DirectionalLight>();
    lights.single_mut(world).unwrap().shadow_maps_enabled = true;
    settle(&mut app);
    let shadowed = capture(&mut app);
    let spots = foxes();
    let throng = throng_picture(&mut app, &handle, &spots, true);
    assert_crowd_matches(&shadowed, &throng, &dir, "shadowed");
    // The shadows are in Bevy's picture: its crowd is not the unshadowed
    // one (the Foxes shadow their own legs and flanks, and each other).
    let unshadowed = throng_picture(&mut app, &handle, &spots, false);
    let d = diff(&composite(&shadowed, &unshadowed).0, &shadowed);
    println!(
        "Bevy's shadowed crowd vs Throng's unshadowed: {} pixels differ by more than {} levels",
        d.differing,
        image_diff::PIXEL_LEVEL_TOLERANCE
    );
    assert!(
        d.differing >= 50,
        "the crowd in Bevy is not shadowed: only {} pixels differ from the unshadowed crowd",
        d.differing
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_cameras_distance_fog_fogs_the_crowd_as_bevys_formulas_do() {
    let dir = assets("fog");
    let mut app = app(&dir);
    let handle = standing(&mut app);
    let spots = foxes();
    settle(&mut app);
    let clear = throng_picture(&mut app, &handle, &spots, false);
    let camera = camera(&mut app);
    let world = app.world_mut();
    // About half the way to the fog's colour at the Foxes' distance, with
    // the sun's glow scattered into it.
    world.entity_mut(camera).insert(DistanceFog {
        color: Color::srgb(0.55, 0.6, 0.7),
        directional_light_color: Color::srgba(1.0, 0.9, 0.7, 0.5),
        directional_light_exponent: 10.0,
        falloff: FogFalloff::Exponential { density: 0.0015 },
    });
    settle(&mut app);
    let fogged = capture(&mut app);
    let throng = throng_picture(&mut app, &handle, &spots, false);
    assert_crowd_matches(&fogged, &throng, &dir, "fogged");
    let d = diff(&composite(&fogged, &clear).0, &fogged);
    println!(
        "Bevy's fogged crowd vs Throng's clear one: {} pixels differ",
        d.differing
    );
    assert!(
        d.differing > 1000,
        "the crowd in Bevy is not fogged: only {} pixels differ from the clear crowd",
        d.differing
    );

    // Against Bevy's own fog: in a fog that is full from the eye on, the
    // crowd vanishes into it exactly as Bevy's ground behind it does (the
    // same colour, the same glow of the sun at each pixel), so the picture
    // with the crowd is the picture without. The sun moves in front of the
    // camera, low, so that its glow shows across the picture.
    let world = app.world_mut();
    let mut lights = world.query_filtered::<&mut Transform, With<DirectionalLight>>();
    *lights.single_mut(world).unwrap() =
        Transform::default().looking_to(Vec3::new(0.0, 0.3, 1.0), Vec3::Y);
    world.entity_mut(camera).insert(DistanceFog {
        color: Color::srgb(0.55, 0.6, 0.7),
        directional_light_color: Color::srgba(1.0, 0.9, 0.7, 0.5),
        directional_light_exponent: 10.0,
        falloff: FogFalloff::Linear {
            start: 0.0,
            end: 1.0,
        },
    });
    settle(&mut app);
    let with_crowd = capture(&mut app);
    {
        let world = app.world_mut();
        let mut q = world.query::<&mut ThrongCrowd>();
        q.single_mut(world).unwrap().crowd = Crowd::new();
    }
    settle(&mut app);
    let without = capture(&mut app);
    let d = diff(&with_crowd, &without);
    println!(
        "in full fog, the crowd vs none: {} pixels differ by more than {} levels, worst {} at ({}, {})",
        d.differing,
        image_diff::PIXEL_LEVEL_TOLERANCE,
        d.worst.2,
        d.worst.0,
        d.worst.1
    );
    let _ = with_crowd.save(dir.join("bevy-full-fog.png"));
    assert!(
        d.within_tolerance((SIZE.0 * SIZE.1) as usize),
        "in full fog the crowd does not vanish as Bevy's ground does (see {})",
        dir.display()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The order of each frame's `Transparent3d` items, sorted, as the
/// render world's `Cleanup` finds them: `true` for Throng's crowd item.
#[derive(Resource, Clone, Default)]
struct TransparentOrder(Arc<Mutex<Vec<bool>>>);

fn record_transparent_order(
    order: Res<TransparentOrder>,
    phases: Res<bevy::render::render_phase::ViewSortedRenderPhases<Transparent3d>>,
    functions: Res<bevy::render::render_phase::DrawFunctions<Transparent3d>>,
) {
    let ours = functions
        .read()
        .id::<throng_bevy::draw::DrawThrongBlended>();
    let mut seen = order.0.lock().unwrap();
    seen.clear();
    for phase in phases.values() {
        seen.extend(phase.items.values().map(|item| item.draw_function == ours));
    }
}

#[test]
fn alpha_blended_foxes_sort_among_bevys_transparent_meshes_and_show_the_ground_through() {
    let dir = assets("blend");
    let mut app = app(&dir);
    let order = TransparentOrder::default();
    app.sub_app_mut(bevy::render::RenderApp)
        .insert_resource(order.clone())
        .add_systems(
            bevy::render::Render,
            record_transparent_order.in_set(bevy::render::RenderSystems::Cleanup),
        );
    let handle = standing(&mut app);
    settle(&mut app);
    let opaque = capture(&mut app);
    let mut glassy = handle.model().clone();
    for m in &mut glassy.materials {
        m.alpha_mode = throng_core::material::AlphaMode::Blend;
        m.base_color_factor.w = 0.5;
    }
    let glassy = throng_crowd::crowd::ModelHandle::new(glassy).unwrap();
    let set = |app: &mut App, model: Option<&throng_crowd::crowd::ModelHandle>| {
        let world = app.world_mut();
        let mut q = world.query::<&mut ThrongCrowd>();
        let mut c = q.single_mut(world).unwrap();
        c.crowd = Crowd::new();
        if let Some(model) = model {
            let m = c.crowd.add_model(model);
            for &(at, clip, time) in &foxes() {
                spawn(&mut c.crowd, m, at, clip, time);
            }
            c.crowd.update(0.0);
        }
    };
    set(&mut app, Some(&glassy));
    settle(&mut app);
    let glass = capture(&mut app);
    set(&mut app, None);
    settle(&mut app);
    let ground = capture(&mut app);
    let drawn = diff(&ground, &glass);
    let blended = diff(&opaque, &glass);
    println!(
        "glassy Foxes: {} pixels differ from the ground alone, {} from the opaque Foxes",
        drawn.differing, blended.differing
    );
    let _ = glass.save(dir.join("bevy-glassy.png"));
    // Drawn before the ground, they would vanish under it (blended
    // materials do not write depth).
    assert!(
        drawn.differing > 1000,
        "the glassy Foxes are drawn over Bevy's ground (see {})",
        dir.display()
    );
    assert!(
        blended.differing > 1000,
        "the glassy Foxes show the ground through (see {})",
        dir.display()
    );
    set(&mut app, Some(&glassy));
    // Bevy's own transparent panes, one behind the Foxes and one between
    // them and the camera: the crowd's blended item sorts between them.
    {
        let world = app.world_mut();
        let pane = world
            .resource_mut::<Assets<Mesh>>()
            .add(Rectangle::new(200.0, 100.0));
        let tint = world
            .resource_mut::<Assets<StandardMaterial>>()
            .add(StandardMaterial {
                base_color: Color::srgba(1.0, 0.2, 0.2, 0.5),
                alpha_mode: AlphaMode::Blend,
                unlit: true,
                ..default()
            });
        for at in [Vec3::new(250.0, 50.0, -400.0), Vec3::new(0.0, 80.0, 200.0)] {
            world.spawn((
                Mesh3d(pane.clone()),
                MeshMaterial3d(tint.clone()),
                Transform::from_translation(at),
            ));
        }
    }
    settle(&mut app);
    let sorted = order.0.lock().unwrap().clone();
    println!("Transparent3d, back to front (true: the crowd): {sorted:?}");
    assert_eq!(
        sorted,
        vec![false, true, false],
        "the crowd's blended item sorts between Bevy's far and near panes"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cameras_with_prepasses_or_deferred_shading_draw_the_crowd_alike() {
    use bevy::core_pipeline::prepass::{
        DeferredPrepass, DepthPrepass, MotionVectorPrepass, NormalPrepass,
    };
    let dir = assets("prepass");
    let mut app = app(&dir);
    let handle = standing(&mut app);
    let spots = foxes();
    let throng = throng_picture(&mut app, &handle, &spots, false);
    let camera = camera(&mut app);
    // Each is added to what the camera had: depth, then normals and motion
    // vectors (what SSAO and TAA ask for), then Bevy's deferred shading.
    type Step = (&'static str, fn(&mut EntityWorldMut));
    let steps: [Step; 3] = [
        ("depth prepass", |e| {
            e.insert(DepthPrepass);
        }),
        ("normal and motion-vector prepasses", |e| {
            e.insert((NormalPrepass, MotionVectorPrepass));
        }),
        ("deferred prepass", |e| {
            e.insert(DeferredPrepass);
        }),
    ];
    for (what, add) in steps {
        add(&mut app.world_mut().entity_mut(camera));
        settle(&mut app);
        let picture = capture(&mut app);
        assert_crowd_matches(&picture, &throng, &dir, what);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_corrupt_asset_is_an_asset_error_and_a_crowd_without_a_camera_draws_nothing() {
    let dir = assets("corrupt");
    let mut app = app(&dir);
    app.world_mut().spawn(ThrongCrowd::default());
    app.update();
    let broken: Handle<ThrongModel> = app.world().resource::<AssetServer>().load("broken.throng");
    run_until(&mut app, "loading broken.throng", |app| {
        app.world()
            .resource::<AssetServer>()
            .load_state(&broken)
            .is_failed()
    });
    let LoadState::Failed(error) = app.world().resource::<AssetServer>().load_state(&broken) else {
        unreachable!()
    };
    let text = error.to_string();
    println!("{text}");
    assert!(text.contains("broken.throng"), "{text}");
    let fox: Handle<ThrongModel> = app.world().resource::<AssetServer>().load("fox.throng");
    run_until(&mut app, "loading fox.throng", |app| {
        app.world()
            .resource::<Assets<ThrongModel>>()
            .get(&fox)
            .is_some()
    });
    {
        let world = app.world_mut();
        let handle = world
            .resource::<Assets<ThrongModel>>()
            .get(&fox)
            .unwrap()
            .0
            .clone();
        let mut q = world.query::<&mut ThrongCrowd>();
        let mut c = q.single_mut(world).unwrap();
        let m = c.crowd.add_model(&handle);
        spawn(&mut c.crowd, m, glam::Vec3::ZERO, 0, 0.0);
    }
    for _ in 0..5 {
        app.update();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn with_marked_cameras_only_a_marked_camera_draws_the_crowd() {
    let dir = assets("marked");
    let mut app = app(&dir);
    app.insert_resource(ThrongCameras::Marked);
    standing(&mut app);
    let unmarked = capture(&mut app);
    let camera = camera(&mut app);
    let world = app.world_mut();
    world.entity_mut(camera).insert(ThrongCamera);
    app.update();
    let marked = capture(&mut app);
    let d = diff(&unmarked, &marked);
    println!("marking the camera changed {} pixels", d.differing);
    assert!(
        d.differing > 1000,
        "the marked camera draws the crowd; the unmarked one did not"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
