//! [`entry_pipeline`]: a compute pipeline of one entry point of a module,
//! labelled by that entry point, as the passes with several stages in one
//! program build theirs.

/// The compute pipeline of `entry` in `module` with `layout`, labelled
/// `entry`, with the default compilation options and no cache.
pub(crate) fn entry_pipeline(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    layout: &wgpu::PipelineLayout,
    entry: &str,
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry),
        layout: Some(layout),
        module,
        entry_point: Some(entry),
        compilation_options: Default::default(),
        cache: None,
    })
}
