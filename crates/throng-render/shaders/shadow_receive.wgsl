// Receiving shadows in the crowd pass: the shadow map and its comparison
// sampler, and the shadowed fragment entry point.

// #import draw
// #import shadow_filter
// #import shadow_common

@group(3) @binding(3) var shadow_map: texture_depth_2d;
@group(3) @binding(4) var shadow_sampler: sampler_comparison;

// Shading with the directional light's shadows.
@fragment
fn fs_shadowed(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    return shade(in, front_facing, shadow_filter(shadow_map, shadow_sampler, shadow, in.world_position));
}
