// Debug lines (the skeleton overlay): world-space line list with a colour per
// vertex, drawn over everything.

struct Lines {
    clip_from_world: mat4x4<f32>,
}

@group(0) @binding(0) var<uniform> lines: Lines;

struct VertexOutput {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
}

@vertex
fn vs_main(@location(0) position: vec3<f32>, @location(1) color: vec4<f32>) -> VertexOutput {
    var out: VertexOutput;
    out.clip = lines.clip_from_world * vec4(position, 1.0);
    out.color = color;
    return out;
}

@fragment
fn fs_main(in: VertexOutput) -> @location(0) vec4<f32> {
    return in.color;
}
