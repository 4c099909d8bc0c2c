// The per-instance record the vertex stage reads: written by the CPU
// (packaged and unbounded paths) or by the cull pass (GPU-driven path).

// One visible instance (96 bytes). Mirrors throng_core::gpu::InstanceRecord.
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
    // Its look (throng_core::variety::Look): x the palette row, y the
    // hidden submeshes' bits.
    look: vec2<u32>,
    pad: vec2<u32>,
}

// Where a record's instance was one frame before, written beside the
// record by the cull pass's `previous` stage (cull.wgsl) for a
// motion-vector prepass (prepass.wgsl). Mirrors
// throng_core::gpu::PreviousRecord.
struct PreviousRecord {
    world_from_model_row0: vec4<f32>,
    world_from_model_row1: vec4<f32>,
    world_from_model_row2: vec4<f32>,
    frame0: u32,
    frame1: u32,
    t: f32,
    pad: u32,
}

// The clip cross-fade's weight of the current clip: `fade` less twice the
// LOD cross-fade level (throng_core::gpu::InstanceRecord::with_lod_dither).
fn record_clip_fade(rec: InstanceRecord) -> f32 {
    return rec.fade - 2.0 * f32(record_lod_dither(rec));
}

// The LOD cross-fade level (0: none; else the mesh keeps the pixels whose
// dither rank is below it, the impostor the others).
fn record_lod_dither(rec: InstanceRecord) -> u32 {
    return u32(max(floor(rec.fade * 0.5), 0.0));
}

// The 4 × 4 ordered-dither rank (0 to 15) of the pixel at framebuffer
// position `p`.
fn dither_rank(p: vec2<f32>) -> u32 {
    let x = u32(p.x) & 3u;
    let y = u32(p.y) & 3u;
    var bayer = array<u32, 16>(0u, 8u, 2u, 10u, 12u, 4u, 14u, 6u, 3u, 11u, 1u, 9u, 15u, 7u, 13u, 5u);
    return bayer[y * 4u + x];
}
