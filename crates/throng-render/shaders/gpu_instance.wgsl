// An instance's state on the GPU-driven path, written by the mirror's
// uploads (mirror.wgsl) and read by the cull pass (cull.wgsl): its
// animation and look, and apart from them its transform (moving an instance
// uploads only the transform) and its motion, from which the motion pass
// (motion.wgsl) or the simulation (simulation_passes.wgsl) writes the
// transform of each frame; and the crowd's model and clip tables. No
// bindings: every pass over the mirror imports it.

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
    // Mirrors throng_core::variety::Look.
    look_variant: u32,
    look_hidden: u32,
    pad0: u32,
    pad1: u32,
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

// T(p) · R_y(psi) · A_linear, psi given by its cosine and sine.
fn place(m: GpuMotion, p: vec3<f32>, c: f32, s: f32) -> GpuTransform {
    return GpuTransform(
        vec4<f32>((m.row0 * c + m.row2 * s).xyz, p.x),
        vec4<f32>(m.row1.xyz, p.y),
        vec4<f32>((m.row2 * c - m.row0 * s).xyz, p.z),
    );
}

// Mirrors throng_core::gpu::GpuClip.
struct GpuClip {
    first_frame: u32,
    frame_count: u32,
    duration: f32,
    frames_per_second: f32,
    sphere: vec4<f32>,
    // Half extents of the clip's box about the sphere's centre (w unused).
    half_extent: vec4<f32>,
}

// Mirrors throng_core::gpu::GpuModelInfo.
struct GpuModelInfo {
    rest_sphere: vec4<f32>,
    clip_base: u32,
    clip_count: u32,
    lod_base: u32,
    lod_count: u32,
    group_base: u32,
    impostor_lod: u32,
    impostor_size: f32,
    impostor_mesh_lod: u32,
    rest_half_extent: vec4<f32>,
    // Hidden masks with draw groups of their own (look classes 1, 2, …).
    look_classes: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
    hidden_masks: array<u32, MAX_LOOK_CLASSES>,
}
