// The crowd in a caller's prepass: depth, world normals and motion vectors
// (Bevy's depth, normal and motion-vector prepasses, which SSAO, TAA and
// motion blur read). The vertex stage places each vertex exactly as the
// colour pass does (draw.wgsl's vs_main or vs_cached: the same functions
// and matrix, so the colour pass's or-equal depth test passes on the
// prepass's depth), and again where it was one frame before, from the
// record's previous record (cull.wgsl's `previous` stage): last frame's
// transform and the current clip's frames at last frame's clock. The
// fragment stage discards as the colour pass does (alpha mask, LOD
// dither) and writes the world normal as n × 0.5 + 0.5 at location 0 and
// the motion vector at location 1 — (clip xy now − clip xy then) × (0.5,
// −0.5), both cameras unjittered — as Bevy's prepass.wesl does.

// #import skinning
// #import records
// #import draw

// Mirrors throng_render::uniforms::PrepassUniforms.
struct PrepassUniforms {
    clip_from_world: mat4x4<f32>,
    previous_clip_from_world: mat4x4<f32>,
}

@group(3) @binding(2) var<uniform> prepass: PrepassUniforms;
@group(3) @binding(6) var<storage, read> previous_records: array<PreviousRecord>;

struct PrepassOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) world_position: vec3<f32>,
    @location(1) world_normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) @interpolate(flat) tint: vec4<f32>,
    @location(4) @interpolate(flat) lod_dither: u32,
    @location(5) previous_world_position: vec3<f32>,
}

struct PrepassTargets {
    @location(0) normal: vec4<f32>,
    @location(1) motion_vector: vec2<f32>,
}

// The record as it was one frame before: the previous record's transform
// and current-clip frames, now's cross-fade and look.
fn record_before(rec: InstanceRecord, instance: u32) -> InstanceRecord {
    let p = previous_records[min(instance, arrayLength(&previous_records) - 1u)];
    var before = rec;
    before.world_from_model_row0 = p.world_from_model_row0;
    before.world_from_model_row1 = p.world_from_model_row1;
    before.world_from_model_row2 = p.world_from_model_row2;
    before.frame0 = p.frame0;
    before.frame1 = p.frame1;
    before.t = p.t;
    return before;
}

// What the colour pass's vertex stage hands on, with the previous position.
fn prepass_out(v: VertexOut, previous: vec3<f32>) -> PrepassOut {
    return PrepassOut(v.clip_position, v.world_position, v.world_normal, v.uv, v.tint, v.lod_dither, previous);
}

@vertex
fn vs_prepass(v: VertexIn, r: RecordIn, @builtin(instance_index) instance: u32) -> PrepassOut {
    let rec = record_in(r);
    let before = record_before(rec, instance);
    let input = SkinInput(v.position, v.normal, v.joints, v.weights, v.morph, v.tangent);
    var s = Skinned(v.position, v.normal, v.tangent);
    var was = s;
    if (SKINNING) {
        s = skin_record(input, rec);
        was = skin_record(input, before);
    }
    var out = vertex_out(world_from_model(rec), s, v.uv, rec.tint);
    out.lod_dither = record_lod_dither(rec);
    return prepass_out(with_look(out, rec), transform_point(world_from_model(before), was.position));
}

// A (model, LOD) whose poses are cached: now's pose from the cache, as the
// colour pass's vs_cached reads it; last frame's skinned from the bind
// pose (the cache holds now's only).
@vertex
fn vs_prepass_cached(v: VertexIn, r: RecordIn, @builtin(vertex_index) vertex: u32, @builtin(instance_index) instance: u32) -> PrepassOut {
    let rec = record_in(r);
    let before = record_before(rec, instance);
    let was = skin_record(SkinInput(v.position, v.normal, v.joints, v.weights, v.morph, v.tangent), before);
    var out = vertex_out(world_from_model(rec), record_pose(vertex, rec), v.uv, rec.tint);
    out.lod_dither = record_lod_dither(rec);
    return prepass_out(with_look(out, rec), transform_point(world_from_model(before), was.position));
}

@fragment
fn fs_prepass(in: PrepassOut, @builtin(front_facing) front_facing: bool) -> PrepassTargets {
    let face = cross(dpdx(in.world_position), dpdy(in.world_position));
    var n: vec3<f32>;
    if (FLAT_SHADING) {
        n = normalize(face);
        if (dot(n, frame.eye.xyz - in.world_position) < 0.0) {
            n = -n;
        }
    } else {
        n = normalize(in.world_normal);
        if (!front_facing) {
            n = -n;
        }
    }
    let alpha = (material.base_color * base_texel(in.uv) * in.tint).a;
    if (material.alpha_mode == ALPHA_MASK && alpha < material.alpha_cutoff) {
        discard;
    }
    if (in.lod_dither != 0u && dither_rank(in.clip_position.xy) >= in.lod_dither) {
        discard;
    }
    let now = prepass.clip_from_world * vec4<f32>(in.world_position, 1.0);
    let then = prepass.previous_clip_from_world * vec4<f32>(in.previous_world_position, 1.0);
    var out: PrepassTargets;
    out.normal = vec4<f32>(n * 0.5 + vec3<f32>(0.5), 1.0);
    out.motion_vector = (now.xy / now.w - then.xy / then.w) * vec2<f32>(0.5, -0.5);
    return out;
}
