//! One headless frame of Throng's Bevy plugin, built from its package
//! (tools/package.sh bevy): Bevy's default plugins without a window
//! (`throng_bevy::headless::app`), a camera drawing into an image, the
//! bundled Fox baked and loaded through Bevy's asset server as a
//! `ThrongModel`, five of it in a `ThrongCrowd`, and a screenshot of the
//! target that must show them: fails unless enough pixels differ from the
//! clear colour.
//!
//!     throng-bevy-consumer FOX.glb SCRATCH_DIR

use std::error::Error;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use bevy::camera::{ImageRenderTarget, RenderTarget};
use bevy::core_pipeline::tonemapping::{DebandDither, Tonemapping};
use bevy::image::Image;
use bevy::prelude::*;
use bevy::render::render_resource::{TextureFormat, TextureUsages};
use bevy::render::view::Msaa;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured};
use throng_bevy::{ThrongCrowd, ThrongModel};
use throng_crowd::crowd::Spawn;

/// The picture's size.
const SIZE: (u32, u32) = (256, 160);
/// The clear colour, sRGB bytes.
const CLEAR: [u8; 3] = [77, 102, 133];
/// Levels a channel must differ from the clear colour by to count.
const THRESHOLD: u8 = 24;
/// Pixels the five Foxes must cover at least (they cover about 1,600).
const MIN_COVERED: usize = 500;
/// Frames to wait for a load or a screenshot before giving up.
const FRAMES: usize = 600;

#[derive(Resource, Clone, Default)]
struct Captured(Arc<Mutex<Option<Image>>>);

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(fox), Some(dir)) = (args.next(), args.next()) else {
        return Err("usage: throng-bevy-consumer FOX.glb SCRATCH_DIR".into());
    };
    let dir = PathBuf::from(dir);
    let (model, _) = throng_bake::bake_file(
        fox.as_ref(),
        &throng_bake::BakeOptions {
            lod_ratios: Vec::new(),
            ..throng_bake::BakeOptions::default()
        },
        &|_, _| {},
    )?;
    throng_core::format::write_file(&model, &dir.join("fox.throng"))?;

    let mut app = throng_bevy::headless::app(&dir)?;
    let [r, g, b] = CLEAR;
    app.insert_resource(ClearColor(Color::srgb_u8(r, g, b)))
        .init_resource::<Captured>();
    let mut image = Image::new_target_texture(SIZE.0, SIZE.1, TextureFormat::Rgba8UnormSrgb, None);
    image.texture_descriptor.usage |= TextureUsages::COPY_SRC;
    let target = app.world_mut().resource_mut::<Assets<Image>>().add(image);
    app.world_mut().spawn((
        Camera3d::default(),
        RenderTarget::Image(ImageRenderTarget::from(target.clone())),
        Tonemapping::None,
        DebandDither::Disabled,
        Msaa::Off,
        Transform::from_xyz(0.0, 170.0, 420.0).looking_at(Vec3::new(0.0, 20.0, 0.0), Vec3::Y),
    ));
    app.world_mut().spawn(ThrongCrowd::default());
    app.update();

    let fox: Handle<ThrongModel> = app.world().resource::<AssetServer>().load("fox.throng");
    let loaded = (0..FRAMES).find_map(|_| {
        app.update();
        throng_bevy::headless::loaded_model(&app, &fox)
    });
    let Some(handle) = loaded else {
        return Err(format!("fox.throng not loaded after {FRAMES} frames").into());
    };
    {
        let world = app.world_mut();
        let mut crowd = world.query::<&mut ThrongCrowd>().single_mut(world)?;
        let model = crowd.crowd.add_model(&handle);
        for i in 0..5 {
            crowd.crowd.spawn(
                model,
                Spawn {
                    transform: glam::Mat4::from_translation(glam::Vec3::new(
                        i as f32 * 70.0 - 140.0,
                        0.0,
                        -60.0,
                    )),
                    clip: Some(i % 3),
                    time: 0.2 * i as f32,
                    ..Spawn::default()
                },
            )?;
        }
    }
    for _ in 0..3 {
        app.update();
    }

    let captured = app.world().resource::<Captured>().clone();
    let sink = captured.clone();
    app.world_mut().spawn(Screenshot::image(target)).observe(
        move |shot: On<ScreenshotCaptured>| {
            *sink.0.lock().unwrap() = Some(shot.image.clone());
        },
    );
    let shot = (0..FRAMES).find_map(|_| {
        app.update();
        captured.0.lock().unwrap().take()
    });
    let Some(bytes) = shot.and_then(|image| image.data) else {
        return Err(format!("no screenshot after {FRAMES} frames").into());
    };
    let covered = bytes
        .chunks_exact(4)
        .filter(|p| (0..3).any(|c| p[c].abs_diff(CLEAR[c]) > THRESHOLD))
        .count();
    println!(
        "throng-bevy from its package: {covered} of {} pixels show the crowd",
        SIZE.0 * SIZE.1
    );
    if covered < MIN_COVERED {
        return Err(format!("only {covered} pixels show the crowd (want ≥ {MIN_COVERED})").into());
    }
    Ok(())
}
