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
mod tests;
