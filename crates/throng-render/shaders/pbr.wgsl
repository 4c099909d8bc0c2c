// Physically based shading of glTF's metallic-roughness material, shared
// by the meshes (draw.wgsl) and the impostors (impostor.wgsl). No bindings.
//
// Direct light: the Cook-Torrance BRDF as Filament and Bevy write it — GGX
// distribution, height-correlated Smith visibility, Schlick Fresnel, a
// Lambertian diffuse for the non-metal part — times the light's colour and
// n·l. Throng's light colour is what a white Lambertian surface facing the
// light reflects (π folded in), as its Lambert shading had it.
//
// Ambient: a hemisphere, the sky's colour above and the ground's below,
// blended by the normal's height for the diffuse part and by the
// reflection's for the specular part, whose amount is Karis' analytic fit
// of the split-sum environment BRDF; both times the occlusion.

const PI: f32 = 3.14159265358979;

// Roughness below which GGX highlights alias (Filament's floor).
const MIN_ROUGHNESS: f32 = 0.045;

// A shaded point's material, decoded from the textures and factors.
struct Surface {
    // Base colour (linear RGB) and alpha.
    base: vec4<f32>,
    metallic: f32,
    // Perceptual roughness.
    roughness: f32,
    // Unit world-space normal, facing the eye's side.
    normal: vec3<f32>,
    // Ambient occlusion, 1 unoccluded.
    occlusion: f32,
    // Emitted light (linear RGB).
    emissive: vec3<f32>,
}

// The lights a point sees.
struct Lights {
    // Unit direction towards the directional light.
    to_light: vec3<f32>,
    // Its colour times its shadow (1 lit).
    light: vec3<f32>,
    // The hemisphere's sky and ground colours.
    sky: vec3<f32>,
    ground: vec3<f32>,
}

fn d_ggx(n_dot_h: f32, a: f32) -> f32 {
    let a2 = a * a;
    let f = (n_dot_h * a2 - n_dot_h) * n_dot_h + 1.0;
    return a2 / (PI * f * f);
}

fn v_smith_ggx_correlated(n_dot_v: f32, n_dot_l: f32, a: f32) -> f32 {
    let a2 = a * a;
    let gv = n_dot_l * sqrt((n_dot_v - a2 * n_dot_v) * n_dot_v + a2);
    let gl = n_dot_v * sqrt((n_dot_l - a2 * n_dot_l) * n_dot_l + a2);
    return 0.5 / max(gv + gl, 1e-6);
}

fn f_schlick(f0: vec3<f32>, v_dot_h: f32) -> vec3<f32> {
    let f = pow(1.0 - v_dot_h, 5.0);
    return f0 + (vec3<f32>(1.0) - f0) * f;
}

// Karis' fit of the split-sum environment BRDF ("Physically Based Shading
// on Mobile", 2014): the specular reflectance of a uniform environment.
fn env_brdf(f0: vec3<f32>, roughness: f32, n_dot_v: f32) -> vec3<f32> {
    let c0 = vec4<f32>(-1.0, -0.0275, -0.572, 0.022);
    let c1 = vec4<f32>(1.0, 0.0425, 1.04, -0.04);
    let r = roughness * c0 + c1;
    let a004 = min(r.x * r.x, exp2(-9.28 * n_dot_v)) * r.x + r.y;
    let ab = vec2<f32>(-1.04, 1.04) * a004 + r.zw;
    return f0 * ab.x + ab.y;
}

// The hemisphere's light along unit direction `d`.
fn hemisphere(l: Lights, d: vec3<f32>) -> vec3<f32> {
    return mix(l.ground, l.sky, 0.5 + 0.5 * d.y);
}

// Lambert's shading of base colour `base` with unit normal `n`: base ×
// (hemisphere + light × n·l), the model before PBR (throng_render::
// Shading::Lambert).
fn lambert_shade(base: vec3<f32>, n: vec3<f32>, l: Lights) -> vec3<f32> {
    return base * (hemisphere(l, n) + l.light * max(dot(n, l.to_light), 0.0));
}

// The light leaving surface `s` towards unit direction `v` (to the eye).
fn pbr_shade(s: Surface, l: Lights, v: vec3<f32>) -> vec3<f32> {
    let n = s.normal;
    let roughness = clamp(s.roughness, MIN_ROUGHNESS, 1.0);
    let a = roughness * roughness;
    let diffuse_colour = s.base.rgb * (1.0 - s.metallic);
    let f0 = mix(vec3<f32>(0.04), s.base.rgb, s.metallic);
    let n_dot_v = max(dot(n, v), 1e-4);
    // Direct light.
    let n_dot_l = max(dot(n, l.to_light), 0.0);
    let h = normalize(v + l.to_light);
    let n_dot_h = max(dot(n, h), 0.0);
    let v_dot_h = max(dot(v, h), 0.0);
    let specular = d_ggx(n_dot_h, a) * v_smith_ggx_correlated(n_dot_v, n_dot_l, a) * f_schlick(f0, v_dot_h);
    let direct = (diffuse_colour + PI * specular) * l.light * n_dot_l;
    // Ambient light.
    let r = reflect(-v, n);
    let ambient = diffuse_colour * hemisphere(l, n) + env_brdf(f0, roughness, n_dot_v) * hemisphere(l, r);
    return direct + ambient * s.occlusion + s.emissive;
}

// A tangent-space normal `m` on the surface of unit normal `n` through the
// vertex tangent `t` (glTF: bitangent = cross(n, t.xyz) · t.w; the tangent
// made orthogonal to `n` first).
fn tangent_normal(n: vec3<f32>, t: vec4<f32>, m: vec3<f32>) -> vec3<f32> {
    let tangent = normalize(t.xyz - n * dot(n, t.xyz));
    let bitangent = cross(n, tangent) * t.w;
    let mapped = normalize(tangent * m.x + bitangent * m.y + n * m.z);
    return select(n, mapped, all(mapped == mapped));
}

// A tangent-space normal `t` (z out of the surface, y up the image as glTF
// draws normal maps) on the surface of unit normal `n` at world position
// `p` and texture coordinates `uv`, through the cotangent frame that
// screen-space derivatives give (Schüler, "Normal Mapping Without
// Precomputed Tangents", 2013). Call from uniform control flow.
//
// Schüler's formula takes y up the screen; WGSL's dpdy grows down it,
// which turns his frame by 180° about n: the tangent (towards increasing
// u) is the negated sum, and his bitangent (towards increasing v) negated
// twice is what the map's +y needs, since texture v grows down the image
// while the map's y grows up it. crates/throng-render/tests/render/tangents.rs holds this frame to
// the vertex tangents' orientation.
fn perturb_normal(n: vec3<f32>, p: vec3<f32>, uv: vec2<f32>, t: vec3<f32>) -> vec3<f32> {
    let dp1 = dpdx(p);
    let dp2 = dpdy(p);
    let duv1 = dpdx(uv);
    let duv2 = dpdy(uv);
    let dp2perp = cross(dp2, n);
    let dp1perp = cross(n, dp1);
    let tangent = -(dp2perp * duv1.x + dp1perp * duv2.x);
    let bitangent = dp2perp * duv1.y + dp1perp * duv2.y;
    let scale = inverseSqrt(max(max(dot(tangent, tangent), dot(bitangent, bitangent)), 1e-20));
    let m = normalize(tangent * scale * t.x + bitangent * scale * t.y + n * t.z);
    return select(n, m, all(m == m));
}
