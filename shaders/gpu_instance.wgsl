// An instance's state on the GPU-driven path, written by the mirror's
// uploads (mirror.wgsl) and read by the cull pass (cull.wgsl).

// #import clock

// Mirrors throng_core::gpu::GpuInstance.
struct GpuInstance {
    row0: vec4<f32>,
    row1: vec4<f32>,
    row2: vec4<f32>,
    anchor_lo: u32,
    anchor_hi: u32,
    current: GpuTrack,
    previous: GpuTrack,
    fade0: f32,
    fade_rate: f32,
    tint: u32,
    model: u32,
}
