// The ground: one large square at a fixed height, drawn with no vertex
// buffer (six vertices from the vertex index), a world-space grid with
// screen-space antialiasing, fading into the sky colour with distance so the
// square's edge never shows, darkened where the crowd's shadow map says the
// light is blocked. Then a faint elliptic contact blob under each instance
// (one instanced quad each), blended over the ground. The crowd's shadows
// come through throng-render's shadow_receiver module (group 1).

// #import shadow_receiver

struct Ground {
    clip_from_world: mat4x4<f32>,
    // xyz: centre of the square; w: half its side.
    center: vec4<f32>,
    // Lit base colour (linear RGB).
    color: vec4<f32>,
    // Grid line colour (linear RGB).
    line_color: vec4<f32>,
    // Sky colour the ground fades into (linear RGB).
    fog_color: vec4<f32>,
    // x: grid cell size; y: fade start distance; z: fade end distance;
    // w: height of the blob shadows over the ground.
    params: vec4<f32>,
    // Blob shadow in model space: xy half extents (x, z), zw centre (x, z).
    blob: vec4<f32>,
}

@group(0) @binding(0) var<uniform> ground: Ground;


struct VertexOutput {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
}

// Two triangles, counter-clockwise seen from above.
const CORNERS = array<vec2<f32>, 6>(
    vec2(-1.0, -1.0), vec2(-1.0, 1.0), vec2(1.0, 1.0),
    vec2(-1.0, -1.0), vec2(1.0, 1.0), vec2(1.0, -1.0),
);

// Corner `index` of the unit square, for both quads (the ground and each
// blob). A constant array can only be indexed by a constant, so it is copied
// to a variable first.
fn corner(index: u32) -> vec2<f32> {
    var corners = CORNERS;
    return corners[index];
}

// A world-space point in clip space.
fn clip_from_world(world: vec3<f32>) -> vec4<f32> {
    return ground.clip_from_world * vec4(world, 1.0);
}

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> VertexOutput {
    let c = corner(index);
    let world = ground.center.xyz + vec3(c.x, 0.0, c.y) * ground.center.w;
    var out: VertexOutput;
    out.clip = clip_from_world(world);
    out.world = world;
    return out;
}

@fragment
fn fs_main(in: VertexOutput) -> @location(0) vec4<f32> {
    let coord = in.world.xz / ground.params.x;
    let width = max(fwidth(coord), vec2(1e-6));
    // Distance to the nearest grid line in pixels, per axis.
    let to_line = abs(fract(coord - 0.5) - 0.5) / width;
    let line = 1.0 - min(min(to_line.x, to_line.y), 1.0);
    // Fade lines out where cells shrink to a few pixels (no moiré).
    let detail = 1.0 - smoothstep(0.08, 0.3, max(width.x, width.y));
    var color = mix(ground.color.rgb, ground.line_color.rgb, line * detail * 0.6);
    color *= crowd_light(in.world);
    let d = distance(in.world.xz, ground.center.xz);
    let fog = smoothstep(ground.params.y, ground.params.z, d);
    color = mix(color, ground.fog_color.rgb, fog);
    return vec4(color, 1.0);
}

// Blob shadows.

// Darkness at a blob's centre: a contact darkening under the feet; the
// shadow itself comes from the shadow map.
const BLOB_OPACITY: f32 = 0.25;

struct BlobOutput {
    @builtin(position) clip: vec4<f32>,
    // Position in the blob's unit disc.
    @location(0) unit: vec2<f32>,
}

// `placement`: world x, world z, heading (radians about +Y), scale.
@vertex
fn vs_blob(@builtin(vertex_index) index: u32, @location(0) placement: vec4<f32>) -> BlobOutput {
    let c = corner(index);
    let local = ground.blob.zw + c * ground.blob.xy;
    let s = sin(placement.z);
    let k = cos(placement.z);
    // Rotation about +Y: (x, z) -> (x cos + z sin, -x sin + z cos).
    let turned = vec2(local.x * k + local.y * s, -local.x * s + local.y * k) * placement.w;
    let world = vec3(
        placement.x + turned.x,
        ground.center.y + ground.params.w,
        placement.y + turned.y,
    );
    var out: BlobOutput;
    out.clip = clip_from_world(world);
    out.unit = c;
    return out;
}

@fragment
fn fs_blob(in: BlobOutput) -> @location(0) vec4<f32> {
    let r = length(in.unit);
    let a = BLOB_OPACITY * (1.0 - smoothstep(0.1, 1.0, r));
    return vec4(0.0, 0.0, 0.0, a);
}
