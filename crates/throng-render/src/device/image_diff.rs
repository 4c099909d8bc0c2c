//! [`diff`]: how far apart two pictures are, with the tolerances Throng's
//! golden-image tests and `throng soak`'s picture checks judge them by
//! ([`PIXEL_LEVEL_TOLERANCE`], [`MAX_DIFFERING_FRACTION`],
//! [`MAX_MEAN_LEVEL_DIFFERENCE`]; docs/design/software-gpu.md#tolerances-on-software-rasterizers).

use image::RgbaImage;

/// A pixel differs when any channel differs by more than this many 8-bit
/// levels: sRGB encoding and MSAA resolve round differently by 1 level
/// between rasterizers (docs/design/software-gpu.md#tolerances-on-software-rasterizers), so 3 is noise, more is content.
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
///
/// # Panics
/// If the sizes differ (a caller's error: both pictures are drawn at one
/// size).
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

impl ImageDiff {
    /// Whether the pictures match within the golden tolerances: at most
    /// [`MAX_DIFFERING_FRACTION`] of `pixels` over [`PIXEL_LEVEL_TOLERANCE`]
    /// and a mean difference within [`MAX_MEAN_LEVEL_DIFFERENCE`].
    pub fn within_tolerance(&self, pixels: usize) -> bool {
        self.differing as f64 / pixels.max(1) as f64 <= MAX_DIFFERING_FRACTION
            && self.mean <= MAX_MEAN_LEVEL_DIFFERENCE
    }

    /// The figures against the tolerances, in one line: how many of
    /// `pixels` differ (and the limit), the mean and the worst pixel.
    pub fn summary(&self, pixels: usize) -> String {
        format!(
            "{} of {pixels} pixels ({:.3} %, limit {:.3} %) differ by more than {PIXEL_LEVEL_TOLERANCE} levels, mean {:.4} (limit {MAX_MEAN_LEVEL_DIFFERENCE}), worst {} levels at ({}, {})",
            self.differing,
            self.differing as f64 * 100.0 / pixels.max(1) as f64,
            MAX_DIFFERING_FRACTION * 100.0,
            self.mean,
            self.worst.2,
            self.worst.0,
            self.worst.1
        )
    }
}
