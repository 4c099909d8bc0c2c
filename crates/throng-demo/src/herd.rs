//! Where the crowd stands: a round herd on a staggered, jittered grid, each
//! instance with a random clip, phase, speed near 1, heading, size and
//! tint — or, for a model with a variant palette, a palette row instead of
//! the tint — from a seeded generator so that every run (and every
//! screenshot) is the same. The viewer's crowd, the web page's and the
//! native pictures they are compared with all stand this way.

use glam::{Mat4, Quat, Vec3, Vec4};
use throng_core::limits::REST_FRAME;
use throng_core::math::Aabb;
use throng_crowd::crowd::{Crowd, CrowdError, InstanceId, ModelId, Spawn};

/// A small deterministic generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        // In u64, so that wasm32 (32-bit usize) draws what native draws.
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// Playback speeds are drawn from this range.
pub const SPEED_RANGE: (f32, f32) = (0.85, 1.15);

/// Instance sizes are drawn from this range (uniform scale).
pub const SCALE_RANGE: (f32, f32) = (0.92, 1.08);

/// The herd's heading: a turn about +Y of the model's own forward (+Z in
/// glTF) to +X, so that the start view (from +Z) sees the crowd from the
/// side.
pub const HERD_HEADING: f32 = std::f32::consts::FRAC_PI_2;

/// Largest heading deviation from the herd's heading, in radians.
pub const HEADING_JITTER: f32 = 0.25;

/// Largest position jitter, as a fraction of a grid cell.
pub const POSITION_JITTER: f32 = 0.12;

/// Grid cell size as multiples of the model's footprint (x, z): room for
/// the heading and position jitter without overlaps.
pub const CELL_FACTOR: (f32, f32) = (2.2, 1.3);

/// Tints: white most often, then a few gentle colours.
pub const TINTS: [Vec4; 6] = [
    Vec4::new(1.0, 1.0, 1.0, 1.0),
    Vec4::new(1.0, 1.0, 1.0, 1.0),
    Vec4::new(1.0, 0.78, 0.7, 1.0),
    Vec4::new(0.75, 0.88, 1.0, 1.0),
    Vec4::new(0.85, 1.0, 0.75, 1.0),
    Vec4::new(0.72, 0.66, 0.62, 1.0),
];

/// Where one instance stands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// Position of the model's origin on the ground.
    pub position: Vec3,
    /// Turn about +Y in radians.
    pub heading: f32,
    /// Uniform scale.
    pub scale: f32,
}

/// What [`spawn_crowd`] made.
#[derive(Clone, Debug)]
pub struct Spawned {
    /// The instances, in spawn order.
    pub ids: Vec<InstanceId>,
    /// Their playback speeds (the crowd does not report them back).
    pub speeds: Vec<f32>,
    /// Their placements on the ground.
    pub placements: Vec<Placement>,
    /// World box holding every instance in every frame of its clip.
    pub bounds: Aabb,
    /// Height of the ground: the lowest point of the rest pose.
    pub ground_y: f32,
}

/// Spawns `count` instances of `model` in a round herd centred on the
/// origin: the `count` cells of a staggered grid nearest the centre (with a
/// little noise, for a ragged edge), each instance jittered within its
/// cell. Every instance plays a random clip from a random phase at a speed
/// in [`SPEED_RANGE`] (the rest pose when the model has no clips).
pub fn spawn_crowd(
    crowd: &mut Crowd,
    model: ModelId,
    count: u32,
    seed: u64,
) -> Result<Spawned, CrowdError> {
    spawn_mixed_crowd(crowd, &[model], count, seed)
}

/// [`spawn_crowd`] of a mixed herd: instance `i` is of `models[i mod n]`.
/// The herd is laid out, and its clips chosen, by the first model: the
/// others share its clips (bodies dressed on one animation library) and
/// its palette rows.
pub fn spawn_mixed_crowd(
    crowd: &mut Crowd,
    models: &[ModelId],
    count: u32,
    seed: u64,
) -> Result<Spawned, CrowdError> {
    let Some(&model) = models.first() else {
        return Ok(Spawned {
            ids: Vec::new(),
            speeds: Vec::new(),
            placements: Vec::new(),
            bounds: Aabb::EMPTY,
            ground_y: 0.0,
        });
    };
    let variants = crowd.model_handle(model)?.variants() as u32;
    let rows = throng_core::variety::Variety {
        variants,
        seed,
        ..Default::default()
    };
    let m = crowd.model(model)?;
    let clips: Vec<(f32, Aabb)> = m.clips.iter().map(|c| (c.duration, c.bounds)).collect();
    let rest = m.frame_bounds[REST_FRAME as usize];
    let extent = (m.bounds.max - m.bounds.min).max(Vec3::splat(1e-3));
    // The cell in model axes, then turned to the herd's heading.
    let (sin, cos) = HERD_HEADING.sin_cos();
    let (mx, mz) = (extent.x * CELL_FACTOR.0, extent.z * CELL_FACTOR.1);
    let cell = Vec3::new(
        cos.abs() * mx + sin.abs() * mz,
        0.0,
        sin.abs() * mx + cos.abs() * mz,
    );
    let cells = herd_cells(count as usize, cell.x, cell.z, &mut Rng::new(seed ^ 0xCE11));
    let mut rng = Rng::new(seed);
    let mut out = Spawned {
        ids: Vec::with_capacity(count as usize),
        speeds: Vec::with_capacity(count as usize),
        placements: Vec::with_capacity(count as usize),
        bounds: Aabb::EMPTY,
        ground_y: rest.min.y,
    };
    for &(col, row) in &cells {
        let jitter = Vec3::new(
            rng.range(-POSITION_JITTER, POSITION_JITTER) * cell.x,
            0.0,
            rng.range(-POSITION_JITTER, POSITION_JITTER) * cell.z,
        );
        let position = Vec3::new(col * cell.x, 0.0, row * cell.z) + jitter;
        let heading = HERD_HEADING + rng.range(-HEADING_JITTER, HEADING_JITTER);
        let scale = rng.range(SCALE_RANGE.0, SCALE_RANGE.1);
        let transform = Mat4::from_scale_rotation_translation(
            Vec3::splat(scale),
            Quat::from_rotation_y(heading),
            position,
        );
        let clip = (!clips.is_empty()).then(|| rng.below(clips.len()));
        let time = clip.map_or(0.0, |c| rng.unit() * clips[c].0);
        let speed = rng.range(SPEED_RANGE.0, SPEED_RANGE.1);
        let tint = TINTS[rng.below(TINTS.len())];
        // A palette row where the model has rows (drawn apart from `rng`,
        // so that the herd stands as it does without).
        let (look, _) = rows.pick(out.ids.len() as u64);
        out.ids.push(crowd.spawn(
            models[out.ids.len() % models.len()],
            Spawn {
                transform,
                clip,
                time,
                speed,
                tint: if variants > 1 { Vec4::ONE } else { tint },
                look,
                ..Spawn::default()
            },
        )?);
        out.speeds.push(speed);
        out.placements.push(Placement {
            position,
            heading,
            scale,
        });
        let local = clip.map_or(rest, |c| clips[c].1);
        out.bounds = out.bounds.union(&local.transformed(&transform));
    }
    Ok(out)
}

/// Centres, in cell units, of the `count` cells of a staggered grid (odd
/// rows shifted by half a cell) nearest the origin in world distance, for
/// cells of `cell_x` × `cell_z`; the distance gets up to [`EDGE_NOISE`]
/// herd radii of noise so the edge is ragged. Nearest first.
pub fn herd_cells(count: usize, cell_x: f32, cell_z: f32, rng: &mut Rng) -> Vec<(f32, f32)> {
    if count == 0 {
        return Vec::new();
    }
    // A disc of `count` cells has this radius in world units.
    let radius = (count as f32 * cell_x * cell_z / std::f32::consts::PI).sqrt();
    let reach = 1.0 + EDGE_NOISE;
    let half_i = (radius * reach / cell_x).ceil() as i32 + 2;
    let half_j = (radius * reach / cell_z).ceil() as i32 + 2;
    let mut candidates: Vec<(f32, (f32, f32))> = Vec::new();
    for j in -half_j..=half_j {
        let shift = if j.rem_euclid(2) == 1 { 0.5 } else { 0.0 };
        for i in -half_i..=half_i {
            let (x, z) = (i as f32 + shift, j as f32);
            let d = (x * cell_x).hypot(z * cell_z) / radius + EDGE_NOISE * rng.unit();
            candidates.push((d, (x, z)));
        }
    }
    candidates.sort_by(|a, b| a.0.total_cmp(&b.0));
    candidates.truncate(count);
    candidates.into_iter().map(|(_, c)| c).collect()
}

/// Noise added to cell distances, in herd radii (a ragged edge).
pub const EDGE_NOISE: f32 = 0.12;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_is_deterministic_and_in_range() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..1000 {
            let x = a.unit();
            assert_eq!(x, b.unit());
            assert!((0.0..1.0).contains(&x));
            assert!(a.below(3) < 3);
            b.below(3);
        }
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }

    #[test]
    fn herd_cells_are_distinct_nearest_first_and_round() {
        let cells = herd_cells(500, 2.0, 1.0, &mut Rng::new(3));
        assert_eq!(cells.len(), 500);
        let mut seen = std::collections::HashSet::new();
        for &(x, z) in &cells {
            assert!(
                seen.insert(((x * 2.0) as i32, z as i32)),
                "duplicate cell {x},{z}"
            );
        }
        // World extents along x and z are about equal (a disc, not a box).
        let ext = |f: fn(&(f32, f32)) -> f32, size: f32| {
            let v: Vec<f32> = cells.iter().map(f).collect();
            (v.iter().cloned().fold(f32::MIN, f32::max)
                - v.iter().cloned().fold(f32::MAX, f32::min))
                * size
        };
        let (w, d) = (ext(|c| c.0, 2.0), ext(|c| c.1, 1.0));
        assert!((w / d - 1.0).abs() < 0.2, "{w} × {d}");
        assert!(herd_cells(0, 1.0, 1.0, &mut Rng::new(1)).is_empty());
    }
}
