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

// The unit vector of octahedral coordinates `e`.
fn oct_decode(e: vec2<f32>) -> vec3<f32> {
    var n = vec3<f32>(e, 1.0 - abs(e.x) - abs(e.y));
    if n.z < 0.0 {
        n = vec3<f32>((1.0 - abs(n.yx)) * select(vec2<f32>(-1.0), vec2<f32>(1.0), n.xy >= vec2<f32>(0.0)), n.z);
    }
    return normalize(n);
}
