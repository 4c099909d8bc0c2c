//! Where a motion puts an instance at a tick ([`motion_rows`]): the closed
//! forms of the module docs, operation for operation as
//! `throng-render/src/passes/motion.wgsl` computes them.

use glam::{Vec3, Vec4};

use super::parts::{MotionKind, PathPoint, RootKey, seconds_f32, turns_to_radians};
use crate::clock::{WrapMode, time_of};
use crate::gpu::GpuMotion;

/// A rigid horizontal motion: translation after a yaw about +y.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Rigid {
    t: Vec3,
    yaw: f32,
}

/// `R_y(angle) · v`, given the angle's cosine and sine.
#[inline(always)]
fn rotate_y(c: f32, s: f32, v: Vec3) -> Vec3 {
    Vec3::new(v.x * c + v.z * s, v.y, v.z * c - v.x * s)
}

impl Rigid {
    const IDENTITY: Self = Self {
        t: Vec3::ZERO,
        yaw: 0.0,
    };

    /// `a · b`.
    fn then(a: Self, b: Self) -> Self {
        Self {
            t: a.t + rotate_y(a.yaw.cos(), a.yaw.sin(), b.t),
            yaw: a.yaw + b.yaw,
        }
    }

    /// `a⁻¹ · b`.
    fn between(a: Self, b: Self) -> Self {
        Self {
            t: rotate_y(a.yaw.cos(), -a.yaw.sin(), b.t - a.t),
            yaw: b.yaw - a.yaw,
        }
    }

    /// `L^k` for the whole-loop motion `(t, 2·half)`, `half` in 2⁻³² turns.
    fn power(t: Vec3, half: u32, k: i32) -> Self {
        if half == 0 {
            return Self {
                t: t * k as f32,
                yaw: 0.0,
            };
        }
        let hk = (k as u32).wrapping_mul(half);
        let m = turns_to_radians(hk).sin() / turns_to_radians(half).sin();
        let r = turns_to_radians(hk.wrapping_sub(half));
        let xz = rotate_y(r.cos(), r.sin(), Vec3::new(t.x, 0.0, t.z)) * m;
        Self {
            t: Vec3::new(xz.x, t.y * k as f32, xz.z),
            yaw: 2.0 * turns_to_radians(hk),
        }
    }
}

/// `rows · T(m.t) · R_y(m.yaw)`: a motion in model space.
fn apply_in_model_space(rows: &[[f32; 4]; 3], m: Rigid) -> [Vec4; 3] {
    let (c, s) = (m.yaw.cos(), m.yaw.sin());
    let col3 = m.t.extend(1.0);
    rows.map(|r| {
        let r = Vec4::from(r);
        Vec4::new(r.x * c - r.z * s, r.y, r.x * s + r.z * c, r.dot(col3))
    })
}

/// `T(p) · R_y(ψ) · A_linear` with `ψ` given by its cosine and sine.
fn place(rows: &[[f32; 4]; 3], p: Vec3, c: f32, s: f32) -> [Vec4; 3] {
    let [r0, r1, r2] = rows.map(Vec4::from);
    [
        (r0 * c + r2 * s).truncate().extend(p.x),
        r1.truncate().extend(p.y),
        (r2 * c - r0 * s).truncate().extend(p.z),
    ]
}

/// The point at distance `s` along the `count` points of `points`, and
/// the direction of its segment. Mirrors WGSL's `path_point`.
fn path_point(points: &[PathPoint], s: f32) -> (Vec3, Vec3) {
    let n = points.len();
    if n == 0 {
        return (Vec3::ZERO, Vec3::Z);
    }
    if n == 1 {
        return (Vec3::from(points[0].position), Vec3::Z);
    }
    let (mut lo, mut hi) = (0usize, n - 1);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if points[mid].distance <= s {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let (a, b) = (points[lo], points[hi]);
    let (pa, pb) = (Vec3::from(a.position), Vec3::from(b.position));
    let span = b.distance - a.distance;
    let f = if span > 0.0 {
        ((s - a.distance) / span).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (pa + (pb - pa) * f, pb - pa)
}

/// The baked root motion at clip time `t`: keys interpolated like frames.
fn root_at(keys: &[RootKey], frames: u32, duration: f32, fps: f32, t: f32) -> Rigid {
    let key = |i: u32| {
        let k = keys.get(i as usize).copied().unwrap_or_default();
        Rigid {
            t: Vec3::from(k.translation),
            yaw: k.yaw,
        }
    };
    if fps == 0.0 || frames < 2 {
        return key(0);
    }
    let last = (frames - 1) as f32;
    let x = (t.clamp(0.0, duration) * fps).clamp(0.0, last);
    let f0 = (x as u32).min(frames - 2);
    let w = (x - f0 as f32).clamp(0.0, 1.0);
    let (a, b) = (key(f0), key(f0 + 1));
    Rigid {
        t: a.t + (b.t - a.t) * w,
        yaw: a.yaw + (b.yaw - a.yaw) * w,
    }
}

/// The transform rows of an instance with motion `m` at tick `now`
/// (before the anchor: at the anchor). `points` is the crowd's point
/// table, `keys` its root-key table. Mirrors WGSL's `motion_rows`.
pub fn motion_rows(m: &GpuMotion, now: u64, points: &[PathPoint], keys: &[RootKey]) -> [Vec4; 3] {
    let since = now.saturating_sub(m.anchor());
    let track = m.track();
    let wrap = m.wrap();
    let anchor = m.anchor_rows;
    let position = Vec3::new(anchor[0][3], anchor[1][3], anchor[2][3]);
    match m.motion_kind() {
        // The CPU knows a simulated instance only where it was handed over.
        MotionKind::Still | MotionKind::Simulated => anchor.map(Vec4::from),
        MotionKind::Velocity => {
            let v = Vec3::new(m.a[0], m.a[1], m.a[2]);
            let t = seconds_f32(since);
            if track.rate == 0 {
                return place(&anchor, position + v * t, 1.0, 0.0);
            }
            let half = turns_to_radians(((track.unwrapped(since) as u64) >> 32) as u32);
            let (c, s) = (half.cos(), half.sin());
            let xz = rotate_y(c, s, Vec3::new(v.x, 0.0, v.z)) * (s / (m.a[3] * 0.5));
            let p = position + Vec3::new(xz.x, v.y * t, xz.z);
            // cos 2h, sin 2h.
            place(&anchor, p, c * c - s * s, 2.0 * s * c)
        }
        MotionKind::Path => {
            let (base, count) = (m.base as usize, m.b[0] as usize);
            let points = points.get(base..base.saturating_add(count)).unwrap_or(&[]);
            let (length, turn) = (m.a[0], m.a[1]);
            let u = track.unwrapped(since);
            let s = time_of(u, length, wrap);
            let returning = wrap == WrapMode::PingPong && ((u as u64) >> 63) != 0;
            let backward = returning != (track.rate < 0);
            let (p, segment) = path_point(points, s);
            let mut dir = segment;
            if turn > 0.0 {
                let near = |x: f32| match wrap {
                    WrapMode::Loop => x - length * (x / length).floor(),
                    _ => x.clamp(0.0, length),
                };
                let (a, _) = path_point(points, near(s - 0.5 * turn));
                let (b, _) = path_point(points, near(s + 0.5 * turn));
                let chord = b - a;
                if chord.x * chord.x + chord.z * chord.z > 1e-12 {
                    dir = chord;
                }
            }
            let len = (dir.x * dir.x + dir.z * dir.z).sqrt();
            let (mut c, mut s) = if len > 0.0 {
                (dir.z / len, dir.x / len)
            } else {
                (1.0, 0.0)
            };
            if backward {
                (c, s) = (-c, -s);
            }
            place(&anchor, p, c, s)
        }
        MotionKind::RootMotion => {
            let (frames, half, fps) = (m.b[0], m.b[1], f32::from_bits(m.b[2]));
            let duration = m.a[3];
            let base = m.base as usize;
            let keys = keys
                .get(base..base.saturating_add(frames as usize))
                .unwrap_or(&[]);
            let at = |t: f32| root_at(keys, frames, duration, fps, t);
            let u = track.unwrapped(since);
            let u0 = (track.phase as i128) << 32;
            let (from, to) = match wrap {
                WrapMode::Loop => {
                    let k = (u >> 64).clamp(i32::MIN as i128, i32::MAX as i128) as i32;
                    let whole = Rigid::power(Vec3::new(m.a[0], m.a[1], m.a[2]), half, k);
                    (
                        at(time_of(u0, duration, wrap)),
                        Rigid::then(whole, at(time_of(u, duration, wrap))),
                    )
                }
                _ => (
                    at(time_of(u0, duration, wrap)),
                    at(time_of(u, duration, wrap)),
                ),
            };
            let delta = if since == 0 {
                Rigid::IDENTITY
            } else {
                Rigid::between(from, to)
            };
            apply_in_model_space(&anchor, delta)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parts::{path_points, radians_to_turns};
    use super::*;
    use crate::clock::ticks_of;

    const ROWS: [[f32; 4]; 3] = [
        [1.0, 0.0, 0.0, 2.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, -3.0],
    ];

    fn translation(r: &[Vec4; 3]) -> Vec3 {
        Vec3::new(r[0].w, r[1].w, r[2].w)
    }

    #[test]
    fn a_straight_velocity_moves_linearly() {
        let m = GpuMotion::velocity(ROWS, 100, Vec3::new(1.5, 0.0, -0.5), 0.0);
        let r = motion_rows(&m, 100 + ticks_of(4.0), &[], &[]);
        assert!((translation(&r) - Vec3::new(8.0, 0.0, -5.0)).length() < 1e-5);
        assert_eq!(
            motion_rows(&m, 50, &[], &[]),
            ROWS.map(Vec4::from),
            "before the anchor"
        );
    }

    #[test]
    fn a_turning_velocity_walks_a_circle() {
        // ω = π/2 rad/s at 1 m/s: a circle of radius 2/π, round in 4 s.
        let w = std::f32::consts::FRAC_PI_2;
        let m = GpuMotion::velocity(ROWS, 0, Vec3::new(0.0, 0.0, 1.0), w);
        let p0 = translation(&motion_rows(&m, 0, &[], &[]));
        for seconds in [1.0f64, 2.0, 3.0, 4.0, 36_000.0 + 1.0] {
            let r = motion_rows(&m, ticks_of(seconds), &[], &[]);
            // The closed form in f64 (ω as stored, in f32).
            let (w64, t) = (w as f64, seconds);
            let (x, z) = ((1.0 - (w64 * t).cos()) / w64, (w64 * t).sin() / w64);
            let want = p0 + Vec3::new(x as f32, 0.0, z as f32);
            let got = translation(&r);
            assert!(
                (got - want).length() < 1e-4,
                "at {seconds} s: {got} vs {want}"
            );
            // Facing its velocity: model +z is the heading.
            let forward = Vec3::new(r[0].z, r[1].z, r[2].z);
            let heading = Vec3::new(
                (w as f64 * t).sin() as f32,
                0.0,
                (w as f64 * t).cos() as f32,
            );
            assert!(
                (forward - heading).length() < 1e-4,
                "at {seconds} s: {forward}"
            );
        }
    }

    #[test]
    fn a_path_is_walked_at_its_speed_with_every_end() {
        let corners = [
            Vec3::ZERO,
            Vec3::new(4.0, 0.0, 0.0),
            Vec3::new(4.0, 0.0, 3.0),
        ];
        for (end, at_9s) in [
            (WrapMode::Once, Vec3::new(4.0, 0.0, 3.0)),
            // Closed: 4 + 3 + 5 = 12 m; 9 m is on the closing edge.
            (
                WrapMode::Loop,
                Vec3::new(4.0 - 0.8 * 2.0, 0.0, 3.0 - 0.6 * 2.0),
            ),
            // 9 m out of 7: back 2 m from the end.
            (WrapMode::PingPong, Vec3::new(4.0, 0.0, 1.0)),
        ] {
            let mut points = Vec::new();
            let (count, length) = path_points(&corners, end == WrapMode::Loop, &mut points);
            let m = GpuMotion::path(ROWS, 0, 0, count, length, 1.0, 0.0, end, 0.0);
            let r = motion_rows(&m, ticks_of(9.0), &points, &[]);
            assert!(
                (translation(&r) - at_9s).length() < 1e-5,
                "{end:?}: {}",
                translation(&r)
            );
            let r = motion_rows(&m, ticks_of(2.0), &points, &[]);
            let forward = Vec3::new(r[0].z, r[1].z, r[2].z);
            assert!(
                (forward - Vec3::X).length() < 1e-6,
                "{end:?} faces +x on the first leg"
            );
        }
    }

    #[test]
    fn a_whole_loop_power_equals_repeated_composition() {
        let t = Vec3::new(0.3, 0.0, 1.1);
        for yaw in [0.0f32, 0.05, -0.4, 2.5] {
            let half = radians_to_turns(yaw * 0.5);
            let step = Rigid {
                t,
                yaw: 2.0 * turns_to_radians(half),
            };
            let mut acc = Rigid::IDENTITY;
            for k in 0..40 {
                let p = Rigid::power(t, half, k);
                assert!(
                    (p.t - acc.t).length() < 1e-4,
                    "yaw {yaw} k {k}: {} vs {}",
                    p.t,
                    acc.t
                );
                let (a, b) = (p.yaw.sin_cos(), acc.yaw.sin_cos());
                assert!((a.0 - b.0).abs() < 1e-4 && (a.1 - b.1).abs() < 1e-4);
                acc = Rigid::then(acc, step);
            }
            let back = Rigid::then(Rigid::power(t, half, -3), Rigid::power(t, half, 3));
            assert!(back.t.length() < 1e-5, "L⁻³ · L³ = 1");
        }
    }
}
