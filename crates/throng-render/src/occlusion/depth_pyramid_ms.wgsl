// The depth pyramid of occlusion culling from a multisampled depth buffer
// (MSAA on): the entry module of Program::DepthPyramidMultisampled, the
// twin of depth_pyramid.wgsl. A pixel's farthest sample is its depth.

// #import pyramid_reduce

// Bound as an unfilterable float texture, as in depth_pyramid.wgsl.
@group(0) @binding(0) var depth: texture_multisampled_2d<f32>;

fn depth_samples() -> u32 {
    return textureNumSamples(depth);
}

fn depth_sample(p: vec2<u32>, s: u32) -> f32 {
    return textureLoad(depth, p, i32(s)).r;
}

fn depth_size() -> vec2<u32> {
    return textureDimensions(depth);
}
