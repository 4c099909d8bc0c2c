// Analytic locomotion on the GPU, and the motion pass: each moving
// instance's transform of the frame, from its motion (GpuMotion: the
// transform at an anchor tick, a kind and its parameters) and the clock,
// written where the cull pass reads transforms, placed on the crowd's
// ground (ground.wgsl) when it has one. Mirrors
// throng_core::motion operation for operation (see its docs for the math).

// #import clock
// #import dispatch
// #import gpu_instance
// #import ground

// Mirrors throng_core::motion::PathPoint.
struct PathPoint {
    position: vec3<f32>,
    distance: f32,
}

// Mirrors throng_core::motion::RootKey.
struct RootKey {
    translation: vec3<f32>,
    yaw: f32,
}

// Mirrors throng_core::gpu::MotionParams.
struct MotionParams {
    now_lo: u32,
    now_hi: u32,
    instance_count: u32,
    pad: u32,
}

@group(0) @binding(0) var<uniform> motion_params: MotionParams;
@group(0) @binding(1) var<storage, read> motions: array<GpuMotion>;
@group(0) @binding(2) var<storage, read> path_points: array<PathPoint>;
@group(0) @binding(3) var<storage, read> root_keys: array<RootKey>;
@group(0) @binding(4) var<storage, read_write> posed: array<GpuTransform>;

// Mirrors throng_core::motion::turns_to_radians.
fn turns_to_radians(turns: u32) -> f32 {
    return f32(bitcast<i32>(turns)) * (6.2831853071795864 / 4294967296.0);
}

// Mirrors throng_core::motion::seconds_f32.
fn seconds_f32(ticks: vec2<u32>) -> f32 {
    return f32(ticks.y) * (4294967296.0 / f32(TICKS_PER_SECOND)) + f32(ticks.x) * (1.0 / f32(TICKS_PER_SECOND));
}

// R_y(angle) v, given the angle's cosine and sine.
fn rotate_y(c: f32, s: f32, v: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(v.x * c + v.z * s, v.y, v.z * c - v.x * s);
}

// A rigid horizontal motion: translation after a yaw.
struct Rigid {
    t: vec3<f32>,
    yaw: f32,
}

fn rigid_then(a: Rigid, b: Rigid) -> Rigid {
    return Rigid(a.t + rotate_y(cos(a.yaw), sin(a.yaw), b.t), a.yaw + b.yaw);
}

fn rigid_between(a: Rigid, b: Rigid) -> Rigid {
    return Rigid(rotate_y(cos(a.yaw), -sin(a.yaw), b.t - a.t), b.yaw - a.yaw);
}

// L^k for the whole-loop motion (t, 2 half), half in 2^-32 turns.
fn rigid_power(t: vec3<f32>, half: u32, k: i32) -> Rigid {
    if half == 0u {
        return Rigid(t * f32(k), 0.0);
    }
    let hk = bitcast<u32>(k) * half;
    let m = sin(turns_to_radians(hk)) / sin(turns_to_radians(half));
    let r = turns_to_radians(hk - half);
    let xz = rotate_y(cos(r), sin(r), vec3<f32>(t.x, 0.0, t.z)) * m;
    return Rigid(vec3<f32>(xz.x, t.y * f32(k), xz.z), 2.0 * turns_to_radians(hk));
}

// rows · T(m.t) · R_y(m.yaw).
fn apply_in_model_space(m: GpuMotion, d: Rigid) -> GpuTransform {
    let c = cos(d.yaw);
    let s = sin(d.yaw);
    let col3 = vec4<f32>(d.t, 1.0);
    let r0 = m.row0;
    let r1 = m.row1;
    let r2 = m.row2;
    return GpuTransform(
        vec4<f32>(r0.x * c - r0.z * s, r0.y, r0.x * s + r0.z * c, dot(r0, col3)),
        vec4<f32>(r1.x * c - r1.z * s, r1.y, r1.x * s + r1.z * c, dot(r1, col3)),
        vec4<f32>(r2.x * c - r2.z * s, r2.y, r2.x * s + r2.z * c, dot(r2, col3)),
    );
}

// A point of the table, clamped into it.
fn point_of(i: u32) -> PathPoint {
    return path_points[min(i, arrayLength(&path_points) - 1u)];
}

// The point at distance s along `count` points from `base`, and its
// segment's direction. Mirrors throng_core::motion::path_point.
struct OnPath {
    p: vec3<f32>,
    segment: vec3<f32>,
}

fn path_point(base: u32, count: u32, s: f32) -> OnPath {
    if count == 0u || arrayLength(&path_points) == 0u {
        return OnPath(vec3<f32>(0.0), vec3<f32>(0.0, 0.0, 1.0));
    }
    if count == 1u {
        return OnPath(point_of(base).position, vec3<f32>(0.0, 0.0, 1.0));
    }
    var lo = 0u;
    var hi = count - 1u;
    while hi - lo > 1u {
        let mid = (lo + hi) / 2u;
        if point_of(base + mid).distance <= s {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let a = point_of(base + lo);
    let b = point_of(base + hi);
    let span = b.distance - a.distance;
    var f = 0.0;
    if span > 0.0 {
        f = clamp((s - a.distance) / span, 0.0, 1.0);
    }
    return OnPath(a.position + (b.position - a.position) * f, b.position - a.position);
}

// The baked root motion at clip time t. Mirrors throng_core::motion::root_at.
fn root_key(base: u32, frames: u32, i: u32) -> Rigid {
    if i >= frames || arrayLength(&root_keys) == 0u {
        return Rigid(vec3<f32>(0.0), 0.0);
    }
    let k = root_keys[min(base + i, arrayLength(&root_keys) - 1u)];
    return Rigid(k.translation, k.yaw);
}

fn root_at(base: u32, frames: u32, duration: f32, fps: f32, t: f32) -> Rigid {
    if fps == 0.0 || frames < 2u {
        return root_key(base, frames, 0u);
    }
    let last = f32(frames - 1u);
    let x = clamp(clamp(t, 0.0, duration) * fps, 0.0, last);
    let f0 = min(u32(x), frames - 2u);
    let w = clamp(x - f32(f0), 0.0, 1.0);
    let a = root_key(base, frames, f0);
    let b = root_key(base, frames, f0 + 1u);
    return Rigid(a.t + (b.t - a.t) * w, a.yaw + (b.yaw - a.yaw) * w);
}

// The whole periods of an unwrapped phase, saturated to i32.
fn whole_periods(u: vec4<u32>) -> i32 {
    if u.w == 0u && u.z < 0x80000000u {
        return bitcast<i32>(u.z);
    }
    if u.w == 0xffffffffu && u.z >= 0x80000000u {
        return bitcast<i32>(u.z);
    }
    return select(2147483647, -2147483647 - 1, (u.w & 0x80000000u) != 0u);
}

// The transform of an instance with motion m, `since` ticks after its
// anchor. Mirrors throng_core::motion::motion_rows.
fn motion_rows(m: GpuMotion, since: vec2<u32>) -> GpuTransform {
    let kind = m.kind & 0xffu;
    let wrap = (m.kind >> 8u) & 0xffu;
    let track = GpuTrack(m.track.x, m.track.y, m.track.z, m.track.w, wrap << 16u);
    let position = vec3<f32>(m.row0.w, m.row1.w, m.row2.w);
    let rate_zero = m.track.z == 0u && m.track.w == 0u;
    let negative = (m.track.w & 0x80000000u) != 0u;
    if kind == MOTION_VELOCITY {
        let v = m.a.xyz;
        let t = seconds_f32(since);
        if rate_zero {
            return place(m, position + v * t, 1.0, 0.0);
        }
        let half = turns_to_radians(unwrapped_phase(track, since).y);
        let c = cos(half);
        let s = sin(half);
        let xz = rotate_y(c, s, vec3<f32>(v.x, 0.0, v.z)) * (s / (m.a.w * 0.5));
        return place(m, position + vec3<f32>(xz.x, v.y * t, xz.z), c * c - s * s, 2.0 * s * c);
    }
    if kind == MOTION_PATH {
        let count = m.b.x;
        let length = m.a.x;
        let turn = m.a.y;
        let u = unwrapped_phase(track, since);
        let s = time_of(u, length, wrap);
        let returning = wrap == WRAP_PING_PONG && (u.y >> 31u) != 0u;
        let backward = returning != negative;
        let here = path_point(m.base, count, s);
        var dir = here.segment;
        if turn > 0.0 {
            var sa = s - 0.5 * turn;
            var sb = s + 0.5 * turn;
            if wrap == WRAP_LOOP {
                sa = sa - length * floor(sa / length);
                sb = sb - length * floor(sb / length);
            } else {
                sa = clamp(sa, 0.0, length);
                sb = clamp(sb, 0.0, length);
            }
            let chord = path_point(m.base, count, sb).p - path_point(m.base, count, sa).p;
            if chord.x * chord.x + chord.z * chord.z > 1e-12 {
                dir = chord;
            }
        }
        let len = sqrt(dir.x * dir.x + dir.z * dir.z);
        var c = 1.0;
        var sn = 0.0;
        if len > 0.0 {
            c = dir.z / len;
            sn = dir.x / len;
        }
        if backward {
            c = -c;
            sn = -sn;
        }
        return place(m, here.p, c, sn);
    }
    if kind == MOTION_ROOT {
        if since.x == 0u && since.y == 0u {
            return GpuTransform(m.row0, m.row1, m.row2);
        }
        let frames = m.b.x;
        let half = m.b.y;
        let fps = bitcast<f32>(m.b.z);
        let duration = m.a.w;
        let u = unwrapped_phase(track, since);
        let u0 = vec4<u32>(0u, m.track.x, m.track.y, 0u);
        let start = root_at(m.base, frames, duration, fps, time_of(u0, duration, wrap));
        var end = root_at(m.base, frames, duration, fps, time_of(u, duration, wrap));
        if wrap == WRAP_LOOP {
            end = rigid_then(rigid_power(m.a.xyz, half, whole_periods(u)), end);
        }
        return apply_in_model_space(m, rigid_between(start, end));
    }
    return GpuTransform(m.row0, m.row1, m.row2);
}

// The motion pass: one invocation per instance; a moving one's transform
// of the frame.
@compute @workgroup_size(WORKGROUP)
fn pose_movers(inv: Invocation) {
    let i = invocation_index(inv);
    if i >= motion_params.instance_count || i >= arrayLength(&motions) || i >= arrayLength(&posed) {
        return;
    }
    let m = motions[i];
    // Still: the transform as uploaded. Simulated: the simulation's.
    let kind = m.kind & 0xffu;
    if kind == MOTION_STILL || kind == MOTION_SIMULATED {
        return;
    }
    let ticks = sub64(vec2<u32>(motion_params.now_lo, motion_params.now_hi), vec2<u32>(m.anchor_lo, m.anchor_hi));
    // A clock behind the anchor reads as the anchor.
    let since = select(ticks, vec2<u32>(0u, 0u), (ticks.y & 0x80000000u) != 0u);
    posed[i] = ground_place(motion_rows(m, since));
}
