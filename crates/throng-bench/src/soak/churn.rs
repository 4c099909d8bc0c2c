//! [`Churn`]: what a soak does to its crowd every frame — the crowd's size
//! follows a wave between a quarter of the largest and the largest (so the
//! renderer's buffers grow and shrink across their capacities), instances
//! spawn and despawn to follow it, and a share of the live ones each frame
//! play, cross-fade, change speed, move, change motion (still, velocity,
//! a shared looped path) or animation layers. Seeded: the same seed does
//! the same thing.

use glam::{Mat4, Quat, Vec3, Vec4};
use throng_crowd::crowd::{
    Crowd, CrowdError, InstanceId, Layer, LayerBlend, ModelId, Motion, PathEnd, PathId, Spawn,
};

use crate::demo::unit_hash;

/// Instances changed per frame, as a fraction of the live ones.
pub const CHANGED_PER_FRAME: f32 = 0.02;

/// Counts of what the churn did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChurnCounts {
    /// Instances spawned.
    pub spawned: u64,
    /// Instances despawned.
    pub despawned: u64,
    /// Clips started at once.
    pub played: u64,
    /// Cross-fades.
    pub faded: u64,
    /// Playback speeds set.
    pub speeds: u64,
    /// Transforms set.
    pub transforms: u64,
    /// Motions set.
    pub motions: u64,
    /// Layer stacks set (or cleared).
    pub layers: u64,
}

/// A crowd's churn.
pub struct Churn {
    model: ModelId,
    clips: usize,
    largest: u32,
    /// Half the side of the square the crowd stands in.
    half: f32,
    radius: f32,
    paths: Vec<PathId>,
    live: Vec<InstanceId>,
    seed: u32,
    draws: u32,
    /// What it did.
    pub counts: ChurnCounts,
}

impl Churn {
    /// A churn of at most `largest` instances of `model` in `crowd`.
    pub fn new(
        crowd: &mut Crowd,
        model: ModelId,
        largest: u32,
        seed: u32,
    ) -> Result<Self, CrowdError> {
        let m = crowd.model(model)?;
        let clips = m.clips.len();
        let radius = m.bounding_radius.max(1e-3);
        let half = (largest.max(1) as f32).sqrt() * radius * 1.5;
        // A few looped squares to walk.
        let mut paths = Vec::new();
        for k in 1..=4 {
            let s = half * k as f32 / 5.0;
            let corners = [
                Vec3::new(-s, 0.0, -s),
                Vec3::new(s, 0.0, -s),
                Vec3::new(s, 0.0, s),
                Vec3::new(-s, 0.0, s),
                Vec3::new(-s, 0.0, -s),
            ];
            paths.push(crowd.add_path(&corners)?);
        }
        Ok(Self {
            model,
            clips,
            largest: largest.max(1),
            half,
            radius,
            paths,
            live: Vec::new(),
            seed,
            draws: 0,
            counts: ChurnCounts::default(),
        })
    }

    /// Half the side of the square the crowd stands in.
    pub fn half_extent(&self) -> f32 {
        self.half
    }

    /// Live instances.
    pub fn len(&self) -> usize {
        self.live.len()
    }

    /// Whether none is live.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    fn unit(&mut self) -> f32 {
        self.draws = self.draws.wrapping_add(1);
        unit_hash(self.draws ^ self.seed.wrapping_mul(0x9E37_79B9))
    }

    fn below(&mut self, n: usize) -> usize {
        ((self.unit() * n as f32) as usize).min(n.saturating_sub(1))
    }

    fn place(&mut self) -> Mat4 {
        let (x, z) = (
            (self.unit() * 2.0 - 1.0) * self.half,
            (self.unit() * 2.0 - 1.0) * self.half,
        );
        let yaw = self.unit() * std::f32::consts::TAU;
        Mat4::from_rotation_translation(Quat::from_rotation_y(yaw), Vec3::new(x, 0.0, z))
    }

    /// The size the crowd follows at `phase` (cycles since the start): a
    /// wave from a quarter of the largest up to the largest and back.
    pub fn target(&self, phase: f64) -> u32 {
        let wave = 0.5 - 0.5 * (phase * std::f64::consts::TAU).cos();
        let quarter = self.largest as f64 / 4.0;
        (quarter + (self.largest as f64 - quarter) * wave).round() as u32
    }

    /// One frame of churn at `phase` of the size wave.
    pub fn step(&mut self, crowd: &mut Crowd, phase: f64) -> Result<(), CrowdError> {
        let target = self.target(phase) as usize;
        // Follow the wave at up to a twentieth of the largest a frame.
        let step = (self.largest as usize / 20).max(1);
        for _ in 0..step {
            if self.live.len() < target {
                let transform = self.place();
                let clip = (self.clips > 0).then(|| self.below(self.clips));
                let spawn = Spawn {
                    transform,
                    clip,
                    time: self.unit() * 2.0,
                    speed: 0.5 + self.unit(),
                    tint: Vec4::new(0.6 + 0.4 * self.unit(), 0.8, 0.6 + 0.4 * self.unit(), 1.0),
                    ..Spawn::default()
                };
                self.live.push(crowd.spawn(self.model, spawn)?);
                self.counts.spawned += 1;
            } else if self.live.len() > target {
                let i = self.below(self.live.len());
                crowd.despawn(self.live.swap_remove(i))?;
                self.counts.despawned += 1;
            }
        }
        let changes =
            ((self.live.len() as f32 * CHANGED_PER_FRAME).ceil() as usize).min(self.live.len());
        for _ in 0..changes {
            let i = self.below(self.live.len());
            let id = self.live[i];
            self.change(crowd, id)?;
        }
        Ok(())
    }

    /// One random change to `id`.
    fn change(&mut self, crowd: &mut Crowd, id: InstanceId) -> Result<(), CrowdError> {
        let clips = self.clips;
        match self.below(7) {
            0 if clips > 0 => {
                let clip = self.below(clips);
                crowd.play(id, clip)?;
                self.counts.played += 1;
            }
            1 if clips > 0 => {
                let clip = self.below(clips);
                let seconds = 0.1 + 0.5 * self.unit();
                crowd.cross_fade(id, clip, seconds)?;
                self.counts.faded += 1;
            }
            2 => {
                let speed = 0.25 + 1.5 * self.unit();
                crowd.set_speed(id, speed)?;
                self.counts.speeds += 1;
            }
            3 => {
                let transform = self.place();
                crowd.set_transform(id, transform)?;
                self.counts.transforms += 1;
            }
            4 => {
                let motion = match self.below(3) {
                    0 => Motion::Still,
                    1 => Motion::Velocity {
                        velocity: Vec3::new(self.unit() - 0.5, 0.0, self.unit() - 0.5)
                            * self.radius,
                        yaw_rate: self.unit() - 0.5,
                    },
                    _ => {
                        let k = self.below(self.paths.len());
                        let path = self.paths[k];
                        Motion::Path {
                            path,
                            speed: self.radius * (0.5 + self.unit()),
                            start: self.unit() * self.half,
                            end: PathEnd::Loop,
                            turn: self.radius * 0.5,
                        }
                    }
                };
                crowd.set_motion(id, motion)?;
                self.counts.motions += 1;
            }
            5 if clips > 0 => {
                let layers = if self.unit() < 0.3 {
                    Vec::new()
                } else {
                    let clip = self.below(clips);
                    vec![Layer {
                        weight: 0.3 + 0.7 * self.unit(),
                        blend: if self.unit() < 0.5 {
                            LayerBlend::Override
                        } else {
                            LayerBlend::Additive {
                                reference_time: 0.0,
                            }
                        },
                        ..Layer::new(clip)
                    }]
                };
                crowd.set_layers(id, &layers)?;
                self.counts.layers += 1;
            }
            _ => {
                let transform = self.place();
                crowd.set_transform(id, transform)?;
                self.counts.transforms += 1;
            }
        }
        Ok(())
    }
}
