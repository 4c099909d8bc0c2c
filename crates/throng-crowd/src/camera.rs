//! Cameras and view frusta, in wgpu's clip-space convention (right-handed
//! world, depth in `[0, 1]`).

use glam::{Mat4, Vec3, Vec4};

use throng_core::math::Aabb;

/// A camera: where it is and how it projects.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// `view_from_world`.
    pub view_from_world: Mat4,
    /// `clip_from_view` (perspective, depth 0..1).
    pub clip_from_view: Mat4,
    /// Eye position in world space.
    pub eye: Vec3,
    /// Vertical field of view in radians (for screen-size LOD metrics).
    pub fov_y: f32,
}

impl Camera {
    /// A perspective camera at `eye` looking at `target`.
    pub fn look_at(
        eye: Vec3,
        target: Vec3,
        up: Vec3,
        fov_y: f32,
        aspect: f32,
        near: f32,
        far: f32,
    ) -> Self {
        Self {
            view_from_world: glam::camera::rh::view::look_at_mat4(eye, target, up),
            clip_from_view: glam::camera::rh::proj::directx::perspective(fov_y, aspect, near, far),
            eye,
            fov_y,
        }
    }

    /// A camera that frames `bounds` from direction `dir` (pointing from the
    /// target towards the eye): the closest distance at which all eight
    /// corners are inside the field of view, plus a 5 % margin.
    pub fn framing(bounds: &Aabb, dir: Vec3, fov_y: f32, aspect: f32) -> Self {
        let center = bounds.center();
        let dir = dir.try_normalize().unwrap_or(Vec3::Z);
        let up_hint = if dir.abs().dot(Vec3::Y) > 0.99 {
            Vec3::Z
        } else {
            Vec3::Y
        };
        let right = up_hint.cross(dir).normalize();
        let up = dir.cross(right);
        let tan_v = (fov_y * 0.5).tan();
        let tan_h = tan_v * aspect;
        let corners: Vec<Vec3> = (0..8)
            .map(|i| {
                let pick = |bit: u32, lo: f32, hi: f32| if i & bit == 0 { lo } else { hi };
                Vec3::new(
                    pick(1, bounds.min.x, bounds.max.x),
                    pick(2, bounds.min.y, bounds.max.y),
                    pick(4, bounds.min.z, bounds.max.z),
                ) - center
            })
            .collect();
        // A corner p is visible from distance d when its depth d - p·dir
        // exceeds |p·right| / tan_h and |p·up| / tan_v.
        let dist = corners
            .iter()
            .map(|p| p.dot(dir) + (p.dot(right).abs() / tan_h).max(p.dot(up).abs() / tan_v))
            .fold(1e-3f32, f32::max)
            * 1.05;
        let depths = corners.iter().map(|p| dist - p.dot(dir));
        let (near, far) = depths.fold((f32::MAX, 0.0f32), |(lo, hi), z| (lo.min(z), hi.max(z)));
        let near = (near * 0.5).max(dist * 1e-3);
        Self::look_at(
            center + dir * dist,
            center,
            up,
            fov_y,
            aspect,
            near,
            far * 1.5 + near,
        )
    }

    /// An orthographic camera for a directional light shining along
    /// `-toward_light`, covering `receivers` (plus `margin` around them in
    /// the light's view) and everything up to `reach` beyond them towards the
    /// light, so that casters outside the receivers still cast onto them.
    pub fn directional_light(
        toward_light: Vec3,
        receivers: &Aabb,
        margin: f32,
        reach: f32,
    ) -> Self {
        let dir = toward_light.try_normalize().unwrap_or(Vec3::Y);
        let center = receivers.center();
        let radius = receivers.radius().max(1e-3);
        let distance = radius + reach.max(0.0);
        let up = if dir.abs().dot(Vec3::Y) > 0.99 {
            Vec3::Z
        } else {
            Vec3::Y
        };
        let eye = center + dir * distance;
        let view = glam::camera::rh::view::look_at_mat4(eye, center, up);
        // The receivers' corners in light space give the ortho box.
        let mut lo = Vec3::splat(f32::INFINITY);
        let mut hi = Vec3::splat(f32::NEG_INFINITY);
        for c in receivers.corners() {
            let p = view.transform_point3(c);
            lo = lo.min(p);
            hi = hi.max(p);
        }
        // View space looks down -z: depth is -z. The near plane is the eye
        // itself, `reach` beyond the receivers towards the light.
        let far = -lo.z + radius * 0.01;
        let proj = glam::camera::rh::proj::directx::orthographic(
            lo.x - margin,
            hi.x + margin,
            lo.y - margin,
            hi.y + margin,
            0.0,
            far,
        );
        Self {
            view_from_world: view,
            clip_from_view: proj,
            eye,
            fov_y: 0.0,
        }
    }

    /// `clip_from_world`.
    pub fn clip_from_world(&self) -> Mat4 {
        self.clip_from_view * self.view_from_world
    }

    /// The view frustum.
    pub fn frustum(&self) -> Frustum {
        Frustum::from_clip_from_world(&self.clip_from_world())
    }
}

/// Six planes `(n, d)` with `n·p + d ≥ 0` inside.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frustum {
    /// Left, right, bottom, top, near, far.
    pub planes: [Vec4; 6],
}

impl Frustum {
    /// Extracts the planes of a `clip_from_world` matrix with depth in `[0, 1]`
    /// (Gribb–Hartmann).
    pub fn from_clip_from_world(m: &Mat4) -> Self {
        let r = m.transpose(); // rows of m
        let (x, y, z, w) = (r.x_axis, r.y_axis, r.z_axis, r.w_axis);
        let planes = [w + x, w - x, w + y, w - y, z, w - z].map(|p| {
            let len = p.truncate().length();
            if len > 0.0 { p / len } else { p }
        });
        Self { planes }
    }

    /// True if the box is at least partly inside (conservative: a box near a
    /// frustum corner may be reported inside).
    #[inline]
    pub fn intersects_aabb(&self, b: &Aabb) -> bool {
        for p in &self.planes {
            let n = p.truncate();
            // The box corner furthest along the plane normal.
            let far = Vec3::select(n.cmpge(Vec3::ZERO), b.max, b.min);
            if n.dot(far) + p.w < 0.0 {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cam() -> Camera {
        Camera::look_at(
            Vec3::new(0.0, 0.0, 10.0),
            Vec3::ZERO,
            Vec3::Y,
            60f32.to_radians(),
            1.0,
            0.1,
            100.0,
        )
    }

    fn cube(c: Vec3, r: f32) -> Aabb {
        Aabb {
            min: c - Vec3::splat(r),
            max: c + Vec3::splat(r),
        }
    }

    #[test]
    fn frustum_keeps_what_is_in_view_and_rejects_what_is_not() {
        let f = cam().frustum();
        assert!(f.intersects_aabb(&cube(Vec3::ZERO, 1.0)));
        assert!(
            !f.intersects_aabb(&cube(Vec3::new(0.0, 0.0, 20.0), 1.0)),
            "behind the eye"
        );
        assert!(
            !f.intersects_aabb(&cube(Vec3::new(100.0, 0.0, 0.0), 1.0)),
            "far right"
        );
        assert!(
            !f.intersects_aabb(&cube(Vec3::new(0.0, 0.0, -200.0), 1.0)),
            "beyond far"
        );
        // Straddling the left plane: partly visible.
        let half_width = 10.0 * (30f32.to_radians()).tan();
        assert!(f.intersects_aabb(&cube(Vec3::new(-half_width - 0.5, 0.0, 0.0), 1.0)));
    }

    #[test]
    fn projection_maps_the_target_to_the_centre_with_depth_in_unit_range() {
        let c = cam();
        let p = c.clip_from_world() * Vec4::new(0.0, 0.0, 0.0, 1.0);
        let ndc = p.truncate() / p.w;
        assert!(ndc.x.abs() < 1e-6 && ndc.y.abs() < 1e-6);
        assert!(ndc.z > 0.0 && ndc.z < 1.0, "{ndc}");
    }

    #[test]
    fn light_camera_covers_receivers_and_the_space_towards_the_light() {
        let b = Aabb {
            min: Vec3::new(-10.0, 0.0, -5.0),
            max: Vec3::new(10.0, 2.0, 5.0),
        };
        let light = Camera::directional_light(Vec3::new(0.3, 1.0, 0.2), &b, 1.0, 50.0);
        let m = light.clip_from_world();
        let inside = |p: Vec3| {
            let q = m * p.extend(1.0);
            let n = q.truncate() / q.w;
            n.x.abs() <= 1.0 && n.y.abs() <= 1.0 && (0.0..=1.0).contains(&n.z)
        };
        for c in b.corners() {
            assert!(inside(c), "receiver corner {c}");
        }
        // A caster 30 units up (towards the light) over the box still casts.
        assert!(inside(
            Vec3::new(0.0, 30.0, 0.0) + Vec3::new(0.3, 1.0, 0.2).normalize() * 0.0
        ));
        assert!(light.frustum().intersects_aabb(&Aabb {
            min: Vec3::new(-1.0, 29.0, -1.0),
            max: Vec3::new(1.0, 31.0, 1.0)
        }));
        // Far to the side is outside.
        assert!(!inside(Vec3::new(100.0, 1.0, 0.0)));
    }

    #[test]
    fn framing_sees_every_corner() {
        let b = Aabb {
            min: Vec3::new(-3.0, 0.0, -1.0),
            max: Vec3::new(5.0, 2.0, 4.0),
        };
        let c = Camera::framing(&b, Vec3::new(1.0, 1.0, 1.0), 0.8, 1.5);
        let m = c.clip_from_world();
        for p in b.corners() {
            let q = m * p.extend(1.0);
            let ndc = q.truncate() / q.w;
            assert!(
                ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0 && (0.0..=1.0).contains(&ndc.z),
                "corner {p} → {ndc}"
            );
        }
    }
}
