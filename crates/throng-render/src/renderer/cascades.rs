//! A caller's cascaded shadow maps handed to a renderer made with
//! `RendererOptions::cascades` (`draw/cascades.rs`): each frame, before the
//! crowd's draw, the maps' array view and the cascades.

use super::Renderer;
use crate::base::error::RenderError;
use crate::base::uniforms::CascadeUniforms;

impl Renderer {
    /// The cascaded shadow maps the crowd's fragment stage samples this
    /// frame: `maps`, a `D2Array` view of depth layers (each cascade names
    /// its layer), compared in the renderer's depth convention, and
    /// `cascades` (their matrices, far bounds, texel sizes, biases, and
    /// the camera's view depth). Call before the frame's draw; the maps
    /// are read when the draw runs. Errors for a renderer not made with
    /// `RendererOptions::cascades`.
    pub fn set_cascades(
        &mut self,
        maps: &wgpu::TextureView,
        cascades: &CascadeUniforms,
    ) -> Result<(), RenderError> {
        let Some(c) = &self.cascades else {
            return Err(RenderError::Unsupported(
                "cascaded shadow maps for a renderer made without RendererOptions::cascades".into(),
            ));
        };
        self.queue
            .write_buffer(&c.uniform, 0, bytemuck::bytes_of(cascades));
        self.frame_bind_group = c.frame_group(&self.device, &self.frame_buffer, Some(maps));
        Ok(())
    }
}
