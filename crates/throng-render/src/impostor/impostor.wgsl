// Throng's animated impostor, the far end of the LOD chain: one quad per
// instance facing the camera (or, in the shadow pass, the light), textured
// from the atlas throng-impostor captured (throng_core::impostor).
//
// Per instance (vertex stage, the same for the quad's four corners):
// * the clip and capture position from the record's two baked frames,
//   through the frame table (ImpostorParams), interpolated like the pose;
// * the direction towards the camera in model space (through the inverse
//   of world_from_model), the three lattice views around it and their
//   barycentric weights (view_blend, the twin of ViewGrid::blend);
// * the quad: the clip's framing sphere's disc in that direction's view
//   basis (view_basis), so the sphere's silhouette in the cell covers it.
// Per corner, each of the three views' cell coordinates: the corner
// projected onto that view's plane (the views' bases differ a little from
// the quad's, and this keeps them registered).
//
// Per fragment: 3 views × 2 captures of colour (premultiplied by coverage)
// and normal (octahedral, in the view's basis, with the ambient
// occlusion), and the surface where the
// atlas has it, blended by weight; alpha tested at half coverage; lit like
// the meshes (draw.wgsl's shade) from the blended normal, tinted by the
// record's tint. Without the surface image the impostor is one material of
// the model's means and its palette row's mean colour; with it, metalness,
// roughness and glow are the blended texels', and the material under the
// heaviest view's texel picks the row's colour and its emission.

// #import draw
// #import shadow_receive
// #import octahedral

// Mirrors throng_core::gpu::ImpostorParams.
struct ImpostorParams {
    views: u32,
    frames: u32,
    cell: u32,
    layer_size: u32,
    cells_per_row: u32,
    cells_per_layer: u32,
    frame_count: u32,
    clip_count: u32,
    // The model's area-weighted mean metalness and roughness, used
    // without the surface image.
    metallic: f32,
    roughness: f32,
    // 1: the atlas has the surface image (per texel metalness, roughness,
    // glow and material), and the table's per-material emission follows
    // its cells.
    surface: u32,
    // Materials the surface image's codes spread over.
    materials: u32,
    // Its area-weighted mean emission, used without the surface image.
    emissive: vec3<f32>,
}

// Group 1 from binding 8: clear of the bone texture's bindings, which the
// imported skinning module declares at 0 and 1.
@group(1) @binding(8) var impostor_colour: texture_2d_array<f32>;
@group(1) @binding(9) var impostor_normal: texture_2d_array<f32>;
@group(1) @binding(10) var impostor_sampler: sampler;
@group(1) @binding(11) var impostor_table: texture_2d<f32>;
@group(1) @binding(12) var<uniform> impostor: ImpostorParams;
// The model's variant palette; its last column is each row's mean, which
// the impostor's one picture of every material is multiplied by
// (throng_render::look).
@group(1) @binding(13) var impostor_palette: texture_2d<f32>;

// Metalness, roughness, glow and material code per texel
// (throng_core::impostor::ImpostorAtlas::surface), premultiplied by
// coverage; a one-texel stand-in where impostor.surface is 0.
@group(1) @binding(14) var impostor_surface: texture_2d_array<f32>;

// The record's tint times its palette row's mean colour, packed; with the
// surface image, the tint alone (the fragment stage picks the colour of
// each texel's material).
fn impostor_tint(rec: InstanceRecord) -> u32 {
    if impostor.surface != 0u {
        return rec.tint;
    }
    let size = textureDimensions(impostor_palette);
    let mean = textureLoad(impostor_palette, vec2<u32>(size.x - 1u, min(rec.look.x, size.y - 1u)), 0);
    return pack_unorm4(unpack4x8unorm(rec.tint) * mean);
}

// pack4x8unorm as WGSL defines it, written out: GLSL ES 3.0 (WebGL2) has no
// packUnorm4x8, and naga does not write one for it.
fn pack_unorm4(v: vec4<f32>) -> u32 {
    let b = vec4<u32>(floor(0.5 + 255.0 * clamp(v, vec4<f32>(0.0), vec4<f32>(1.0))));
    return b.x | (b.y << 8u) | (b.z << 16u) | (b.w << 24u);
}

// Cells of the atlas.
fn cell_count() -> u32 {
    return impostor.clip_count * impostor.frames * impostor.views * impostor.views;
}

// Texels of the frame table: the frames, the clips' spheres, the cells'
// rectangles and, with the surface image, each material's emission.
fn table_len() -> u32 {
    return impostor.frame_count + impostor.clip_count + cell_count() + select(0u, impostor.materials, impostor.surface != 0u);
}

// Texel `i` of the frame table, clamped into it.
fn table_texel(i: u32) -> vec4<f32> {
    let n = max(table_len(), 1u);
    let j = min(i, n - 1u);
    return textureLoad(impostor_table, vec2<u32>(j % IMPOSTOR_TABLE_WIDTH, j / IMPOSTOR_TABLE_WIDTH), 0);
}

// Twin of throng_core::impostor::hemi_oct_encode.
fn hemi_oct_encode(dir: vec3<f32>) -> vec2<f32> {
    let d = vec3<f32>(dir.x, max(dir.y, 0.0), dir.z);
    let l1 = abs(d.x) + d.y + abs(d.z);
    if !(l1 > 0.0) {
        return vec2<f32>(0.5);
    }
    let p = vec2<f32>(d.x, d.z) / l1;
    return vec2<f32>(p.x + p.y, p.x - p.y) * 0.5 + 0.5;
}

// Twin of throng_core::impostor::hemi_oct_decode.
fn hemi_oct_decode(uv: vec2<f32>) -> vec3<f32> {
    let q = clamp(uv, vec2<f32>(0.0), vec2<f32>(1.0)) * 2.0 - 1.0;
    let p = vec2<f32>(q.x + q.y, q.x - q.y) * 0.5;
    let y = 1.0 - abs(p.x) - abs(p.y);
    return normalize(vec3<f32>(p.x, max(y, 0.0), p.y));
}

// Twin of throng_core::impostor::view_basis: columns right, up, dir.
fn view_basis(dir: vec3<f32>) -> mat3x3<f32> {
    var z = vec3<f32>(0.0, 1.0, 0.0);
    if dot(dir, dir) > 0.0 {
        z = normalize(dir);
    }
    let reference = select(vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, -1.0), abs(z.y) > 0.999);
    let x = normalize(cross(reference, z));
    return mat3x3<f32>(x, cross(z, x), z);
}

// The direction of lattice view `index` (j * views + i).
fn view_direction(index: u32) -> vec3<f32> {
    let last = f32(impostor.views - 1u);
    let uv = vec2<f32>(f32(index % impostor.views), f32(index / impostor.views)) / last;
    return hemi_oct_decode(uv);
}

// Three views and their barycentric weights. Twin of ViewGrid::blend.
struct ViewBlend {
    views: vec3<u32>,
    weights: vec3<f32>,
}

fn view_blend(dir: vec3<f32>) -> ViewBlend {
    let side = impostor.views;
    let last = f32(side - 1u);
    let g = hemi_oct_encode(dir) * last;
    let cell = clamp(floor(g), vec2<f32>(0.0), vec2<f32>(last - 1.0));
    let f = clamp(g - cell, vec2<f32>(0.0), vec2<f32>(1.0));
    // Clamped again as integers: a non-finite direction (a transform so
    // large that its cofactors overflow) makes `cell` NaN, whose conversion
    // WGSL leaves undefined. So every view is below side².
    let i = min(u32(cell.x), side - 2u);
    let j = min(u32(cell.y), side - 2u);
    let v00 = j * side + i;
    if f.x >= f.y {
        return ViewBlend(vec3<u32>(v00, v00 + 1u, v00 + side + 1u), vec3<f32>(1.0 - f.x, f.x - f.y, f.y));
    }
    return ViewBlend(vec3<u32>(v00, v00 + side + 1u, v00 + side), vec3<f32>(1.0 - f.y, f.x, f.y - f.x));
}

// The quad's corner `k` (0..3) as (−1 or 1, −1 or 1).
fn corner_of(k: u32) -> vec2<f32> {
    return vec2<f32>(f32(k & 1u), f32((k >> 1u) & 1u)) * 2.0 - 1.0;
}

// Everything about one instance's impostor that its four corners share.
struct Quad {
    // world_from_model.
    world: Rows,
    // The clip's framing sphere (model space).
    sphere: vec4<f32>,
    // Basis of the direction towards the viewer (model space).
    basis: mat3x3<f32>,
    // Base cells of the two captures around the instance's time.
    cells: vec2<u32>,
    // Weight of the second capture.
    frame_weight: f32,
}

// The quad of `rec` seen from `viewer`: a point (w = 1) or a direction
// towards the viewer (w = 0), in world space.
fn impostor_quad(rec: InstanceRecord, viewer: vec4<f32>) -> Quad {
    // The dominant clip of a cross-fade (at impostor distances a blend of two
    // silhouettes reads as a ghost, a switch at the midpoint does not).
    var f0 = rec.frame0;
    var f1 = rec.frame1;
    var t = rec.t;
    if record_clip_fade(rec) < 0.5 {
        f0 = rec.prev0;
        f1 = rec.prev1;
        t = rec.prev_t;
    }
    let a = table_texel(f0);
    let b = table_texel(f1);
    let clip = min(u32(max(a.x, 0.0)), max(impostor.clip_count, 1u) - 1u);
    let frames = max(impostor.frames, 1u);
    let pos = max(a.y + (b.y - a.y) * t, 0.0);
    let first = u32(floor(pos));
    let fa = first % frames;
    let fb = (first + 1u) % frames;
    let per_frame = impostor.views * impostor.views;
    let sphere = table_texel(impostor.frame_count + clip);

    let world = world_from_model(rec);
    let centre = transform_point(world, sphere.xyz);
    let toward = viewer.xyz - centre * viewer.w;
    // Inverse of the linear part: the columns are the rows' cross products
    // over the determinant (its sign is all the normalisation keeps).
    let c0 = cross(world.r1.xyz, world.r2.xyz);
    let c1 = cross(world.r2.xyz, world.r0.xyz);
    let c2 = cross(world.r0.xyz, world.r1.xyz);
    let det = dot(world.r0.xyz, c0);
    let dir = (c0 * toward.x + c1 * toward.y + c2 * toward.z) * select(1.0, -1.0, det < 0.0);
    var q: Quad;
    q.world = world;
    q.sphere = sphere;
    q.basis = view_basis(dir);
    q.cells = vec2<u32>((clip * frames + fa) * per_frame, (clip * frames + fb) * per_frame);
    q.frame_weight = fract(pos);
    return q;
}

// The rectangle (x0, y0, x1, y1; −1 to 1 across the sphere's disc) that
// cell `cell`'s silhouette covers.
fn cell_rect(cell: u32) -> vec4<f32> {
    return table_texel(impostor.frame_count + impostor.clip_count + cell);
}

// The union of two rectangles.
fn rect_union(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(min(a.xy, b.xy), max(a.zw, b.zw));
}

// Margin around the silhouettes' rectangle, in disc radii: the views'
// bases differ from the quad's by up to half a view step, which moves a
// silhouette's edge by a few hundredths of the disc.
const RECT_MARGIN: f32 = 0.08;

// The corner `corner` (±1, ±1) of the quad spanning `rect` (clamped to the
// disc), model space, relative to the sphere's centre.
fn corner_offset(q: Quad, rect: vec4<f32>, corner: vec2<f32>) -> vec3<f32> {
    let r = clamp(rect + vec4<f32>(-RECT_MARGIN, -RECT_MARGIN, RECT_MARGIN, RECT_MARGIN), vec4<f32>(-1.0), vec4<f32>(1.0));
    let at = mix(r.xy, r.zw, corner * 0.5 + 0.5);
    return q.sphere.w * (at.x * q.basis[0] + at.y * q.basis[1]);
}

// Cell coordinates (0..1, rows top to bottom) of the point `offset` (model
// space, from the sphere's centre) in view `view`'s cell.
fn cell_coords(view: u32, offset: vec3<f32>, radius: f32) -> vec2<f32> {
    let b = view_basis(view_direction(view));
    let p = vec2<f32>(dot(offset, b[0]), dot(offset, b[1])) / radius;
    return vec2<f32>(p.x * 0.5 + 0.5, 0.5 - p.y * 0.5);
}

// Layer coordinates (0..1) and layer of `coords` within cell `cell`, kept
// half a texel inside the cell so filtering never reads a neighbour.
struct AtlasAt {
    uv: vec2<f32>,
    layer: u32,
}

fn atlas_at(cell: u32, coords: vec2<f32>) -> AtlasAt {
    let per_layer = max(impostor.cells_per_layer, 1u);
    let per_row = max(impostor.cells_per_row, 1u);
    let within = cell % per_layer;
    let size = f32(impostor.cell);
    let origin = vec2<f32>(f32(within % per_row), f32(within / per_row)) * size;
    let texel = clamp(coords * size, vec2<f32>(0.5), vec2<f32>(size - 0.5));
    return AtlasAt((origin + texel) / f32(impostor.layer_size), cell / per_layer);
}

struct ImpostorOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) world_position: vec3<f32>,
    // Cell coordinates in the first two views.
    @location(1) coords01: vec4<f32>,
    // Cell coordinates in the third view, the second capture's weight, and
    // the sphere's radius in world units.
    @location(2) coords2: vec4<f32>,
    @location(3) @interpolate(flat) weights: vec3<f32>,
    // The three views, and the record's palette row.
    @location(4) @interpolate(flat) views: vec4<u32>,
    // Base cells of the two captures, the tint, and the LOD cross-fade
    // level (0: none; else the impostor keeps the pixels whose dither rank
    // is at least it).
    @location(5) @interpolate(flat) cells: vec4<u32>,
    // The view basis in world space, for the normals.
    @location(6) @interpolate(flat) right: vec3<f32>,
    @location(7) @interpolate(flat) up: vec3<f32>,
    @location(8) @interpolate(flat) toward: vec3<f32>,
}

// Largest scale of world_from_model's linear part.
fn max_scale(w: Rows) -> f32 {
    let x = vec3<f32>(w.r0.x, w.r1.x, w.r2.x);
    let y = vec3<f32>(w.r0.y, w.r1.y, w.r2.y);
    let z = vec3<f32>(w.r0.z, w.r1.z, w.r2.z);
    return sqrt(max(max(dot(x, x), dot(y, y)), dot(z, z)));
}

// The projected size of the quad's sphere: its radius over its distance
// along the view, in half-heights of the view (the LOD sizes' unit; the
// projection's y scale is the length of clip_from_world's second row).
fn projected_size(q: Quad) -> f32 {
    let m = frame.clip_from_world;
    let centre = m * vec4<f32>(transform_point(q.world, q.sphere.xyz), 1.0);
    let y_scale = length(vec3<f32>(m[0].y, m[1].y, m[2].y));
    return q.sphere.w * max_scale(q.world) * y_scale / max(centre.w, 1.0e-6);
}

// The far field's one view: the heaviest of the blend's three, weighted 1
// (the others keep its index and weigh 0, so the fragment stage reads it
// alone).
fn one_view(b: ViewBlend) -> ViewBlend {
    var k = 0u;
    if b.weights[1] > b.weights[k] {
        k = 1u;
    }
    if b.weights[2] > b.weights[k] {
        k = 2u;
    }
    return ViewBlend(vec3<u32>(b.views[k]), vec3<f32>(1.0, 0.0, 0.0));
}

@vertex
fn vs_impostor(@builtin(vertex_index) vertex: u32, r: RecordIn) -> ImpostorOut {
    let rec = record_in(r);
    let q = impostor_quad(rec, vec4<f32>(frame.eye.xyz, 1.0));
    var blend = view_blend(q.basis[2]);
    // Instances a few pixels tall sample one view: a third of the per-view
    // work below and of the fragment stage's reads.
    let single = projected_size(q) < frame.impostor_one_view_size;
    if single {
        blend = one_view(blend);
    }
    let views = select(3u, 1u, single);
    // The quad spans the silhouettes of the cells it blends.
    var rect = vec4<f32>(1.0, 1.0, -1.0, -1.0);
    for (var k = 0u; k < views; k++) {
        rect = rect_union(rect, cell_rect(q.cells.x + blend.views[k]));
        rect = rect_union(rect, cell_rect(q.cells.y + blend.views[k]));
    }
    let offset = corner_offset(q, rect, corner_of(vertex));
    let p = transform_point(q.world, q.sphere.xyz + offset);
    var out: ImpostorOut;
    out.clip_position = frame.clip_from_world * vec4<f32>(p, 1.0);
    out.world_position = p;
    let c0 = cell_coords(blend.views.x, offset, q.sphere.w);
    var c1 = c0;
    var c2 = c0;
    if !single {
        c1 = cell_coords(blend.views.y, offset, q.sphere.w);
        c2 = cell_coords(blend.views.z, offset, q.sphere.w);
    }
    out.coords01 = vec4<f32>(c0, c1);
    out.coords2 = vec4<f32>(c2, q.frame_weight, q.sphere.w * max_scale(q.world));
    out.weights = blend.weights;
    out.views = vec4<u32>(blend.views, rec.look.x);
    out.cells = vec4<u32>(q.cells, impostor_tint(rec), record_lod_dither(rec));
    out.right = transform_normal(q.world, q.basis[0]);
    out.up = transform_normal(q.world, q.basis[1]);
    out.toward = transform_normal(q.world, q.basis[2]);
    return out;
}

// Colour, normal and surface samples blended over the views and
// captures, and where the heaviest view's nearer capture was read.
struct Blended {
    colour: vec4<f32>,
    normal: vec4<f32>,
    surface: vec4<f32>,
    probe: AtlasAt,
}

fn blended(in: ImpostorOut) -> Blended {
    var out = Blended(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), AtlasAt(vec2<f32>(0.0), 0u));
    let coords = array<vec2<f32>, 3>(in.coords01.xy, in.coords01.zw, in.coords2.xy);
    let views = array<u32, 3>(in.views.x, in.views.y, in.views.z);
    let weights = array<f32, 3>(in.weights.x, in.weights.y, in.weights.z);
    let fw = in.coords2.z;
    // Most of a quad is empty (the character is a fraction of its sphere's
    // square): where the heaviest view's nearer capture is empty too, stop
    // after one sample.
    var k0 = 0u;
    if weights[1] > weights[k0] {
        k0 = 1u;
    }
    if weights[2] > weights[k0] {
        k0 = 2u;
    }
    let probe = atlas_at(select(in.cells.x, in.cells.y, fw >= 0.5) + views[k0], coords[k0]);
    out.probe = probe;
    if textureSampleLevel(impostor_colour, impostor_sampler, probe.uv, probe.layer, 0.0).a < IMPOSTOR_EMPTY {
        return out;
    }
    for (var k = 0u; k < 3u; k++) {
        for (var f = 0u; f < 2u; f++) {
            let w = weights[k] * select(1.0 - fw, fw, f == 1u);
            if w <= 0.0 {
                continue;
            }
            let at = atlas_at(select(in.cells.x, in.cells.y, f == 1u) + views[k], coords[k]);
            out.colour += w * textureSampleLevel(impostor_colour, impostor_sampler, at.uv, at.layer, 0.0);
            out.normal += w * textureSampleLevel(impostor_normal, impostor_sampler, at.uv, at.layer, 0.0);
            if impostor.surface != 0u {
                out.surface += w * textureSampleLevel(impostor_surface, impostor_sampler, at.uv, at.layer, 0.0);
            }
        }
    }
    return out;
}

// The material (palette column) under the probe's texel: its code over
// its coverage (both read unfiltered there, so neighbouring materials do
// not blend into a third), the inverse of
// throng_core::impostor::surface_id_code.
fn surface_material(probe: AtlasAt) -> u32 {
    let last = max(impostor.materials, 1u) - 1u;
    let size = max(impostor.layer_size, 1u);
    let texel = min(vec2<u32>(probe.uv * f32(size)), vec2<u32>(size - 1u));
    let code = textureLoad(impostor_surface, texel, probe.layer, 0).a;
    let coverage = textureLoad(impostor_colour, texel, probe.layer, 0).a;
    let id = round(clamp(code / max(coverage, 1.0 / 255.0), 0.0, 1.0) * f32(last));
    return min(u32(id), last);
}

// The impostor lit by the frame's light scaled by `shadow` (1: lit) and the
// ambient hemisphere (by the captured occlusion), then fogged, like
// draw.wgsl's shade: its captured colour and (normal-mapped) normal, with
// the surface image's metalness, roughness, glow and material, or as one
// material of the model's means without it.
fn shade_impostor(in: ImpostorOut, b: Blended, shadow: f32) -> vec4<f32> {
    let rgb = b.colour.rgb / b.colour.a;
    let e = b.normal.rg / max(b.normal.a, 1e-4) * 2.0 - 1.0;
    let occlusion = clamp(b.normal.b / max(b.normal.a, 1e-4), 0.0, 1.0);
    let nv = oct_decode(e);
    let n = normalize(nv.x * in.right + nv.y * in.up + nv.z * in.toward);
    var base = rgb * unpack4x8unorm(in.cells.z).rgb;
    var metallic = impostor.metallic;
    var roughness = impostor.roughness;
    var emissive = impostor.emissive;
    if impostor.surface != 0u {
        let m = b.surface / b.colour.a;
        let id = surface_material(b.probe);
        let size = textureDimensions(impostor_palette);
        base *= textureLoad(impostor_palette, vec2<u32>(min(id, size.x - 1u), min(in.views.w, size.y - 1u)), 0).rgb;
        metallic = clamp(m.r, 0.0, 1.0);
        roughness = clamp(m.g, 0.0, 1.0);
        emissive = table_texel(impostor.frame_count + impostor.clip_count + cell_count() + id).rgb * max(m.b, 0.0);
    }
    let lights = frame_lights(shadow);
    var lit: vec3<f32>;
    if (frame.shading == SHADING_LAMBERT) {
        lit = lambert_shade(base, n, lights);
    } else {
        let s = Surface(vec4<f32>(base, 1.0), metallic, roughness, n, occlusion, emissive);
        lit = pbr_shade(s, lights, normalize(frame.eye.xyz - in.world_position));
    }
    return vec4<f32>(fog_apply(frame.fog, lit, frame.eye.xyz, in.world_position, frame.light_dir.xyz), 1.0);
}

// Coverage below which a fragment is not the character's.
const IMPOSTOR_ALPHA_CUTOFF: f32 = 0.5;

// Coverage of the heaviest view below which a fragment is taken as empty
// without blending the others (one 8-bit level).
const IMPOSTOR_EMPTY: f32 = 0.004;

// Where the mesh half of a LOD cross-fade draws this pixel.
fn mesh_keeps(in: ImpostorOut) -> bool {
    return in.cells.w != 0u && dither_rank(in.clip_position.xy) < in.cells.w;
}

// The fragment's blended atlas texel, or the fragment discarded: where
// the mesh keeps the pixel (mesh_keeps) or the texel is clearer than
// IMPOSTOR_ALPHA_CUTOFF.
fn kept_blend(in: ImpostorOut) -> Blended {
    if mesh_keeps(in) {
        discard;
    }
    let b = blended(in);
    if b.colour.a < IMPOSTOR_ALPHA_CUTOFF {
        discard;
    }
    return b;
}

// The point of the fragment's sphere nearest the light, where its shadow
// is read.
fn nearest_the_light(in: ImpostorOut) -> vec3<f32> {
    return in.world_position + frame.light_dir.xyz * in.coords2.w;
}

@fragment
fn fs_impostor(in: ImpostorOut) -> @location(0) vec4<f32> {
    let b = kept_blend(in);
    return shade_impostor(in, b, 1.0);
}

// With the light's shadows, read at the point of the sphere nearest the
// light: the quad faces the camera, its shadow caster the light, and a
// fragment of the one read against the other would shadow itself.
@fragment
fn fs_impostor_shadowed(in: ImpostorOut) -> @location(0) vec4<f32> {
    let b = kept_blend(in);
    let at = nearest_the_light(in);
    return shade_impostor(in, b, shadow_filter(shadow_map, shadow_sampler, shadow, at));
}

// With a caller's cascades (RendererOptions::cascades), read at the same
// point, its normal the direction to the light.
@fragment
fn fs_impostor_cascaded(in: ImpostorOut) -> @location(0) vec4<f32> {
    let b = kept_blend(in);
    let at = nearest_the_light(in);
    return shade_impostor(in, b, cascaded_shadow(at, frame.light_dir.xyz));
}

struct CastOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) coords: vec2<f32>,
    @location(1) @interpolate(flat) cell: u32,
}

// The shadow pass: the quad facing the light, cut out by the coverage of
// the view nearest the light's direction at the nearer capture.
@vertex
fn vs_impostor_cast(@builtin(vertex_index) vertex: u32, r: RecordIn) -> CastOut {
    let rec = record_in(r);
    let m = shadow.light_clip_from_world;
    // Depth grows away from the light: the light is at −(depth gradient)
    // (+ in a reverse-Z light view, whose params.w is −1).
    let toward_light = -sign(shadow.params.w + 0.5) * vec3<f32>(m[0].z, m[1].z, m[2].z);
    let q = impostor_quad(rec, vec4<f32>(toward_light, 0.0));
    let blend = view_blend(q.basis[2]);
    var view = blend.views.x;
    var best = blend.weights.x;
    if blend.weights.y > best {
        view = blend.views.y;
        best = blend.weights.y;
    }
    if blend.weights.z > best {
        view = blend.views.z;
    }
    let cell = select(q.cells.x, q.cells.y, q.frame_weight >= 0.5) + view;
    let offset = corner_offset(q, cell_rect(cell), corner_of(vertex));
    let p = transform_point(q.world, q.sphere.xyz + offset);
    var out: CastOut;
    out.clip_position = m * vec4<f32>(p, 1.0);
    out.coords = cell_coords(view, offset, q.sphere.w);
    out.cell = cell;
    return out;
}

@fragment
fn fs_impostor_cast(in: CastOut) {
    let at = atlas_at(in.cell, in.coords);
    if textureSampleLevel(impostor_colour, impostor_sampler, at.uv, at.layer, 0.0).a < IMPOSTOR_ALPHA_CUTOFF {
        discard;
    }
}
