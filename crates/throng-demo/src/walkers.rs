//! A walking crowd for benchmarks, stills, the viewer and the web page: a
//! share of a crowd's instances walk shared waypoint loops at speed-matched
//! playback,
//! and a share of the walkers per second is re-targeted onto another loop
//! (`throng bench --walking P`, `throng render --walking P`). Everything the
//! walkers do per frame is the GPU's: the CPU only re-targets.

use glam::Vec3;
use throng_core::math::Aabb;
use throng_crowd::crowd::{Crowd, CrowdError, InstanceId, ModelId, Motion, PathEnd, PathId};

/// Walkers re-targeted per second, as a fraction of the walkers.
pub const RETARGETS_PER_SECOND: f64 = 0.01;

/// Shared loops the walkers choose from.
const LOOPS: u32 = 256;

/// A deterministic hash of `i` into `[0, 1)`.
pub fn unit_hash(i: u32) -> f32 {
    let mut x = i.wrapping_mul(0x9E37_79B9) ^ 0x85EB_CA6B;
    x ^= x >> 16;
    x = x.wrapping_mul(0x7FEB_352D);
    x ^= x >> 15;
    (x >> 8) as f32 / (1u32 << 24) as f32
}

/// The walkers of a crowd and their re-targeting.
#[derive(Clone, Debug)]
pub struct Walkers {
    ids: Vec<InstanceId>,
    paths: Vec<PathId>,
    /// The clip's ground speed at playback speed 1 (model units per second).
    stride: f32,
    /// Re-targets owed (fractional carry).
    owed: f64,
    next: usize,
    count: u32,
}

/// The clip a walker plays: the first whose name says walk, else 0.
pub fn walk_clip(crowd: &Crowd, model: ModelId) -> Result<Option<usize>, CrowdError> {
    let m = crowd.model(model)?;
    if m.clips.is_empty() {
        return Ok(None);
    }
    Ok(Some(
        m.clips
            .iter()
            .position(|c| c.name.to_lowercase().contains("walk"))
            .unwrap_or(0),
    ))
}

impl Walkers {
    /// Makes `percent` of `model`'s instances in `crowd` walk loops within
    /// `bounds` (the grid's), playing its walk clip speed-matched. The
    /// model's walk is taken to cover 0.9 body lengths a second (the
    /// bundled Fox's Walk is baked in place; a root-motion clip's own speed
    /// is used where it has one).
    pub fn new(
        crowd: &mut Crowd,
        model: ModelId,
        bounds: &Aabb,
        percent: f64,
    ) -> Result<Self, CrowdError> {
        let clip = walk_clip(crowd, model)?;
        let m = crowd.model(model)?;
        let body = (m.bounds.max - m.bounds.min).max_element().max(1e-3);
        let stride = match clip {
            Some(c) => crowd.root_speed(model, c)?.unwrap_or(0.9 * body),
            None => 0.9 * body,
        };
        let extent = (bounds.max - bounds.min).max(Vec3::splat(body));
        let radius = (extent.x.min(extent.z) * 0.08).max(2.0 * body);
        let mut paths = Vec::with_capacity(LOOPS as usize);
        for l in 0..LOOPS {
            let centre = Vec3::new(
                bounds.min.x + extent.x * unit_hash(4 * l),
                0.0,
                bounds.min.z + extent.z * unit_hash(4 * l + 1),
            );
            let corners = 4 + (unit_hash(4 * l + 2) * 3.0) as u32;
            let points: Vec<Vec3> = (0..corners)
                .map(|k| {
                    let a = std::f32::consts::TAU * k as f32 / corners as f32;
                    let r = radius * (0.6 + 0.4 * unit_hash(l * 31 + k));
                    centre + Vec3::new(a.cos() * r, 0.0, a.sin() * r)
                })
                .collect();
            paths.push(crowd.add_path(&points)?);
        }
        let all: Vec<InstanceId> = crowd.ids().collect();
        let n = ((all.len() as f64 * percent / 100.0).round() as usize).min(all.len());
        let mut walkers = Self {
            ids: Vec::with_capacity(n),
            paths,
            stride,
            owed: 0.0,
            next: 0,
            count: 0,
        };
        for (i, &id) in all.iter().enumerate().take(n) {
            if let Some(c) = clip {
                crowd.play(id, c)?;
                crowd.set_time(id, unit_hash(i as u32 ^ 0x5bd1) * 2.0)?;
            }
            walkers.ids.push(id);
            walkers.retarget(crowd, i)?;
        }
        Ok(walkers)
    }

    /// The walking instances.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True if nobody walks.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Puts walker `i` on another loop, at another place and speed.
    fn retarget(&mut self, crowd: &mut Crowd, i: usize) -> Result<(), CrowdError> {
        self.count = self.count.wrapping_add(1);
        let h = |k: u32| unit_hash(self.count.wrapping_mul(7).wrapping_add(k) ^ (i as u32) << 8);
        let path = self.paths[(h(0) * self.paths.len() as f32) as usize % self.paths.len()];
        let speed = self.stride * (0.8 + 0.5 * h(1));
        let motion = Motion::Path {
            path,
            speed,
            start: h(2) * 1e3,
            end: PathEnd::Loop,
            turn: self.stride * 0.6,
        };
        crowd.set_motion_matched(self.ids[i], motion, self.stride)
    }

    /// Advances by `dt` seconds: re-targets the walkers owed (1 % of them
    /// per second, a rotating window). Returns how many.
    pub fn step(&mut self, crowd: &mut Crowd, dt: f32) -> Result<usize, CrowdError> {
        if self.ids.is_empty() {
            return Ok(0);
        }
        self.owed += self.ids.len() as f64 * RETARGETS_PER_SECOND * dt as f64;
        let due = self.owed.floor() as usize;
        self.owed -= due as f64;
        for _ in 0..due {
            let i = self.next;
            self.retarget(crowd, i)?;
            self.next = (i + 1) % self.ids.len();
        }
        Ok(due)
    }
}
