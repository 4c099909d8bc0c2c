//! The renderer's shadows (`shadow/`) in its frame: the shadow map's pass,
//! encoded into the caller's encoder, what other pipelines read of it to
//! receive the crowd's shadows, and a caller's cascaded maps handed in
//! (`RendererOptions::cascades`).

use crate::base::error::RenderError;
use crate::base::uniforms::CascadeUniforms;
use crate::draw::items::DrawItem;
use crate::shadow::ShadowReceiver;

use super::Renderer;

impl Renderer {
    /// Records the prepared frame's shadow pass into `encoder`: the shadow
    /// map that [`Self::draw`]'s shading and [`Self::shadow_receiver`]
    /// sample. Nothing with shadows off. For a caller that owns the crowd's
    /// pass: record this before that pass, in the same frame, after
    /// [`Self::prepare_draws`] (or [`Self::prepare`]). Not GPU-timed
    /// ([`Self::gpu_time`] times [`Self::encode_with`]'s passes only).
    pub fn encode_shadows(&self, encoder: &mut wgpu::CommandEncoder) {
        self.shadow_pass(encoder, None);
    }

    pub(super) fn shadow_pass(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) {
        let Some(sh) = &self.shadows.map else { return };
        self.shadow_pass_of(encoder, timestamps, &sh.items, true);
    }

    /// A shadow pass drawing `items` into the map (`Shadows::encode`).
    pub(super) fn shadow_pass_of(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
        items: &[DrawItem],
        clear: bool,
    ) {
        let impostor_cast = self.impostors.cast.as_ref();
        self.shadows
            .encode(encoder, timestamps, items, clear, impostor_cast);
    }

    /// Bind group for pipelines outside the renderer to sample the crowd's
    /// shadow map (`None` with shadows off). Valid for the frame last
    /// prepared; see [`ShadowReceiver`].
    pub fn shadow_receiver(&self) -> Option<ShadowReceiver<'_>> {
        self.shadows.receiver()
    }

    /// The shadow map and the light's `clip_from_world` of the frame last
    /// prepared (for tests and debugging; `None` when nothing was in view).
    /// On the GPU-driven path the light is fitted on the GPU and known here
    /// after [`Self::wait_gpu_stats`].
    pub fn shadow_map(&self) -> Option<(&wgpu::Texture, Option<glam::Mat4>)> {
        self.shadows.map_and_light()
    }

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
        self.frame_bind_group = self.shadows.set_cascades(
            &self.device,
            &self.queue,
            &self.frame_buffer,
            maps,
            cascades,
        )?;
        Ok(())
    }
}
