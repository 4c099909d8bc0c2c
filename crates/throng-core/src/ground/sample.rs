//! The ground's height and slope at a point, and an instance placed on it:
//! the CPU twin of WGSL's `ground_sample` and `ground_place`
//! (`throng-render/src/passes/ground.wgsl`), operation for operation.

use glam::{Vec2, Vec3, Vec4};

use super::{Ground, Heightfield, Piece};

/// How an instance on the ground is turned: a per-crowd choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GroundAlign {
    /// It stays upright (its up is the world's): people, on any slope.
    #[default]
    Upright,
    /// Its up is the ground's normal under it, so it faces along the
    /// slope's tangent: four-legged animals, vehicles.
    Slope,
}

/// The ground at a point: its height and its rise per unit of x and z.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GroundSample {
    /// Height, world y.
    pub height: f32,
    /// Rise per unit of x and of z (the surface's gradient).
    pub gradient: Vec2,
}

impl GroundSample {
    /// The surface's unit normal.
    pub fn normal(&self) -> Vec3 {
        Vec3::new(-self.gradient.x, 1.0, -self.gradient.y).normalize()
    }

    /// The slope's angle from the horizontal, radians.
    pub fn slope_angle(&self) -> f32 {
        self.gradient.length().atan()
    }
}

impl Heightfield {
    /// The bilinear height and its gradient at world (x, z) `p`, clamped
    /// into the grid (flat outside it).
    pub fn sample(&self, p: Vec2) -> GroundSample {
        let last = Vec2::new(self.columns as f32 - 1.0, self.rows as f32 - 1.0);
        let g = (p - self.origin) / self.spacing;
        let c = g.clamp(Vec2::ZERO, last);
        let i = (c.x.floor() as u32).min(self.columns - 2);
        let j = (c.y.floor() as u32).min(self.rows - 2);
        let f = c - Vec2::new(i as f32, j as f32);
        let at = |di: u32, dj: u32| self.heights[((j + dj) * self.columns + i + di) as usize];
        let (h00, h10, h01, h11) = (at(0, 0), at(1, 0), at(0, 1), at(1, 1));
        let near = h00 + (h10 - h00) * f.x;
        let far = h01 + (h11 - h01) * f.x;
        let height = near + (far - near) * f.y;
        let dx = ((h10 - h00) + ((h11 - h01) - (h10 - h00)) * f.y) / self.spacing;
        let dz = (far - near) / self.spacing;
        // Outside the grid along an axis the edge's height holds: flat.
        let inside = |v: f32, hi: f32| if v >= 0.0 && v <= hi { 1.0 } else { 0.0 };
        GroundSample {
            height,
            gradient: Vec2::new(dx * inside(g.x, last.x), dz * inside(g.y, last.y)),
        }
    }
}

impl Piece {
    /// True if world (x, z) `p` is on the piece: `min ≤ p < max`.
    pub fn covers(&self, p: Vec2) -> bool {
        p.x >= self.min.x && p.y >= self.min.y && p.x < self.max.x && p.y < self.max.y
    }

    /// The piece's height at `p` (extended beyond its rectangle).
    pub fn height_at(&self, p: Vec2) -> f32 {
        let d = p - self.min;
        self.height + (self.slope.x * d.x + self.slope.y * d.y)
    }
}

impl Ground {
    /// The ground at world (x, z) `p`: the highest of the heightfield (0
    /// without one) and the pieces covering `p`; the gradient is the
    /// highest one's.
    pub fn sample(&self, p: Vec2) -> GroundSample {
        let mut best = match &self.heightfield {
            Some(h) => h.sample(p),
            None => GroundSample::default(),
        };
        for piece in &self.pieces {
            if piece.covers(p) {
                let h = piece.height_at(p);
                if h > best.height {
                    best = GroundSample {
                        height: h,
                        gradient: piece.slope,
                    };
                }
            }
        }
        best
    }

    /// The height at world (x, z) `p`.
    pub fn height_at(&self, p: Vec2) -> f32 {
        self.sample(p).height
    }

    /// Transform rows (a 3×4 affine: rotation and translation) of an
    /// instance at their (x, z) placed on the ground: the translation's y
    /// is the ground's height there and, with [`GroundAlign::Slope`], the
    /// instance's up is the ground's normal and its forward the slope's
    /// tangent along its heading (the horizontal direction of its +z axis,
    /// kept exactly), each axis keeping its scale. Placing twice is placing
    /// once. Mirrors WGSL's `ground_place`.
    pub fn place(&self, rows: [Vec4; 3], align: GroundAlign) -> [Vec4; 3] {
        place_on(self.sample(Vec2::new(rows[0].w, rows[2].w)), rows, align)
    }
}

/// `rows` placed on the ground sampled under them (see [`Ground::place`]).
fn place_on(s: GroundSample, rows: [Vec4; 3], align: GroundAlign) -> [Vec4; 3] {
    let mut out = rows;
    out[1].w = s.height;
    let column = |k: usize| Vec3::new(rows[0][k], rows[1][k], rows[2][k]);
    let z = column(2);
    let heading = Vec2::new(z.x, z.z);
    if align == GroundAlign::Upright || heading.length_squared() < 1e-12 {
        return out;
    }
    let h = heading.normalize();
    let f = Vec3::new(h.x, s.gradient.dot(h), h.y).normalize();
    let n = s.normal();
    let x = n.cross(f);
    let axes = [
        x * column(0).length(),
        n * column(1).length(),
        f * z.length(),
    ];
    for (i, o) in out.iter_mut().enumerate() {
        *o = Vec4::new(axes[0][i], axes[1][i], axes[2][i], o.w);
    }
    out
}
