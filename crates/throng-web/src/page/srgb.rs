//! Drawing in sRGB on a canvas whose formats are all linear.
//!
//! A WebGPU canvas is `rgba8unorm` or `bgra8unorm`; the spec's way to draw
//! sRGB-encoded into it is an `-srgb` view format in the canvas's
//! configuration, but wgpu 30's WebGPU backend does not pass
//! `view_formats` to the canvas, so an sRGB view of its texture is refused.
//! The page therefore draws into a texture of the sRGB twin format and
//! copies it into the canvas's texture: a copy between formats that differ
//! only in `-srgb` is allowed and keeps the encoded bytes.

/// The sRGB texture drawn into, of the canvas's size.
pub struct SrgbTarget {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
}

impl SrgbTarget {
    /// A target of `format` (sRGB) and `size`.
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat, size: (u32, u32)) -> Self {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("throng-web sRGB target"),
            size: extent(size),
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        Self { texture, view }
    }

    /// The view to draw into.
    pub fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// True if this target has `size`.
    pub fn fits(&self, size: (u32, u32)) -> bool {
        (self.texture.width(), self.texture.height()) == size
    }

    /// Copies the drawn picture into `canvas` (the canvas's texture, of the
    /// same size, configured with `COPY_DST`).
    pub fn copy_to(&self, device: &wgpu::Device, queue: &wgpu::Queue, canvas: &wgpu::Texture) {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("throng-web sRGB copy"),
        });
        encoder.copy_texture_to_texture(
            self.texture.as_image_copy(),
            canvas.as_image_copy(),
            extent((self.texture.width(), self.texture.height())),
        );
        queue.submit([encoder.finish()]);
    }
}

fn extent(size: (u32, u32)) -> wgpu::Extent3d {
    wgpu::Extent3d {
        width: size.0,
        height: size.1,
        depth_or_array_layers: 1,
    }
}
