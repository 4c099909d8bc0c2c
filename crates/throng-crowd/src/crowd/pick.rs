//! Picking: which instance a ray hits first ([`Crowd::pick`]), tested
//! against each instance's posed bounds — the baked boxes of the frames it
//! shows now (both frames it interpolates, and the outgoing clip's while
//! it cross-fades), in its own model space — not a clip-wide sphere, so a
//! ray past a Fox's lowered head misses it.
//!
//! One pass over the instances (O(n); a ray over 100k instances is a few
//! milliseconds on one core). What a game clicks on, a bullet's first
//! target, a camera's focus; a renderer's picking buffer is not needed.

use glam::{Mat4, Vec3};
use throng_core::math::Aabb;

use super::anim_state::blend_of;
use super::instances::mat4_of;
use super::{Crowd, InstanceId};

/// A ray's first hit ([`Crowd::pick`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pick {
    /// The instance hit.
    pub instance: InstanceId,
    /// Where the ray enters its posed box: `origin + distance · direction`
    /// (in units of `direction`'s length).
    pub distance: f32,
}

impl Crowd {
    /// The instance whose posed bounds the ray `origin + t · direction`
    /// (`t ≥ 0`) enters first, and where. Instances with animation layers
    /// are tested against their model's box over every frame (layers may
    /// pose bones of several clips at once); instances handed to the GPU
    /// simulation are not tested (their transform lives on the GPU); a
    /// zero or non-finite transform is never hit. `None`: nothing hit, or
    /// a zero or non-finite ray.
    pub fn pick(&self, origin: Vec3, direction: Vec3) -> Option<Pick> {
        self.pick_with(origin, direction, |_| None)
    }

    /// [`Self::pick`], with instances handed to the GPU simulation tested
    /// too where `simulated` says where they are (a pose read back from
    /// the GPU): against their model's box over every frame, as their
    /// clip's time is the GPU's.
    pub fn pick_with(
        &self,
        origin: Vec3,
        direction: Vec3,
        simulated: impl Fn(InstanceId) -> Option<Mat4>,
    ) -> Option<Pick> {
        if !origin.is_finite() || !direction.is_finite() || direction == Vec3::ZERO {
            return None;
        }
        let mut best: Option<Pick> = None;
        for d in 0..self.len() {
            let (world, bounds) = if self.is_simulated(d) {
                let Some(world) = simulated(self.id_at(d)) else {
                    continue;
                };
                let model = self.models[self.metas[d].model as usize].handle.model();
                (world, model.bounds)
            } else {
                (mat4_of(&self.world_rows(d)), self.posed_bounds(d))
            };
            if world.determinant().abs() <= f32::MIN_POSITIVE || !world.is_finite() {
                continue;
            }
            let model_from_world = world.inverse();
            let o = model_from_world.transform_point3(origin);
            let v = model_from_world.transform_vector3(direction);
            let Some(t) = ray_box(o, v, &bounds) else {
                continue;
            };
            if best.is_none_or(|b| t < b.distance) {
                best = Some(Pick {
                    instance: self.id_at(d),
                    distance: t,
                });
            }
        }
        best
    }

    /// The model-space box of what dense instance `d` shows now.
    fn posed_bounds(&self, d: usize) -> Aabb {
        let rt = &self.models[self.metas[d].model as usize];
        let model = rt.handle.model();
        if self.has_layers(d) {
            return model.bounds;
        }
        let blend = blend_of(&self.anims[d], &rt.maps, self.clock);
        let frame = |f: u32| {
            model
                .frame_bounds
                .get(f as usize)
                .copied()
                .unwrap_or(model.bounds)
        };
        let mut b = frame(blend.current.frame0).union(&frame(blend.current.frame1));
        if blend.fade < 1.0 {
            b = b
                .union(&frame(blend.previous.frame0))
                .union(&frame(blend.previous.frame1));
        }
        b
    }
}

/// Where the ray `o + t · v` (`t ≥ 0`) enters `b` (0 when it starts
/// inside), by the slab method; boxes of zero thickness are hit on their
/// plane.
fn ray_box(o: Vec3, v: Vec3, b: &Aabb) -> Option<f32> {
    if b.is_empty() {
        return None;
    }
    let (mut near, mut far) = (0.0f32, f32::INFINITY);
    for axis in 0..3 {
        let (lo, hi) = (b.min[axis], b.max[axis]);
        if v[axis] == 0.0 {
            if o[axis] < lo || o[axis] > hi {
                return None;
            }
            continue;
        }
        let (t0, t1) = ((lo - o[axis]) / v[axis], (hi - o[axis]) / v[axis]);
        near = near.max(t0.min(t1));
        far = far.min(t0.max(t1));
        if near > far {
            return None;
        }
    }
    Some(near)
}

#[cfg(test)]
mod tests {
    use super::super::Spawn;
    use super::super::fixtures::{at, test_model};
    use glam::Mat4;

    use super::*;

    /// A ray down −z through `(x, y)`.
    fn down_z(x: f32, y: f32) -> (Vec3, Vec3) {
        (Vec3::new(x, y, 10.0), Vec3::NEG_Z)
    }

    #[test]
    fn a_ray_hits_the_nearest_instance_it_passes_through() {
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&test_model(1.0));
        // Triangles reaching from x to x + 1; one behind the other at x = 5.
        let a = crowd.spawn(m, at(0.0)).unwrap();
        let far = crowd
            .spawn(
                m,
                Spawn {
                    transform: Mat4::from_translation(Vec3::new(5.0, 0.0, -3.0)),
                    ..Spawn::default()
                },
            )
            .unwrap();
        let near = crowd.spawn(m, at(5.0)).unwrap();
        crowd.update(0.0);
        let (o, v) = down_z(0.5, 0.25);
        assert_eq!(crowd.pick(o, v).map(|p| p.instance), Some(a));
        let hit = crowd.pick(down_z(5.5, 0.25).0, v).unwrap();
        assert_eq!(hit.instance, near, "the nearer of two in line");
        assert!((hit.distance - 10.0).abs() < 1e-5, "{hit:?}");
        crowd.despawn(near).unwrap();
        assert_eq!(
            crowd.pick(down_z(5.5, 0.25).0, v).map(|p| p.instance),
            Some(far)
        );
        assert_eq!(crowd.pick(down_z(3.0, 0.25).0, v), None, "between them");
        assert_eq!(crowd.pick(o, -v), None, "behind the ray's origin");
        assert_eq!(crowd.pick(o, Vec3::ZERO), None);
        assert_eq!(crowd.pick(Vec3::NAN, v), None);
    }

    #[test]
    fn the_box_is_the_pose_shown_now_not_the_clips() {
        // "swing" lifts the triangle by 0, 1, 2 over its frames: at its
        // start the box spans y in [0, 0.5]; a ray at y = 1.75 misses it
        // then and hits it once the pose has risen there.
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&test_model(1.0));
        let id = crowd
            .spawn(
                m,
                Spawn {
                    clip: Some(1),
                    ..at(0.0)
                },
            )
            .unwrap();
        crowd.update(0.0);
        let (o, v) = down_z(0.5, 1.75);
        assert_eq!(crowd.pick(o, v), None, "the pose at 0 s is below the ray");
        assert_eq!(
            crowd.pick(down_z(0.5, 0.25).0, v).map(|p| p.instance),
            Some(id)
        );
        crowd.update(1.5);
        assert_eq!(
            crowd.pick(o, v).map(|p| p.instance),
            Some(id),
            "risen at 1.5 s"
        );
    }

    #[test]
    fn scaled_and_zero_transforms() {
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&test_model(1.0));
        let big = crowd
            .spawn(
                m,
                Spawn {
                    transform: Mat4::from_scale(Vec3::splat(4.0)),
                    ..Spawn::default()
                },
            )
            .unwrap();
        crowd.update(0.0);
        // At x = 3.5 only the scaled triangle (reaching to 4) is there.
        let hit = crowd.pick(down_z(3.5, 0.25).0, Vec3::NEG_Z * 2.0).unwrap();
        assert_eq!(hit.instance, big);
        assert!(
            (hit.distance - 5.0).abs() < 1e-5,
            "in units of the direction: {hit:?}"
        );
        crowd.set_transform(big, Mat4::ZERO).unwrap();
        assert_eq!(crowd.pick(down_z(0.0, 0.0).0, Vec3::NEG_Z), None);
    }

    #[test]
    fn a_simulated_instance_is_hit_where_its_read_back_pose_puts_it() {
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&test_model(1.0));
        let id = crowd.spawn(m, at(0.0)).unwrap();
        let motion = super::super::Motion::Simulated {
            velocity: Vec3::ZERO,
            ground_speed: 0.0,
            data: glam::Vec4::ZERO,
        };
        crowd.set_motion(id, motion).unwrap();
        crowd.update(0.0);
        let (o, v) = down_z(0.5, 0.25);
        assert_eq!(crowd.pick(o, v), None, "its transform is the GPU's");
        assert_eq!(crowd.pick_with(o, v, |_| None), None);
        // Read back at x = 10: hit there, not at its hand-over.
        let moved = Mat4::from_translation(Vec3::new(10.0, 0.0, 0.0));
        assert_eq!(crowd.pick_with(o, v, |_| Some(moved)), None);
        let (o, v) = down_z(10.5, 0.25);
        let hit = crowd
            .pick_with(o, v, |i| (i == id).then_some(moved))
            .unwrap();
        assert_eq!(hit.instance, id);
    }
}
