//! Helpers of the image tests, whichever crate they live in: a bundled
//! model baked at default settings, and comparison with a golden image under
//! named tolerances (the golden images live next to the tests that use them,
//! in that crate's `tests/golden/`, rewritten with `UPDATE_GOLDENS=1`).
//! Test files use it as `use throng_tests::golden as common;`.

use std::path::PathBuf;

pub use crate::asset;

use throng_bake::Scene;
use throng_bake::{BakeOptions, bake, import_file};
use throng_crowd::crowd::ModelHandle;

/// Asserts that `gpu`'s device samples BC textures (lavapipe's and
/// llvmpipe GL's do): a test of the block path means nothing without them.
pub fn require_bc_textures(gpu: &throng_render::Gpu) {
    assert!(
        gpu.device
            .features()
            .contains(throng_render::wgpu::Features::TEXTURE_COMPRESSION_BC),
        "{}: no BC textures, so the block path cannot be checked here",
        gpu.adapter_summary()
    );
}

/// Imports and bakes a bundled model with default options.
pub fn baked(name: &str) -> (Scene, ModelHandle) {
    let imported = import_file(&asset(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let (model, _) = bake(&imported.scene, &BakeOptions::default(), &|_, _| {})
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    (
        imported.scene,
        ModelHandle::new(model).expect("a fresh bake validates"),
    )
}

/// The `tests/golden` folder of the crate whose manifest folder is
/// `manifest_dir` (pass `env!("CARGO_MANIFEST_DIR")`).
pub fn golden_dir(manifest_dir: &str) -> PathBuf {
    PathBuf::from(manifest_dir).join("tests/golden")
}

use image::RgbaImage;

pub use throng_render::image_diff::{
    ImageDiff, MAX_DIFFERING_FRACTION, MAX_MEAN_LEVEL_DIFFERENCE, PIXEL_LEVEL_TOLERANCE, diff,
};

/// Compares `actual` with `{dir}/{name}.png` (`dir` from [`golden_dir`]). A
/// missing golden fails unless `UPDATE_GOLDENS=1`, which (re)writes it. On
/// failure the actual and difference images are written beside the golden.
pub fn check_golden(dir: &std::path::Path, name: &str, actual: &RgbaImage) {
    let dir = dir.to_path_buf();
    let path = dir.join(format!("{name}.png"));
    let update = std::env::var("UPDATE_GOLDENS").is_ok_and(|v| v == "1");
    if update {
        std::fs::create_dir_all(&dir).unwrap();
        actual.save(&path).unwrap();
        println!("{name}: golden written to {}", path.display());
        return;
    }
    let golden = match image::open(&path) {
        Ok(g) => g.to_rgba8(),
        Err(e) => {
            let actual_path = dir.join(format!("{name}-actual.png"));
            let _ = std::fs::create_dir_all(&dir);
            let _ = actual.save(&actual_path);
            panic!(
                "{name}: golden {} missing or unreadable ({e}); the actual image is at {}; run with UPDATE_GOLDENS=1 to accept it",
                path.display(),
                actual_path.display()
            );
        }
    };
    assert_images_match(name, &golden, actual, &dir);
}

/// Compares two images, prints the figures and returns them with the
/// fraction of differing pixels.
pub fn compare(name: &str, expected: &RgbaImage, actual: &RgbaImage) -> (ImageDiff, f64) {
    let d = diff(expected, actual);
    let fraction = d.differing as f64 / (actual.width() as f64 * actual.height() as f64);
    println!(
        "{name}: {} pixels ({:.3} %) differ by more than {PIXEL_LEVEL_TOLERANCE} levels, mean {:.4} levels, worst {} at ({}, {})",
        d.differing,
        fraction * 100.0,
        d.mean,
        d.worst.2,
        d.worst.0,
        d.worst.1
    );
    (d, fraction)
}

/// Asserts that `actual` equals `expected` within the golden-image
/// tolerances; on failure writes `{name}-{expected,actual,difference}.png`
/// into `dir` and panics with the figures and the worst pixel.
pub fn assert_images_match(
    name: &str,
    expected: &RgbaImage,
    actual: &RgbaImage,
    dir: &std::path::Path,
) {
    let (d, _) = compare(name, expected, actual);
    if d.within_tolerance((actual.width() * actual.height()) as usize) {
        return;
    }
    let _ = std::fs::create_dir_all(dir);
    for (what, image) in [
        ("expected", expected),
        ("actual", actual),
        ("difference", &d.image),
    ] {
        let _ = image.save(dir.join(format!("{name}-{what}.png")));
    }
    panic!(
        "{name}: {}; images: {}/{name}-{{expected,actual,difference}}.png",
        d.summary((actual.width() * actual.height()) as usize),
        dir.display()
    );
}
