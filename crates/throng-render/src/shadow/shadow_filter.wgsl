// Shadow-map filtering, free of bindings so any pipeline can use it (the
// crowd pass, and pipelines outside throng-render such as a ground plane,
// through throng_render::ShadowReceiver).

// Mirrors throng_render::uniforms::ShadowUniforms.
struct ShadowUniforms {
    // Orthographic clip_from_world of the light (depth 0..1).
    light_clip_from_world: mat4x4<f32>,
    // x: 1 / shadow-map size, y: depth bias, z: shadow strength (0..1),
    // w: −1 for a reverse-Z light view of the caller's, else 0.
    params: vec4<f32>,
}

// 3×3 percentage-closer filtering of `map` at world position `world`: 1 where
// the light reaches it, down to 1 − strength in full shadow. Outside the map
// (nothing cast there) everything is lit.
fn shadow_filter(map: texture_depth_2d, smp: sampler_comparison, u: ShadowUniforms, world: vec3<f32>) -> f32 {
    let clip = u.light_clip_from_world * vec4<f32>(world, 1.0);
    let ndc = clip.xyz / clip.w;
    let uv = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
    let outside = any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) || ndc.z > 1.0;
    let depth = ndc.z - u.params.y;
    let texel = u.params.x;
    var lit = 0.0;
    for (var y = -1; y <= 1; y++) {
        for (var x = -1; x <= 1; x++) {
            let offset = vec2<f32>(f32(x), f32(y)) * texel;
            lit += textureSampleCompareLevel(map, smp, uv + offset, depth);
        }
    }
    return select(1.0 - u.params.z * (1.0 - lit / 9.0), 1.0, outside);
}
