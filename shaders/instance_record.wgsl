// The per-instance record the vertex stage reads: written by the CPU
// (packaged and unbounded paths) or by the cull pass (GPU-driven path).

// One visible instance (80 bytes). Mirrors throng_core::gpu::InstanceRecord.
struct InstanceRecord {
    world_from_model_row0: vec4<f32>,
    world_from_model_row1: vec4<f32>,
    world_from_model_row2: vec4<f32>,
    frame0: u32,
    frame1: u32,
    t: f32,
    prev0: u32,
    prev1: u32,
    prev_t: f32,
    fade: f32,
    tint: u32,
}
