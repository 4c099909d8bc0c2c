// Throng draw stage: skins each vertex (skinning.wgsl), moves it to the world
// with the instance's matrix, and shades its material (material.wgsl) in
// one directional light and an ambient hemisphere (pbr.wgsl). RecordIn and record_in() come from the records module the record
// path picks (records_uniform.wgsl or records_storage.wgsl).

// #import skinning
// #import records
// #import fog
// #import material

// Per-frame constants. Mirrors throng_render::FrameUniforms.
struct Frame {
    clip_from_world: mat4x4<f32>,
    eye: vec4<f32>,
    // Direction towards the light (xyz), unit length.
    light_dir: vec4<f32>,
    light_color: vec4<f32>,
    // The ambient hemisphere: sky above, ground below.
    ambient: vec4<f32>,
    ground: vec4<f32>,
    fog: Fog,
    // throng_render::Shading: 0 PBR, 1 Lambert.
    shading: u32,
    // Impostors below this projected size sample one view (impostor.wgsl).
    impostor_one_view_size: f32,
    pad1: u32,
    pad2: u32,
}

const SHADING_LAMBERT: u32 = 1u;

// The frame's lights, the directional one scaled by `shadow` (1: lit).
fn frame_lights(shadow: f32) -> Lights {
    return Lights(frame.light_dir.xyz, frame.light_color.rgb * shadow, frame.ambient.rgb, frame.ground.rgb);
}

@group(0) @binding(0) var<uniform> frame: Frame;

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
    @location(5) morph: vec2<u32>,
    @location(6) tangent: vec4<f32>,
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
    // The vertex's tangent in the world, w the bitangent's sign; zero where
    // it has none (the fragment then derives a frame from derivatives).
    @location(5) world_tangent: vec4<f32>,
}

@vertex
fn vs_main(v: VertexIn, r: RecordIn) -> VertexOut {
    let rec = record_in(r);
    var s = Skinned(v.position, v.normal, v.tangent);
    if (SKINNING) {
        s = skin_record(SkinInput(v.position, v.normal, v.joints, v.weights, v.morph, v.tangent), rec);
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
    out.world_tangent = transform_tangent(world, s.tangent);
    out.uv = uv;
    out.tint = unpack4x8unorm(tint);
    out.lod_dither = 0u;
    return out;
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


// Shading shared by every fragment entry point: the material
// (material_surface: base colour × texture × tint, metallic-roughness,
// normal, occlusion and emissive maps), alpha mode, the directional light
// scaled by `shadow` (1 = lit) and the ambient hemisphere (pbr_shade, or
// Lambert's base × (ambient + light × n·l)), the frame's distance fog, and
// the LOD cross-fade's dither. Called from uniform control flow.
fn shade(in: VertexOut, front_facing: bool, shadow: f32) -> vec4<f32> {
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
    // A back face keeps the front's bitangent (the normal alone turns).
    let t = in.world_tangent * vec4<f32>(1.0, 1.0, 1.0, select(-1.0, 1.0, front_facing));
    let s = material_surface_tangent(in.uv, in.world_position, n, t, in.tint);
    if (material.alpha_mode == ALPHA_MASK && s.base.a < material.alpha_cutoff) {
        discard;
    }
    if (in.lod_dither != 0u && dither_rank(in.clip_position.xy) >= in.lod_dither) {
        discard;
    }
    let lights = frame_lights(shadow);
    var lit: vec3<f32>;
    if (frame.shading == SHADING_LAMBERT) {
        lit = lambert_shade(s.base.rgb, n, lights);
    } else {
        lit = pbr_shade(s, lights, normalize(to_eye));
    }
    let rgb = fog_apply(frame.fog, lit, frame.eye.xyz, in.world_position, frame.light_dir.xyz);
    let alpha = select(1.0, s.base.a, material.alpha_mode == ALPHA_BLEND);
    return vec4<f32>(rgb, alpha);
}

// Unshadowed shading.
@fragment
fn fs_main(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    return shade(in, front_facing, 1.0);
}
