//! The views an impostor is captured from and read with: the
//! hemi-octahedral map of the upper hemisphere ([`hemi_oct_encode`],
//! [`hemi_oct_decode`]), the lattice of views on it ([`ViewGrid`]), how a
//! direction blends three of them, and the basis a view is captured in.

use glam::{Vec2, Vec3};

/// The direction `dir` (any length, model space, +Y up) on the unit square
/// of the hemi-octahedral map; below the horizon reads as the horizon.
pub fn hemi_oct_encode(dir: Vec3) -> Vec2 {
    let d = Vec3::new(dir.x, dir.y.max(0.0), dir.z);
    let l1 = d.x.abs() + d.y + d.z.abs();
    if l1 <= 0.0 || !l1.is_finite() {
        return Vec2::splat(0.5); // straight up, by convention
    }
    let p = Vec2::new(d.x, d.z) / l1;
    // Rotate the diamond |x| + |z| ≤ 1 by 45° onto [-1, 1]², then to [0, 1]².
    Vec2::new(p.x + p.y, p.x - p.y) * 0.5 + 0.5
}

/// The unit direction at `uv` of the hemi-octahedral map (`uv` clamped to
/// the unit square).
pub fn hemi_oct_decode(uv: Vec2) -> Vec3 {
    let q = uv.clamp(Vec2::ZERO, Vec2::ONE) * 2.0 - 1.0;
    let p = Vec2::new(q.x + q.y, q.x - q.y) * 0.5;
    let y = 1.0 - p.x.abs() - p.y.abs();
    Vec3::new(p.x, y.max(0.0), p.y).normalize()
}

/// The basis a view is captured in and read back with: right, up, and
/// `dir` itself (unit, from the model towards the camera). Up is the model's
/// +Y projected onto the view plane, or −Z for a view within 2.6° of
/// straight up, where that projection vanishes.
pub fn view_basis(dir: Vec3) -> [Vec3; 3] {
    let z = dir.try_normalize().unwrap_or(Vec3::Y);
    let reference = if z.y.abs() > 0.999 {
        Vec3::NEG_Z
    } else {
        Vec3::Y
    };
    let x = reference.cross(z).normalize();
    [x, z.cross(x), z]
}

/// The views of an impostor: `side × side` lattice points of the
/// hemi-octahedral map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewGrid {
    /// Views along each side (at least 2).
    pub side: u32,
}

impl ViewGrid {
    /// Views in all.
    pub fn count(self) -> u32 {
        self.side * self.side
    }

    /// The map coordinates of view `(i, j)`.
    pub fn uv(self, i: u32, j: u32) -> Vec2 {
        let last = (self.side - 1) as f32;
        Vec2::new(i as f32 / last, j as f32 / last)
    }

    /// The direction towards the camera of view `index` (`j * side + i`).
    pub fn direction(self, index: u32) -> Vec3 {
        hemi_oct_decode(self.uv(index % self.side, index / self.side))
    }

    /// The three views to blend for a camera in direction `dir` from the
    /// model (model space), with barycentric weights summing to 1: the
    /// lattice triangle (each cell cut along its diagonal) that holds the
    /// direction's map point.
    pub fn blend(self, dir: Vec3) -> [(u32, f32); 3] {
        let last = (self.side - 1) as f32;
        let g = hemi_oct_encode(dir) * last;
        let cell = g.floor().clamp(Vec2::ZERO, Vec2::splat(last - 1.0));
        let f = (g - cell).clamp(Vec2::ZERO, Vec2::ONE);
        let (i, j) = (cell.x as u32, cell.y as u32);
        let at = |di: u32, dj: u32| (j + dj) * self.side + i + di;
        if f.x >= f.y {
            // Lower triangle: (0,0), (1,0), (1,1).
            [
                (at(0, 0), 1.0 - f.x),
                (at(1, 0), f.x - f.y),
                (at(1, 1), f.y),
            ]
        } else {
            // Upper triangle: (0,0), (1,1), (0,1).
            [
                (at(0, 0), 1.0 - f.y),
                (at(1, 1), f.x),
                (at(0, 1), f.y - f.x),
            ]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs() -> impl Iterator<Item = Vec3> {
        (0..40).flat_map(|a| {
            (0..=20).map(move |e| {
                let az = a as f32 / 40.0 * std::f32::consts::TAU;
                let el = e as f32 / 20.0 * std::f32::consts::FRAC_PI_2;
                Vec3::new(el.cos() * az.cos(), el.sin(), el.cos() * az.sin())
            })
        })
    }

    #[test]
    fn the_map_round_trips_over_the_upper_hemisphere() {
        let mut worst = 0.0f32;
        for d in dirs() {
            let uv = hemi_oct_encode(d);
            assert!(
                (0.0..=1.0).contains(&uv.x) && (0.0..=1.0).contains(&uv.y),
                "{d} → {uv}"
            );
            worst = worst.max((hemi_oct_decode(uv) - d).length());
        }
        assert!(worst < 1e-5, "worst round trip error {worst}");
        // Straight up is the centre; the horizon is the square's edge.
        assert!((hemi_oct_encode(Vec3::Y) - Vec2::splat(0.5)).length() < 1e-6);
        let h = hemi_oct_encode(Vec3::X);
        assert!(h.x.min(h.y) < 1e-6 || h.x.max(h.y) > 1.0 - 1e-6, "{h}");
    }

    #[test]
    fn below_the_horizon_reads_as_the_horizon() {
        let below = Vec3::new(0.6, -0.3, 0.2);
        let at = hemi_oct_decode(hemi_oct_encode(below));
        assert!(at.y.abs() < 1e-6, "{at}");
        let flat = Vec3::new(0.6, 0.0, 0.2).normalize();
        assert!((at - flat).length() < 1e-5, "{at} vs {flat}");
        assert_eq!(hemi_oct_encode(Vec3::ZERO), Vec2::splat(0.5));
        assert_eq!(hemi_oct_encode(Vec3::NAN), Vec2::splat(0.5));
    }

    #[test]
    fn blending_is_exact_at_the_views_and_weights_sum_to_one() {
        for side in [2u32, 3, 8, 12] {
            let grid = ViewGrid { side };
            for v in 0..grid.count() {
                let [(view, w), ..] = {
                    let mut b = grid.blend(grid.direction(v));
                    b.sort_by(|a, b| b.1.total_cmp(&a.1));
                    b
                };
                assert_eq!(view, v, "side {side}: view {v} picks itself");
                assert!((w - 1.0).abs() < 1e-4, "side {side}: view {v} weight {w}");
            }
            for d in dirs() {
                let b = grid.blend(d);
                let sum: f32 = b.iter().map(|(_, w)| w).sum();
                assert!((sum - 1.0).abs() < 1e-5, "{d}: weights sum to {sum}");
                for (view, w) in b {
                    assert!(view < grid.count() && w >= -1e-6, "{d}: {b:?}");
                }
            }
        }
    }

    #[test]
    fn view_bases_are_orthonormal_and_upright() {
        for d in dirs().chain([Vec3::Y, Vec3::new(0.0, 1.0, 1e-4)]) {
            let [x, y, z] = view_basis(d);
            for (a, b) in [(x, y), (y, z), (z, x)] {
                assert!(a.dot(b).abs() < 1e-5, "{d}: not orthogonal");
            }
            assert!((x.cross(y) - z).length() < 1e-5, "{d}: not right-handed");
            assert!((z - d.normalize()).length() < 1e-5, "{d}: z is the view");
            // Upright: the model's up is never below the view's horizon.
            assert!(y.y >= -1e-6, "{d}: up {y}");
        }
    }
}
