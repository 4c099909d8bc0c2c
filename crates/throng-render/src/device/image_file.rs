//! Image outputs (`throng render -o`, the viewer's screenshots): the format
//! follows the extension and is checked with [`ImageFormat::of`] before any
//! work, and [`save`] writes atomically, so a failed write never leaves a
//! truncated image in place of a good one.

use std::path::Path;

use image::{ExtendedColorType, ImageEncoder, RgbaImage};

use crate::base::error::RenderError;

/// The extensions [`ImageFormat::of`] accepts, for messages (defined with
/// the error that names them).
pub use crate::base::error::SUPPORTED_IMAGE_EXTENSIONS as SUPPORTED_EXTENSIONS;

/// JPEG quality (1–100) of written `.jpg` images.
pub const JPEG_QUALITY: u8 = 90;

/// An image format Throng writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    /// PNG, lossless, with alpha.
    Png,
    /// JPEG at [`JPEG_QUALITY`], without alpha (the colour is kept).
    Jpeg,
}

impl ImageFormat {
    /// The format of `path` by its extension (any case), or an error naming
    /// the path, its extension and the supported ones.
    pub fn of(path: &Path) -> Result<Self, RenderError> {
        let ext = path.extension().map(|e| e.to_string_lossy().into_owned());
        match ext.as_deref().map(str::to_ascii_lowercase).as_deref() {
            Some("png") => Ok(Self::Png),
            Some("jpg" | "jpeg") => Ok(Self::Jpeg),
            _ => Err(RenderError::ImageFormat {
                path: path.display().to_string(),
                extension: ext.map_or_else(|| "(none)".into(), |e| format!(".{e}")),
            }),
        }
    }
}

/// Writes `image` to `path` in the format of its extension, atomically (see
/// [`throng_core::fsio`]): on any failure an existing file is untouched.
pub fn save(path: &Path, image: &RgbaImage) -> Result<(), RenderError> {
    let format = ImageFormat::of(path)?;
    let (width, height) = image.dimensions();
    throng_core::fsio::write_atomic_with(path, |w| {
        match format {
            ImageFormat::Png => image::codecs::png::PngEncoder::new(w).write_image(
                image.as_raw(),
                width,
                height,
                ExtendedColorType::Rgba8,
            ),
            ImageFormat::Jpeg => {
                let rgb = image::DynamicImage::ImageRgba8(image.clone()).to_rgb8();
                image::codecs::jpeg::JpegEncoder::new_with_quality(w, JPEG_QUALITY).write_image(
                    rgb.as_raw(),
                    width,
                    height,
                    ExtendedColorType::Rgb8,
                )
            }
        }
        .map_err(std::io::Error::other)
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Largest per-channel difference a JPEG round trip of a smooth gradient
    /// may show at [`JPEG_QUALITY`].
    const JPEG_TOLERANCE: u8 = 16;

    fn gradient() -> RgbaImage {
        RgbaImage::from_fn(32, 16, |x, y| {
            image::Rgba([(x * 8) as u8, (y * 16) as u8, 128, 255])
        })
    }

    #[test]
    fn formats_by_extension() {
        assert_eq!(
            ImageFormat::of(Path::new("a/b.PNG")).unwrap(),
            ImageFormat::Png
        );
        assert_eq!(
            ImageFormat::of(Path::new("b.jpeg")).unwrap(),
            ImageFormat::Jpeg
        );
        for bad in ["x.gif", "x.throng", "x"] {
            let msg = ImageFormat::of(Path::new(bad)).unwrap_err().to_string();
            assert!(msg.contains(bad), "{msg}");
            assert!(msg.contains(SUPPORTED_EXTENSIONS), "{msg}");
        }
    }

    #[test]
    fn png_and_jpeg_round_trip() {
        let dir = std::env::temp_dir().join(format!("throng-image-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let original = gradient();
        let png = dir.join("a.png");
        save(&png, &original).unwrap();
        assert_eq!(image::open(&png).unwrap().to_rgba8(), original);
        let jpg = dir.join("a.jpg");
        save(&jpg, &original).unwrap();
        let back = image::open(&jpg).unwrap().to_rgba8();
        assert_eq!(back.dimensions(), original.dimensions());
        let worst = original
            .as_raw()
            .iter()
            .zip(back.as_raw())
            .map(|(a, b)| a.abs_diff(*b))
            .max()
            .unwrap();
        assert!(
            worst <= JPEG_TOLERANCE,
            "JPEG round trip differs by {worst} > {JPEG_TOLERANCE}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
