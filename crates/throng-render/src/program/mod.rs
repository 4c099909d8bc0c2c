//! Floor 2, programs: how Throng's WGSL programs bind and draw — every
//! bind-group layout and each program's pipeline layout (`bind_groups`),
//! and the pipeline kit the drawers share (`pipeline`: vertex layouts, the
//! depth state, [`PassPipeline`](pipeline::PassPipeline)). Imports the
//! base and the device.

pub mod bind_groups;
pub mod pipeline;

/// True if the adapter can read storage buffers in the vertex stage, as
/// many as the storage paths' draw program binds there
/// ([`bind_groups::vertex_storage_buffers`]: records, palettes, pose cache).
pub fn supports_unbounded(adapter: &wgpu::Adapter, device: &wgpu::Device) -> bool {
    adapter
        .get_downlevel_capabilities()
        .flags
        .contains(wgpu::DownlevelFlags::VERTEX_STORAGE)
        && device.limits().max_storage_buffers_per_shader_stage
            >= bind_groups::vertex_storage_buffers()
}
