//! Screenshots: the last frame of a `--screenshot` run is drawn into a
//! texture of the surface's own format (so every pipeline, the HUD's
//! included, draws into it unchanged) and read back as an RGBA PNG.

use anyhow::{Context, Result};
use throng_render::offscreen::{is_bgra, read_rgba8};

/// A colour target of the surface's format that can be copied out.
pub struct CaptureTarget {
    texture: wgpu::Texture,
    /// The view to draw into.
    pub view: wgpu::TextureView,
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
        Ok(Self { texture, view })
    }

    /// Copies the target to the CPU (waiting for the GPU) as RGBA8.
    pub fn read(&self, device: &wgpu::Device, queue: &wgpu::Queue) -> Result<image::RgbaImage> {
        read_rgba8(device, queue, &self.texture).context("reading the screenshot back")
    }
}
