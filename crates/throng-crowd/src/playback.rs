//! Clip playback arithmetic: wrap modes, event crossings and root-motion
//! integration, as pure functions on *unwrapped* clip time.
//!
//! A track moves from `u₀` to `u₁ = u₀ + Δ` (Δ = dt × speed). Clip time is
//! `u mod D` for [`WrapMode::Loop`], `u` mirrored every `D` for
//! [`WrapMode::PingPong`] and `u` clamped to `[0, D]` for [`WrapMode::Once`].
//!
//! **Events.** An event at clip time `tₑ` sits at the unwrapped positions
//! `tₑ + kD` (loop), `tₑ + 2kD` and `2D − tₑ + 2kD` (ping-pong; the two
//! coincide at 0 and D) or just `tₑ` (once). Moving forward fires every
//! position in `(u₀, u₁]`, backward every position in `[u₁, u₀)`; on the first
//! advance after a (re)start the start is included too (`[u₀, u₁]`), so an
//! event at the start time fires. Hence each event fires exactly once per
//! crossing — at 0, at D, on every loop, at any speed, for any `dt` — and a
//! `dt` spanning many loops yields a count rather than a long list.
//!
//! **Root motion.** With `D(t)` the baked motion since the clip's start,
//! looping extends it to `D̃(u) = D(D)^⌊u/D⌋ · D(u mod D)`; the delta of an
//! advance is `D̃(u₀)⁻¹ · D̃(u₁)`, applied in the instance's model space
//! (`world ← world · delta`), so it follows the instance's rotation and scale.
//! Ping-pong and once use `D(clip time)` directly.

use glam::{Mat4, Quat, Vec3};

use throng_core::layout::FrameMap;
use throng_core::model::RootMotionKey;

pub use throng_core::clock::WrapMode;

/// Clip time at unwrapped phase `u` (for `Loop`/`PingPong`, `u` may be any
/// real; for `Once` it is clamped).
#[inline]
pub fn clip_time(u: f32, duration: f32, wrap: WrapMode) -> f32 {
    if duration <= 0.0 {
        return 0.0;
    }
    match wrap {
        WrapMode::Once => u.clamp(0.0, duration),
        WrapMode::Loop => wrap_into(u, duration),
        WrapMode::PingPong => {
            let p = wrap_into(u, 2.0 * duration);
            if p > duration { 2.0 * duration - p } else { p }
        }
    }
}

/// The phase kept between updates: `u` reduced to `[0, D)` (loop),
/// `[0, 2D)` (ping-pong) or `[0, D]` (once), so precision never degrades.
#[inline]
pub fn reduce_phase(u: f32, duration: f32, wrap: WrapMode) -> f32 {
    if duration <= 0.0 {
        return 0.0;
    }
    match wrap {
        WrapMode::Once => u.clamp(0.0, duration),
        WrapMode::Loop => wrap_into(u, duration),
        WrapMode::PingPong => wrap_into(u, 2.0 * duration),
    }
}

/// `x` wrapped into `[0, period)`.
#[inline]
pub fn wrap_into(x: f32, period: f32) -> f32 {
    if (0.0..period).contains(&x) {
        x
    } else {
        let r = x.rem_euclid(period);
        if r >= period { 0.0 } else { r }
    }
}

/// How many times an event at clip time `t` is crossed when a track moves
/// from unwrapped phase `u0` to `u1` (see the module docs).
pub fn crossings(
    t: f32,
    duration: f32,
    wrap: WrapMode,
    u0: f32,
    u1: f32,
    include_start: bool,
) -> u64 {
    if duration <= 0.0 {
        // A single-pose clip: its events fire once, at the start.
        return u64::from(include_start && t == 0.0);
    }
    // The common case, exactly: a looping clip moved forward within one
    // period crosses the events in (u0, u1] (no alias of 0 or the end lies
    // inside), so no division is needed.
    if wrap == WrapMode::Loop && !include_start && 0.0 <= u0 && u0 <= u1 && u1 < duration {
        return u64::from(u0 < t && t <= u1);
    }
    let positions: &[f32] = match wrap {
        WrapMode::Once | WrapMode::Loop => &[t],
        WrapMode::PingPong if t == 0.0 || t == duration => &[t],
        WrapMode::PingPong => &[t, 2.0 * duration - t],
    };
    let period = match wrap {
        WrapMode::Once => f32::INFINITY,
        WrapMode::Loop => duration,
        WrapMode::PingPong => 2.0 * duration,
    };
    let (u0c, u1c) = match wrap {
        WrapMode::Once => (u0.clamp(0.0, duration), u1.clamp(0.0, duration)),
        _ => (u0, u1),
    };
    let base: u64 = positions
        .iter()
        .map(|&p| {
            if period.is_infinite() {
                u64::from(if u1c >= u0c {
                    p > u0c && p <= u1c
                } else {
                    p >= u1c && p < u0c
                })
            } else {
                between(p, period, u0c, u1c)
            }
        })
        .sum();
    // A fresh start includes an event at exactly the start's clip time —
    // not one that only aliases it (the end of a loop is not its start).
    base + u64::from(include_start && t == clip_time(u0, duration, wrap))
}

/// Positions `p + k·period` strictly after `u0` up to and including `u1`
/// (forward), or from `u1` up to strictly before `u0` (backward).
#[inline]
fn between(p: f32, period: f32, u0: f32, u1: f32) -> u64 {
    if u1 >= u0 {
        // k with p + k·P in (u0, u1]: floor((u1-p)/P) - floor((u0-p)/P)
        (((u1 - p) / period).floor() - ((u0 - p) / period).floor()).max(0.0) as u64
    } else {
        // k with p + k·P in [u1, u0): ceil((u0-p)/P) - ceil((u1-p)/P)
        (((u0 - p) / period).ceil() - ((u1 - p) / period).ceil()).max(0.0) as u64
    }
}

/// A rigid horizontal motion: translation then rotation about +y.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RootDelta {
    /// Translation.
    pub translation: Vec3,
    /// Yaw, radians.
    pub yaw: f32,
}

impl RootDelta {
    /// No motion.
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        yaw: 0.0,
    };

    /// From a baked key.
    pub fn from_key(k: &RootMotionKey) -> Self {
        Self {
            translation: Vec3::from(k.translation),
            yaw: k.yaw,
        }
    }

    /// `self · other` (apply `other` in `self`'s frame).
    #[inline]
    pub fn then(&self, other: &Self) -> Self {
        Self {
            translation: self.translation + Quat::from_rotation_y(self.yaw) * other.translation,
            yaw: self.yaw + other.yaw,
        }
    }

    /// `a⁻¹ · b`, the motion from `a` to `b`, with one rotation.
    #[inline]
    pub fn between(a: &Self, b: &Self) -> Self {
        Self {
            translation: Quat::from_rotation_y(-a.yaw) * (b.translation - a.translation),
            yaw: b.yaw - a.yaw,
        }
    }

    /// The inverse motion.
    #[inline]
    pub fn inverse(&self) -> Self {
        Self {
            translation: Quat::from_rotation_y(-self.yaw) * -self.translation,
            yaw: -self.yaw,
        }
    }

    /// `self^n` for any integer `n`, by squaring.
    pub fn pow(&self, n: i64) -> Self {
        let (mut base, mut e) = if n < 0 {
            (self.inverse(), n.unsigned_abs())
        } else {
            (*self, n as u64)
        };
        let mut acc = Self::IDENTITY;
        while e > 0 {
            if e & 1 == 1 {
                acc = acc.then(&base);
            }
            e >>= 1;
            if e > 0 {
                base = base.then(&base);
            }
        }
        acc
    }

    /// Component-wise blend (for cross-fades): `a + (b − a)·w`.
    #[inline]
    pub fn lerp(a: &Self, b: &Self, w: f32) -> Self {
        Self {
            translation: a.translation.lerp(b.translation, w),
            yaw: a.yaw + (b.yaw - a.yaw) * w,
        }
    }

    /// As a matrix `T · R_y`.
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_rotation_translation(Quat::from_rotation_y(self.yaw), self.translation)
    }
}

/// The baked motion `D(t)` of a clip at clip time `t`, interpolated between
/// baked frames exactly like the pose.
#[inline]
pub fn motion_at(keys: &[RootMotionKey], map: &FrameMap, t: f32) -> RootDelta {
    let f = map.frames_at(t);
    let (a, b) = (
        RootDelta::from_key(&keys[f.frame0 as usize]),
        RootDelta::from_key(&keys[f.frame1 as usize]),
    );
    RootDelta::lerp(&a, &b, f.t)
}

/// `D̃(u)`: motion at unwrapped phase `u` (see the module docs).
fn unwrapped_motion(keys: &[RootMotionKey], map: &FrameMap, wrap: WrapMode, u: f32) -> RootDelta {
    let d = map.duration;
    if d <= 0.0 {
        return RootDelta::IDENTITY;
    }
    match wrap {
        WrapMode::Loop => {
            let k = (u / d).floor();
            let r = (u - k * d).clamp(0.0, d);
            if k == 0.0 {
                return motion_at(keys, map, r);
            }
            let end = motion_at(keys, map, d);
            end.pow(k as i64).then(&motion_at(keys, map, r))
        }
        _ => motion_at(keys, map, clip_time(u, d, wrap)),
    }
}

/// The root motion of an advance from `u0` to `u1`: `D̃(u₀)⁻¹ · D̃(u₁)`.
pub fn root_delta(
    keys: &[RootMotionKey],
    map: &FrameMap,
    wrap: WrapMode,
    u0: f32,
    u1: f32,
) -> RootDelta {
    RootDelta::between(
        &unwrapped_motion(keys, map, wrap, u0),
        &unwrapped_motion(keys, map, wrap, u1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loop_events_fire_once_per_crossing_including_both_ends() {
        let d = 1.0;
        // Forward from 0.5 to 1.0: an event at 1.0 (= the loop point) fires, one at 0 too.
        assert_eq!(crossings(1.0, d, WrapMode::Loop, 0.5, 1.0, false), 1);
        assert_eq!(crossings(0.0, d, WrapMode::Loop, 0.5, 1.0, false), 1);
        // …and not again on the next update starting there.
        assert_eq!(crossings(0.0, d, WrapMode::Loop, 0.0, 0.3, false), 0);
        assert_eq!(crossings(1.0, d, WrapMode::Loop, 0.0, 0.3, false), 0);
        // A fresh start at 0 fires the event at 0, not the one at the end.
        assert_eq!(crossings(0.0, d, WrapMode::Loop, 0.0, 0.3, true), 1);
        assert_eq!(crossings(1.0, d, WrapMode::Loop, 0.0, 0.3, true), 0);
        // Three and a half loops in one step: three or four crossings.
        assert_eq!(crossings(0.25, d, WrapMode::Loop, 0.5, 4.0, false), 3);
        assert_eq!(crossings(0.75, d, WrapMode::Loop, 0.5, 4.0, false), 4);
        // Backwards.
        assert_eq!(crossings(0.25, d, WrapMode::Loop, 0.5, -1.0, false), 2);
        assert_eq!(
            crossings(0.5, d, WrapMode::Loop, 0.5, 0.0, false),
            0,
            "the start is not a crossing"
        );
        assert_eq!(
            crossings(0.0, d, WrapMode::Loop, 0.5, 0.0, false),
            1,
            "reaching 0 backwards"
        );
    }

    #[test]
    fn ping_pong_turns_fire_once() {
        let d = 1.0;
        // 0.5 → 1.5: up to the end (D fires once) and back to 0.5.
        assert_eq!(crossings(1.0, d, WrapMode::PingPong, 0.5, 1.5, false), 1);
        assert_eq!(
            crossings(0.8, d, WrapMode::PingPong, 0.5, 1.5, false),
            2,
            "passed going up and coming down"
        );
        assert_eq!(
            crossings(0.0, d, WrapMode::PingPong, 0.5, 2.5, false),
            1,
            "bounced off the start once"
        );
        assert_eq!(crossings(0.2, d, WrapMode::PingPong, 0.5, 1.5, false), 0);
    }

    #[test]
    fn once_stops_at_the_end() {
        let d = 1.0;
        assert_eq!(crossings(1.0, d, WrapMode::Once, 0.5, 7.0, false), 1);
        assert_eq!(
            crossings(1.0, d, WrapMode::Once, 1.0, 7.0, false),
            0,
            "already at the end"
        );
        assert_eq!(crossings(0.0, d, WrapMode::Once, 0.0, 0.5, true), 1);
    }

    /// The general formula, without the within-one-period shortcut.
    fn crossings_by_division(t: f32, d: f32, u0: f32, u1: f32) -> u64 {
        between(t, d, u0, u1)
    }

    #[test]
    fn within_one_period_shortcut_equals_the_division() {
        let d = 0.7;
        let mut checked = 0;
        for i in 0..=70 {
            let t = d * i as f32 / 70.0;
            for a in 0..60 {
                for len in 0..25 {
                    let u0 = d * a as f32 / 60.0;
                    let u1 = u0 + len as f32 * 0.013;
                    if u1 >= d {
                        continue;
                    }
                    let fast = crossings(t, d, WrapMode::Loop, u0, u1, false);
                    assert_eq!(
                        fast,
                        crossings_by_division(t, d, u0, u1),
                        "event {t}, {u0} -> {u1}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000);
    }

    #[test]
    fn between_is_inverse_then() {
        let a = RootDelta {
            translation: Vec3::new(1.0, 0.5, -2.0),
            yaw: 0.9,
        };
        let b = RootDelta {
            translation: Vec3::new(-0.3, 0.1, 4.0),
            yaw: -1.7,
        };
        let slow = a.inverse().then(&b);
        let fast = RootDelta::between(&a, &b);
        assert!((slow.translation - fast.translation).length() < 1e-6);
        assert!((slow.yaw - fast.yaw).abs() < 1e-6);
    }

    #[test]
    fn root_delta_group_laws() {
        let a = RootDelta {
            translation: Vec3::new(1.0, 0.0, 2.0),
            yaw: 0.7,
        };
        let m = a.then(&a.inverse());
        assert!(m.translation.length() < 1e-6 && m.yaw.abs() < 1e-6);
        let p = a.pow(5).to_mat4();
        let mut q = Mat4::IDENTITY;
        for _ in 0..5 {
            q *= a.to_mat4();
        }
        assert!(p.abs_diff_eq(q, 1e-4), "{p} vs {q}");
        assert!(a.pow(-3).then(&a.pow(3)).translation.length() < 1e-5);
    }

    /// Durations, and phases on a grid of eighths of each: every value and
    /// every sum or product below is exact in f32, so the references may
    /// compare with `==`.
    const DURATIONS: [f32; 3] = [1.0, 2.5, 4.0];

    fn grid(d: f32) -> impl Iterator<Item = f32> {
        (-24..=24).map(move |i| d * i as f32 / 8.0)
    }

    /// Clip time by the definitions: a loop repeats `[0, D)`; ping-pong
    /// runs `[0, D]` forward then back over `2D`; once is clamped.
    fn clip_time_by_definition(u: f32, d: f32, wrap: WrapMode) -> f32 {
        let k = (u / d).floor();
        match wrap {
            WrapMode::Once => u.max(0.0).min(d),
            WrapMode::Loop => u - k * d,
            WrapMode::PingPong if k.rem_euclid(2.0) == 0.0 => u - k * d,
            WrapMode::PingPong => d - (u - k * d),
        }
    }

    #[test]
    fn clip_time_and_the_kept_phase_follow_their_definitions() {
        for d in DURATIONS {
            for u in grid(d) {
                for wrap in [WrapMode::Once, WrapMode::Loop, WrapMode::PingPong] {
                    let want = clip_time_by_definition(u, d, wrap);
                    assert_eq!(clip_time(u, d, wrap), want, "clip_time({u}, {d}, {wrap:?})");
                    let kept = reduce_phase(u, d, wrap);
                    let period = if wrap == WrapMode::PingPong {
                        2.0 * d
                    } else {
                        d
                    };
                    match wrap {
                        WrapMode::Once => assert_eq!(kept, want),
                        _ => {
                            assert!((0.0..period).contains(&kept), "{wrap:?} {u}: {kept}");
                            assert_eq!((kept - u).rem_euclid(period), 0.0, "{wrap:?} {u}");
                        }
                    }
                    assert_eq!(
                        clip_time(kept, d, wrap),
                        want,
                        "{wrap:?} {u}: same clip time"
                    );
                }
                let w = wrap_into(u, d);
                assert!(
                    (0.0..d).contains(&w) && (w - u).rem_euclid(d) == 0.0,
                    "{u}: {w}"
                );
            }
            assert_eq!(clip_time(1.0, 0.0, WrapMode::Loop), 0.0);
            assert_eq!(reduce_phase(1.0, 0.0, WrapMode::PingPong), 0.0);
        }
        // Just under a period, where rem_euclid rounds up to the period.
        assert_eq!(wrap_into(-f32::EPSILON / 4.0, 1.0), 0.0);
    }

    /// Crossings by enumeration: every place the event's clip time occurs
    /// on the unwrapped phase axis, counted in `(u0, u1]` forward or
    /// `[u1, u0)` backward (once: the phases clamped), plus the start's own
    /// clip time on a fresh start.
    fn crossings_by_enumeration(
        t: f32,
        d: f32,
        wrap: WrapMode,
        u0: f32,
        u1: f32,
        include_start: bool,
    ) -> u64 {
        let places: Vec<f32> = match wrap {
            WrapMode::Once => vec![t],
            WrapMode::Loop => (-8..=8).map(|k| t + k as f32 * d).collect(),
            WrapMode::PingPong => (-8..=8)
                .flat_map(|k| {
                    let base = 2.0 * d * k as f32;
                    let back = (t != 0.0 && t != d).then_some(base + 2.0 * d - t);
                    std::iter::once(base + t).chain(back)
                })
                .collect(),
        };
        let (a, b) = match wrap {
            WrapMode::Once => (u0.max(0.0).min(d), u1.max(0.0).min(d)),
            _ => (u0, u1),
        };
        let passed = places
            .iter()
            .filter(|&&p| {
                if b >= a {
                    p > a && p <= b
                } else {
                    p >= b && p < a
                }
            })
            .count() as u64;
        passed + u64::from(include_start && t == clip_time_by_definition(u0, d, wrap))
    }

    #[test]
    fn crossings_equal_an_enumeration_of_the_events_places() {
        let mut checked = 0u64;
        for d in DURATIONS {
            for t in [0.0, d / 8.0, d / 2.0, 7.0 * d / 8.0, d] {
                for wrap in [WrapMode::Once, WrapMode::Loop, WrapMode::PingPong] {
                    for u0 in grid(d) {
                        for u1 in grid(d) {
                            for start in [false, true] {
                                assert_eq!(
                                    crossings(t, d, wrap, u0, u1, start),
                                    crossings_by_enumeration(t, d, wrap, u0, u1, start),
                                    "event at {t} of {d} s, {wrap:?}, {u0} -> {u1}, fresh start {start}"
                                );
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 100_000);
        // A single-pose clip fires its events at 0 once, on a fresh start.
        assert_eq!(crossings(0.0, 0.0, WrapMode::Loop, 0.0, 3.0, true), 1);
        assert_eq!(crossings(0.0, 0.0, WrapMode::Loop, 0.0, 3.0, false), 0);
        assert_eq!(crossings(0.5, 0.0, WrapMode::Loop, 0.0, 3.0, true), 0);
    }
}
