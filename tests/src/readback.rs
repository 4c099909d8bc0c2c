//! What the GPU computed, read back in tests: a buffer's bytes
//! ([`read_buffer`], through `throng_render::offscreen::map_read`) and a
//! model's vertices as the shader's own `skin()` places them for instance
//! records ([`skin_on_gpu`], `throng_render::SkinCompute`), each failing the
//! test on an error.

use throng_core::gpu::InstanceRecord;
use throng_crowd::crowd::ModelHandle;
use throng_render::{Gpu, GpuModel, SkinCompute, SkinnedVertex, wgpu};

/// The first `bytes` bytes of `buffer` (`COPY_SRC`), copied into a
/// mappable buffer and read back, waiting for the GPU.
pub fn read_buffer(gpu: &Gpu, buffer: &wgpu::Buffer, bytes: u64) -> Vec<u8> {
    // Copies move whole 4-byte words.
    let size = bytes.max(4).div_ceil(4) * 4;
    let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("test readback"),
        size,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(buffer, 0, &staging, 0, size);
    gpu.queue.submit([encoder.finish()]);
    let mut data = throng_render::offscreen::map_read(&gpu.device, &staging)
        .unwrap_or_else(|e| panic!("reading a buffer back: {e}"));
    data.truncate(bytes as usize);
    data
}

/// LOD 0 of `handle`'s model skinned on the GPU for each of `records`, by
/// the vertex stage's own `skin()` in a compute pass; panics on a wgpu
/// validation error.
pub fn skin_on_gpu(
    gpu: &Gpu,
    handle: &ModelHandle,
    records: &[InstanceRecord],
) -> Vec<Vec<SkinnedVertex>> {
    let model = GpuModel::upload(&gpu.device, &gpu.queue, handle).expect("upload");
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let out = SkinCompute::new(&gpu.device)
        .run(&gpu.device, &gpu.queue, &model, 0, records)
        .expect("compute readback");
    assert!(
        pollster::block_on(scope.pop()).is_none(),
        "wgpu validation error"
    );
    out
}
