// The foot IK pass: after the palette pre-pass, each invocation plants one
// instance's feet on the crowd's ground by two-bone IK, editing its
// palette in place. Twin of throng_core::foot_ik::plant_feet, operation
// for operation (see its docs for the rule): targets from the ground
// under each foot, the pose lowered for the lowest, each leg's hip then
// knee turned by the shortest arcs, every bone below a turned joint
// turned with it.

// #import dispatch
// #import ground

// Mirrors throng_core::gpu::IkParams.
struct IkParams {
    count: u32,
    legs: u32,
    bones: u32,
    pad: u32,
}

// Three rows of a 3x4 affine matrix (a palette entry).
struct M34 {
    r0: vec4<f32>,
    r1: vec4<f32>,
    r2: vec4<f32>,
}

// Mirrors throng_core::gpu::GpuIkInstance.
struct IkInstance {
    world: M34,
    palette: u32,
    clip_ground: f32,
    pad0: u32,
    pad1: u32,
}

// Mirrors throng_core::gpu::GpuLeg.
struct Leg {
    hip: u32,
    knee: u32,
    foot: u32,
    pad: u32,
}

// Mirrors throng_core::gpu::GpuBone (the palette pre-pass's skeleton).
struct IkBone {
    bind: M34,
    inverse_bind: M34,
    parent: u32,
    ordered: u32,
    pad0: u32,
    pad1: u32,
}

const MAX_LEGS: u32 = 4u;
const NO_BONE: u32 = 0xffffffffu;

@group(0) @binding(0) var<uniform> ik: IkParams;
@group(0) @binding(1) var<storage, read> instances: array<IkInstance>;
@group(0) @binding(2) var<storage, read> legs: array<Leg>;
@group(0) @binding(3) var<storage, read> bones: array<IkBone>;
@group(0) @binding(4) var<storage, read_write> palettes: array<M34>;

fn apply(m: M34, v: vec3<f32>) -> vec3<f32> {
    let p = vec4<f32>(v, 1.0);
    return vec3<f32>(dot(m.r0, p), dot(m.r1, p), dot(m.r2, p));
}

fn mul(a: M34, b: M34) -> M34 {
    return M34(
        b.r0 * a.r0.x + b.r1 * a.r0.y + b.r2 * a.r0.z + vec4<f32>(0.0, 0.0, 0.0, a.r0.w),
        b.r0 * a.r1.x + b.r1 * a.r1.y + b.r2 * a.r1.z + vec4<f32>(0.0, 0.0, 0.0, a.r1.w),
        b.r0 * a.r2.x + b.r1 * a.r2.y + b.r2 * a.r2.z + vec4<f32>(0.0, 0.0, 0.0, a.r2.w),
    );
}

// The inverse of an affine matrix (its 3x3 by the adjugate).
fn inverse(m: M34) -> M34 {
    let a = m.r0.xyz;
    let b = m.r1.xyz;
    let c = m.r2.xyz;
    // Columns of the 3x3 are (a.x, b.x, c.x)...; rows of its inverse are
    // the cross products of its columns over the determinant.
    let c0 = vec3<f32>(a.x, b.x, c.x);
    let c1 = vec3<f32>(a.y, b.y, c.y);
    let c2 = vec3<f32>(a.z, b.z, c.z);
    let det = dot(c0, cross(c1, c2));
    let inv = select(0.0, 1.0 / det, det != 0.0);
    let i0 = cross(c1, c2) * inv;
    let i1 = cross(c2, c0) * inv;
    let i2 = cross(c0, c1) * inv;
    let t = vec3<f32>(m.r0.w, m.r1.w, m.r2.w);
    return M34(vec4<f32>(i0, -dot(i0, t)), vec4<f32>(i1, -dot(i1, t)), vec4<f32>(i2, -dot(i2, t)));
}

fn bone(b: u32) -> IkBone {
    return bones[min(b, arrayLength(&bones) - 1u)];
}

fn palette_at(i: u32) -> M34 {
    return palettes[min(i, arrayLength(&palettes) - 1u)];
}

// Joint b's model-space position under the palette from `base`.
fn joint(base: u32, b: u32) -> vec3<f32> {
    let bind = bone(b).bind;
    return apply(palette_at(base + b), vec3<f32>(bind.r0.w, bind.r1.w, bind.r2.w));
}

// Bone b is `j` or below it.
fn under(b: u32, j: u32) -> bool {
    var x = b;
    for (var i = 0u; i <= ik.bones; i++) {
        if x == j {
            return true;
        }
        if x == NO_BONE || x >= ik.bones {
            return false;
        }
        x = bone(x).parent;
    }
    return false;
}

fn normalize_or(v: vec3<f32>, fallback: vec3<f32>) -> vec3<f32> {
    let l = length(v);
    return select(fallback, v / l, l > 0.0 && l < 1e30);
}

// The shortest rotation taking direction `u` to `v`, (x, y, z, w).
fn arc(u: vec3<f32>, v: vec3<f32>) -> vec4<f32> {
    let a = normalize_or(u, vec3<f32>(0.0));
    let b = normalize_or(v, vec3<f32>(0.0));
    let d = dot(a, b);
    let axis = cross(a, b);
    if dot(a, a) == 0.0 || dot(b, b) == 0.0 || dot(axis, axis) < 1e-14 || d > 1.0 - 1e-7 {
        return vec4<f32>(0.0, 0.0, 0.0, 1.0);
    }
    let q = vec4<f32>(axis, 1.0 + d);
    return q / length(q);
}

// The turn about `pivot` by quaternion q.
fn about(pivot: vec3<f32>, q: vec4<f32>) -> M34 {
    let x = q.x;
    let y = q.y;
    let z = q.z;
    let w = q.w;
    let r0 = vec3<f32>(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y));
    let r1 = vec3<f32>(2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x));
    let r2 = vec3<f32>(2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y));
    // T(p) R T(-p): translation p - R p.
    let t = pivot - vec3<f32>(dot(r0, pivot), dot(r1, pivot), dot(r2, pivot));
    return M34(vec4<f32>(r0, t.x), vec4<f32>(r1, t.y), vec4<f32>(r2, t.z));
}

// Any unit vector orthogonal to unit v (glam's any_orthonormal_vector).
fn orthonormal(v: vec3<f32>) -> vec3<f32> {
    let sign = select(-1.0, 1.0, v.z >= 0.0);
    let a = -1.0 / (sign + v.z);
    let b = v.x * v.y * a;
    return vec3<f32>(b, sign + v.y * v.y * a, -v.y);
}

// throng_core::foot_ik::knee_at.
fn knee_at(h: vec3<f32>, t: vec3<f32>, a: f32, b: f32, bend: vec3<f32>) -> vec3<f32> {
    let to = t - h;
    let dir = normalize_or(to, vec3<f32>(0.0, -1.0, 0.0));
    let d = clamp(length(to), abs(a - b) + 1e-4 * (a + b), (a + b) * (1.0 - 1e-4));
    let side = normalize_or(bend - dir * dot(bend, dir), orthonormal(dir));
    let c = clamp((a * a + d * d - b * b) / (2.0 * a * d), -1.0, 1.0);
    return h + a * (dir * c + side * sqrt(max(1.0 - c * c, 0.0)));
}

@compute @workgroup_size(WORKGROUP)
fn plant_feet(inv: Invocation) {
    let i = invocation_index(inv);
    if i >= ik.count || i >= arrayLength(&instances) {
        return;
    }
    let inst = instances[i];
    let leg_count = min(min(ik.legs, MAX_LEGS), arrayLength(&legs));
    if leg_count == 0u || ik.bones == 0u {
        return;
    }
    let base = inst.palette;
    let w = inst.world;
    let w_inv = inverse(w);
    let scale = max(length(vec3<f32>(w.r0.y, w.r1.y, w.r2.y)), 1e-12);
    let g = ground_header();
    var targets: array<vec3<f32>, 4>;
    var shortest = 3.0e38;
    var drop = 0.0;
    for (var l = 0u; l < leg_count; l++) {
        let leg = legs[l];
        let f = joint(base, leg.foot);
        let fw = apply(w, f);
        let y = ground_sample(g, fw.xz).x + (f.y - inst.clip_ground) * scale;
        targets[l] = apply(w_inv, vec3<f32>(fw.x, y, fw.z));
        let h = joint(base, leg.hip);
        let k = joint(base, leg.knee);
        shortest = min(shortest, distance(h, k) + distance(k, f));
        drop = min(drop, targets[l].y - f.y);
    }
    drop = max(drop, -0.5 * shortest);
    for (var b = 0u; b < ik.bones; b++) {
        let at = min(base + b, arrayLength(&palettes) - 1u);
        palettes[at].r1.w += drop;
    }
    for (var l = 0u; l < leg_count; l++) {
        let leg = legs[l];
        let h = joint(base, leg.hip);
        let k = joint(base, leg.knee);
        let f = joint(base, leg.foot);
        let a = distance(h, k);
        let b = distance(k, f);
        let u = normalize_or(f - h, vec3<f32>(0.0, -1.0, 0.0));
        let bend = (k - h) - u * dot(k - h, u);
        let t = targets[l];
        let k2 = knee_at(h, t, a, b, bend);
        let hip_turn = about(h, arc(k - h, k2 - h));
        let f1 = apply(hip_turn, f);
        let knee_turn = about(k2, arc(f1 - k2, t - k2));
        let both = mul(knee_turn, hip_turn);
        for (var x = 0u; x < ik.bones; x++) {
            let at = min(base + x, arrayLength(&palettes) - 1u);
            if under(x, leg.knee) {
                palettes[at] = mul(both, palettes[at]);
            } else if under(x, leg.hip) {
                palettes[at] = mul(hip_turn, palettes[at]);
            }
        }
    }
}
