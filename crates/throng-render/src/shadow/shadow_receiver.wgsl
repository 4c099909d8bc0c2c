// The crowd's shadows in a pipeline outside Throng's (a ground, a
// building): the bind group throng_render's Renderer::shadow_receiver()
// gives, declared at @group(1), and the light reaching a world position
// through it. Bind that group at index 1 of the pipeline's layout
// (throng_render::bind_groups::shadow_receiver is its layout).

// #import shadow_filter

@group(1) @binding(0) var<uniform> shadow: ShadowUniforms;
@group(1) @binding(1) var shadow_map: texture_depth_2d;
@group(1) @binding(2) var shadow_sampler: sampler_comparison;

// 1 where the light reaches `world`, down to 1 − strength in the crowd's
// full shadow.
fn crowd_light(world: vec3<f32>) -> f32 {
    return shadow_filter(shadow_map, shadow_sampler, shadow, world);
}
