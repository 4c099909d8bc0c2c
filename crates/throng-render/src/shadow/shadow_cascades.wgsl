// Receiving a caller's cascaded shadow maps — an engine's directional-light
// cascades, Bevy's — sampled as that engine samples them (Bevy's
// `shadows.wesl`): the cascade chosen by view-space depth and blended into
// the next over its overlap, the point offset along the normal (in the
// cascade's texels) and towards the light, and Castaño's 13-tap Gaussian
// filter of Bevy's default `ShadowFilteringMethod` over comparisons in the
// caller's depth convention (its sampler's compare function). Group 0 of
// the colour pipelines of a renderer made with `RendererOptions::cascades`,
// beside the frame uniforms.

// Mirrors throng_render::uniforms::ShadowCascade.
struct ShadowCascade {
    clip_from_world: mat4x4<f32>,
    far_bound: f32,
    texel_size: f32,
    layer: u32,
    pad: u32,
}

// Mirrors throng_render::uniforms::CascadeUniforms.
struct CascadeUniforms {
    cascades: array<ShadowCascade, MAX_SHADOW_CASCADES>,
    // Row z of the camera's view_from_world.
    view_z: vec4<f32>,
    direction_to_light: vec4<f32>,
    // x: normal bias (texels), y: depth bias (world units), z: overlap
    // proportion, w: cascades in use.
    params: vec4<f32>,
}

@group(0) @binding(6) var<uniform> cascades: CascadeUniforms;
@group(0) @binding(7) var cascade_maps: texture_depth_2d_array;
@group(0) @binding(8) var cascade_sampler: sampler_comparison;

fn cascade_compare(uv: vec2<f32>, depth: f32, layer: u32) -> f32 {
    return textureSampleCompareLevel(cascade_maps, cascade_sampler, uv, i32(layer), depth);
}

// Castaño's 13-tap filter in 9 bilinear comparisons (Bevy's
// `sample_shadow_map_castano_thirteen`).
fn cascade_filter(uv_in: vec2<f32>, depth: f32, layer: u32) -> f32 {
    let size = vec2<f32>(textureDimensions(cascade_maps));
    let inv = 1.0 / size;
    let uv = uv_in * size;
    var base = floor(uv + 0.5);
    let s = uv.x + 0.5 - base.x;
    let t = uv.y + 0.5 - base.y;
    base = (base - 0.5) * inv;
    let uw = vec3<f32>(4.0 - 3.0 * s, 7.0, 1.0 + 3.0 * s);
    let u = vec3<f32>((3.0 - 2.0 * s) / uw.x - 2.0, (3.0 + s) / uw.y, s / uw.z + 2.0);
    let vw = vec3<f32>(4.0 - 3.0 * t, 7.0, 1.0 + 3.0 * t);
    let v = vec3<f32>((3.0 - 2.0 * t) / vw.x - 2.0, (3.0 + t) / vw.y, t / vw.z + 2.0);
    var sum = 0.0;
    for (var j = 0u; j < 3u; j++) {
        for (var i = 0u; i < 3u; i++) {
            let at = base + vec2<f32>(u[i], v[j]) * inv;
            sum += uw[i] * vw[j] * cascade_compare(at, depth, layer);
        }
    }
    return sum / 144.0;
}

// Cascade `i` at `world` with surface normal `normal`: 1 lit, 0 in shadow;
// lit outside the cascade's volume.
fn cascade_sample(i: u32, world: vec3<f32>, normal: vec3<f32>) -> f32 {
    let c = cascades.cascades[i];
    let offset = world + cascades.params.x * c.texel_size * normal
        + cascades.params.y * cascades.direction_to_light.xyz;
    let clip = c.clip_from_world * vec4<f32>(offset, 1.0);
    if clip.w <= 0.0 {
        return 1.0;
    }
    let ndc = clip.xyz / clip.w;
    if any(ndc.xy < vec2<f32>(-1.0)) || ndc.z < 0.0 || any(ndc > vec3<f32>(1.0)) {
        return 1.0;
    }
    let uv = ndc.xy * vec2<f32>(0.5, -0.5) + vec2<f32>(0.5);
    return cascade_filter(uv, ndc.z, c.layer);
}

// The caller's shadow at `world`: 1 lit, 0 in shadow; lit beyond the last
// cascade.
fn cascaded_shadow(world: vec3<f32>, normal: vec3<f32>) -> f32 {
    let count = min(u32(cascades.params.w), MAX_SHADOW_CASCADES);
    let depth = -dot(cascades.view_z, vec4<f32>(world, 1.0));
    var i = 0u;
    while i < count && depth >= cascades.cascades[i].far_bound {
        i += 1u;
    }
    if i >= count {
        return 1.0;
    }
    var shadow = cascade_sample(i, world, normal);
    let next = i + 1u;
    if next < count {
        let far = cascades.cascades[i].far_bound;
        let near_next = (1.0 - cascades.params.z) * far;
        if depth >= near_next {
            let blend = (depth - near_next) / max(far - near_next, 1e-6);
            shadow = mix(shadow, cascade_sample(next, world, normal), blend);
        }
    }
    return shadow;
}
