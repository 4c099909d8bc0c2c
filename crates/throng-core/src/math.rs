//! Math conventions shared by the baker, the CPU reference and the GPU.
//!
//! * Column vectors, `world = parent_world * local`, glTF local transform
//!   `T * R * S`.
//! * Matrix names read right to left: `model_from_bind` maps a bind-pose
//!   model-space point to animated model space.
//! * A palette matrix is stored as its top three rows ([`Rows3x4`]); the fourth
//!   row of an affine matrix is always `(0, 0, 0, 1)`.
//! * Normals are transformed by the cofactor of the 3x3 part, signed by its
//!   determinant (equal to `|det| · M⁻ᵀ`, correct under non-uniform scale and
//!   mirroring), then normalised. The WGSL shader does the same arithmetic.

use glam::{Mat4, Quat, Vec3, Vec4};

/// A node's local transform as translation, rotation and scale (`T * R * S`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trs {
    /// Translation.
    pub translation: Vec3,
    /// Rotation (unit quaternion).
    pub rotation: Quat,
    /// Scale (per axis).
    pub scale: Vec3,
}

impl Default for Trs {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Trs {
    /// The identity transform.
    pub const IDENTITY: Self = Self {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// The matrix `T * R * S`.
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// Decomposes an affine matrix into TRS. Shear is lost; used only for
    /// matrix-given nodes that an animation nevertheless targets.
    pub fn from_mat4(m: &Mat4) -> Self {
        let (scale, rotation, translation) = m.to_scale_rotation_translation();
        Self {
            translation,
            rotation: rotation.normalize(),
            scale,
        }
    }
}

/// The top three rows of an affine 3x4 matrix: `row[r] = (m[0][r], m[1][r], m[2][r], m[3][r])`.
///
/// This is the texel layout of a palette matrix: row `r` is texel `r`.
pub type Rows3x4 = [Vec4; 3];

/// The top three rows of `m` (its fourth row is assumed `(0, 0, 0, 1)`).
pub fn mat4_to_rows(m: &Mat4) -> Rows3x4 {
    let t = m.transpose();
    [t.x_axis, t.y_axis, t.z_axis]
}

/// The affine 4x4 matrix whose top rows are `rows`.
pub fn rows_to_mat4(rows: &Rows3x4) -> Mat4 {
    Mat4::from_cols(rows[0], rows[1], rows[2], Vec4::W).transpose()
}

/// `rows · (p, 1)`: transforms a point by a 3x4 matrix.
#[inline]
pub fn rows_transform_point(rows: &Rows3x4, p: Vec3) -> Vec3 {
    let h = p.extend(1.0);
    Vec3::new(rows[0].dot(h), rows[1].dot(h), rows[2].dot(h))
}

/// Transforms a normal by the signed cofactor of the 3x3 part of `rows` and
/// normalises it. Returns `n` unchanged if the result is degenerate.
#[inline]
pub fn rows_transform_normal(rows: &Rows3x4, n: Vec3) -> Vec3 {
    let p = rows[0].truncate();
    let q = rows[1].truncate();
    let r = rows[2].truncate();
    // Row i of the cofactor matrix: q×r, r×p, p×q.
    let c0 = q.cross(r);
    let c1 = r.cross(p);
    let c2 = p.cross(q);
    let det = p.dot(c0);
    let sign = if det < 0.0 { -1.0 } else { 1.0 };
    let out = Vec3::new(c0.dot(n), c1.dot(n), c2.dot(n)) * sign;
    out.try_normalize().unwrap_or(n)
}

/// `a + (b - a) * t` on each row.
#[inline]
pub fn rows_lerp(a: &Rows3x4, b: &Rows3x4, t: f32) -> Rows3x4 {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// An axis-aligned bounding box. An empty box has `min > max`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Vec3,
    /// Largest corner.
    pub max: Vec3,
}

impl Default for Aabb {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl Aabb {
    /// The empty box (contains nothing; grows to the first point added).
    pub const EMPTY: Self = Self {
        min: Vec3::splat(f32::INFINITY),
        max: Vec3::splat(f32::NEG_INFINITY),
    };

    /// True if no point was ever added.
    pub fn is_empty(&self) -> bool {
        self.min.x > self.max.x || self.min.y > self.max.y || self.min.z > self.max.z
    }

    /// Grows the box to contain `p`.
    #[inline]
    pub fn add_point(&mut self, p: Vec3) {
        self.min = self.min.min(p);
        self.max = self.max.max(p);
    }

    /// The smallest box containing both.
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// Centre point (zero for an empty box).
    pub fn center(&self) -> Vec3 {
        if self.is_empty() {
            Vec3::ZERO
        } else {
            (self.min + self.max) * 0.5
        }
    }

    /// Half the diagonal: the radius of the sphere around [`Self::center`]
    /// that holds the box (zero for an empty box).
    pub fn radius(&self) -> f32 {
        if self.is_empty() {
            0.0
        } else {
            (self.max - self.min).length() * 0.5
        }
    }

    /// The 8 corners; bit 0, 1, 2 of the index picks max x, y, z.
    pub fn corners(&self) -> [Vec3; 8] {
        std::array::from_fn(|i| {
            Vec3::select(
                glam::BVec3::new(i & 1 != 0, i & 2 != 0, i & 4 != 0),
                self.max,
                self.min,
            )
        })
    }

    /// The box of the 8 corners of `self` transformed by `m`.
    pub fn transformed(&self, m: &Mat4) -> Aabb {
        if self.is_empty() {
            return *self;
        }
        // Arvo's method: per output axis, sum the min/max of each column term.
        let t = m.w_axis.truncate();
        let mut out = Aabb { min: t, max: t };
        for (i, col) in [m.x_axis, m.y_axis, m.z_axis].iter().enumerate() {
            let a = col.truncate() * self.min[i];
            let b = col.truncate() * self.max[i];
            out.min += a.min(b);
            out.max += a.max(b);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_and_transform_match_mat4() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::new(1.0, 2.0, 0.5),
            Quat::from_rotation_y(0.7) * Quat::from_rotation_x(-0.3),
            Vec3::new(3.0, -1.0, 2.0),
        );
        let rows = mat4_to_rows(&m);
        assert_eq!(rows_to_mat4(&rows), m);
        let p = Vec3::new(0.25, -2.0, 5.0);
        let a = rows_transform_point(&rows, p);
        let b = m.transform_point3(p);
        assert!((a - b).length() < 1e-5, "{a} vs {b}");
    }

    #[test]
    fn cofactor_normal_equals_inverse_transpose_under_non_uniform_scale() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::new(1.0, 3.0, 0.25),
            Quat::from_rotation_z(0.4),
            Vec3::ZERO,
        );
        let n = Vec3::new(1.0, 1.0, 0.0).normalize();
        let expected = (m.inverse().transpose().transform_vector3(n)).normalize();
        let got = rows_transform_normal(&mat4_to_rows(&m), n);
        assert!((got - expected).length() < 1e-5, "{got} vs {expected}");
    }

    #[test]
    fn mirrored_normal_keeps_outward_direction() {
        // Mirror in x: the outward normal +x of the plane x = 1 maps to -x.
        let m = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
        let got = rows_transform_normal(&mat4_to_rows(&m), Vec3::X);
        assert!((got - Vec3::NEG_X).length() < 1e-6, "{got}");
    }

    #[test]
    fn aabb_transform_holds_all_corners() {
        let b = Aabb {
            min: Vec3::new(-1.0, 0.0, -2.0),
            max: Vec3::new(1.0, 3.0, 2.0),
        };
        let m =
            Mat4::from_rotation_translation(Quat::from_rotation_y(0.5), Vec3::new(1.0, 2.0, 3.0));
        let tb = b.transformed(&m);
        let corners = b.corners();
        for (i, c) in corners.iter().enumerate() {
            assert_eq!(
                *c,
                Vec3::new(
                    if i & 1 == 0 { b.min.x } else { b.max.x },
                    if i & 2 == 0 { b.min.y } else { b.max.y },
                    if i & 4 == 0 { b.min.z } else { b.max.z },
                )
            );
        }
        for c in corners {
            let p = m.transform_point3(c);
            assert!(p.cmpge(tb.min - 1e-5).all() && p.cmple(tb.max + 1e-5).all());
        }
        assert!(Aabb::EMPTY.is_empty());
        assert_eq!(Aabb::EMPTY.radius(), 0.0);
    }
}
