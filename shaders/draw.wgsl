// Throng draw stage: skins each vertex (skinning.wgsl), moves it to the world
// with the instance's matrix, and shades with one directional light plus
// ambient. RecordIn and record_in() come from the records module the record
// path picks (records_uniform.wgsl or records_storage.wgsl).

// #import skinning
// #import records
// #import fog

// Per-frame constants. Mirrors throng_render::FrameUniforms.
struct Frame {
    clip_from_world: mat4x4<f32>,
    eye: vec4<f32>,
    // Direction towards the light (xyz), unit length.
    light_dir: vec4<f32>,
    light_color: vec4<f32>,
    ambient: vec4<f32>,
    fog: Fog,
}

// Per-material constants. Mirrors throng_render::MaterialUniforms.
struct Material {
    base_color: vec4<f32>,
    alpha_cutoff: f32,
    alpha_mode: u32,
    // Its column of the variant palette, and its submesh's bit of a
    // record's hidden mask (throng_render::look).
    palette_column: u32,
    submesh_bit: u32,
    // The base colour texture's KHR_texture_transform, the top two rows of
    // its 3 × 3 matrix on (u, v, 1) (w unused).
    uv_row0: vec4<f32>,
    uv_row1: vec4<f32>,
}

@group(0) @binding(0) var<uniform> frame: Frame;
@group(2) @binding(0) var base_texture: texture_2d<f32>;
@group(2) @binding(1) var base_sampler: sampler;
@group(2) @binding(2) var<uniform> material: Material;
// The model's variant palette: a row per variant, a column per material
// (throng_core::variety::Palette::texels).
@group(2) @binding(3) var variant_palette: texture_2d<f32>;

// Submeshes whose normals the baker generated are shaded flat (glTF rule).
override FLAT_SHADING: bool = false;

// false: draw the bind-pose mesh with no skinning at all (the "static"
// benchmark floor that skinning overhead is measured against).
override SKINNING: bool = true;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) joints: vec4<u32>,
    @location(4) weights: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) world_position: vec3<f32>,
    @location(1) world_normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) @interpolate(flat) tint: vec4<f32>,
    // The LOD cross-fade level (0: none): this mesh keeps the pixels whose
    // dither rank is below it.
    @location(4) @interpolate(flat) lod_dither: u32,
}

@vertex
fn vs_main(v: VertexIn, r: RecordIn) -> VertexOut {
    let rec = record_in(r);
    var s = Skinned(v.position, v.normal);
    if (SKINNING) {
        s = skin_record(SkinInput(v.position, v.normal, v.joints, v.weights), rec);
    }
    var out = vertex_out(world_from_model(rec), s, v.uv, rec.tint);
    out.lod_dither = record_lod_dither(rec);
    return with_look(out, rec);
}

// The vertex stage of a (model, LOD) whose poses are cached (storage
// paths, crate::pose_cache): the pose comes from the cache
// (record_pose()), so of the bind-pose vertex only the UV is read. No
// SKINNING switch: the static floor never caches.
struct CachedVertexIn {
    @location(2) uv: vec2<f32>,
}

@vertex
fn vs_cached(v: CachedVertexIn, r: RecordIn, @builtin(vertex_index) vertex: u32) -> VertexOut {
    let rec = record_in(r);
    var out = vertex_out(world_from_model(rec), record_pose(vertex, rec), v.uv, rec.tint);
    out.lod_dither = record_lod_dither(rec);
    return with_look(out, rec);
}

// A skinned vertex moved to the world by `world` and projected: what every
// vertex entry point that shades with fs_main hands on.
fn vertex_out(world: Rows, s: Skinned, uv: vec2<f32>, tint: u32) -> VertexOut {
    let p = transform_point(world, s.position);
    var out: VertexOut;
    out.clip_position = frame.clip_from_world * vec4<f32>(p, 1.0);
    out.world_position = p;
    out.world_normal = transform_normal(world, s.normal);
    out.uv = uv;
    out.tint = unpack4x8unorm(tint);
    out.lod_dither = 0u;
    return out;
}

// The material's base colour texel at vertex UV `uv` (its
// KHR_texture_transform applied). Call from uniform control flow.
fn base_texel(uv: vec2<f32>) -> vec4<f32> {
    let p = vec3<f32>(uv, 1.0);
    let at = vec2<f32>(dot(material.uv_row0.xyz, p), dot(material.uv_row1.xyz, p));
    return textureSample(base_texture, base_sampler, at);
}

// Where a hidden submesh's vertices go: past the far plane of either depth
// convention (z > w), so that its triangles are clipped whole.
const HIDDEN_POSITION: vec4<f32> = vec4<f32>(0.0, 0.0, 2.0, 1.0);

// Whether the record hides this submesh.
fn record_hides(rec: InstanceRecord) -> bool {
    return (rec.look.y & material.submesh_bit) != 0u;
}

// A record's look on a vertex of this submesh: its palette row's colour
// for the submesh's material multiplies the tint (a row past the last
// reads the last), and a hidden submesh's vertex leaves the clip volume.
fn with_look(v: VertexOut, rec: InstanceRecord) -> VertexOut {
    var out = v;
    let size = textureDimensions(variant_palette);
    let at = vec2<u32>(min(material.palette_column, size.x - 1u), min(rec.look.x, size.y - 1u));
    out.tint *= textureLoad(variant_palette, at, 0);
    if (record_hides(rec)) {
        out.clip_position = HIDDEN_POSITION;
    }
    return out;
}

const ALPHA_MASK: u32 = 1u;
const ALPHA_BLEND: u32 = 2u;

// Shading shared by every fragment entry point: base colour (factor ×
// texture × tint), alpha mode, one directional light scaled by `shadow`
// (1 = lit) plus ambient, the frame's distance fog, and the LOD
// cross-fade's dither. Called from uniform control flow.
fn shade(in: VertexOut, front_facing: bool, shadow: f32) -> vec4<f32> {
    let texel = base_texel(in.uv);
    let face = cross(dpdx(in.world_position), dpdy(in.world_position));
    let to_eye = frame.eye.xyz - in.world_position;
    var n: vec3<f32>;
    if (FLAT_SHADING) {
        n = normalize(face);
        if (dot(n, to_eye) < 0.0) {
            n = -n;
        }
    } else {
        n = normalize(in.world_normal);
        if (!front_facing) {
            n = -n;
        }
    }
    let base = material.base_color * texel * in.tint;
    if (material.alpha_mode == ALPHA_MASK && base.a < material.alpha_cutoff) {
        discard;
    }
    if (in.lod_dither != 0u && dither_rank(in.clip_position.xy) >= in.lod_dither) {
        discard;
    }
    let diffuse = max(dot(n, frame.light_dir.xyz), 0.0) * shadow;
    let lit = base.rgb * (frame.ambient.rgb + frame.light_color.rgb * diffuse);
    let rgb = fog_apply(frame.fog, lit, frame.eye.xyz, in.world_position, frame.light_dir.xyz);
    let alpha = select(1.0, base.a, material.alpha_mode == ALPHA_BLEND);
    return vec4<f32>(rgb, alpha);
}

// Unshadowed shading.
@fragment
fn fs_main(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    return shade(in, front_facing, 1.0);
}
