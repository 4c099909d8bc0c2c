//! Analytic playback: the crowd clock in integer ticks and a clip track as a
//! phase at an anchor tick plus a rate, in fixed point, so that the clip time
//! at any later tick is one multiply-add that the CPU and the GPU compute
//! the same way, with no precision lost however long the crowd runs.
//!
//! * Time is a `u64` count of ticks of `1 / TICKS_PER_SECOND` seconds.
//! * A track's **period** is the clip's duration `D` (loop, once) or `2D`
//!   (ping-pong). Its **unwrapped phase**, in units of 2⁻⁶⁴ periods, is
//!   `U(t) = phase · 2³² + rate · (t − anchor)`: `phase` is the phase at the
//!   anchor in 32.32 fixed-point periods, `rate` the signed speed in 2⁻⁶⁴
//!   periods per tick. The CPU computes `U` in `i128`; WGSL in 32-bit limbs
//!   (`shaders/clock.wgsl`, checked against [`Track::clip_time`] on the GPU).
//! * Clip time: loop — the fraction of `U` times `D`; ping-pong — the
//!   fraction `f` of `U`, mirrored (`2f` or `2 − 2f`) times `D`; once —
//!   `U` clamped to `[0, 1]` periods, times `D`.
//!
//! Nothing here accumulates: the phase after ten hours is as exact as after
//! one frame (a rate is exact to 2⁻⁶⁴ periods per tick, so after 10 h the
//! drift from the real-number phase is below 10⁻⁸ periods; the fraction the
//! clip time is taken from keeps 24 bits).

/// Ticks of the crowd clock per second (2²⁰: a tick is ~0.95 µs; 2⁶⁴ ticks
/// are 557,000 years).
pub const TICKS_PER_SECOND: u64 = 1 << 20;

/// `2⁻³²`, the value of the lowest bit of a 32-bit phase fraction.
const FRACTION_UNIT: f32 = 1.0 / 4_294_967_296.0;

/// How a clip behaves at its ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum WrapMode {
    /// Wrap around.
    #[default]
    Loop,
    /// Play once and hold the end (or the start, when playing backwards).
    Once,
    /// Play forwards then backwards.
    PingPong,
}

impl WrapMode {
    /// The code WGSL sees (`WRAP_LOOP`, `WRAP_ONCE`, `WRAP_PING_PONG`).
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The track period of a clip of `duration` seconds.
    #[inline]
    pub fn period(self, duration: f32) -> f64 {
        match self {
            WrapMode::PingPong => 2.0 * duration as f64,
            _ => duration as f64,
        }
    }
}

/// Ticks closest to `seconds` (clamped to `u64`).
#[inline]
pub fn ticks_of(seconds: f64) -> u64 {
    (seconds * TICKS_PER_SECOND as f64)
        .round()
        .clamp(0.0, u64::MAX as f64) as u64
}

/// Seconds in `ticks`.
#[inline]
pub fn seconds_of(ticks: u64) -> f64 {
    ticks as f64 / TICKS_PER_SECOND as f64
}

/// One clip playing, analytically: its phase at the anchor tick and its rate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Track {
    /// Phase at the anchor, 32.32 fixed-point periods: `[0, 1)` for loop and
    /// ping-pong, `[0, 1]` for once.
    pub phase: u64,
    /// Signed rate, 2⁻⁶⁴ periods per tick (0 while paused).
    pub rate: i64,
}

impl Track {
    /// A track at clip time `time` (reduced by `wrap`), playing at `speed`
    /// (`running == false`: rate 0, as while paused).
    pub fn new(time: f32, speed: f32, duration: f32, wrap: WrapMode, running: bool) -> Self {
        let period = wrap.period(duration);
        if period <= 0.0 || !period.is_finite() {
            return Self::default();
        }
        let periods = time as f64 / period;
        let phase = match wrap {
            WrapMode::Once => periods.clamp(0.0, 1.0),
            _ => periods - periods.floor(),
        };
        let fixed = (phase * 4_294_967_296.0).round() as u64;
        let phase = match wrap {
            WrapMode::Once => fixed.min(1 << 32),
            // Rounding up to a whole period wraps to 0.
            _ => fixed & 0xffff_ffff,
        };
        Self {
            phase,
            rate: if running { rate_of(speed, period) } else { 0 },
        }
    }

    /// The unwrapped phase `ticks` after the anchor, 2⁻⁶⁴ periods.
    #[inline(always)]
    pub fn unwrapped(&self, ticks: u64) -> i128 {
        ((self.phase as i128) << 32) + self.rate as i128 * ticks as i128
    }

    /// Clip time in `[0, duration]`, `ticks` after the anchor.
    #[inline(always)]
    pub fn clip_time(&self, ticks: u64, duration: f32, wrap: WrapMode) -> f32 {
        time_of(self.unwrapped(ticks), duration, wrap)
    }

    /// The same track re-anchored `ticks` later (phase reduced to one period,
    /// once clamped), with rate `rate`.
    pub fn rebased(&self, ticks: u64, wrap: WrapMode, rate: i64) -> Self {
        let u = self.unwrapped(ticks);
        let phase = match wrap {
            WrapMode::Once => (u.clamp(0, 1i128 << 64) >> 32) as u64,
            _ => ((u as u64) >> 32) & 0xffff_ffff,
        };
        Self { phase, rate }
    }
}

/// Signed rate of a track playing at `speed` over `period` seconds, 2⁻⁶⁴
/// periods per tick (saturating: beyond ~5·10⁵ periods per second).
#[inline]
pub fn rate_of(speed: f32, period: f64) -> i64 {
    if period <= 0.0 || !period.is_finite() || !speed.is_finite() {
        return 0;
    }
    let per_tick = speed as f64 / period / TICKS_PER_SECOND as f64;
    (per_tick * 18_446_744_073_709_551_616.0)
        .round()
        .clamp(i64::MIN as f64, i64::MAX as f64) as i64
}

/// Clip time of unwrapped phase `u` (2⁻⁶⁴ periods), as the shader computes
/// it: the top 32 bits of the fraction to `f32`, times the duration.
#[inline(always)]
pub fn time_of(u: i128, duration: f32, wrap: WrapMode) -> f32 {
    let top = ((u as u64) >> 32) as u32;
    let f = top as f32 * FRACTION_UNIT;
    match wrap {
        WrapMode::Loop => f * duration,
        WrapMode::PingPong => {
            let x = 2.0 * f;
            (if x <= 1.0 { x } else { 2.0 - x }) * duration
        }
        WrapMode::Once => {
            if u < 0 {
                0.0
            } else if u >= 1i128 << 64 {
                duration
            } else {
                f * duration
            }
        }
    }
}

/// Seconds of clip time between two unwrapped phases of a track over
/// `period` seconds (`u1 − u0`, signed).
#[inline]
pub fn seconds_between(u0: i128, u1: i128, period: f64) -> f64 {
    (u1 - u0) as f64 / 18_446_744_073_709_551_616.0 * period
}

/// The unwrapped phase `u` as seconds of clip time reduced to one period
/// (`[0, D)` loop, `[0, 2D)` ping-pong), or unclamped for once: the `u₀`
/// that [`crate::clock`]'s users hand to event and root-motion arithmetic.
#[inline]
pub fn reduced_seconds(u: i128, period: f64, wrap: WrapMode) -> f64 {
    match wrap {
        WrapMode::Once => u as f64 / 18_446_744_073_709_551_616.0 * period,
        _ => (u as u64) as f64 / 18_446_744_073_709_551_616.0 * period,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The real-number clip time of a track started at `t0` playing at
    /// `speed`, evaluated in f64.
    fn exact(t0: f64, speed: f64, seconds: f64, d: f64, wrap: WrapMode) -> f64 {
        let u = t0 + speed * seconds;
        match wrap {
            WrapMode::Loop => u.rem_euclid(d),
            WrapMode::Once => u.clamp(0.0, d),
            WrapMode::PingPong => {
                let p = u.rem_euclid(2.0 * d);
                if p > d { 2.0 * d - p } else { p }
            }
        }
    }

    #[test]
    fn ten_hours_lose_no_precision() {
        let mut worst = (0.0f64, String::new());
        for (d, speed, t0) in [
            (1.2f32, 1.0f32, 0.3f32),
            (0.7, 1.37, 0.0),
            (3.3, -0.61, 2.0),
            (0.04, 2.5, 0.01),
        ] {
            for wrap in [WrapMode::Loop, WrapMode::PingPong, WrapMode::Once] {
                let track = Track::new(t0, speed, d, wrap, true);
                for seconds in [0.0, 1.0 / 60.0, 61.5, 3600.0 + 1e-3, 36_000.0 + 1.0 / 7.0] {
                    let ticks = ticks_of(seconds);
                    let got = track.clip_time(ticks, d, wrap) as f64;
                    let want = exact(t0 as f64, speed as f64, seconds_of(ticks), d as f64, wrap);
                    // Loop may land on either side of the seam.
                    let mut err = (got - want).abs();
                    if wrap == WrapMode::Loop {
                        err = err.min(d as f64 - err);
                    }
                    if err > worst.0 {
                        worst = (err, format!("{wrap:?} D={d} speed={speed} at {seconds} s"));
                    }
                }
            }
        }
        assert!(worst.0 < 1e-6, "worst error {:.3e} s: {}", worst.0, worst.1);
    }

    #[test]
    fn rebasing_keeps_the_clip_time() {
        for wrap in [WrapMode::Loop, WrapMode::PingPong, WrapMode::Once] {
            let t = Track::new(0.25, 0.8, 1.0, wrap, true);
            let ticks = ticks_of(123.456);
            let r = t.rebased(ticks, wrap, t.rate);
            for later in [0, 1000, ticks_of(3.0)] {
                let a = t.clip_time(ticks + later, 1.0, wrap);
                let b = r.clip_time(later, 1.0, wrap);
                assert!((a - b).abs() < 1e-6, "{wrap:?}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn once_holds_its_ends_and_a_paused_track_stands() {
        let t = Track::new(0.5, 1.0, 1.0, WrapMode::Once, true);
        assert_eq!(t.clip_time(ticks_of(0.75), 1.0, WrapMode::Once), 1.0);
        let back = Track::new(0.5, -1.0, 1.0, WrapMode::Once, true);
        assert_eq!(back.clip_time(ticks_of(9.0), 1.0, WrapMode::Once), 0.0);
        let paused = Track::new(0.5, 1.0, 1.0, WrapMode::Loop, false);
        assert_eq!(paused.clip_time(ticks_of(9.3), 1.0, WrapMode::Loop), 0.5);
        assert_eq!(
            Track::new(3.0, 1.0, 0.0, WrapMode::Loop, true),
            Track::default()
        );
    }

    /// A period or speed that cannot make a rate gives rate 0 (a still
    /// track), not a saturated or NaN-born one; a finite pair gives a
    /// rate of the right sign and size.
    #[test]
    fn rates_of_degenerate_periods_and_speeds_are_zero() {
        for (speed, period) in [
            (1.0, 0.0),
            (1.0, -2.0),
            (1.0, f64::INFINITY),
            (1.0, f64::NAN),
            (f32::NAN, 1.0),
            (f32::INFINITY, 1.0),
            (f32::NEG_INFINITY, 1.0),
        ] {
            assert_eq!(rate_of(speed, period), 0, "speed {speed}, period {period}");
        }
        // One period a second: 2⁶⁴ / TICKS_PER_SECOND per tick.
        let one = rate_of(1.0, 1.0);
        let expected = 18_446_744_073_709_551_616.0 / TICKS_PER_SECOND as f64;
        assert!((one as f64 - expected).abs() <= 1.0, "{one} vs {expected}");
        assert_eq!(rate_of(-1.0, 1.0), -one);
        assert!((rate_of(1.0, 2.0) as f64 - expected / 2.0).abs() <= 1.0);
    }

    /// Seconds between two unwrapped phases: signed, in the period's
    /// seconds.
    #[test]
    fn seconds_between_phases_are_signed_clip_seconds() {
        let period = 2.5;
        let one = 1i128 << 64;
        assert_eq!(seconds_between(0, one, period), 2.5);
        assert_eq!(seconds_between(one, 0, period), -2.5);
        assert_eq!(seconds_between(one / 4, one, period), 1.875);
        assert_eq!(seconds_between(-one, one / 2, period), 3.75);
    }

    /// The reduced start of a track: one period for loop and ping-pong
    /// (a phase past a period, or before zero, wraps), unclamped for once.
    #[test]
    fn reduced_seconds_wrap_loops_and_keep_once_unclamped() {
        let period = 4.0;
        let one = 1i128 << 64;
        let quarter = one / 4;
        for wrap in [WrapMode::Loop, WrapMode::PingPong] {
            assert_eq!(reduced_seconds(quarter, period, wrap), 1.0, "{wrap:?}");
            assert_eq!(
                reduced_seconds(one + quarter, period, wrap),
                1.0,
                "{wrap:?}"
            );
            assert_eq!(
                reduced_seconds(quarter - one, period, wrap),
                1.0,
                "{wrap:?}"
            );
        }
        let once = WrapMode::Once;
        assert_eq!(reduced_seconds(quarter, period, once), 1.0);
        assert_eq!(reduced_seconds(one + quarter, period, once), 5.0);
        assert_eq!(reduced_seconds(-quarter, period, once), -1.0);
    }
}
