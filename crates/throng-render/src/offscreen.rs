//! Headless render targets and pixel readback, for tests, the CLI and
//! screenshots.

use crate::error::RenderError;

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
        let limit = device.limits().max_texture_dimension_2d;
        if size.0 == 0 || size.1 == 0 || size.0 > limit || size.1 > limit {
            return Err(RenderError::TargetSize {
                width: size.0,
                height: size.1,
                limit,
            });
        }
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("throng offscreen target"),
            size: wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: OFFSCREEN_FORMAT,
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

    /// Copies the target back to the CPU as an RGBA8 image (sRGB-encoded).
    pub fn read(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
    ) -> Result<image::RgbaImage, RenderError> {
        let (w, h) = self.size;
        let unpadded = 4 * w;
        let padded = unpadded.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("throng readback"),
            size: padded as u64 * h as u64,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("throng readback copy"),
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
        let data = map_read(device, &buffer)?;
        let mut pixels = Vec::with_capacity((unpadded * h) as usize);
        for row in data.chunks(padded as usize) {
            pixels.extend_from_slice(&row[..unpadded as usize]);
        }
        image::RgbaImage::from_raw(w, h, pixels)
            .ok_or_else(|| RenderError::Readback("pixel count mismatch".into()))
    }
}

/// Maps a `MAP_READ` buffer and copies its contents out, waiting for the GPU.
pub fn map_read(device: &wgpu::Device, buffer: &wgpu::Buffer) -> Result<Vec<u8>, RenderError> {
    let slice = buffer.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| RenderError::Readback(e.to_string()))?;
    rx.recv()
        .map_err(|e| RenderError::Readback(e.to_string()))?
        .map_err(|e| RenderError::Readback(e.to_string()))?;
    let data = slice
        .get_mapped_range()
        .map_err(|e| RenderError::Readback(e.to_string()))?
        .to_vec();
    buffer.unmap();
    Ok(data)
}
