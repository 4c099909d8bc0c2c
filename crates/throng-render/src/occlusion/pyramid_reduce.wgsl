// The reduction of a depth pyramid (docs/design/occlusion.md): R32Float
// levels, each texel the farthest depth of what it covers, in the standard
// order (0 near, 1 far: a reversed depth buffer's values are stored as
// 1 − d), so the cull's test is the same for both conventions. wgpu has no
// min/max reduction samplers: every level is reduced with loads.
//
// * `reduce_depth` (level 0, one invocation per texel): level 0 is the
//   largest power of two at most the depth buffer's size in each axis, so
//   a texel covers between 1 and 2 pixels per axis, not on pixel
//   boundaries: it takes the farthest of every pixel (and sample) its
//   footprint touches — up to 3 × 3 — which keeps it conservative for
//   any size.
// * `downsample` (level k from k − 1): the farthest of 2 × 2, a level of
//   size 1 in an axis reading its one texel twice.
//
// The levels alternate between two atlases (pyramid_layout.wgsl says how
// and why).
//
// The importing entry module supplies `depth_samples`, `depth_sample` and
// `depth_size` for its kind of depth texture.

// #import prelude
// #import pyramid_layout

// Mirrors throng_core::gpu::PyramidParams.
struct PyramidParams {
    // Depth is reversed (1 near, 0 far).
    reversed: u32,
    // The level a downsample reads (it writes the next).
    source_level: u32,
    // Level 0's width and height.
    size0: vec2<u32>,
}

// The atlas holding the level a downsample reads.
@group(0) @binding(1) var source: texture_2d<f32>;
// The atlas holding the level written.
@group(0) @binding(2) var level_out: texture_storage_2d<r32float, write>;
@group(0) @binding(3) var<uniform> params: PyramidParams;

fn standard(d: f32) -> f32 {
    return select(d, 1.0 - d, params.reversed != 0u);
}

@compute @workgroup_size(8, 8)
fn reduce_depth(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = params.size0;
    if id.x >= size.x || id.y >= size.y {
        return;
    }
    let full = depth_size();
    // Footprint [start, end) in pixels: floor(x·W/W0) to ceil((x+1)·W/W0).
    let start = (id.xy * full) / size;
    let end = min(((id.xy + vec2<u32>(1u)) * full + size - vec2<u32>(1u)) / size, full);
    let samples = depth_samples();
    var far = 0.0;
    for (var y = start.y; y < end.y; y++) {
        for (var x = start.x; x < end.x; x++) {
            for (var s = 0u; s < samples; s++) {
                far = max(far, standard(depth_sample(vec2<u32>(x, y), s)));
            }
        }
    }
    textureStore(level_out, id.xy, vec4<f32>(far, 0.0, 0.0, 0.0));
}

@compute @workgroup_size(8, 8)
fn downsample(@builtin(global_invocation_id) id: vec3<u32>) {
    let source_level = params.source_level;
    let size = level_size(params.size0, source_level + 1u);
    if id.x >= size.x || id.y >= size.y {
        return;
    }
    let origin = level_origin(params.size0, source_level);
    let last = level_size(params.size0, source_level) - vec2<u32>(1u);
    let a = origin + min(id.xy * 2u, last);
    let b = origin + min(id.xy * 2u + vec2<u32>(1u), last);
    let far = max(
        max(textureLoad(source, a, 0).r, textureLoad(source, vec2<u32>(b.x, a.y), 0).r),
        max(textureLoad(source, vec2<u32>(a.x, b.y), 0).r, textureLoad(source, b, 0).r),
    );
    textureStore(level_out, level_origin(params.size0, source_level + 1u) + id.xy, vec4<f32>(far, 0.0, 0.0, 0.0));
}
