//! The browser test's native side.
//!
//! `throng-web-reference render MODEL OUT.png WIDTH HEIGHT QUERY` draws the
//! page's scene ([`throng_web::scene`]) for the page address's `QUERY`
//! (`instances=…&time=…&seed=…`) natively, on the default adapter, into an
//! sRGB image of the canvas's size, as the page would at that fixed time.
//!
//! `throng-web-reference consumer MODEL OUT.png WIDTH HEIGHT [PATH]` draws
//! the npm package's consumer scene (`tools/web/consumer.html`: the same
//! recipe, through the same [`View`]) natively, on the record path `PATH`
//! (`packaged` for WebGL2's picture; default: the adapter's best).
//!
//! `throng-web-reference compare EXPECTED.png ACTUAL.png DIFF.png` compares
//! a browser's screenshot with it within the golden images' tolerance and
//! prints the worst pixel and the count over the tolerance; exit 1 when
//! over.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use throng_render::image_diff::diff;
use throng_web::query::PageQuery;
use throng_web::view::View;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("throng-web-reference: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<bool> {
    match args {
        [cmd, model, out, w, h, query] if cmd == "render" => {
            let size = (w.parse().context("WIDTH")?, h.parse().context("HEIGHT")?);
            render(
                Path::new(model),
                Path::new(out),
                size,
                &PageQuery::parse(query)?,
            )?;
            Ok(true)
        }
        [cmd, model, out, w, h, path @ ..] if cmd == "consumer" && path.len() <= 1 => {
            let size = (w.parse().context("WIDTH")?, h.parse().context("HEIGHT")?);
            let path = match path.first().map(String::as_str) {
                None | Some("auto") => throng_render::PathChoice::Auto,
                Some("packaged") => throng_render::PathChoice::Packaged,
                Some("gpu-driven") => throng_render::PathChoice::GpuDriven,
                Some(other) => bail!("PATH {other}: auto, packaged or gpu-driven"),
            };
            consumer(Path::new(model), Path::new(out), size, path)?;
            Ok(true)
        }
        [cmd, expected, actual, difference] if cmd == "compare" => compare(
            Path::new(expected),
            Path::new(actual),
            Path::new(difference),
        ),
        _ => bail!(
            "usage: throng-web-reference render MODEL OUT.png WIDTH HEIGHT QUERY | consumer MODEL OUT.png WIDTH HEIGHT [PATH] | compare EXPECTED.png ACTUAL.png DIFF.png"
        ),
    }
}

fn render(model: &Path, out: &Path, size: (u32, u32), query: &PageQuery) -> Result<()> {
    let gpu = throng_render::Gpu::headless()?;
    let bytes = std::fs::read(model).with_context(|| format!("reading {}", model.display()))?;
    let frames = match throng_core::format::frames_file(&bytes) {
        Ok(Some(name)) => {
            let beside = model.with_file_name(&name);
            Some(std::fs::read(&beside).with_context(|| format!("reading {}", beside.display()))?)
        }
        _ => None,
    };
    let files = [throng_web::scene::ModelFile {
        url: model.display().to_string(),
        bytes,
        frames,
    }];
    let handles = throng_web::scene::load_models(&files, query)?;
    let format = throng_render::OFFSCREEN_FORMAT;
    let app = throng_examples::AppGpu {
        adapter: &gpu.adapter,
        device: &gpu.device,
        queue: &gpu.queue,
    };
    let mut view = View::new(app, format, throng_web::scene::view_options(query))?;
    throng_web::scene::build(app, &mut view, &handles, query)?;
    save_picture(&gpu, &mut view, out, size)
}

/// Draws `view` at `size` and saves the picture as `out`: the page's
/// first frames fill the pose cache and the GPU-driven path's mirror, so
/// the picture saved is the third.
fn save_picture(
    gpu: &throng_render::Gpu,
    view: &mut View,
    out: &Path,
    size: (u32, u32),
) -> Result<()> {
    let target = throng_render::Offscreen::new(&gpu.device, size)?;
    let mut stats = Default::default();
    for _ in 0..3 {
        stats = view.render(&gpu.device, &gpu.queue, &target.view, size)?;
    }
    let image = target.read(&gpu.device, &gpu.queue)?;
    throng_render::image_file::save(out, &image)?;
    eprintln!(
        "throng-web-reference: {} on {} ({} path, {} occluded)",
        out.display(),
        gpu.adapter_summary(),
        view.scene.renderer.path(),
        stats.occluded
    );
    Ok(())
}

/// tools/web/consumer.html's scene, step for step: 1,000 Foxes in a
/// 40 × 25 grid, 100 moved, 10 cross-faded, the clock advanced a quarter
/// second, a fixed camera.
fn consumer(
    model: &Path,
    out: &Path,
    size: (u32, u32),
    path: throng_render::PathChoice,
) -> Result<()> {
    let gpu = throng_render::Gpu::headless()?;
    let app = throng_examples::AppGpu {
        adapter: &gpu.adapter,
        device: &gpu.device,
        queue: &gpu.queue,
    };
    let bytes = std::fs::read(model).with_context(|| format!("reading {}", model.display()))?;
    let file = throng_web::scene::ModelFile {
        url: model.display().to_string(),
        bytes,
        frames: None,
    };
    let handle = throng_web::scene::load_model(&file)?;
    let format = throng_render::OFFSCREEN_FORMAT;
    let options = throng_web::view::ViewOptions {
        path,
        ..Default::default()
    };
    let mut view = View::new(app, format, options)?;
    let fox = view.add_model(app, handle, &file.url)?;
    let b = view.model_bounds(fox)?;
    let cell = (b[3] - b[0]).max(b[4] - b[1]).max(b[5] - b[2]);
    view.set_ground(&gpu.device, 30.0 * cell, cell)?;
    let clips = view.clip_names(fox)?.len() as i32;
    let matrix = |i: usize, dx: f32| {
        let x = ((i % 40) as f32 - 19.5) * 1.2 * cell + dx;
        let z = ((i / 40) as f32 - 12.0) * 1.2 * cell;
        let a = i as f32 * 0.61;
        glam::Mat4::from_translation(glam::Vec3::new(x, 0.0, z)) * glam::Mat4::from_rotation_y(a)
    };
    let n = 1000;
    let matrices: Vec<f32> = (0..n)
        .flat_map(|i| matrix(i, 0.0).to_cols_array())
        .collect();
    let playing: Vec<i32> = (0..n as i32).map(|i| i % clips).collect();
    let times: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 0.13).collect();
    let batch = throng_web::view::batch::SpawnBatch {
        matrices: &matrices,
        clips: &playing,
        times: &times,
        looks: &[],
    };
    let ids = view.spawn(fox, batch)?;
    let to: Vec<f32> = (0..100)
        .flat_map(|k| matrix(k, 0.5 * cell).to_cols_array())
        .collect();
    view.set_transforms(&ids[..100], &to)?;
    let faded = &ids[100..110];
    let next: Vec<i32> = faded.iter().map(|&id| (id as i32 + 1) % clips).collect();
    view.cross_fade(faded, &next, &[0.5; 10])?;
    view.advance(0.25)?;
    view.look_at(
        glam::Vec3::new(0.0, 6.0 * cell, 16.0 * cell),
        glam::Vec3::new(0.0, 0.0, 2.0 * cell),
    )?;
    save_picture(&gpu, &mut view, out, size)
}

fn compare(expected: &Path, actual: &Path, difference: &Path) -> Result<bool> {
    let open = |p: &Path| {
        image::open(p)
            .with_context(|| format!("reading {}", p.display()))
            .map(|i| i.to_rgba8())
    };
    let (expected_image, actual_image) = (open(expected)?, open(actual)?);
    if expected_image.dimensions() != actual_image.dimensions() {
        bail!(
            "{} is {:?} pixels, {} {:?}",
            actual.display(),
            actual_image.dimensions(),
            expected.display(),
            expected_image.dimensions()
        );
    }
    let d = diff(&expected_image, &actual_image);
    throng_render::image_file::save(difference, &d.image)?;
    let pixels = (expected_image.width() * expected_image.height()) as usize;
    let pass = d.within_tolerance(pixels);
    println!(
        "{}: {}: {}",
        actual.display(),
        d.summary(pixels),
        if pass { "pass" } else { "FAIL" }
    );
    Ok(pass)
}
