//! Helpers several modules of this binary share: a render pass over a
//! depth target.

use throng_render::wgpu;

/// Begins a render pass labelled `label` drawing into `colour` over the
/// depth target `depth`, its depth loaded with `load` and stored (no
/// stencil, timestamps, occlusion queries or multiview).
pub fn depth_pass<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    label: &str,
    colour: &[Option<wgpu::RenderPassColorAttachment>],
    depth: &wgpu::TextureView,
    load: wgpu::LoadOp<f32>,
) -> wgpu::RenderPass<'e> {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: colour,
        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
            view: depth,
            depth_ops: Some(wgpu::Operations {
                load,
                store: wgpu::StoreOp::Store,
            }),
            stencil_ops: None,
        }),
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}
