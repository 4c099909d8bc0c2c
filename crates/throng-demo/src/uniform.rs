//! The one uniform buffer a scenery pass binds: the buffer and its bind
//! group, built the same way for the pillars and the viewer's ground.

use throng_render::wgpu;

/// A uniform buffer sized for `T` (written each frame through the queue)
/// and a bind group of `layout` binding it whole at binding 0, labelled
/// `"{name} uniforms"` and `"{name} bind group"`.
pub fn uniform_binding<T: bytemuck::Pod>(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    name: &str,
) -> (wgpu::Buffer, wgpu::BindGroup) {
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(&format!("{name} uniforms")),
        size: size_of::<T>() as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(&format!("{name} bind group")),
        layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: buffer.as_entire_binding(),
        }],
    });
    (buffer, bind_group)
}
