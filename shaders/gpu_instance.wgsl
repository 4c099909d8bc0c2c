// An instance's state on the GPU-driven path, written by the mirror's
// uploads (mirror.wgsl) and read by the cull pass (cull.wgsl): its
// animation and look, and apart from them its transform (moving an instance
// uploads only the transform) and its motion, from which the motion pass
// (motion.wgsl) writes the transform of each frame.

// #import clock

// Mirrors throng_core::gpu::GpuInstance.
struct GpuInstance {
    anchor_lo: u32,
    anchor_hi: u32,
    current: GpuTrack,
    previous: GpuTrack,
    fade0: f32,
    fade_rate: f32,
    tint: u32,
    model: u32,
}

// Mirrors throng_core::gpu::GpuTransform: the top three rows of
// world_from_model.
struct GpuTransform {
    row0: vec4<f32>,
    row1: vec4<f32>,
    row2: vec4<f32>,
}

// Mirrors throng_core::gpu::GpuMotion.
struct GpuMotion {
    row0: vec4<f32>,
    row1: vec4<f32>,
    row2: vec4<f32>,
    anchor_lo: u32,
    anchor_hi: u32,
    // Kind in the low 8 bits, wrap code in bits 8 to 15.
    kind: u32,
    base: u32,
    track: vec4<u32>,
    a: vec4<f32>,
    b: vec4<u32>,
}
