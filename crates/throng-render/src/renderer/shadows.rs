//! The crowd's shadow map: its pass, encoded into the caller's encoder, and
//! what other pipelines read of it to receive the crowd's shadows.

use crate::draw::shadow::ShadowReceiver;

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
        let Some(sh) = &self.shadow else { return };
        self.shadow_pass_of(encoder, timestamps, &sh.items, true);
    }

    /// A shadow pass drawing `items` into the map, cleared first if
    /// `clear` (else over what an earlier pass of the frame drew:
    /// occlusion culling's late shadow pass).
    pub(super) fn shadow_pass_of(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
        items: &[crate::draw::items::DrawItem],
        clear: bool,
    ) {
        let Some(sh) = &self.shadow else { return };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("throng shadow pass"),
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &sh.view,
                depth_ops: Some(wgpu::Operations {
                    load: if clear {
                        wgpu::LoadOp::Clear(1.0)
                    } else {
                        wgpu::LoadOp::Load
                    },
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: timestamps,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        if items.is_empty() {
            return;
        }
        let group = sh.cast_group.as_ref();
        let mut bound = None;
        for item in items {
            // Meshes by their cast variant; impostors (None) by their own.
            let which = (!item.impostor).then(|| crate::draw::shadow::cast_variant(item.key));
            if bound != Some(which) {
                match which {
                    None => match self.impostors.cast.as_ref() {
                        Some(p) => pass.set_pipeline(p),
                        None => continue,
                    },
                    Some(v) => pass.set_pipeline(&sh.pipelines[v]),
                }
                bound = Some(which);
            }
            item.bind_geometry(&mut pass);
            if let Some(material) = &item.material_bind_group {
                pass.set_bind_group(2, material, &[]);
            }
            item.issue(&mut pass, group);
        }
    }

    /// Bind group for pipelines outside the renderer to sample the crowd's
    /// shadow map (`None` with shadows off). Valid for the frame last
    /// prepared; see [`ShadowReceiver`].
    pub fn shadow_receiver(&self) -> Option<ShadowReceiver<'_>> {
        self.shadow.as_ref().map(|sh| ShadowReceiver {
            layout: &sh.receiver_layout,
            bind_group: &sh.receiver_group,
        })
    }

    /// The shadow map and the light's `clip_from_world` of the frame last
    /// prepared (for tests and debugging; `None` when nothing was in view).
    /// On the GPU-driven path the light is fitted on the GPU and known here
    /// after [`Self::wait_gpu_stats`].
    pub fn shadow_map(&self) -> Option<(&wgpu::Texture, Option<glam::Mat4>)> {
        self.shadow.as_ref().map(|sh| (&sh.map, sh.light))
    }
}
