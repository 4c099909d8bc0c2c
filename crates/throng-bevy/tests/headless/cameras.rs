//! Cameras: with depth, normal and motion-vector prepasses or deferred
//! shading the crowd draws alike; a corrupt asset is an asset error and a
//! crowd without a camera draws nothing; with `ThrongCameras::Marked` only a
//! marked camera draws the crowd; a second camera neither uploads the crowd
//! again nor holds it twice on the GPU.

use bevy::asset::LoadState;
use bevy::camera::{ImageRenderTarget, RenderTarget};
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::prelude::*;
use bevy::render::render_resource::{TextureFormat, TextureUsages};
use bevy::render::view::Msaa;
use throng_bevy::headless::loaded_model;
use throng_bevy::{ThrongCamera, ThrongCameras, ThrongCrowd, ThrongModel, ThrongStats};
use throng_render::image_diff::diff;

use super::{
    SIZE, app, assert_crowd_matches, assets, camera, capture, foxes, run_until, settle, spawn,
    standing, throng_picture,
};

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

/// The asset error of loading `path`, which must fail.
fn load_error(app: &mut App, path: &'static str) -> String {
    let handle: Handle<ThrongModel> = app.world().resource::<AssetServer>().load(path);
    run_until(app, &format!("loading {path}"), |app| {
        app.world()
            .resource::<AssetServer>()
            .load_state(&handle)
            .is_failed()
    });
    let LoadState::Failed(error) = app.world().resource::<AssetServer>().load_state(&handle) else {
        unreachable!()
    };
    error.to_string()
}

/// A body referring to a frames file (baked with `--shared-clips`) loads
/// with the frames file beside it; without it, the asset error names it.
fn shared_frames_load_from_beside(app: &mut App, dir: &std::path::Path) {
    let model = throng_core::format::read_file(&dir.join("fox.throng")).unwrap();
    let name = "fox-frames.throng-frames";
    let body = throng_core::format::write_model_referring(&model, name).unwrap();
    std::fs::write(dir.join("alone.throng"), &body).unwrap();
    std::fs::write(dir.join("body.throng"), &body).unwrap();
    let text = load_error(app, "alone.throng");
    assert!(text.contains(name), "{text}");
    std::fs::write(
        dir.join(name),
        throng_core::format::write_frames(&model.texture),
    )
    .unwrap();
    let body: Handle<ThrongModel> = app.world().resource::<AssetServer>().load("body.throng");
    run_until(app, "loading body.throng", |app| {
        loaded_model(app, &body).is_some()
    });
    let loaded = loaded_model(app, &body).unwrap();
    assert!(
        loaded.model().texture == model.texture,
        "the body's frames come from the frames file"
    );
}

#[test]
fn a_corrupt_asset_is_an_asset_error_and_a_crowd_without_a_camera_draws_nothing() {
    let dir = assets("corrupt");
    let mut app = app(&dir);
    app.world_mut().spawn(ThrongCrowd::default());
    app.update();
    let text = load_error(&mut app, "broken.throng");
    println!("{text}");
    assert!(text.contains("broken.throng"), "{text}");
    shared_frames_load_from_beside(&mut app, &dir);
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

#[test]
fn two_cameras_upload_and_hold_the_crowd_once() {
    let dir = assets("two-cameras");
    let mut app = app(&dir);
    standing(&mut app);
    settle(&mut app);
    let first = camera(&mut app);
    let one = app.world().resource::<ThrongStats>().frame();
    let drawn = one.cameras.get(&first).copied().expect("the camera drew");
    assert!(one.mirror_bytes > 0, "the crowd is mirrored");
    // A second camera on a target of its own, looking from the side.
    let target = {
        let mut images = app.world_mut().resource_mut::<Assets<Image>>();
        let mut image =
            Image::new_target_texture(SIZE.0, SIZE.1, TextureFormat::Rgba8UnormSrgb, None);
        image.texture_descriptor.usage |= TextureUsages::COPY_SRC;
        images.add(image)
    };
    let second = app
        .world_mut()
        .spawn((
            Camera3d::default(),
            Camera {
                order: 1,
                ..default()
            },
            RenderTarget::Image(ImageRenderTarget::from(target)),
            Tonemapping::None,
            Msaa::Off,
            Transform::from_xyz(-400.0, 200.0, 100.0).looking_at(Vec3::ZERO, Vec3::Y),
        ))
        .id();
    run_until(&mut app, "the second camera drawing", |app| {
        app.world()
            .resource::<ThrongStats>()
            .camera(second)
            .is_some()
    });
    let mut uploads = [0u64; 2];
    let mut two = app.world().resource::<ThrongStats>().frame();
    let second_fill = two.cameras[&second].pose_fill_ms;
    for k in 0..4 {
        if k > 0 {
            app.update();
            two = app.world().resource::<ThrongStats>().frame();
        }
        for (u, cam) in uploads.iter_mut().zip([first, second]) {
            *u += two
                .cameras
                .get(&cam)
                .expect("both cameras drew")
                .record_bytes;
        }
    }
    let seen = two.cameras[&second];
    println!(
        "one camera: mirror {} bytes, pose cache {}; two: mirror {} bytes, pose cache {}; uploads over their first 4 frames {uploads:?}; the second camera's first pose fill {:.1} ms; {} instances each",
        one.mirror_bytes,
        one.pose_cache_bytes,
        two.mirror_bytes,
        two.pose_cache_bytes,
        second_fill,
        seen.instances
    );
    assert_eq!(
        seen.instances, drawn.instances,
        "the second camera draws the crowd"
    );
    assert_eq!(two.mirror_bytes, one.mirror_bytes, "held once");
    assert_eq!(
        uploads[1], 0,
        "the second camera uploads nothing: the first did"
    );
    assert!(one.pose_cache_bytes > 0);
    assert_eq!(
        two.pose_cache_bytes, one.pose_cache_bytes,
        "poses held once"
    );
    assert_eq!(
        second_fill, 0.0,
        "the second camera fills no poses: the first did"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
