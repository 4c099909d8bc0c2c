//! The ground a crowd's moving instances stand on ([`Crowd::set_ground`]):
//! an instance that moves — by an analytic motion or the GPU simulation —
//! is placed at the ground's height under it every frame (on the CPU where
//! its transform is read, and by the GPU-driven path's motion and
//! simulation passes), upright or turned to the ground's normal
//! ([`GroundAlign`]). A still instance stands where its transform puts it.
//! The ground's vertical motion replaces the motion's own (a path's
//! heights, a velocity's y, root motion's rise).

use std::sync::Arc;

use glam::Vec4;
use throng_core::ground::{GpuGroundHeader, Ground, GroundAlign};

use super::Crowd;

/// A crowd's ground and how its instances stand on it.
#[derive(Clone, Debug)]
pub(super) struct CrowdGround {
    pub(super) ground: Arc<Ground>,
    pub(super) align: GroundAlign,
}

impl Crowd {
    /// Puts the crowd's moving instances on `ground` (`None`: none, they
    /// keep their motions' heights), turned as `align` says. A ground is
    /// shared: crowds on the same terrain hold one.
    pub fn set_ground(&mut self, ground: Option<Arc<Ground>>, align: GroundAlign) {
        self.ground = ground.map(|ground| CrowdGround { ground, align });
        self.ground_generation += 1;
        self.spheres_stale = true;
    }

    /// The crowd's ground, if any.
    pub fn ground(&self) -> Option<&Arc<Ground>> {
        self.ground.as_ref().map(|g| &g.ground)
    }

    /// How instances stand on the ground.
    pub fn ground_align(&self) -> GroundAlign {
        self.ground
            .as_ref()
            .map_or(GroundAlign::Upright, |g| g.align)
    }

    /// Changes whenever the ground or its alignment is set.
    pub fn ground_generation(&self) -> u64 {
        self.ground_generation
    }

    /// The ground's words as the GPU reads them
    /// ([`throng_core::ground`]): the header alone when there is none.
    pub fn ground_words(&self) -> Vec<u32> {
        match &self.ground {
            Some(g) => g.ground.gpu_words(g.align),
            None => bytemuck::cast_slice(&[GpuGroundHeader::absent()]).to_vec(),
        }
    }

    /// `rows` of a moving instance placed on the ground (unchanged
    /// without one).
    #[inline]
    pub(super) fn on_ground(&self, rows: [Vec4; 3]) -> [Vec4; 3] {
        match &self.ground {
            Some(g) => g.ground.place(rows, g.align),
            None => rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use glam::{Mat4, Vec2, Vec3};
    use throng_core::ground::{Ground, GroundAlign, Heightfield};

    use super::super::fixtures::{at, test_model};
    use super::super::{Crowd, Motion};

    /// A plane rising 0.25 per unit of x.
    fn ramp() -> Arc<Ground> {
        let h = Heightfield::from_fn(Vec2::splat(-50.0), 1.0, 101, 101, |p| 0.25 * p.x).unwrap();
        Arc::new(Ground::new(Some(h), vec![]).unwrap())
    }

    #[test]
    fn a_walking_instance_stands_on_the_ground_a_still_one_where_it_was_put() {
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&test_model(1.0));
        let walker = crowd.spawn(m, at(0.0)).unwrap();
        let still = crowd.spawn(m, at(4.0)).unwrap();
        let velocity = Motion::Velocity {
            velocity: Vec3::new(2.0, 0.0, 0.0),
            yaw_rate: 0.0,
        };
        crowd.set_motion(walker, velocity).unwrap();
        crowd.set_ground(Some(ramp()), GroundAlign::Upright);
        crowd.update(3.0);
        let p = crowd.world_transform(walker).unwrap().w_axis.truncate();
        assert!(
            (p - Vec3::new(6.0, 1.5, 0.0)).abs().max_element() < 1e-4,
            "walker at {p}"
        );
        let q = crowd.world_transform(still).unwrap().w_axis.truncate();
        assert_eq!(
            q,
            Vec3::new(4.0, 0.0, 0.0),
            "the still instance is not moved"
        );
        // Turned to the slope: its up is the normal, and anchoring a new
        // motion there does not turn it twice.
        crowd.set_ground(Some(ramp()), GroundAlign::Slope);
        let up = crowd.world_transform(walker).unwrap().y_axis.truncate();
        let n = Vec3::new(-0.25, 1.0, 0.0).normalize();
        assert!((up - n).abs().max_element() < 1e-5, "up {up} against {n}");
        crowd.set_motion(walker, velocity).unwrap();
        crowd.update(1.0);
        let t: Mat4 = crowd.world_transform(walker).unwrap();
        assert!(
            (t.y_axis.truncate() - n).abs().max_element() < 1e-5,
            "re-anchored up {}",
            t.y_axis
        );
        assert!(
            (t.w_axis.y - 0.25 * t.w_axis.x).abs() < 1e-4,
            "on the ramp at {}",
            t.w_axis
        );
        crowd.set_ground(None, GroundAlign::Upright);
        // Off the ground: its motion's height, where it was anchored (x = 6).
        let y = crowd.world_transform(walker).unwrap().w_axis.y;
        assert!((y - 1.5).abs() < 1e-4, "off the ground at {y}");
    }
}
