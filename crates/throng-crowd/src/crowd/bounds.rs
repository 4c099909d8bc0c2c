//! Bounding spheres for culling: each clip's model-space sphere (made once
//! per model, `models.rs`), the union of two clips' spheres during a fade
//! (and of the layers' clips' for an instance with animation layers), and
//! the world sphere cached per instance (recomputed only when its transform
//! or clips change; a moved instance's from its cached model-space sphere,
//! one transform).

use glam::{Vec3, Vec4};

use super::Crowd;
use super::anim_state::{Anim, Playback};
use super::models::ModelRt;

/// The smallest sphere holding both.
pub(super) fn sphere_union(a: Vec4, b: Vec4) -> Vec4 {
    let d = b.truncate() - a.truncate();
    let dist = d.length();
    if dist + b.w <= a.w {
        return a;
    }
    if dist + a.w <= b.w {
        return b;
    }
    let r = (dist + a.w + b.w) * 0.5;
    let c = a.truncate() + d * ((r - a.w) / dist.max(f32::MIN_POSITIVE));
    c.extend(r)
}

/// The model-space sphere of a playback: its clip's, or the rest pose's.
fn playback_sphere(m: &ModelRt, p: &Playback) -> Vec4 {
    if p.is_some() {
        m.spheres[p.clip as usize]
    } else {
        m.rest_sphere
    }
}

/// An instance's model-space sphere: its current clip's.
fn local_sphere(m: &ModelRt, a: &Anim) -> Vec4 {
    playback_sphere(m, &a.current)
}

/// World bounding sphere of an instance: its clip's (or both clips', while
/// fading) model-space sphere moved by the instance matrix, the radius scaled
/// by the matrix's largest axis scale.
#[inline]
pub(super) fn world_sphere(m: &ModelRt, a: &Anim, r: &[Vec4; 3], fading: bool) -> Vec4 {
    let mut s = local_sphere(m, a);
    if fading {
        s = sphere_union(s, playback_sphere(m, &a.previous));
    }
    to_world(s, r)
}

/// A model-space sphere moved by the instance matrix `r`, its radius scaled
/// by the matrix's largest axis scale.
#[inline]
fn to_world(s: Vec4, r: &[Vec4; 3]) -> Vec4 {
    let c = s.truncate().extend(1.0);
    let center = Vec3::new(r[0].dot(c), r[1].dot(c), r[2].dot(c));
    let col = |i: usize| Vec3::new(r[0][i], r[1][i], r[2][i]).length_squared();
    let scale = col(0).max(col(1)).max(col(2)).sqrt();
    center.extend(s.w * scale)
}

impl Crowd {
    /// Recomputes the cached world bounding sphere of dense instance `d`:
    /// its clip's, and with animation layers the union with their clips'
    /// (a bound for override layers; additive ones may reach a little
    /// beyond).
    pub(super) fn refresh_sphere(&mut self, d: usize) {
        self.local_spheres[d] = if self.metas[d].layered {
            Vec4::new(0.0, 0.0, 0.0, -1.0)
        } else {
            let m = &self.models[self.metas[d].model as usize];
            local_sphere(m, &self.anims[d])
        };
        self.spheres[d] = self.sphere_at(d, &self.rows[d]);
    }

    /// Moves dense instance `d`'s world sphere to its transform (only the
    /// transform changed: its model-space sphere stands).
    #[inline]
    pub(super) fn move_sphere(&mut self, d: usize) {
        self.spheres[d] = self.sphere_at(d, &self.rows[d]);
    }

    /// The world bounding sphere of dense instance `d` at transform `rows`
    /// (a moving instance's of the frame).
    #[inline]
    pub(super) fn sphere_at(&self, d: usize, rows: &[Vec4; 3]) -> Vec4 {
        let local = self.local_spheres[d];
        if local.w >= 0.0 {
            return to_world(local, rows);
        }
        let m = &self.models[self.metas[d].model as usize];
        let mut s = world_sphere(m, &self.anims[d], rows, false);
        if self.metas[d].layered {
            for clip in self.layer_clips(d) {
                s = sphere_union(s, to_world(m.spheres[clip], rows));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sphere_union_holds_both() {
        let a = Vec4::new(0.0, 0.0, 0.0, 1.0);
        let b = Vec4::new(3.0, 0.0, 0.0, 1.0);
        let u = sphere_union(a, b);
        assert!((u.w - 2.5).abs() < 1e-6 && (u.x - 1.5).abs() < 1e-6, "{u}");
        assert_eq!(
            sphere_union(a, Vec4::new(0.1, 0.0, 0.0, 0.2)),
            a,
            "inner sphere"
        );
    }
}
