// Throng skinning: bone-texture addressing, frame interpolation, cross-fades.
//
// Shared by the render pipeline (draw.wgsl) and the compute readback
// (compute_skin.wgsl). Constants (PACKAGE_WIDTH, TEXELS_PER_MATRIX, ...) come
// from the prelude that throng-render generates from throng-core's limits.
//
// Arithmetic mirrors throng_core::baked exactly:
//   per influence i: M_i = lerp(P(frame0), P(frame1), t)
//                    if fade < 1: M_i = lerp(lerp(P(prev0), P(prev1), prev_t), M_i, fade)
//   M = sum_i w_i M_i; position = M (p, 1); normal = sign(det) cofactor(M) n, normalised.
// Before that, a vertex that morph targets move is morphed (morph(), mirroring
// throng_core::morph): p += sum_k w_slot(k) dp_k, n += sum_k w_slot(k) dn_k,
// each slot's weight blended from the morph texture as the bones are.
// lerp(a, b, t) is written a + (b - a) * t, as on the CPU.

// #import prelude
// #import instance_record

// Per-model constants. Mirrors throng_core::gpu::ModelParams.
struct ModelParams {
    bone_count: u32,
    frame_count: u32,
    texture_width: u32,
    texture_layers: u32,
    morph_slots: u32,
    morph_frame_texels: u32,
    morph_delta_base: u32,
    morph_delta_count: u32,
}

@group(1) @binding(0) var bone_texture: texture_2d_array<f32>;
@group(1) @binding(1) var<uniform> model: ModelParams;
// Every frame's morph weights, then the deltas (throng_core::morph, "On the
// GPU"); a one-texel stand-in for a model without morph targets.
@group(1) @binding(4) var morph_texture: texture_2d<f32>;

// The top three rows of an affine 3x4 matrix.
struct Rows {
    r0: vec4<f32>,
    r1: vec4<f32>,
    r2: vec4<f32>,
}

// Position (x, y, layer) of texel `index` of the linear layout:
// layer = i / (W*W), y = (i % (W*W)) / W, x = i % W.
fn texel_position(index: u32) -> vec3<u32> {
    let w = model.texture_width;
    let per_layer = w * w;
    let in_layer = index % per_layer;
    return vec3<u32>(in_layer % w, in_layer / w, index / per_layer);
}

// The position of the next texel in linear order: x + 1, carrying into the
// next row and the next layer. The same integers as texel_position(index + 1)
// without the divisions (the shader's most frequent arithmetic).
fn next_texel(p: vec3<u32>) -> vec3<u32> {
    let w = model.texture_width;
    let x = p.x + 1u;
    let wrap_x = x == w;
    let y = p.y + u32(wrap_x);
    let wrap_y = y == w;
    return vec3<u32>(select(x, 0u, wrap_x), select(y, 0u, wrap_y), p.z + u32(wrap_y));
}

fn load_texel(p: vec3<u32>) -> vec4<f32> {
    return textureLoad(bone_texture, p.xy, p.z, 0);
}

// Palette matrix of `bone` at global `frame`: three consecutive texels.
// Indices are clamped so that a bad record can never address outside the
// texture.
fn bone_rows(bone: u32, frame: u32) -> Rows {
    let b = min(bone, model.bone_count - 1u);
    let f = min(frame, model.frame_count - 1u);
    let p0 = texel_position((f * model.bone_count + b) * TEXELS_PER_MATRIX);
    let p1 = next_texel(p0);
    let p2 = next_texel(p1);
    return Rows(load_texel(p0), load_texel(p1), load_texel(p2));
}

fn lerp_rows(a: Rows, b: Rows, t: f32) -> Rows {
    return Rows(a.r0 + (b.r0 - a.r0) * t, a.r1 + (b.r1 - a.r1) * t, a.r2 + (b.r2 - a.r2) * t);
}

// false: no record drawn by this pipeline fades (fade == 1), so the previous
// clip's loads are compiled out. The renderer draws the crowd's fading and
// non-fading instances in separate groups (throng_crowd::crowd::DrawGroup::
// cross_fade) with a pipeline each: a branch on `fade` alone is not free on
// every GPU (lavapipe pays for the loads of a never-taken branch).
override CROSS_FADE: bool = true;

// The bone's matrix for this instance: frame interpolation, then cross-fade.
fn blended_bone(bone: u32, rec: InstanceRecord) -> Rows {
    let current = lerp_rows(bone_rows(bone, rec.frame0), bone_rows(bone, rec.frame1), rec.t);
    let fade = record_clip_fade(rec);
    if (!CROSS_FADE || fade >= 1.0) {
        return current;
    }
    let previous = lerp_rows(bone_rows(bone, rec.prev0), bone_rows(bone, rec.prev1), rec.prev_t);
    return lerp_rows(previous, current, fade);
}

fn transform_point(m: Rows, p: vec3<f32>) -> vec3<f32> {
    let h = vec4<f32>(p, 1.0);
    return vec3<f32>(dot(m.r0, h), dot(m.r1, h), dot(m.r2, h));
}

// The rows of the cofactor matrix of m's 3x3 part (rows p, q, r): q×r,
// r×p, p×q, and the determinant p·(q×r).
struct Cofactor {
    c0: vec3<f32>,
    c1: vec3<f32>,
    c2: vec3<f32>,
    det: f32,
}

fn cofactor(m: Rows) -> Cofactor {
    let p = m.r0.xyz;
    let q = m.r1.xyz;
    let r = m.r2.xyz;
    let c0 = cross(q, r);
    return Cofactor(c0, cross(r, p), cross(p, q), dot(p, c0));
}

// Signed cofactor of the 3x3 part (|det| M^-T): correct under non-uniform
// scale and mirroring. Returns `n` unchanged if the result is degenerate.
fn transform_normal(m: Rows, n: vec3<f32>) -> vec3<f32> {
    let c = cofactor(m);
    let s = select(1.0, -1.0, c.det < 0.0);
    let o = vec3<f32>(dot(c.c0, n), dot(c.c1, n), dot(c.c2, n)) * s;
    let len2 = dot(o, o);
    return select(n, o * inverseSqrt(len2), len2 > 0.0);
}

struct SkinInput {
    position: vec3<f32>,
    normal: vec3<f32>,
    joints: vec4<u32>,
    weights: vec4<f32>,
    // The vertex's morph deltas: first, count (BakedVertex::morph).
    morph: vec2<u32>,
    // Its tangent, w the bitangent's sign (zero: none).
    tangent: vec4<f32>,
}

// Texel `index` of the morph texture, rows of MORPH_TEXTURE_WIDTH.
fn morph_texel(index: u32) -> vec4<f32> {
    return textureLoad(morph_texture, vec2<u32>(index % MORPH_TEXTURE_WIDTH, index / MORPH_TEXTURE_WIDTH), 0);
}

// Weight of `slot` at global `frame`, both clamped as bone_rows() clamps.
fn morph_weight_at(slot: u32, frame: u32) -> f32 {
    let s = min(slot, model.morph_slots - 1u);
    let f = min(frame, model.frame_count - 1u);
    let t = morph_texel(f * model.morph_frame_texels + s / MORPH_WEIGHTS_PER_TEXEL);
    return t[s % MORPH_WEIGHTS_PER_TEXEL];
}

// A slot's weight for this instance: frame interpolation, then cross-fade,
// as blended_bone() blends matrices.
fn morph_weight(slot: u32, rec: InstanceRecord) -> f32 {
    let a = morph_weight_at(slot, rec.frame0);
    let current = a + (morph_weight_at(slot, rec.frame1) - a) * rec.t;
    let fade = record_clip_fade(rec);
    if (!CROSS_FADE || fade >= 1.0) {
        return current;
    }
    let b = morph_weight_at(slot, rec.prev0);
    let previous = b + (morph_weight_at(slot, rec.prev1) - b) * rec.prev_t;
    return previous + (current - previous) * fade;
}

// The vertex's deltas (first, count), clamped to the deltas, so a bad
// vertex never loops past them.
fn morph_range(v: SkinInput) -> vec2<u32> {
    let first = min(v.morph.x, model.morph_delta_count);
    return vec2<u32>(first, min(v.morph.y, model.morph_delta_count - first));
}

// The vertex with its morph deltas applied (unchanged where none move it).
fn morph(v: SkinInput, rec: InstanceRecord) -> SkinInput {
    let range = morph_range(v);
    var out = v;
    for (var k = 0u; k < range.y; k++) {
        let at = model.morph_delta_base + (range.x + k) * MORPH_DELTA_TEXELS;
        let dp = morph_texel(at);
        let w = morph_weight(u32(dp.w), rec);
        out.position += dp.xyz * w;
        out.normal += morph_texel(at + 1u).xyz * w;
    }
    return out;
}

struct Skinned {
    position: vec3<f32>,
    normal: vec3<f32>,
    // Unit tangent, w the bitangent's sign; zero where the vertex has none
    // (and from the pose cache, which holds none).
    tangent: vec4<f32>,
}

// A tangent moved by `m`: its direction by the 3x3 part, normalised, the
// sign flipped where `m` mirrors. A zero tangent stays zero, without the
// arithmetic: a model without normal maps has none, so whole waves skip it.
fn transform_tangent(m: Rows, t: vec4<f32>) -> vec4<f32> {
    if (t.w == 0.0) {
        return vec4<f32>(0.0);
    }
    let d = vec3<f32>(dot(m.r0.xyz, t.xyz), dot(m.r1.xyz, t.xyz), dot(m.r2.xyz, t.xyz));
    let len2 = dot(d, d);
    let mirror = dot(m.r0.xyz, cross(m.r1.xyz, m.r2.xyz)) < 0.0;
    return select(vec4<f32>(0.0), vec4<f32>(d * inverseSqrt(len2), select(t.w, -t.w, mirror)), len2 > 0.0);
}

// Skins one bind-pose vertex into model space for one instance, morphing
// it first.
fn skin(input: SkinInput, rec: InstanceRecord) -> Skinned {
    let v = morph(input, rec);
    var m = Rows(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var k = 0u; k < MAX_INFLUENCES; k++) {
        let w = v.weights[k];
        if (w != 0.0) {
            let b = blended_bone(v.joints[k], rec);
            m.r0 += b.r0 * w;
            m.r1 += b.r1 * w;
            m.r2 += b.r2 * w;
        }
    }
    return Skinned(transform_point(m, v.position), transform_normal(m, v.normal), transform_tangent(m, v.tangent));
}

fn world_from_model(rec: InstanceRecord) -> Rows {
    return Rows(rec.world_from_model_row0, rec.world_from_model_row1, rec.world_from_model_row2);
}
