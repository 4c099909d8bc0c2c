// The application's ground: a checkered square at height 0, darkened where
// the crowd's shadow map says the light is blocked. Throng's
// shadow_receiver module declares the shadow map's bindings (group 1, bound
// from throng::render::Renderer::shadow_receiver()) and filters it.

// #import shadow_receiver

struct Ground {
    clip_from_world: mat4x4<f32>,
    // x: checker cell size.
    cell: vec4<f32>,
}

@group(0) @binding(0) var<uniform> ground: Ground;

struct Out {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
}

@vertex
fn vs_ground(@location(0) position: vec3<f32>) -> Out {
    return Out(ground.clip_from_world * vec4(position, 1.0), position);
}

@fragment
fn fs_ground(in: Out) -> @location(0) vec4<f32> {
    let cell = vec2<i32>(floor(in.world.xz / ground.cell.x));
    let dark = ((cell.x + cell.y) & 1) == 1;
    let color = select(vec3(0.36, 0.42, 0.30), vec3(0.30, 0.35, 0.25), dark);
    return vec4(color * crowd_light(in.world), 1.0);
}
