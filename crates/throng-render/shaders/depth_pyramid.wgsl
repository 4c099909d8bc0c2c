// The depth pyramid of occlusion culling (docs/design/occlusion.md), from
// a single-sampled depth buffer: the entry module of Program::DepthPyramid.
// depth_pyramid_ms.wgsl is its twin for a multisampled one; both import
// the reduction itself (pyramid_reduce.wgsl).

// #import pyramid_reduce

@group(0) @binding(0) var depth: texture_depth_2d;

fn depth_samples() -> u32 {
    return 1u;
}

fn depth_sample(p: vec2<u32>, s: u32) -> f32 {
    return textureLoad(depth, p, 0);
}

fn depth_size() -> vec2<u32> {
    return textureDimensions(depth);
}
