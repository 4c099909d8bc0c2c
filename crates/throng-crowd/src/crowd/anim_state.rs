//! The animation state an instance stores, below the instance table that
//! holds it and the code that reads it (control, update, bounds, draw
//! lists, layers, the GPU mirror): each instance's two tracks of a
//! cross-fade ([`Playback`] × 2 in an [`Anim`]) are phases at one anchor
//! tick plus rates ([`throng_core::clock`]), and the fade weight a line in
//! time; [`blend_of`] reads the frames it shows at a tick.

use super::WrapMode;
use throng_core::clock::{TICKS_PER_SECOND, Track, rate_of};
use throng_core::gpu::FrameBlend;
use throng_core::layout::{FrameMap, FramePair};
use throng_core::limits::REST_FRAME;

/// "No clip": the rest pose (current track) or no previous clip.
pub(super) const NO_CLIP: u16 = u16::MAX;

/// One clip playing (24 bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Playback {
    /// Phase at the instance's anchor tick and rate.
    pub(super) track: Track,
    /// Speed multiplier (negative plays backwards), kept while paused.
    pub(super) speed: f32,
    /// Clip index (file order), or [`NO_CLIP`].
    pub(super) clip: u16,
    /// Wrap mode.
    pub(super) wrap: WrapMode,
    /// Just (re)started: the next step includes its start time, so an
    /// event there fires.
    pub(super) fresh: bool,
}

impl Playback {
    pub(super) const NONE: Self = Self {
        track: Track { phase: 0, rate: 0 },
        speed: 1.0,
        clip: NO_CLIP,
        wrap: WrapMode::Loop,
        fresh: false,
    };

    pub(super) fn new(
        clip: usize,
        time: f32,
        speed: f32,
        wrap: WrapMode,
        duration: f32,
        running: bool,
    ) -> Self {
        Self {
            track: Track::new(time, speed, duration, wrap, running),
            speed,
            clip: clip as u16,
            wrap,
            fresh: true,
        }
    }

    #[inline]
    pub(super) fn is_some(&self) -> bool {
        self.clip != NO_CLIP
    }

    /// Clip time in `[0, duration]`, `ticks` after the anchor.
    #[inline(always)]
    pub(super) fn time(&self, ticks: u64, duration: f32) -> f32 {
        self.track.clip_time(ticks, duration, self.wrap)
    }

    /// Re-anchored `ticks` later, running (at its speed) or not.
    pub(super) fn rebased(&self, ticks: u64, duration: f32, running: bool) -> Self {
        if !self.is_some() {
            return *self;
        }
        let rate = if running {
            rate_of(self.speed, self.wrap.period(duration))
        } else {
            0
        };
        Self {
            track: self.track.rebased(ticks, self.wrap, rate),
            ..*self
        }
    }
}

/// A track's step over one update: the playback, its unwrapped phases (clip
/// seconds) before and after, and whether it had just (re)started (`None`:
/// the track has no clip).
pub(super) type Traversed = Option<(Playback, f32, f32, bool)>;

/// Animation state of one instance (64 bytes, dense array element): both
/// tracks and the fade weight are functions of the crowd clock.
#[derive(Clone, Copy, Debug)]
pub(super) struct Anim {
    /// Tick the tracks' phases and `fade0` are given at.
    pub(super) anchor: u64,
    pub(super) current: Playback,
    /// The clip faded out of; its weight is `1 − fade` until the fade ends.
    pub(super) previous: Playback,
    /// Fade weight of the current clip at the anchor.
    pub(super) fade0: f32,
    /// Growth of the fade weight per second (0 while paused or not fading).
    pub(super) fade_rate: f32,
    /// `1 / fade duration`: the fade's rate when running, kept while paused.
    pub(super) fade_speed: f32,
}

impl Anim {
    pub(super) fn new(current: Playback, now: u64) -> Self {
        Self {
            anchor: now,
            current,
            previous: Playback::NONE,
            fade0: 1.0,
            fade_rate: 0.0,
            fade_speed: 0.0,
        }
    }

    /// Ticks from the anchor to `now`.
    #[inline(always)]
    pub(super) fn since(&self, now: u64) -> u64 {
        now.saturating_sub(self.anchor)
    }

    /// Fade weight of the current clip at `now` (1 = no fade).
    #[inline(always)]
    pub(super) fn fade_weight(&self, now: u64) -> f32 {
        if self.previous.is_some() {
            let seconds = self.since(now) as f32 * (1.0 / TICKS_PER_SECOND as f32);
            (self.fade0 + self.fade_rate * seconds).clamp(0.0, 1.0)
        } else {
            1.0
        }
    }

    /// Mid-cross-fade at `now`: the previous clip still shows.
    #[inline(always)]
    pub(super) fn fading(&self, now: u64) -> bool {
        self.previous.is_some() && self.fade_weight(now) < 1.0
    }

    /// Re-anchors at `now`, keeping what it shows; a finished fade drops its
    /// previous clip. `running == false` stops time for it (paused).
    pub(super) fn rebase(&mut self, now: u64, maps: &[FrameMap], running: bool) {
        let ticks = self.since(now);
        let duration = |p: &Playback| {
            if p.is_some() {
                maps[p.clip as usize].duration
            } else {
                0.0
            }
        };
        let w = self.fade_weight(now);
        self.current = self
            .current
            .rebased(ticks, duration(&self.current), running);
        if self.previous.is_some() && w < 1.0 {
            self.previous = self
                .previous
                .rebased(ticks, duration(&self.previous), running);
            self.fade0 = w;
            self.fade_rate = if running { self.fade_speed } else { 0.0 };
        } else {
            self.previous = Playback::NONE;
            self.fade0 = 1.0;
            self.fade_rate = 0.0;
            self.fade_speed = 0.0;
        }
        self.anchor = now;
    }
}

/// The frames an instance shows at tick `now`.
#[inline(always)]
pub(super) fn blend_of(a: &Anim, maps: &[FrameMap], now: u64) -> FrameBlend {
    let ticks = a.since(now);
    #[inline(always)]
    fn frames(p: &Playback, maps: &[FrameMap], ticks: u64) -> FramePair {
        let m = &maps[p.clip as usize];
        m.frames_at(p.time(ticks, m.duration))
    }
    let current = if a.current.is_some() {
        frames(&a.current, maps, ticks)
    } else {
        FramePair::single(REST_FRAME)
    };
    let w = a.fade_weight(now);
    if a.previous.is_some() && w < 1.0 {
        FrameBlend {
            current,
            previous: frames(&a.previous, maps, ticks),
            fade: w,
        }
    } else {
        FrameBlend::single(current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_modes() {
        let d = 2.0;
        let at = |p: &Playback, s: f64| p.time(throng_core::clock::ticks_of(s), d);
        let p = Playback::new(0, 0.0, 1.0, WrapMode::Loop, d, true);
        assert!((at(&p, 2.5) - 0.5).abs() < 1e-6);
        let back = Playback::new(0, 0.5, -1.0, WrapMode::Loop, d, true);
        assert!((at(&back, 1.0) - 1.5).abs() < 1e-6, "backwards wraps");
        let o = Playback::new(0, 0.0, 1.0, WrapMode::Once, d, true);
        assert_eq!(at(&o, 5.0), d);
        let pp = Playback::new(0, 0.0, 1.0, WrapMode::PingPong, d, true);
        assert!(
            (at(&pp, 2.5) - 1.5).abs() < 1e-6,
            "bounced back from the end"
        );
        assert!(
            (at(&pp, 4.5) - 0.5).abs() < 1e-6,
            "bounced from the start, going forward"
        );
        let z = Playback::new(0, 3.0, 1.0, WrapMode::Loop, 0.0, true);
        assert_eq!(z.time(1 << 20, 0.0), 0.0, "zero-length clip stays at 0");
    }
}
