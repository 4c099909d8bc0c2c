//! Floor 6, shadows: one feature in one folder, its Rust beside its WGSL: the
//! renderer's own directional shadow map (`map`, with `shadow_cast.wgsl`
//! drawing it and `shadow_receive.wgsl`/`shadow_filter.wgsl` sampling it),
//! the GPU-driven path's light fitted on the GPU (`light_fit`,
//! `light_fit.wgsl`), a caller's cascaded maps received (`cascades`,
//! `shadow_cascades.wgsl`), and light views of the caller's into which the
//! crowd casts (`light_views`). `Shadows` owns their GPU state; the
//! renderer holds one and asks it to encode its pass.
//!
//! Above `draw` (its passes draw draw items) and below `renderer` (which
//! decides when they run). Imports the floors below.

pub(crate) mod cascades;
pub mod light_fit;
pub(crate) mod light_views;
pub(crate) mod map;

pub use light_views::{LightView, LightViewStats, LightViewTarget};
pub use map::ShadowReceiver;

use crate::base::error::RenderError;
use crate::base::uniforms::CascadeUniforms;
use crate::draw::items::DrawItem;
use cascades::CascadeReceiver;
use light_views::LightViews;
use map::Shadow;

/// The renderer's shadows: its own map (with `RendererOptions::shadows`),
/// a caller's cascades received (with `RendererOptions::cascades`), and
/// the caller's light views, once prepared.
pub(crate) struct Shadows {
    /// The renderer's own shadow map and what its pass draws.
    pub(crate) map: Option<Shadow>,
    /// A caller's cascaded shadow maps, received.
    pub(crate) cascades: Option<CascadeReceiver>,
    /// Light views of the caller's, once prepared.
    light_views: Option<LightViews>,
}

impl Shadows {
    pub(crate) fn new(map: Option<Shadow>, cascades: Option<CascadeReceiver>) -> Self {
        Self {
            map,
            cascades,
            light_views: None,
        }
    }

    /// A shadow pass drawing `items` into the map, cleared first if
    /// `clear` (else over what an earlier pass of the frame drew:
    /// occlusion culling's late shadow pass); impostors are drawn with
    /// `impostor_cast`, or left out without it. Nothing without a map.
    pub(crate) fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
        items: &[DrawItem],
        clear: bool,
        impostor_cast: Option<&wgpu::RenderPipeline>,
    ) {
        let Some(sh) = &self.map else { return };
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
            let which = (!item.impostor).then(|| map::cast_variant(item.key));
            if bound != Some(which) {
                match which {
                    None => match impostor_cast {
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

    /// The bind group through which other pipelines sample the map.
    pub(crate) fn receiver(&self) -> Option<ShadowReceiver<'_>> {
        self.map.as_ref().map(|sh| ShadowReceiver {
            layout: &sh.receiver_layout,
            bind_group: &sh.receiver_group,
        })
    }

    /// The map and the light's `clip_from_world` of the frame last
    /// prepared.
    pub(crate) fn map_and_light(&self) -> Option<(&wgpu::Texture, Option<glam::Mat4>)> {
        self.map.as_ref().map(|sh| (&sh.map, sh.light))
    }

    /// Writes a caller's `cascades` and returns the group 0 over `frame`
    /// and `maps` that the crowd's colour pipelines then bind. Errors for
    /// shadows made without `RendererOptions::cascades`.
    pub(crate) fn set_cascades(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        frame: &wgpu::Buffer,
        maps: &wgpu::TextureView,
        cascades: &CascadeUniforms,
    ) -> Result<wgpu::BindGroup, RenderError> {
        let Some(c) = &self.cascades else {
            return Err(RenderError::Unsupported(
                "cascaded shadow maps for a renderer made without RendererOptions::cascades".into(),
            ));
        };
        queue.write_buffer(&c.uniform, 0, bytemuck::bytes_of(cascades));
        Ok(c.frame_group(device, frame, Some(maps)))
    }

    /// The light views for `target`, made anew when the target changed
    /// (their pipelines are made for its format and convention).
    pub(crate) fn light_views_for(
        &mut self,
        device: &wgpu::Device,
        target: LightViewTarget,
        skinning: bool,
    ) -> &mut LightViews {
        if self
            .light_views
            .as_ref()
            .is_some_and(|lv| lv.target != target)
        {
            self.light_views = None;
        }
        self.light_views
            .get_or_insert_with(|| LightViews::new(device, target, skinning))
    }

    /// Draws light view `index`'s casters into `pass`; nothing for a view
    /// not prepared.
    pub(crate) fn draw_light_view(&self, index: usize, pass: &mut wgpu::RenderPass<'_>) {
        if let Some(lv) = &self.light_views {
            lv.draw(index, pass);
        }
    }

    /// The target of the light views last prepared, if any.
    pub(crate) fn light_view_target(&self) -> Option<LightViewTarget> {
        self.light_views.as_ref().map(|lv| lv.target)
    }
}
