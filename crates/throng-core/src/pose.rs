//! Local-space pose arithmetic on 3x4 affine rows: products and inverses,
//! the split of a bone's local matrix into translation, rotation
//! (quaternion) and scale, and the blends animation layers use. Every
//! function here has a WGSL twin in `shaders/pose.wgsl`, written with the
//! same operations in the same order (checked on the GPU by
//! `crates/throng-render/tests/render/layers_readback.rs`).
//!
//! Why quaternions and not matrices: layers blend *different* clips, whose
//! local rotations can be far apart (an arm raised against an arm down).
//! A linear blend of rotation matrices is not a rotation: halfway between
//! two rotations 90° apart it shrinks the bone by 29 % and shears it. The
//! normalised quaternion blend (nlerp) stays a rotation, costs a few
//! multiply-adds more than a matrix lerp, and differs from slerp by under
//! 0.2° for weights between poses 90° apart — below what the bake's frame
//! interpolation already allows. Frames *within* one clip are still
//! interpolated as palette matrices, as the plain path does: the bake bounds
//! that error (`--max-error`).

use glam::{Vec3, Vec4};

use crate::math::Rows3x4;

/// The identity in rows.
pub const IDENTITY_ROWS: Rows3x4 = [Vec4::X, Vec4::Y, Vec4::Z];

/// A local transform split as `T · R · S` (rotation as a unit quaternion
/// `(x, y, z, w)`; a mirrored matrix has a negative `scale.x`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalPose {
    /// Translation.
    pub translation: Vec3,
    /// Rotation, unit quaternion `(x, y, z, w)`.
    pub rotation: Vec4,
    /// Scale per axis.
    pub scale: Vec3,
}

/// `a · b` of two affine matrices given as rows.
#[inline]
pub fn rows_mul(a: &Rows3x4, b: &Rows3x4) -> Rows3x4 {
    let row = |r: Vec4| b[0] * r.x + b[1] * r.y + b[2] * r.z + Vec4::new(0.0, 0.0, 0.0, r.w);
    [row(a[0]), row(a[1]), row(a[2])]
}

/// The inverse of an affine matrix (cofactors over the determinant; a
/// singular matrix gives zeros, never NaN).
#[inline]
pub fn rows_inverse(m: &Rows3x4) -> Rows3x4 {
    let p = m[0].truncate();
    let q = m[1].truncate();
    let r = m[2].truncate();
    // Columns of the inverse's 3x3 are the cofactor rows over det.
    let c0 = q.cross(r);
    let c1 = r.cross(p);
    let c2 = p.cross(q);
    let det = p.dot(c0);
    let inv_det = if det != 0.0 { 1.0 / det } else { 0.0 };
    let a0 = Vec3::new(c0.x, c1.x, c2.x) * inv_det;
    let a1 = Vec3::new(c0.y, c1.y, c2.y) * inv_det;
    let a2 = Vec3::new(c0.z, c1.z, c2.z) * inv_det;
    let t = Vec3::new(m[0].w, m[1].w, m[2].w);
    [
        a0.extend(-a0.dot(t)),
        a1.extend(-a1.dot(t)),
        a2.extend(-a2.dot(t)),
    ]
}

/// Splits an affine matrix into `T · R · S` (shear, which glTF nodes cannot
/// have, is dropped).
pub fn decompose(m: &Rows3x4) -> LocalPose {
    let x = Vec3::new(m[0].x, m[1].x, m[2].x);
    let y = Vec3::new(m[0].y, m[1].y, m[2].y);
    let z = Vec3::new(m[0].z, m[1].z, m[2].z);
    let det = x.dot(y.cross(z));
    let sx = x.length() * if det < 0.0 { -1.0 } else { 1.0 };
    let sy = y.length();
    let sz = z.length();
    let unit = |c: Vec3, s: f32| if s != 0.0 { c * (1.0 / s) } else { c };
    let (x, y, z) = (unit(x, sx), unit(y, sy), unit(z, sz));
    LocalPose {
        translation: Vec3::new(m[0].w, m[1].w, m[2].w),
        rotation: quat_from_axes(x, y, z),
        scale: Vec3::new(sx, sy, sz),
    }
}

/// The unit quaternion of the rotation whose columns are `x`, `y`, `z`
/// (Shepperd's method: the branch on the largest diagonal term keeps the
/// square root away from zero).
pub fn quat_from_axes(x: Vec3, y: Vec3, z: Vec3) -> Vec4 {
    let (m00, m11, m22) = (x.x, y.y, z.z);
    let trace = m00 + m11 + m22;
    let q = if trace > 0.0 {
        let s = 2.0 * (trace + 1.0).sqrt();
        Vec4::new((y.z - z.y) / s, (z.x - x.z) / s, (x.y - y.x) / s, 0.25 * s)
    } else if m00 > m11 && m00 > m22 {
        let s = 2.0 * (1.0 + m00 - m11 - m22).sqrt();
        Vec4::new(0.25 * s, (y.x + x.y) / s, (z.x + x.z) / s, (y.z - z.y) / s)
    } else if m11 > m22 {
        let s = 2.0 * (1.0 + m11 - m00 - m22).sqrt();
        Vec4::new((y.x + x.y) / s, 0.25 * s, (z.y + y.z) / s, (z.x - x.z) / s)
    } else {
        let s = 2.0 * (1.0 + m22 - m00 - m11).sqrt();
        Vec4::new((z.x + x.z) / s, (z.y + y.z) / s, 0.25 * s, (x.y - y.x) / s)
    };
    normalize4(q)
}

/// `T · R · S` as rows.
pub fn compose(p: &LocalPose) -> Rows3x4 {
    let q = p.rotation;
    let (xx, yy, zz) = (q.x * q.x, q.y * q.y, q.z * q.z);
    let (xy, xz, yz) = (q.x * q.y, q.x * q.z, q.y * q.z);
    let (wx, wy, wz) = (q.w * q.x, q.w * q.y, q.w * q.z);
    let s = p.scale;
    let t = p.translation;
    [
        Vec4::new(
            (1.0 - 2.0 * (yy + zz)) * s.x,
            2.0 * (xy - wz) * s.y,
            2.0 * (xz + wy) * s.z,
            t.x,
        ),
        Vec4::new(
            2.0 * (xy + wz) * s.x,
            (1.0 - 2.0 * (xx + zz)) * s.y,
            2.0 * (yz - wx) * s.z,
            t.y,
        ),
        Vec4::new(
            2.0 * (xz - wy) * s.x,
            2.0 * (yz + wx) * s.y,
            (1.0 - 2.0 * (xx + yy)) * s.z,
            t.z,
        ),
    ]
}

/// `q / |q|`, or the identity if `q` is zero.
#[inline]
pub fn normalize4(q: Vec4) -> Vec4 {
    let len2 = q.dot(q);
    if len2 > 0.0 {
        q * (1.0 / len2.sqrt())
    } else {
        Vec4::W
    }
}

/// The Hamilton product `a · b` (apply `b`, then `a`).
#[inline]
pub fn quat_mul(a: Vec4, b: Vec4) -> Vec4 {
    Vec4::new(
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    )
}

/// The inverse of a unit quaternion.
#[inline]
pub fn quat_conjugate(q: Vec4) -> Vec4 {
    Vec4::new(-q.x, -q.y, -q.z, q.w)
}

/// Normalised blend from `a` to `b` by `w`, along the shorter arc.
#[inline]
pub fn quat_nlerp(a: Vec4, b: Vec4, w: f32) -> Vec4 {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    normalize4(a + (b - a) * w)
}

/// An override layer: `base` moved toward `layer` by `w` (translation and
/// scale linearly, rotation by nlerp).
pub fn blend_override(base: &LocalPose, layer: &LocalPose, w: f32) -> LocalPose {
    LocalPose {
        translation: base.translation + (layer.translation - base.translation) * w,
        rotation: quat_nlerp(base.rotation, layer.rotation, w),
        scale: base.scale + (layer.scale - base.scale) * w,
    }
}

/// An additive layer: `base` plus `w` times the difference of `layer` from
/// `reference` (translations added, rotations applied after the base's in
/// the bone's space, scales multiplied).
pub fn blend_additive(
    base: &LocalPose,
    reference: &LocalPose,
    layer: &LocalPose,
    w: f32,
) -> LocalPose {
    let delta = quat_mul(quat_conjugate(reference.rotation), layer.rotation);
    let ratio = |s: f32, r: f32| if r != 0.0 { s / r } else { 1.0 };
    let scale = Vec3::new(
        ratio(layer.scale.x, reference.scale.x),
        ratio(layer.scale.y, reference.scale.y),
        ratio(layer.scale.z, reference.scale.z),
    );
    LocalPose {
        translation: base.translation + (layer.translation - reference.translation) * w,
        rotation: normalize4(quat_mul(base.rotation, quat_nlerp(Vec4::W, delta, w))),
        scale: base.scale * (Vec3::ONE + (scale - Vec3::ONE) * w),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{mat4_to_rows, rows_to_mat4};
    use glam::{Mat4, Quat};

    fn close(a: &Rows3x4, b: &Rows3x4, tol: f32) -> bool {
        (0..3).all(|r| (a[r] - b[r]).abs().max_element() <= tol)
    }

    fn sample() -> Mat4 {
        Mat4::from_scale_rotation_translation(
            Vec3::new(1.5, 0.5, 2.0),
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, -2.1, 1.2),
            Vec3::new(1.0, -2.0, 3.0),
        )
    }

    #[test]
    fn product_and_inverse_match_glam() {
        let a = sample();
        let b = Mat4::from_rotation_z(0.7) * Mat4::from_translation(Vec3::new(0.5, 0.0, -1.0));
        let ab = rows_mul(&mat4_to_rows(&a), &mat4_to_rows(&b));
        assert!(close(&ab, &mat4_to_rows(&(a * b)), 1e-5), "{ab:?}");
        let inv = rows_inverse(&mat4_to_rows(&a));
        assert!(close(&inv, &mat4_to_rows(&a.inverse()), 1e-5), "{inv:?}");
        assert_eq!(rows_inverse(&[Vec4::ZERO; 3]), [Vec4::ZERO; 3]);
    }

    #[test]
    fn decompose_then_compose_is_the_identity_map() {
        // Every branch of the quaternion extraction, and a mirror.
        let rotations = [
            Quat::IDENTITY,
            Quat::from_rotation_x(3.1),
            Quat::from_rotation_y(3.1),
            Quat::from_rotation_z(3.1),
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, -2.1, 1.2),
        ];
        for q in rotations {
            for scale in [
                Vec3::ONE,
                Vec3::new(1.5, 0.5, 2.0),
                Vec3::new(-1.0, 1.0, 1.0),
            ] {
                let m = Mat4::from_scale_rotation_translation(scale, q, Vec3::new(1.0, -2.0, 3.0));
                let rows = mat4_to_rows(&m);
                let back = compose(&decompose(&rows));
                assert!(close(&back, &rows, 2e-6), "{q:?} {scale:?}: {back:?}");
                assert!((decompose(&rows).rotation.length() - 1.0).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn override_blend_stays_a_rotation() {
        let a = decompose(&IDENTITY_ROWS);
        let b = decompose(&mat4_to_rows(&Mat4::from_rotation_y(
            std::f32::consts::FRAC_PI_2,
        )));
        let half = compose(&blend_override(&a, &b, 0.5));
        let m = rows_to_mat4(&half);
        // Unit axes, no shrink (a matrix lerp would give 0.707).
        assert!((m.x_axis.truncate().length() - 1.0).abs() < 1e-6);
        let angle = m.x_axis.truncate().angle_between(Vec3::X);
        assert!(
            (angle - std::f32::consts::FRAC_PI_4).abs() < 1e-5,
            "{angle}"
        );
        assert!(close(
            &compose(&blend_override(&a, &b, 0.0)),
            &IDENTITY_ROWS,
            1e-6
        ));
        assert!(close(
            &compose(&blend_override(&a, &b, 1.0)),
            &compose(&b),
            1e-6
        ));
    }

    #[test]
    fn additive_blend_adds_the_difference_from_the_reference() {
        // Uniform scale: with a non-uniform one, `R · ΔR · S` (what an
        // additive layer makes of a local `T · R · S`) is not `M · ΔR`.
        let m = Mat4::from_scale_rotation_translation(
            Vec3::splat(1.5),
            Quat::from_euler(glam::EulerRot::XYZ, 0.3, -2.1, 1.2),
            Vec3::new(1.0, -2.0, 3.0),
        );
        let base = decompose(&mat4_to_rows(&m));
        let reference = decompose(&mat4_to_rows(&Mat4::from_rotation_x(0.4)));
        // The layer at its reference pose adds nothing.
        let same = blend_additive(&base, &reference, &reference, 1.0);
        assert!(close(&compose(&same), &compose(&base), 1e-5));
        // A layer rotated by 0.5 rad about x from the reference turns the
        // base by the same amount in the bone's space.
        let layer = decompose(&mat4_to_rows(&Mat4::from_rotation_x(0.9)));
        let added = compose(&blend_additive(&base, &reference, &layer, 1.0));
        let want = m * Mat4::from_rotation_x(0.5);
        assert!(close(&added, &mat4_to_rows(&want), 1e-5), "{added:?}");
        let none = blend_additive(&base, &reference, &layer, 0.0);
        assert!(close(&compose(&none), &compose(&base), 1e-6));
    }
}
