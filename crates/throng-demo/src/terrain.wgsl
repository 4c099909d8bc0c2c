// The demo's terrain (throng-demo's terrain_pass.rs): a mesh of world
// positions, normals and materials, grass on gentle ground, rock where it
// is steep, stone on the stair and platform, a faint world grid, lit by
// the scene's light, darkened where the crowd's shadow map says the light
// is blocked (Throng's shadow_receiver, group 1), fading into the sky with
// distance.

// #import shadow_receiver

struct Terrain {
    clip_from_world: mat4x4<f32>,
    // xyz: the camera's position.
    eye: vec4<f32>,
    // xyz: direction towards the light.
    light: vec4<f32>,
    // rgb: the light's colour.
    sun: vec4<f32>,
    // rgb: the ambient light.
    ambient: vec4<f32>,
    // rgb: the sky the terrain fades into.
    sky: vec4<f32>,
    // x: grid cell; y: fade start; z: fade end.
    params: vec4<f32>,
}

@group(0) @binding(0) var<uniform> terrain: Terrain;

struct Out {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // 0: soil (the heightfield), 1: stone (a piece).
    @location(2) material: f32,
}

@vertex
fn vs_terrain(
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) material: f32,
) -> Out {
    return Out(terrain.clip_from_world * vec4(position, 1.0), position, normal, material);
}

@fragment
fn fs_terrain(in: Out) -> @location(0) vec4<f32> {
    let n = normalize(in.normal);
    let grass = vec3(0.33, 0.40, 0.25);
    let rock = vec3(0.42, 0.39, 0.34);
    let stone = vec3(0.55, 0.53, 0.50);
    // Steep hillsides turn to rock; pieces are stone.
    var albedo = mix(grass, rock, smoothstep(0.93, 0.80, n.y));
    if in.material > 0.5 {
        albedo = stone;
    }
    let coord = in.world.xz / terrain.params.x;
    let width = max(fwidth(coord), vec2(1e-6));
    let to_line = abs(fract(coord - 0.5) - 0.5) / width;
    let line = 1.0 - clamp(min(to_line.x, to_line.y), 0.0, 1.0);
    albedo *= 1.0 - 0.18 * line;
    let lambert = max(dot(n, normalize(terrain.light.xyz)), 0.0);
    let lit = albedo * (terrain.ambient.rgb + terrain.sun.rgb * lambert * crowd_light(in.world));
    let distance = length(in.world - terrain.eye.xyz);
    let fade = smoothstep(terrain.params.y, terrain.params.z, distance);
    return vec4(mix(lit, terrain.sky.rgb, fade), 1.0);
}
