// The impostor capture's fragment stages, composed with Throng's draw
// program (its skinning vertex stage and material bindings). The capture
// camera looks down -Z with no rotation, so the world normal here is the
// normal in the captured view's basis.

// #import draw
// #import octahedral

// Unlit colour with coverage: base colour × texture × tint, alpha-mask
// cutoff as the crowd's own shading applies it.
@fragment
fn fs_colour(in: VertexOut) -> @location(0) vec4<f32> {
    let base = material.base_color * textureSample(base_texture, base_sampler, in.uv) * in.tint;
    if (material.alpha_mode == ALPHA_MASK && base.a < material.alpha_cutoff) {
        discard;
    }
    return vec4<f32>(base.rgb, 1.0);
}

// The view-space normal, octahedral in RG, and the depth across the cell's
// sphere in B (0 nearest the camera); A is coverage.
@fragment
fn fs_normal(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    let base = material.base_color * textureSample(base_texture, base_sampler, in.uv);
    if (material.alpha_mode == ALPHA_MASK && base.a < material.alpha_cutoff) {
        discard;
    }
    let n = normalize(in.world_normal) * select(-1.0, 1.0, front_facing);
    return vec4<f32>(oct_encode(n) * 0.5 + 0.5, in.clip_position.z, 1.0);
}
