//! Headless render targets and pixel readback, for tests, the CLI and
//! screenshots.

use crate::base::error::RenderError;
use crate::device::context::catch_device_errors;

/// Colour format of offscreen targets: 8-bit sRGB, like a typical swapchain.
pub const OFFSCREEN_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// An offscreen colour target.
#[derive(Debug)]
pub struct Offscreen {
    /// The texture.
    pub texture: wgpu::Texture,
    /// Its view.
    pub view: wgpu::TextureView,
    /// Width and height.
    pub size: (u32, u32),
}

impl Offscreen {
    /// A target of `size` in [`OFFSCREEN_FORMAT`].
    pub fn new(device: &wgpu::Device, size: (u32, u32)) -> Result<Self, RenderError> {
        Self::with_format(device, size, OFFSCREEN_FORMAT)
    }

    /// A target of `size` in `format`, an 8-bit RGBA or BGRA format (the
    /// viewer's screenshots use the surface's own format, so every pipeline
    /// draws into it unchanged).
    pub fn with_format(
        device: &wgpu::Device,
        size: (u32, u32),
        format: wgpu::TextureFormat,
    ) -> Result<Self, RenderError> {
        is_bgra(format)?;
        check_target_size(device, size)?;
        // The target and, later, its readback buffer.
        let bytes = 2 * target_bytes(size, 1, format);
        crate::device::context::check_host_memory(
            device,
            "the offscreen target and its readback",
            bytes,
        )?;
        let texture = catch_device_errors(device, "creating the offscreen target", || {
            readable_target(device, "throng offscreen target", size, format)
        })?;
        let view = texture.create_view(&Default::default());
        Ok(Self {
            texture,
            view,
            size,
        })
    }

    /// Copies the target back to the CPU as an RGBA8 image (sRGB-encoded).
    pub fn read(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<image::RgbaImage, RenderError> {
        read_rgba8(device, queue, &self.texture)
    }
}

/// A 2D single-sampled texture of `size` in `format`, labelled `label`,
/// that a render pass draws into and a copy reads back
/// (`RENDER_ATTACHMENT | COPY_SRC`): what [`read_rgba8`] and
/// [`read_depth`] read. Checks nothing; [`Offscreen::with_format`] checks
/// the size and memory first.
pub fn readable_target(
    device: &wgpu::Device,
    label: &str,
    size: (u32, u32),
    format: wgpu::TextureFormat,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        ..crate::device::textures::descriptor(label, (size.0, size.1, 1), format)
    })
}

/// An error unless the device can render to a 2D target of `size`.
pub fn check_target_size(device: &wgpu::Device, size: (u32, u32)) -> Result<(), RenderError> {
    let limit = device.limits().max_texture_dimension_2d;
    if size.0 == 0 || size.1 == 0 || size.0 > limit || size.1 > limit {
        return Err(RenderError::TargetSize {
            width: size.0,
            height: size.1,
            limit,
        });
    }
    Ok(())
}

/// Bytes of a 2D target of `size` with `samples` samples per pixel in
/// `format` (4 bytes a texel for formats without a fixed size).
pub fn target_bytes(size: (u32, u32), samples: u32, format: wgpu::TextureFormat) -> u64 {
    let texel = format.block_copy_size(None).unwrap_or(4) as u64;
    size.0 as u64 * size.1 as u64 * samples as u64 * texel
}

/// Whether an 8-bit colour format stores its channels as BGRA (`false`:
/// RGBA); an error for any other format.
pub fn is_bgra(format: wgpu::TextureFormat) -> Result<bool, RenderError> {
    use wgpu::TextureFormat as F;
    match format {
        F::Rgba8Unorm | F::Rgba8UnormSrgb => Ok(false),
        F::Bgra8Unorm | F::Bgra8UnormSrgb => Ok(true),
        other => Err(RenderError::Unsupported(format!(
            "reading back a {other:?} texture (8-bit RGBA/BGRA only)"
        ))),
    }
}

/// Copies a 2D colour texture (8-bit RGBA or BGRA, `COPY_SRC`) to the CPU as
/// an RGBA8 image, waiting for the GPU.
pub fn read_rgba8(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
) -> Result<image::RgbaImage, RenderError> {
    let bgra = is_bgra(texture.format())?;
    let (w, h) = (texture.width(), texture.height());
    let padded = (4 * w).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = catch_device_errors(device, "creating the readback buffer", || {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("throng readback"),
            size: padded as u64 * h as u64,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        })
    })?;
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("throng readback copy"),
    });
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
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
        texture.size(),
    );
    queue.submit([encoder.finish()]);
    let data = map_read(device, &buffer)?;
    rows_to_rgba(&data, w, h, padded, bgra)
        .ok_or_else(|| RenderError::Readback("pixel count mismatch".into()))
}

/// Strips row padding (`padded` bytes per row) and swaps BGRA to RGBA where
/// needed; `None` when `data` holds fewer than `h` rows.
pub fn rows_to_rgba(
    data: &[u8],
    w: u32,
    h: u32,
    padded: u32,
    bgra: bool,
) -> Option<image::RgbaImage> {
    let unpadded = (4 * w) as usize;
    let mut pixels = Vec::with_capacity(unpadded * h as usize);
    for row in data.chunks(padded as usize).take(h as usize) {
        pixels.extend_from_slice(row.get(..unpadded)?);
    }
    if bgra {
        for p in pixels.chunks_exact_mut(4) {
            p.swap(0, 2);
        }
    }
    image::RgbaImage::from_raw(w, h, pixels)
}

/// Maps a `MAP_READ` buffer and copies its contents out, waiting for the GPU.
pub fn map_read(device: &wgpu::Device, buffer: &wgpu::Buffer) -> Result<Vec<u8>, RenderError> {
    let slice = buffer.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    // A buffer made on a lost device is invalid: mapping it is an error
    // here, not a panic in wgpu's uncaptured-error handler.
    catch_device_errors(device, "reading back", || {
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        })
    })?;
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| RenderError::Readback(e.to_string()))?;
    // The wait ran every callback due; none (a lost device never completes
    // the map) is an error, never a wait forever.
    rx.try_recv()
        .map_err(|_| RenderError::Readback("the map never completed (the device is lost?)".into()))?
        .map_err(|e| RenderError::Readback(e.to_string()))?;
    let data = slice
        .get_mapped_range()
        .map_err(|e| RenderError::Readback(e.to_string()))?
        .to_vec();
    buffer.unmap();
    Ok(data)
}

/// Copies a `Depth32Float` texture (a shadow map) back to the CPU, row by
/// row, top to bottom. Backends without depth-to-buffer copies (GL:
/// `DownlevelFlags::DEPTH_TEXTURE_AND_BUFFER_COPIES`) cannot.
pub fn read_depth(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
) -> Result<Vec<f32>, RenderError> {
    let (w, h) = (texture.width(), texture.height());
    let bytes_per_row = (w * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("throng depth readback"),
        size: (bytes_per_row * h) as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::DepthOnly,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bytes_per_row),
                rows_per_image: Some(h),
            },
        },
        texture.size(),
    );
    queue.submit([encoder.finish()]);
    let data = map_read(device, &buffer)?;
    Ok(data
        .chunks(bytes_per_row as usize)
        .flat_map(|row| bytemuck::pod_collect_to_vec::<u8, f32>(&row[..(w * 4) as usize]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_is_stripped_and_bgra_swapped() {
        // 1×2 image, rows padded to 8 bytes.
        let data = [1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 7, 8, 0, 0, 0, 0];
        let rgba = rows_to_rgba(&data, 1, 2, 8, false).unwrap();
        assert_eq!(rgba.as_raw(), &[1, 2, 3, 4, 5, 6, 7, 8]);
        let swapped = rows_to_rgba(&data, 1, 2, 8, true).unwrap();
        assert_eq!(swapped.as_raw(), &[3, 2, 1, 4, 7, 6, 5, 8]);
        assert!(
            rows_to_rgba(&data[..8], 1, 2, 8, false).is_none(),
            "a row short"
        );
        assert!(is_bgra(wgpu::TextureFormat::Rgba16Float).is_err());
    }
}
