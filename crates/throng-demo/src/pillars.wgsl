// The viewer's obstacles: instanced upright cylinders (pillars, a fountain)
// that the steered crowd walks around, made from the vertex index (no mesh)
// and lit like the ground (Lambert with the scene's light, plus ambient).

struct Pillars {
    clip_from_world: mat4x4<f32>,
    // Direction towards the light (xyz).
    light: vec4<f32>,
    // Albedo times the light's colour (rgb).
    sun: vec4<f32>,
    // Albedo times the ambient light (rgb).
    ambient: vec4<f32>,
}

@group(0) @binding(0) var<uniform> u: Pillars;

// Segments around a cylinder: each a side quad (6 vertices) and a top
// triangle (3).
const SEGMENTS: u32 = 24u;
const TAU: f32 = 6.2831853;

struct Out {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
}

// One pillar: centre (x, z), radius, height.
@vertex
fn vs_pillar(@builtin(vertex_index) v: u32, @location(0) pillar: vec4<f32>) -> Out {
    let base = vec3<f32>(pillar.x, 0.0, pillar.y);
    var p = base;
    var n = vec3<f32>(0.0, 1.0, 0.0);
    let sides = SEGMENTS * 6u;
    if v < sides {
        let seg = v / 6u;
        let k = v % 6u;
        // Quad corners (around, up): (0,0) (1,0) (1,1) (0,0) (1,1) (0,1).
        let around = (0x16u >> k) & 1u;
        let up = (0x34u >> k) & 1u;
        let a = f32(seg + around) / f32(SEGMENTS) * TAU;
        let dir = vec3<f32>(cos(a), 0.0, sin(a));
        // The side runs from as far below the plane as the pillar is tall
        // (its foundation, hidden under flat ground, standing it on a
        // terrain's valleys) to its top.
        p = base + dir * pillar.z + vec3<f32>(0.0, (2.0 * f32(up) - 1.0) * pillar.w, 0.0);
        n = dir;
    } else {
        let t = v - sides;
        let seg = t / 3u;
        let k = t % 3u;
        p = base + vec3<f32>(0.0, pillar.w, 0.0);
        if k != 0u {
            let a = f32(seg + k - 1u) / f32(SEGMENTS) * TAU;
            p += vec3<f32>(cos(a), 0.0, sin(a)) * pillar.z;
        }
    }
    var out: Out;
    out.clip = u.clip_from_world * vec4<f32>(p, 1.0);
    out.normal = n;
    return out;
}

@fragment
fn fs_pillar(in: Out) -> @location(0) vec4<f32> {
    let l = max(dot(normalize(in.normal), normalize(u.light.xyz)), 0.0);
    return vec4<f32>(u.ambient.rgb + u.sun.rgb * l, 1.0);
}
