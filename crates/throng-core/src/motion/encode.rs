//! A motion as the GPU reads it: [`GpuMotion`]'s constructors, one per
//! kind, anchored at a tick, and the readers of its words (kind, track,
//! wrap mode, anchor).

use glam::Vec3;

use super::parts::{MotionKind, RootKey, radians_to_turns};
use crate::clock::{Track, WrapMode, rate_of};
use crate::gpu::GpuMotion;

fn track_words(t: &Track) -> [u32; 4] {
    [
        t.phase as u32,
        (t.phase >> 32) as u32,
        t.rate as u64 as u32,
        ((t.rate as u64) >> 32) as u32,
    ]
}

impl GpuMotion {
    /// No motion: the transform as set.
    pub fn still(anchor_rows: [[f32; 4]; 3]) -> Self {
        Self {
            anchor_rows,
            ..Self::default()
        }
    }

    fn anchored(anchor_rows: [[f32; 4]; 3], now: u64, kind: MotionKind, wrap: WrapMode) -> Self {
        Self {
            anchor_rows,
            anchor_lo: now as u32,
            anchor_hi: (now >> 32) as u32,
            kind: kind.code() | wrap.code() << 8,
            ..Self::default()
        }
    }

    /// A constant world `velocity` and `yaw_rate` (radians per second) from
    /// `anchor_rows` at tick `now` (finite values: the caller checks).
    pub fn velocity(anchor_rows: [[f32; 4]; 3], now: u64, velocity: Vec3, yaw_rate: f32) -> Self {
        let mut m = Self::anchored(anchor_rows, now, MotionKind::Velocity, WrapMode::Loop);
        // Half the yaw, in turns: one turn every 4π / |ω| seconds.
        if yaw_rate != 0.0 {
            let period = 2.0 * std::f64::consts::TAU / (yaw_rate.abs() as f64);
            let rate = rate_of(yaw_rate.signum(), period);
            m.track = track_words(&Track { phase: 0, rate });
        }
        m.a = velocity.extend(yaw_rate).to_array();
        m
    }

    /// Handed to the GPU's simulation at `anchor_rows` and tick `now` with
    /// world `velocity`: its state lives in the simulation's agent `agent`
    /// (the instance's stable slot), started afresh whenever `serial`
    /// differs from the agent's; `ground_speed` (units per second at
    /// playback speed 1; 0: leave playback alone) ties playback speed to
    /// the agent's speed; `data` is what its four user words start as.
    #[allow(clippy::too_many_arguments)]
    pub fn simulated(
        anchor_rows: [[f32; 4]; 3],
        now: u64,
        agent: u32,
        serial: u32,
        velocity: Vec3,
        ground_speed: f32,
        data: [f32; 4],
    ) -> Self {
        let mut m = Self::anchored(anchor_rows, now, MotionKind::Simulated, WrapMode::Loop);
        m.base = agent;
        m.a = velocity.extend(ground_speed).to_array();
        m.b[0] = serial;
        m.track = data.map(f32::to_bits);
        m
    }

    /// A path of `count` points from `base` in the crowd's point table,
    /// `length` long (closed for loop), walked at `speed` from `distance`
    /// along it with end behaviour `end`, turning over `turn`.
    #[allow(clippy::too_many_arguments)]
    pub fn path(
        anchor_rows: [[f32; 4]; 3],
        now: u64,
        base: u32,
        count: u32,
        length: f32,
        speed: f32,
        distance: f32,
        end: WrapMode,
        turn: f32,
    ) -> Self {
        let mut m = Self::anchored(anchor_rows, now, MotionKind::Path, end);
        m.base = base;
        m.track = track_words(&Track::new(distance, speed, length, end, true));
        m.a = [length, turn, 0.0, 0.0];
        m.b = [count, 0, 0, 0];
        m
    }

    /// The root motion of a clip playing as `track` with `wrap`: its keys
    /// from `base` in the crowd's root-key table (`frames` of them, over
    /// `duration` seconds), `whole_loop` the motion of one whole loop.
    #[allow(clippy::too_many_arguments)]
    pub fn root_motion(
        anchor_rows: [[f32; 4]; 3],
        now: u64,
        track: &Track,
        wrap: WrapMode,
        base: u32,
        frames: u32,
        duration: f32,
        frames_per_second: f32,
        whole_loop: RootKey,
    ) -> Self {
        let mut m = Self::anchored(anchor_rows, now, MotionKind::RootMotion, wrap);
        m.base = base;
        m.track = track_words(track);
        m.a = Vec3::from(whole_loop.translation)
            .extend(duration)
            .to_array();
        m.b = [
            frames,
            radians_to_turns(whole_loop.yaw * 0.5),
            frames_per_second.to_bits(),
            0,
        ];
        m
    }

    /// Its kind.
    pub fn motion_kind(&self) -> MotionKind {
        match self.kind & 0xff {
            1 => MotionKind::Velocity,
            2 => MotionKind::Path,
            3 => MotionKind::RootMotion,
            4 => MotionKind::Simulated,
            _ => MotionKind::Still,
        }
    }

    /// True unless still.
    pub fn moves(&self) -> bool {
        self.motion_kind() != MotionKind::Still
    }

    /// Its track (see [`GpuMotion::track`]'s field).
    pub fn track(&self) -> Track {
        let w = &self.track;
        Track {
            phase: w[0] as u64 | (w[1] as u64) << 32,
            rate: (w[2] as u64 | (w[3] as u64) << 32) as i64,
        }
    }

    /// Its wrap mode (a path's end behaviour, a root motion's clip's).
    pub fn wrap(&self) -> WrapMode {
        match (self.kind >> 8) & 0xff {
            1 => WrapMode::Once,
            2 => WrapMode::PingPong,
            _ => WrapMode::Loop,
        }
    }

    /// The anchor tick.
    pub fn anchor(&self) -> u64 {
        self.anchor_lo as u64 | (self.anchor_hi as u64) << 32
    }
}
