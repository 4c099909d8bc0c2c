// Casting shadows: the depth-only pass from the light. It skins every vertex
// with the same full skinning as the crowd pass — 4 influences, both clips
// of a cross-fade (UAI's shadow pass used one bone) — then projects it with
// the light's matrix. VertexIn comes from draw.wgsl.

// #import skinning
// #import records
// #import draw
// #import shadow_common

@vertex
fn vs_shadow(v: VertexIn, r: RecordIn) -> @builtin(position) vec4<f32> {
    let rec = record_in(r);
    if (record_hides(rec)) {
        return HIDDEN_POSITION;
    }
    var s = Skinned(v.position, v.normal, v.tangent);
    if (SKINNING) {
        s = skin_record(SkinInput(v.position, v.normal, v.joints, v.weights, v.morph, v.tangent), rec);
    }
    let p = transform_point(world_from_model(rec), s.position);
    return shadow.light_clip_from_world * vec4<f32>(p, 1.0);
}

// Casting shadows from a (model, LOD) whose poses are cached: no vertex
// attributes at all, the position comes from the cache.
@vertex
fn vs_shadow_cached(r: RecordIn, @builtin(vertex_index) vertex: u32) -> @builtin(position) vec4<f32> {
    let rec = record_in(r);
    if (record_hides(rec)) {
        return HIDDEN_POSITION;
    }
    let p = transform_point(world_from_model(rec), record_pose(vertex, rec).position);
    return shadow.light_clip_from_world * vec4<f32>(p, 1.0);
}
