//! The crowd in a caller's prepass (`prepass/`): an engine's depth,
//! normal and motion-vector prepass. [`Renderer::set_prepass`] turns it on
//! for the frames after; each [`Renderer::prepare_draws`] then keeps the
//! frame before (the mirrors' transforms and clock, the camera), has the
//! camera's cull write each record's previous record, and plans the
//! prepass's draws, which [`Renderer::draw_prepass`] records into the
//! caller's prepass. GPU-driven path only: the previous records come from
//! the GPU cull.

use super::Renderer;
use crate::base::error::RenderError;
use crate::base::options::RecordPath;
use crate::prepass::{Prepass, PrepassTarget};
use crate::shadow::cascades::receive_of;

impl Renderer {
    /// Draws the crowd into a caller's prepass of `target`'s attachments
    /// from the next [`Self::prepare_draws`] on (`None`: no longer). The
    /// first frame after has no frame before: its motion vectors are
    /// zero. Errors on the CPU paths, which have no GPU cull, and for a
    /// target without depth or with normals or motion vectors beyond its
    /// slots.
    pub fn set_prepass(&mut self, target: Option<PrepassTarget>) -> Result<(), RenderError> {
        let Some(target) = target else {
            self.prepass = None;
            return Ok(());
        };
        if self.path != RecordPath::GpuDriven {
            return Err(RenderError::Unsupported(format!(
                "a prepass needs the GPU-driven path; this renderer draws on the {:?} path",
                self.path
            )));
        }
        target.check()?;
        if self.prepass.as_ref().is_none_or(|p| p.target != target) {
            let receive = receive_of(&self.options);
            self.prepass = Some(Prepass::new(
                &self.device,
                target,
                receive,
                self.options.skinning,
            ));
        }
        Ok(())
    }

    /// The prepass target set, if any.
    pub fn prepass_target(&self) -> Option<PrepassTarget> {
        self.prepass.as_ref().map(|p| p.target)
    }

    /// Records the prepared frame's crowd into `pass`, a prepass of the
    /// target given to [`Self::set_prepass`]: depth, and where the target
    /// has them, world normals and motion vectors. Opaque and alpha-masked
    /// meshes only: impostors, blended materials and instances with
    /// animation layers are not in it. Nothing without a prepass set.
    pub fn draw_prepass(&self, pass: &mut wgpu::RenderPass<'_>) {
        if let Some(p) = &self.prepass {
            p.draw(pass, &self.frame_bind_group);
        }
    }
}
