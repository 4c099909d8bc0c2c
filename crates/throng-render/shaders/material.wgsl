// A submesh's material (group 2, throng_render::model and ::look): glTF's
// metallic-roughness factors and five textures, each with its sampler and
// KHR_texture_transform, and the submesh's variant palette column and
// toggle bit; decoded into a pbr.wgsl Surface. A slot without a texture
// binds a 1 × 1 neutral one (white; a flat normal), so every path samples
// the same way. Custom fragment stages call material_surface() for the
// decoded material.

// #import pbr

// Mirrors throng_render::MaterialUniforms.
struct Material {
    base_color: vec4<f32>,
    emissive: vec3<f32>,
    metallic: f32,
    roughness: f32,
    normal_scale: f32,
    occlusion_strength: f32,
    alpha_cutoff: f32,
    alpha_mode: u32,
    // Its column of the variant palette, and its submesh's bit of a
    // record's hidden mask (throng_render::look).
    palette_column: u32,
    submesh_bit: u32,
    // Bit i: texture slot i (throng_core::material::TextureSlot) has a
    // texture of the model's own.
    textures: u32,
    // Per slot, its KHR_texture_transform: the top two rows of the 3 × 3
    // matrix on (u, v, 1) (w unused).
    uv_rows: array<vec4<f32>, 10>,
}

@group(2) @binding(0) var base_texture: texture_2d<f32>;
@group(2) @binding(1) var base_sampler: sampler;
@group(2) @binding(2) var<uniform> material: Material;
// The model's variant palette: a row per variant, a column per material
// (throng_core::variety::Palette::texels).
@group(2) @binding(3) var variant_palette: texture_2d<f32>;
@group(2) @binding(4) var metallic_roughness_texture: texture_2d<f32>;
@group(2) @binding(5) var metallic_roughness_sampler: sampler;
@group(2) @binding(6) var normal_texture: texture_2d<f32>;
@group(2) @binding(7) var normal_sampler: sampler;
@group(2) @binding(8) var occlusion_texture: texture_2d<f32>;
@group(2) @binding(9) var occlusion_sampler: sampler;
@group(2) @binding(10) var emissive_texture: texture_2d<f32>;
@group(2) @binding(11) var emissive_sampler: sampler;

const SLOT_BASE_COLOR: u32 = 0u;
const SLOT_METALLIC_ROUGHNESS: u32 = 1u;
const SLOT_NORMAL: u32 = 2u;
const SLOT_OCCLUSION: u32 = 3u;
const SLOT_EMISSIVE: u32 = 4u;

const ALPHA_MASK: u32 = 1u;
const ALPHA_BLEND: u32 = 2u;

// Vertex UV `uv` through slot `slot`'s transform.
fn slot_uv(slot: u32, uv: vec2<f32>) -> vec2<f32> {
    let p = vec3<f32>(uv, 1.0);
    return vec2<f32>(dot(material.uv_rows[2u * slot].xyz, p), dot(material.uv_rows[2u * slot + 1u].xyz, p));
}

// The material's base colour texel at vertex UV `uv` (its
// KHR_texture_transform applied). Call from uniform control flow.
fn base_texel(uv: vec2<f32>) -> vec4<f32> {
    return textureSample(base_texture, base_sampler, slot_uv(SLOT_BASE_COLOR, uv));
}

// The vertex tangent `t` (on the surface of unit normal `n`) turned to
// follow `slot`'s KHR_texture_transform. The map's x is ∂p/∂u' and its y
// −∂p/∂v' (up the image; glTF's bitangent B = cross(n, T) · w is −∂p/∂v)
// for uv' = M uv, so with M = [a b; c d]: T' = (d T + c B) / det M and
// B' = (a B + b T) / det M, w the sign that makes cross(n, T') · w point
// along B'. The frame is unchanged where M only scales by positive
// factors (the common case).
fn slot_tangent(slot: u32, n: vec3<f32>, t: vec4<f32>) -> vec4<f32> {
    let r0 = material.uv_rows[2u * slot];
    let r1 = material.uv_rows[2u * slot + 1u];
    if (r0.y == 0.0 && r1.x == 0.0 && r0.x > 0.0 && r1.y > 0.0) {
        return t;
    }
    let tangent = normalize(t.xyz - n * dot(n, t.xyz));
    let bitangent = cross(n, tangent) * t.w;
    let det = r0.x * r1.y - r0.y * r1.x;
    let tu = (tangent * r1.y + bitangent * r1.x) / det;
    let bv = (bitangent * r0.x + tangent * r0.y) / det;
    return vec4<f32>(tu, select(-1.0, 1.0, dot(cross(n, tu), bv) >= 0.0));
}

// The material at a fragment: vertex UV `uv`, world position `p`, unit
// geometric normal `n` (already facing the eye's side) and the record's
// colour `tint` (tint × palette). Alpha mask is left to the caller. Call
// from uniform control flow (it samples and takes derivatives).
fn material_surface(uv: vec2<f32>, p: vec3<f32>, n: vec3<f32>, tint: vec4<f32>) -> Surface {
    return material_surface_tangent(uv, p, n, vec4<f32>(0.0), tint);
}

// material_surface() with the vertex's tangent `t` (w the bitangent's
// sign, glTF's convention: bitangent = cross(n, t.xyz) · t.w), which
// orients the normal map where it is not zero; a zero one falls back to
// the derivative frame.
fn material_surface_tangent(uv: vec2<f32>, p: vec3<f32>, n: vec3<f32>, t: vec4<f32>, tint: vec4<f32>) -> Surface {
    let base = material.base_color * base_texel(uv) * tint;
    let mr = textureSample(metallic_roughness_texture, metallic_roughness_sampler, slot_uv(SLOT_METALLIC_ROUGHNESS, uv));
    let tn = textureSample(normal_texture, normal_sampler, slot_uv(SLOT_NORMAL, uv)).xyz * 2.0 - 1.0;
    let ao = textureSample(occlusion_texture, occlusion_sampler, slot_uv(SLOT_OCCLUSION, uv)).r;
    let glow = textureSample(emissive_texture, emissive_sampler, slot_uv(SLOT_EMISSIVE, uv)).rgb;
    let scaled = vec3<f32>(tn.xy * material.normal_scale, tn.z);
    let derived = perturb_normal(n, p, slot_uv(SLOT_NORMAL, uv), scaled);
    let has_tangent = dot(t.xyz, t.xyz) > 0.0;
    let turned = select(t, slot_tangent(SLOT_NORMAL, n, t), has_tangent);
    let mapped = select(derived, tangent_normal(n, turned, scaled), has_tangent);
    let has_normal_map = (material.textures & (1u << SLOT_NORMAL)) != 0u;
    var s: Surface;
    s.base = base;
    s.metallic = material.metallic * mr.b;
    s.roughness = material.roughness * mr.g;
    s.normal = select(n, mapped, has_normal_map);
    s.occlusion = 1.0 + material.occlusion_strength * (ao - 1.0);
    s.emissive = material.emissive * glow;
    return s;
}
