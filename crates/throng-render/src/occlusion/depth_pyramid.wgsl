// The depth pyramid of occlusion culling (docs/design/occlusion.md), from
// a single-sampled depth buffer: the entry module of Program::DepthPyramid.
// depth_pyramid_ms.wgsl is its twin for a multisampled one; both import
// the reduction itself (pyramid_reduce.wgsl).

// #import pyramid_reduce

// The depth buffer bound as an unfilterable float texture (which WebGPU
// allows for depth formats): naga's GLSL backend has no `textureLoad` of a
// depth texture, and no unfiltered sampling of one.
@group(0) @binding(0) var depth: texture_2d<f32>;

fn depth_samples() -> u32 {
    return 1u;
}

fn depth_sample(p: vec2<u32>, s: u32) -> f32 {
    return textureLoad(depth, p, 0).r;
}

fn depth_size() -> vec2<u32> {
    return textureDimensions(depth);
}
