//! Drawing in sRGB on a canvas whose formats are all linear.
//!
//! A WebGPU canvas is `rgba8unorm` or `bgra8unorm`; the spec's way to draw
//! sRGB-encoded into it is an `-srgb` view format in the canvas's
//! configuration, but wgpu 30's WebGPU backend does not pass
//! `view_formats` to the canvas, so an sRGB view of its texture is refused.
//! The page therefore draws into a texture of the sRGB twin format and
//! copies it into the canvas's texture: a copy between formats that differ
//! only in `-srgb` is allowed and keeps the encoded bytes.

/// The sRGB texture drawn into, of the canvas's size: an offscreen target
/// of the renderer's.
pub struct SrgbTarget(throng_render::Offscreen);

impl SrgbTarget {
    /// A target of `format` (sRGB) and `size`.
    pub fn new(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        size: (u32, u32),
    ) -> Result<Self, throng_render::RenderError> {
        throng_render::Offscreen::with_format(device, size, format).map(Self)
    }

    /// The view to draw into.
    pub fn view(&self) -> &wgpu::TextureView {
        &self.0.view
    }

    /// True if this target has `size`.
    pub fn fits(&self, size: (u32, u32)) -> bool {
        self.0.size == size
    }

    /// Copies the drawn picture into `canvas` (the canvas's texture, of the
    /// same size, configured with `COPY_DST`).
    pub fn copy_to(&self, device: &wgpu::Device, queue: &wgpu::Queue, canvas: &wgpu::Texture) {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("throng-web sRGB copy"),
        });
        let (width, height) = self.0.size;
        encoder.copy_texture_to_texture(
            self.0.texture.as_image_copy(),
            canvas.as_image_copy(),
            wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
        );
        queue.submit([encoder.finish()]);
    }
}
