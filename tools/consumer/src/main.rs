//! A user's first program with the published `throng`: bake the glTF given
//! on the command line, write and read back its `.throng`, draw a crowd of
//! it headless and check the picture has a crowd in it.

use std::path::PathBuf;
use std::process::ExitCode;

use throng::bake::{BakeOptions, bake_file};
use throng::core::glam::{Mat4, Vec3};
use throng::core::math::Aabb;
use throng::crowd::camera::Camera;
use throng::crowd::crowd::{Crowd, ModelHandle, Spawn};
use throng::render::{Gpu, GpuModel, Renderer, RendererOptions};

/// Pixels the crowd must cover, of the 256×256 picture (the 16 Foxes framed
/// from above cover several thousand).
const MIN_COVERED: usize = 1000;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("throng-consumer: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args_os().skip(1);
    let (Some(gltf), Some(out)) = (args.next(), args.next()) else {
        return Err("usage: throng-consumer MODEL.glb OUT_DIR".into());
    };
    let out = PathBuf::from(out);
    let (baked, report) = bake_file(gltf.as_ref(), &BakeOptions::default(), &|_, _| {})?;
    let file = out.join("model.throng");
    throng::core::format::write_file(&baked, &file)?;
    let model = ModelHandle::new(throng::core::format::read_file(&file)?)?;
    println!(
        "baked {:?}: {} clips, {} warnings",
        model.model().name,
        model.model().clips.len(),
        report.warnings.len()
    );

    let mut crowd = Crowd::new();
    let id = crowd.add_model(&model);
    let bounds = model.model().bounds;
    let step = (bounds.max - bounds.min).max_element() * 1.2;
    for i in 0..16 {
        let at = Vec3::new((i % 4) as f32 * step, 0.0, (i / 4) as f32 * step);
        crowd.spawn(
            id,
            Spawn {
                transform: Mat4::from_translation(at),
                clip: Some(0),
                time: i as f32 * 0.1,
                ..Spawn::default()
            },
        )?;
    }
    crowd.update(1.0 / 60.0);

    let gpu = Gpu::headless()?;
    let mut renderer = Renderer::headless(&gpu, RendererOptions::default())?;
    let gpu_model = GpuModel::upload(&gpu.device, &gpu.queue, &model)?;
    let grid = Aabb {
        min: bounds.min,
        max: bounds.max + Vec3::new(3.0 * step, 0.0, 3.0 * step),
    };
    let camera = Camera::framing(&grid, Vec3::new(0.3, 1.0, 0.6), 0.8, 1.0);
    let (image, stats) =
        renderer.render_image(&gpu, (256, 256), &camera, &[&crowd], &[&gpu_model])?;
    image.save(out.join("crowd.png"))?;
    // The background is the renderer's clear colour, the top-left corner
    // (nothing stands there in a framed grid seen from above at an angle).
    let clear = *image.get_pixel(0, 0);
    let covered = image.pixels().filter(|p| **p != clear).count();
    println!(
        "drew {} draws on {}: {covered} pixels covered",
        stats.draws,
        gpu.adapter_summary()
    );
    if covered < MIN_COVERED {
        return Err(
            format!("only {covered} of 256x256 pixels covered (want ≥ {MIN_COVERED})").into(),
        );
    }
    Ok(())
}
