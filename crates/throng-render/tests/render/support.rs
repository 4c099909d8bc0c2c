//! Helpers several modules of this binary share: a render pass over a
//! depth target, a camera on a model's bounds, a test kernel's dispatch
//! and its input and output bindings.

use glam::Vec3;
use throng_core::math::Aabb;
use throng_crowd::camera::Camera;
use throng_render::{Gpu, wgpu};

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

/// Runs `pipeline` over `workgroups` workgroups in one compute pass, with
/// `groups` bound at groups 0, 1, …, and submits it.
pub fn dispatch(
    gpu: &Gpu,
    pipeline: &wgpu::ComputePipeline,
    groups: &[&wgpu::BindGroup],
    workgroups: u32,
) {
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        for (index, group) in (0..).zip(groups) {
            pass.set_bind_group(index, *group, &[]);
        }
        pass.dispatch_workgroups(workgroups, 1, 1);
    }
    gpu.queue.submit([encoder.finish()]);
}

/// A 40° camera for a picture of `size` looking at the centre of `bounds`
/// from `from` (a direction, any length), `eye_radii` × `distance`
/// bounding radii away; its near plane a tenth of a radius, its far plane
/// 6 × `distance` radii.
pub fn camera_on_bounds(
    bounds: &Aabb,
    from: Vec3,
    eye_radii: f32,
    distance: f32,
    size: (u32, u32),
) -> Camera {
    let (centre, radius) = (bounds.center(), (bounds.max - bounds.min).length() * 0.5);
    let eye = centre + from.normalize() * radius * eye_radii * distance;
    Camera::look_at(
        eye,
        centre,
        Vec3::Y,
        40f32.to_radians(),
        size.0 as f32 / size.1 as f32,
        radius * 0.1,
        radius * 6.0 * distance,
    )
}

/// The bind group entries of a test kernel's input and output storage
/// buffers, at bindings 20 and 21, where the kernels of this binary
/// declare them (`@binding(20) var<storage, read>`,
/// `@binding(21) var<storage, read_write>`).
pub fn kernel_io_entries<'a>(
    input: &'a wgpu::Buffer,
    output: &'a wgpu::Buffer,
) -> [wgpu::BindGroupEntry<'a>; 2] {
    [
        wgpu::BindGroupEntry {
            binding: 20,
            resource: input.as_entire_binding(),
        },
        wgpu::BindGroupEntry {
            binding: 21,
            resource: output.as_entire_binding(),
        },
    ]
}
