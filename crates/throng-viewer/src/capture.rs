//! Screenshots: the last frame of a `--screenshot` run is drawn into a
//! texture of the surface's own format (so every pipeline, the HUD's
//! included, draws into it unchanged) and read back as an RGBA PNG.

use anyhow::{Context, Result, bail};

/// A colour target of the surface's format that can be copied out.
pub struct CaptureTarget {
    texture: wgpu::Texture,
    /// The view to draw into.
    pub view: wgpu::TextureView,
    size: (u32, u32),
}

/// How a supported 8-bit format orders its channels.
fn is_bgra(format: wgpu::TextureFormat) -> Result<bool> {
    use wgpu::TextureFormat as F;
    match format {
        F::Rgba8Unorm | F::Rgba8UnormSrgb => Ok(false),
        F::Bgra8Unorm | F::Bgra8UnormSrgb => Ok(true),
        other => {
            bail!("screenshots from a {other:?} surface are not supported (8-bit RGBA/BGRA only)")
        }
    }
}

impl CaptureTarget {
    /// A target of `size` in `format` (an 8-bit RGBA or BGRA format).
    pub fn new(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        size: (u32, u32),
    ) -> Result<Self> {
        is_bgra(format)?;
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("viewer screenshot target"),
            size: wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        Ok(Self {
            texture,
            view,
            size,
        })
    }

    /// Copies the target to the CPU (waiting for the GPU) as RGBA8.
    pub fn read(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> Result<image::RgbaImage> {
        let bgra = is_bgra(self.texture.format())?;
        let (w, h) = self.size;
        let unpadded = 4 * w;
        let padded = unpadded.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("viewer screenshot readback"),
            size: padded as u64 * h as u64,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("viewer screenshot copy"),
        });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &self.texture,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded),
                    rows_per_image: Some(h),
                },
            },
            self.texture.size(),
        );
        queue.submit([encoder.finish()]);
        let data = throng_render::offscreen::map_read(device, &buffer)
            .context("reading the screenshot back")?;
        Ok(rows_to_rgba(&data, w, h, padded, bgra))
    }
}

/// Strips row padding and swaps BGRA to RGBA where needed.
pub fn rows_to_rgba(data: &[u8], w: u32, h: u32, padded: u32, bgra: bool) -> image::RgbaImage {
    let unpadded = (4 * w) as usize;
    let mut pixels = Vec::with_capacity(unpadded * h as usize);
    for row in data.chunks(padded as usize).take(h as usize) {
        pixels.extend_from_slice(&row[..unpadded]);
    }
    if bgra {
        for p in pixels.chunks_exact_mut(4) {
            p.swap(0, 2);
        }
    }
    image::RgbaImage::from_raw(w, h, pixels).expect("w × h × 4 bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_is_stripped_and_bgra_swapped() {
        // 1×2 image, rows padded to 8 bytes.
        let data = [1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 7, 8, 0, 0, 0, 0];
        let rgba = rows_to_rgba(&data, 1, 2, 8, false);
        assert_eq!(rgba.as_raw(), &[1, 2, 3, 4, 5, 6, 7, 8]);
        let swapped = rows_to_rgba(&data, 1, 2, 8, true);
        assert_eq!(swapped.as_raw(), &[3, 2, 1, 4, 7, 6, 5, 8]);
        assert!(is_bgra(wgpu::TextureFormat::Rgba16Float).is_err());
    }
}
