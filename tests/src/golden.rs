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

/// A pixel differs when any channel differs by more than this many 8-bit
/// levels: sRGB encoding and MSAA resolve round differently by 1 level
/// between rasterizers (docs/DESIGN.md#tolerances-on-software-rasterizers), so 3 is noise, more is content.
pub const PIXEL_LEVEL_TOLERANCE: u8 = 3;

/// Fraction of pixels allowed to differ. Set on llvmpipe (LLVM 15.0.6,
/// 256 bits): a sub-ulp vertex shift can flip MSAA coverage on silhouette
/// edges, which at 256×256 is a few dozen pixels; a wrong pose, clip, tint or
/// texture changes thousands.
pub const MAX_DIFFERING_FRACTION: f64 = 0.005;

/// Mean absolute channel difference allowed, in 8-bit levels.
pub const MAX_MEAN_LEVEL_DIFFERENCE: f64 = 0.5;

/// Result of comparing two images.
#[derive(Debug)]
pub struct ImageDiff {
    /// Pixels over [`PIXEL_LEVEL_TOLERANCE`].
    pub differing: usize,
    /// Mean absolute channel difference.
    pub mean: f64,
    /// Worst pixel `(x, y, level difference)`.
    pub worst: (u32, u32, u8),
    /// Per-pixel difference image (amplified).
    pub image: RgbaImage,
}

/// Compares two images of the same size.
pub fn diff(a: &RgbaImage, b: &RgbaImage) -> ImageDiff {
    assert_eq!(a.dimensions(), b.dimensions(), "image sizes differ");
    let mut out = RgbaImage::new(a.width(), a.height());
    let (mut differing, mut sum, mut worst) = (0usize, 0u64, (0, 0, 0u8));
    for (x, y, pa) in a.enumerate_pixels() {
        let pb = b.get_pixel(x, y);
        let d = (0..4).map(|c| pa[c].abs_diff(pb[c])).max().unwrap_or(0);
        sum += (0..4).map(|c| pa[c].abs_diff(pb[c]) as u64).sum::<u64>();
        if d > PIXEL_LEVEL_TOLERANCE {
            differing += 1;
        }
        if d > worst.2 {
            worst = (x, y, d);
        }
        let v = d.saturating_mul(8);
        out.put_pixel(x, y, image::Rgba([v, v, v, 255]));
    }
    ImageDiff {
        differing,
        mean: sum as f64 / (a.width() as f64 * a.height() as f64 * 4.0),
        worst,
        image: out,
    }
}

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
    let (d, fraction) = compare(name, expected, actual);
    if fraction <= MAX_DIFFERING_FRACTION && d.mean <= MAX_MEAN_LEVEL_DIFFERENCE {
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
        "{name}: {} pixels ({:.3} %, limit {:.3} %) differ by more than {PIXEL_LEVEL_TOLERANCE} levels, mean {:.4} (limit {MAX_MEAN_LEVEL_DIFFERENCE}), worst {} levels at ({}, {}); images: {}/{name}-{{expected,actual,difference}}.png",
        d.differing,
        fraction * 100.0,
        MAX_DIFFERING_FRACTION * 100.0,
        d.mean,
        d.worst.2,
        d.worst.0,
        d.worst.1,
        dir.display()
    );
}
