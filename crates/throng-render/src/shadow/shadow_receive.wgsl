// Receiving shadows in the crowd pass: the shadow map and its comparison
// sampler, and the shadowed fragment entry points (Throng's own map; a
// caller's cascades).

// #import draw
// #import shadow_filter
// #import shadow_common
// #import shadow_cascades

@group(3) @binding(3) var shadow_map: texture_depth_2d;
@group(3) @binding(4) var shadow_sampler: sampler_comparison;

// Shading with the directional light's shadows.
@fragment
fn fs_shadowed(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    return shade(in, front_facing, shadow_filter(shadow_map, shadow_sampler, shadow, in.world_position));
}

// Shading with a caller's cascaded shadow maps (RendererOptions::cascades).
@fragment
fn fs_cascaded(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    let n = normalize(in.world_normal) * select(-1.0, 1.0, front_facing);
    return shade(in, front_facing, cascaded_shadow(in.world_position, n));
}
