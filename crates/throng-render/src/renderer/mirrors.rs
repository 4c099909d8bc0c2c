//! The renderer's crowd mirrors on the GPU-driven path: shared with the
//! renderers of other views ([`Renderer::share_mirrors`]), so a crowd seen
//! by several cameras is uploaded and held once, and what they hold
//! ([`Renderer::mirror_gpu_bytes`]).

use super::Renderer;
use crate::passes::mirror::shared::SharedMirrors;

impl Renderer {
    /// Syncs and culls crowds from `mirrors`, shared with other renderers
    /// on this device, instead of mirrors of its own: the first renderer
    /// to prepare a frame uploads a crowd's changes, the others cull what
    /// it uploaded. The renderers must prepare one after another on one
    /// queue (as views of one frame do). A crowd handed to a GPU simulation
    /// keeps a mirror of its own (its simulation steps it). Returns false,
    /// and changes nothing, off the GPU-driven path (the other paths upload
    /// each view's records, not the crowd).
    pub fn share_mirrors(&mut self, mirrors: &SharedMirrors) -> bool {
        match &mut self.gpu {
            Some(gd) => {
                gd.share(mirrors.clone());
                true
            }
            None => false,
        }
    }

    /// Bytes its own crowd mirrors hold on the GPU (0 off the GPU-driven
    /// path; shared mirrors are counted by [`SharedMirrors::gpu_bytes`]).
    pub fn mirror_gpu_bytes(&self) -> u64 {
        self.gpu.as_ref().map_or(0, |gd| gd.own_mirror_bytes())
    }
}
