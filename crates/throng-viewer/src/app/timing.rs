//! Frame timing: the time step between frames, and the frame-rate and
//! CPU-time averages the HUD shows.

use std::time::{Duration, Instant};

/// Frame-rate and CPU-time averages.
pub(super) struct Timing {
    last: Option<Instant>,
    window_start: Instant,
    window_frames: u32,
    pub(super) fps: f32,
    pub(super) cpu: Duration,
}

impl Timing {
    pub(super) fn new() -> Self {
        Self {
            last: None,
            window_start: Instant::now(),
            window_frames: 0,
            fps: 0.0,
            cpu: Duration::ZERO,
        }
    }

    /// Seconds since the previous frame (0 on the first).
    pub(super) fn tick(&mut self) -> f32 {
        let now = Instant::now();
        let dt = self.last.map_or(0.0, |l| (now - l).as_secs_f32());
        self.last = Some(now);
        self.window_frames += 1;
        let span = now - self.window_start;
        if span >= Duration::from_millis(500) {
            self.fps = self.window_frames as f32 / span.as_secs_f32();
            self.window_frames = 0;
            self.window_start = now;
        }
        dt
    }

    pub(super) fn record_cpu(&mut self, cpu: Duration) {
        self.cpu = if self.cpu.is_zero() {
            cpu
        } else {
            self.cpu.mul_f32(0.9) + cpu.mul_f32(0.1)
        };
    }
}
