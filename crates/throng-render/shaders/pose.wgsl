// Local-space pose arithmetic on 3x4 affine rows, twin of throng_core::pose
// (the same operations in the same order): products, inverses, the split
// into translation, quaternion rotation and scale, and the override and
// additive blends of animation layers. Quaternions are vec4 (x, y, z, w).

// #import skinning

struct LocalPose {
    translation: vec3<f32>,
    rotation: vec4<f32>,
    scale: vec3<f32>,
}

const IDENTITY_ROWS: Rows = Rows(vec4<f32>(1.0, 0.0, 0.0, 0.0), vec4<f32>(0.0, 1.0, 0.0, 0.0), vec4<f32>(0.0, 0.0, 1.0, 0.0));
const IDENTITY_QUAT: vec4<f32> = vec4<f32>(0.0, 0.0, 0.0, 1.0);

fn rows_mul(a: Rows, b: Rows) -> Rows {
    return Rows(
        b.r0 * a.r0.x + b.r1 * a.r0.y + b.r2 * a.r0.z + vec4<f32>(0.0, 0.0, 0.0, a.r0.w),
        b.r0 * a.r1.x + b.r1 * a.r1.y + b.r2 * a.r1.z + vec4<f32>(0.0, 0.0, 0.0, a.r1.w),
        b.r0 * a.r2.x + b.r1 * a.r2.y + b.r2 * a.r2.z + vec4<f32>(0.0, 0.0, 0.0, a.r2.w),
    );
}

fn rows_inverse(m: Rows) -> Rows {
    let c = cofactor(m);
    let inv_det = select(0.0, 1.0 / c.det, c.det != 0.0);
    let a0 = vec3<f32>(c.c0.x, c.c1.x, c.c2.x) * inv_det;
    let a1 = vec3<f32>(c.c0.y, c.c1.y, c.c2.y) * inv_det;
    let a2 = vec3<f32>(c.c0.z, c.c1.z, c.c2.z) * inv_det;
    let t = vec3<f32>(m.r0.w, m.r1.w, m.r2.w);
    return Rows(vec4<f32>(a0, -dot(a0, t)), vec4<f32>(a1, -dot(a1, t)), vec4<f32>(a2, -dot(a2, t)));
}

fn normalize4(q: vec4<f32>) -> vec4<f32> {
    let len2 = dot(q, q);
    if (len2 > 0.0) {
        return q * (1.0 / sqrt(len2));
    }
    return IDENTITY_QUAT;
}

fn unit_axis(c: vec3<f32>, s: f32) -> vec3<f32> {
    if (s != 0.0) {
        return c * (1.0 / s);
    }
    return c;
}

fn quat_from_axes(x: vec3<f32>, y: vec3<f32>, z: vec3<f32>) -> vec4<f32> {
    let m00 = x.x;
    let m11 = y.y;
    let m22 = z.z;
    let trace = m00 + m11 + m22;
    var q: vec4<f32>;
    if (trace > 0.0) {
        let s = 2.0 * sqrt(trace + 1.0);
        q = vec4<f32>((y.z - z.y) / s, (z.x - x.z) / s, (x.y - y.x) / s, 0.25 * s);
    } else if (m00 > m11 && m00 > m22) {
        let s = 2.0 * sqrt(1.0 + m00 - m11 - m22);
        q = vec4<f32>(0.25 * s, (y.x + x.y) / s, (z.x + x.z) / s, (y.z - z.y) / s);
    } else if (m11 > m22) {
        let s = 2.0 * sqrt(1.0 + m11 - m00 - m22);
        q = vec4<f32>((y.x + x.y) / s, 0.25 * s, (z.y + y.z) / s, (z.x - x.z) / s);
    } else {
        let s = 2.0 * sqrt(1.0 + m22 - m00 - m11);
        q = vec4<f32>((z.x + x.z) / s, (z.y + y.z) / s, 0.25 * s, (x.y - y.x) / s);
    }
    return normalize4(q);
}

fn decompose(m: Rows) -> LocalPose {
    let x = vec3<f32>(m.r0.x, m.r1.x, m.r2.x);
    let y = vec3<f32>(m.r0.y, m.r1.y, m.r2.y);
    let z = vec3<f32>(m.r0.z, m.r1.z, m.r2.z);
    let det = dot(x, cross(y, z));
    let sx = length(x) * select(1.0, -1.0, det < 0.0);
    let sy = length(y);
    let sz = length(z);
    return LocalPose(
        vec3<f32>(m.r0.w, m.r1.w, m.r2.w),
        quat_from_axes(unit_axis(x, sx), unit_axis(y, sy), unit_axis(z, sz)),
        vec3<f32>(sx, sy, sz),
    );
}

fn compose(p: LocalPose) -> Rows {
    let q = p.rotation;
    let xx = q.x * q.x;
    let yy = q.y * q.y;
    let zz = q.z * q.z;
    let xy = q.x * q.y;
    let xz = q.x * q.z;
    let yz = q.y * q.z;
    let wx = q.w * q.x;
    let wy = q.w * q.y;
    let wz = q.w * q.z;
    let s = p.scale;
    let t = p.translation;
    return Rows(
        vec4<f32>((1.0 - 2.0 * (yy + zz)) * s.x, 2.0 * (xy - wz) * s.y, 2.0 * (xz + wy) * s.z, t.x),
        vec4<f32>(2.0 * (xy + wz) * s.x, (1.0 - 2.0 * (xx + zz)) * s.y, 2.0 * (yz - wx) * s.z, t.y),
        vec4<f32>(2.0 * (xz - wy) * s.x, 2.0 * (yz + wx) * s.y, (1.0 - 2.0 * (xx + yy)) * s.z, t.z),
    );
}

fn quat_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    );
}

fn quat_conjugate(q: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(-q.xyz, q.w);
}

fn quat_nlerp(a: vec4<f32>, b_in: vec4<f32>, w: f32) -> vec4<f32> {
    let b = select(b_in, -b_in, dot(a, b_in) < 0.0);
    return normalize4(a + (b - a) * w);
}

fn blend_override(base: LocalPose, layer: LocalPose, w: f32) -> LocalPose {
    return LocalPose(
        base.translation + (layer.translation - base.translation) * w,
        quat_nlerp(base.rotation, layer.rotation, w),
        base.scale + (layer.scale - base.scale) * w,
    );
}

fn scale_ratio(s: f32, r: f32) -> f32 {
    if (r != 0.0) {
        return s / r;
    }
    return 1.0;
}

fn blend_additive(base: LocalPose, reference: LocalPose, layer: LocalPose, w: f32) -> LocalPose {
    let delta = quat_mul(quat_conjugate(reference.rotation), layer.rotation);
    let scale = vec3<f32>(
        scale_ratio(layer.scale.x, reference.scale.x),
        scale_ratio(layer.scale.y, reference.scale.y),
        scale_ratio(layer.scale.z, reference.scale.z),
    );
    return LocalPose(
        base.translation + (layer.translation - reference.translation) * w,
        normalize4(quat_mul(base.rotation, quat_nlerp(IDENTITY_QUAT, delta, w))),
        base.scale * (vec3<f32>(1.0) + (scale - vec3<f32>(1.0)) * w),
    );
}
