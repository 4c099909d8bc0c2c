// Distance fog, applied at the end of shading: the formulas of Bevy's
// DistanceFog (bevy_pbr fog.wesl), so a crowd in a Bevy scene fogs as the
// scene does. Mirrors throng_render::uniforms::FogUniforms.

struct Fog {
    // Fog colour (linear RGB) and its opacity at full density.
    color: vec4<f32>,
    // The directional light scattered towards the eye (rgb) and the
    // exponent of its fade away from the light (w).
    scatter: vec4<f32>,
    // Linear: (start, end); exponential and squared: (density);
    // atmospheric: extinction per channel.
    params: vec3<f32>,
    mode: u32,
    // Atmospheric in-scattering per channel (w unused).
    inscattering: vec4<f32>,
}

const FOG_NONE: u32 = 0u;
const FOG_LINEAR: u32 = 1u;
const FOG_EXPONENTIAL: u32 = 2u;
const FOG_EXPONENTIAL_SQUARED: u32 = 3u;
const FOG_ATMOSPHERIC: u32 = 4u;

// `rgb` seen from `eye` through `fog` at `world_position`; `light_dir`
// points towards the light.
fn fog_apply(fog: Fog, rgb: vec3<f32>, eye: vec3<f32>, world_position: vec3<f32>, light_dir: vec3<f32>) -> vec3<f32> {
    if (fog.mode == FOG_NONE) {
        return rgb;
    }
    let to = world_position - eye;
    let distance = length(to);
    var colour = fog.color.rgb;
    if (any(fog.scatter.rgb != vec3<f32>(0.0))) {
        let toward_light = max(dot(to / max(distance, 1e-6), light_dir), 1e-6);
        colour += pow(toward_light, fog.scatter.w) * fog.scatter.rgb;
    }
    var a = fog.color.a;
    switch fog.mode {
        case FOG_LINEAR: {
            let start = fog.params.x;
            let end = fog.params.y;
            a *= 1.0 - clamp((end - distance) / (end - start), 0.0, 1.0);
        }
        case FOG_EXPONENTIAL: {
            a *= 1.0 - 1.0 / exp(distance * fog.params.x);
        }
        case FOG_EXPONENTIAL_SQUARED: {
            let dd = distance * fog.params.x;
            a *= 1.0 - 1.0 / exp(dd * dd);
        }
        case FOG_ATMOSPHERIC: {
            let extinction = 1.0 - 1.0 / exp(distance * fog.params);
            let inscattering = 1.0 - 1.0 / exp(distance * fog.inscattering.rgb);
            return rgb * (1.0 - extinction * a) + colour * inscattering * a;
        }
        default: {
            return rgb;
        }
    }
    return mix(rgb, colour, a);
}
