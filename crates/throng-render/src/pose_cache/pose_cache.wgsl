// The pose cache: the skinned vertices of every baked frame of one (model,
// LOD), filled once by pose_fill.wgsl, read by the vertex stage in place of
// per-vertex skinning (records_storage.wgsl's record_pose(), called by the
// cached entry points vs_cached and vs_shadow_cached).
//
// Skinned positions are linear in the bone matrices, so interpolating two
// cached poses by the record's `t` (and cross-fading two such pairs by its
// fade) is skinning with the interpolated matrices up to float rounding:
// the same arithmetic as blended_bone(), moved from matrices to positions.
// Normals are not linear in the matrices (the cofactor is quadratic), so the
// interpolated cached normal differs from the cofactor of the interpolated
// matrix between frames by the angle between the two frames' normals squared
// (docs/design/pose-cache.md).
//
// One vertex of one pose is a vec4<u32> (throng_core::pose_cache: 16 bytes):
// xyz the model-space position's f32 bits, w the unit normal in octahedral
// coordinates as two snorm16 (pack2x16snorm). Pose f of a LOD starts at
// f * vertex_count.

// #import prelude
// #import instance_record
// #import skinning
// #import octahedral

// Mirrors throng_core::gpu::PoseCacheParams.
struct PoseCacheParams {
    vertex_count: u32,
    frame_count: u32,
    pad: vec2<u32>,
}

@group(1) @binding(2) var<storage, read> pose_cache: array<vec4<u32>>;
@group(1) @binding(3) var<uniform> pose_params: PoseCacheParams;

// One cached vertex: position bits and packed normal.
fn encode_pose_vertex(s: Skinned) -> vec4<u32> {
    return vec4<u32>(bitcast<vec3<u32>>(s.position), pack2x16snorm(oct_encode(s.normal)));
}

fn decode_pose_vertex(w: vec4<u32>) -> Skinned {
    return Skinned(bitcast<vec3<f32>>(w.xyz), oct_direction(unpack2x16snorm(w.w)), vec4<f32>(0.0));
}

// Vertex `vertex` of cached pose `frame`. The index is clamped to the
// cache, so a bad record (a frame past the table, or one whose product
// wraps) reads some cached vertex, never outside the buffer; a valid one
// (frame < frame_count, vertex < vertex_count by the LOD's indices) is in
// range by construction. One clamp, not three: this is the vertex stage's
// hottest arithmetic.
fn cached_vertex(frame: u32, vertex: u32) -> Skinned {
    let i = min(frame * pose_params.vertex_count + vertex, arrayLength(&pose_cache) - 1u);
    return decode_pose_vertex(pose_cache[i]);
}

// a + (b - a) * t, as lerp_rows does for matrices.
fn lerp_skinned(a: Skinned, b: Skinned, t: f32) -> Skinned {
    return Skinned(a.position + (b.position - a.position) * t, a.normal + (b.normal - a.normal) * t, vec4<f32>(0.0));
}

// The vertex `vertex` of the LOD for record `rec` from the cache: frame
// interpolation, then cross-fade (blended_bone's order and weights). The
// normal is not normalised here: transform_normal() normalises after the
// instance's matrix.
fn cached_skin(vertex: u32, rec: InstanceRecord) -> Skinned {
    let current = lerp_skinned(cached_vertex(rec.frame0, vertex), cached_vertex(rec.frame1, vertex), rec.t);
    let fade = record_clip_fade(rec);
    if (!CROSS_FADE || fade >= 1.0) {
        return current;
    }
    let previous = lerp_skinned(cached_vertex(rec.prev0, vertex), cached_vertex(rec.prev1, vertex), rec.prev_t);
    return lerp_skinned(previous, current, fade);
}
