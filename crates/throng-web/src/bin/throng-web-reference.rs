//! The browser test's native side.
//!
//! `throng-web-reference render MODEL OUT.png WIDTH HEIGHT QUERY` draws the
//! page's scene ([`throng_web::scene`]) for the page address's `QUERY`
//! (`instances=…&time=…&seed=…`) natively, on the default adapter, into an
//! sRGB image of the canvas's size, as the page would at that fixed time.
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
        [cmd, expected, actual, difference] if cmd == "compare" => compare(
            Path::new(expected),
            Path::new(actual),
            Path::new(difference),
        ),
        _ => bail!(
            "usage: throng-web-reference render MODEL OUT.png WIDTH HEIGHT QUERY | compare EXPECTED.png ACTUAL.png DIFF.png"
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
    let target = throng_render::Offscreen::new(&gpu.device, size)?;
    // The page's first frames fill the pose cache and the GPU-driven
    // path's mirror; the picture compared is a later one.
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
