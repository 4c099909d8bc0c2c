// Octahedral unit vectors: a direction in two coordinates in [-1, 1]²
// (the impostor atlas's normals, the pose cache's normals). The CPU twin is
// throng_core::pose_cache::{oct_encode, oct_decode}.

// The octahedral coordinates of unit vector `n` (a zero vector maps to +z).
fn oct_encode(n: vec3<f32>) -> vec2<f32> {
    let l1 = abs(n.x) + abs(n.y) + abs(n.z);
    var p = select(vec2<f32>(0.0), n.xy / l1, l1 > 0.0);
    if (n.z < 0.0) {
        p = (1.0 - abs(p.yx)) * select(vec2<f32>(-1.0), vec2<f32>(1.0), p >= vec2<f32>(0.0));
    }
    return p;
}

// The direction of octahedral coordinates `e`, not normalised (its length
// is between 1/√3 and 1): for callers that normalise later anyway.
fn oct_direction(e: vec2<f32>) -> vec3<f32> {
    let z = 1.0 - abs(e.x) - abs(e.y);
    let folded = (1.0 - abs(e.yx)) * select(vec2<f32>(-1.0), vec2<f32>(1.0), e >= vec2<f32>(0.0));
    return vec3<f32>(select(e, folded, z < 0.0), z);
}

// The unit vector of octahedral coordinates `e`.
fn oct_decode(e: vec2<f32>) -> vec3<f32> {
    return normalize(oct_direction(e));
}
