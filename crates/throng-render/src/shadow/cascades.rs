//! Receiving a caller's cascaded shadow maps (`RendererOptions::cascades`):
//! an engine's directional-light cascades — Bevy's — bound beside the frame
//! uniforms in group 0 of the colour pipelines (`shadow/shadow_cascades.wgsl`),
//! sampled as that engine samples them. The caller hands the maps' array
//! view and the cascades each frame (`Renderer::set_cascades`); until it
//! does, a stand-in with no cascades in use leaves the crowd lit.

use crate::base::uniforms::CascadeUniforms;
use crate::program::bind_groups::entries::{bind_group, create};
use crate::program::bind_groups::{Receive, cascade_frame_entries};

/// The cascades' uniforms, sampler and group-0 layout, and the stand-in
/// maps.
pub(crate) struct CascadeReceiver {
    pub(crate) layout: wgpu::BindGroupLayout,
    pub(crate) uniform: wgpu::Buffer,
    pub(crate) sampler: wgpu::Sampler,
    pub(crate) stand_in: wgpu::TextureView,
}

impl CascadeReceiver {
    /// `depth`: the convention the caller's maps are drawn in, whose
    /// nearer-or-equal passes the comparison (Bevy's: reverse Z,
    /// `GreaterEqual`).
    pub(crate) fn new(device: &wgpu::Device, depth: crate::base::options::DepthConvention) -> Self {
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("throng cascade uniforms"),
            size: std::mem::size_of::<CascadeUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("throng cascade sampler"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(match depth {
                crate::base::options::DepthConvention::Standard => wgpu::CompareFunction::LessEqual,
                crate::base::options::DepthConvention::Reversed => {
                    wgpu::CompareFunction::GreaterEqual
                }
            }),
            ..Default::default()
        });
        // Two layers: GL views a one-layer texture as 2D only.
        let stand_in = device
            .create_texture(&wgpu::TextureDescriptor {
                label: Some("throng cascade stand-in"),
                size: wgpu::Extent3d {
                    width: 1,
                    height: 1,
                    depth_or_array_layers: 2,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Depth32Float,
                usage: wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            })
            .create_view(&wgpu::TextureViewDescriptor {
                dimension: Some(wgpu::TextureViewDimension::D2Array),
                ..Default::default()
            });
        Self {
            layout: create(
                device,
                "throng frame + cascades layout",
                &cascade_frame_entries(),
            ),
            uniform,
            sampler,
            stand_in,
        }
    }

    /// Group 0 over the frame uniforms `frame` and the maps `maps` (the
    /// stand-in when `None`).
    pub(crate) fn frame_group(
        &self,
        device: &wgpu::Device,
        frame: &wgpu::Buffer,
        maps: Option<&wgpu::TextureView>,
    ) -> wgpu::BindGroup {
        bind_group(
            device,
            "throng frame + cascades",
            &self.layout,
            &[
                (0, frame.as_entire_binding()),
                (6, self.uniform.as_entire_binding()),
                (
                    7,
                    wgpu::BindingResource::TextureView(maps.unwrap_or(&self.stand_in)),
                ),
                (8, wgpu::BindingResource::Sampler(&self.sampler)),
            ],
        )
    }
}

/// Where a renderer made with `options` takes its shadows from.
pub(crate) fn receive_of(options: &crate::base::options::RendererOptions) -> Receive {
    match (options.cascades.is_some(), options.shadows.is_some()) {
        (true, _) => Receive::Cascades,
        (false, true) => Receive::OwnMap,
        (false, false) => Receive::None,
    }
}
