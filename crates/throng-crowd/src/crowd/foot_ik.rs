//! Feet planted on the crowd's ground by two-bone IK, for the instances
//! chosen ([`Crowd::set_foot_ik`], or the nearest few in a camera's view,
//! [`Crowd::foot_ik_nearest`]): such an instance is drawn like one with
//! animation layers — from the CPU's lists, its palette evaluated by the
//! GPU's pre-pass — and its layer set asks the foot IK pass that follows
//! to plant its feet (`throng_core::foot_ik`, `throng-render`'s
//! `passes/foot_ik.wgsl`), with the ground under each foot and its base
//! clip's ground. Every other instance keeps the shared pose: IK costs
//! only the instances that have it.
//!
//! The CPU must know where the instance is: a simulated instance (the
//! GPU's) cannot have foot IK, nor can one with foot IK be simulated.

use glam::Vec4;

use throng_core::foot_ik::{IkSkeleton, Leg, MAX_LEGS};

use super::{Change, Crowd, CrowdError, InstanceId, ModelId};
use crate::camera::Camera;

impl Crowd {
    /// Plants instance `id`'s feet on the crowd's ground (`on`), or stops.
    pub fn set_foot_ik(&mut self, id: InstanceId, on: bool) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        let slot = self.slot_of[d];
        if self.foot_ik.contains(&slot) == on {
            return Ok(());
        }
        if on && self.is_simulated(d) {
            return Err(CrowdError::Incompatible(format!(
                "instance {id:?} is simulated on the GPU, which knows where it is; foot IK needs a transform the CPU knows"
            )));
        }
        self.mark_foot_ik(d, on);
        Ok(())
    }

    /// Gives dense slot `d` foot IK or takes it: drawn as layered while it
    /// has it or layers, its state logged, its sphere refreshed.
    fn mark_foot_ik(&mut self, d: usize, on: bool) {
        let slot = self.slot_of[d];
        if on {
            self.foot_ik.insert(slot);
        } else {
            self.foot_ik.remove(&slot);
        }
        self.metas[d].layered = on || self.layers.contains_key(&slot);
        self.touch(Change::state(d));
        self.refresh_sphere(d);
    }

    /// Whether instance `id`'s feet are planted by IK.
    pub fn foot_ik(&self, id: InstanceId) -> Result<bool, CrowdError> {
        let d = self.dense(id)?;
        Ok(self.foot_ik.contains(&self.slot_of[d]))
    }

    /// Instances with foot IK.
    pub fn foot_ik_count(&self) -> usize {
        self.foot_ik.len()
    }

    /// Gives foot IK to the `n` instances nearest `camera`'s eye among
    /// those in its view that the CPU knows the place of (not simulated,
    /// no attachments' children) and takes it from every other; returns
    /// how many have it. A choice made when called (each second or so,
    /// not every frame: a change moves an instance between the GPU's cull
    /// and the CPU's lists).
    pub fn foot_ik_nearest(&mut self, camera: &Camera, n: usize) -> usize {
        let frustum = camera.frustum();
        let in_view = |s: Vec4| {
            let c = s.truncate().extend(1.0);
            s.w > 0.0 && frustum.planes.iter().all(|p| p.dot(c) >= -s.w)
        };
        let mut near: Vec<(f32, usize)> = (0..self.len())
            .filter(|&d| !self.is_simulated(d) && !self.metas[d].follower)
            .filter_map(|d| {
                let rows = self.world_rows(d);
                let sphere = self.sphere_at(d, &rows);
                in_view(sphere).then(|| (sphere.truncate().distance_squared(camera.eye), d))
            })
            .collect();
        let n = n.min(near.len());
        if n < near.len() {
            near.select_nth_unstable_by(n, |a, b| a.0.total_cmp(&b.0));
        }
        let chosen: std::collections::BTreeSet<u32> =
            near[..n].iter().map(|&(_, d)| self.slot_of[d]).collect();
        let was: Vec<u32> = self.foot_ik.difference(&chosen).copied().collect();
        for slot in was.into_iter().chain(chosen.iter().copied()) {
            let on = chosen.contains(&slot);
            if self.foot_ik.contains(&slot) != on {
                self.mark_foot_ik(self.slots[slot as usize].dense as usize, on);
            }
        }
        self.foot_ik.len()
    }

    /// The legs foot IK bends on `model`'s instances: found from its
    /// skeleton (`throng_core::foot_ik::legs`) unless configured.
    pub fn legs(&self, model: ModelId) -> Result<&[Leg], CrowdError> {
        let rt = self
            .models
            .get(model.0 as usize)
            .ok_or(CrowdError::NoSuchModel(model))?;
        Ok(&rt.legs)
    }

    /// Configures the legs foot IK bends on `model`'s instances (hip, knee,
    /// foot per leg, palette indices; at most `MAX_LEGS`), for a skeleton
    /// whose feet are not the leaves near its bottom. Each knee must be
    /// below its hip and each foot below its knee; an empty list turns
    /// foot IK into nothing for the model.
    pub fn set_legs(&mut self, model: ModelId, legs: &[Leg]) -> Result<(), CrowdError> {
        let rt = self
            .models
            .get(model.0 as usize)
            .ok_or(CrowdError::NoSuchModel(model))?;
        let m = rt.handle.model();
        if legs.len() > MAX_LEGS {
            return Err(CrowdError::Incompatible(format!(
                "{} legs: foot IK bends at most {MAX_LEGS}",
                legs.len()
            )));
        }
        let bones = m.bones.len() as u32;
        let skeleton = IkSkeleton::of(m);
        for (i, leg) in legs.iter().enumerate() {
            let chain = [leg.hip, leg.knee, leg.foot];
            if let Some(b) = chain.iter().find(|&&b| b >= bones) {
                return Err(CrowdError::Incompatible(format!(
                    "leg {i}: bone {b} is not one of the model's {bones}"
                )));
            }
            if leg.knee == leg.hip
                || leg.foot == leg.knee
                || !skeleton.under(leg.knee, leg.hip)
                || !skeleton.under(leg.foot, leg.knee)
            {
                return Err(CrowdError::Incompatible(format!(
                    "leg {i}: {} → {} → {} is not a chain (each joint below the one before)",
                    m.bones[leg.hip as usize].name,
                    m.bones[leg.knee as usize].name,
                    m.bones[leg.foot as usize].name
                )));
            }
        }
        self.models[model.0 as usize].legs = legs.to_vec();
        self.legs_generation += 1;
        Ok(())
    }

    /// Takes foot IK from every instance.
    pub fn clear_foot_ik(&mut self) {
        let slots: Vec<u32> = self.foot_ik.iter().copied().collect();
        for slot in slots {
            self.mark_foot_ik(self.slots[slot as usize].dense as usize, false);
        }
    }

    /// Dense slot `d`'s base clip's ground for foot IK, if it has foot IK
    /// (model units; 0 without a clip).
    pub(super) fn foot_ik_ground(&self, d: usize) -> Option<f32> {
        if !self.foot_ik.contains(&self.slot_of[d]) {
            return None;
        }
        let rt = &self.models[self.metas[d].model as usize];
        let clip = self.anims[d].current.clip as usize;
        Some(rt.clip_grounds.get(clip).copied().unwrap_or(0.0))
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::super::fixtures::{at, test_model};
    use super::super::{Crowd, DrawList, DrawView, InstanceId, Motion};
    use crate::camera::Camera;

    /// A camera at `eye` looking along `dir`.
    fn looking(eye: Vec3, dir: Vec3) -> Camera {
        Camera::look_at(eye, eye + dir, Vec3::Y, 1.0, 1.0, 0.1, 1000.0)
    }

    #[test]
    fn the_nearest_get_foot_ik_and_their_layer_sets_ask_for_it() {
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&test_model(1.0));
        let ids: Vec<InstanceId> = (0..6)
            .map(|i| crowd.spawn(m, at(10.0 * i as f32)).unwrap())
            .collect();
        // At x = 52 looking back down -x: the instance at 50 is nearest,
        // then 40; looking away (+x), none is in view.
        let back = looking(Vec3::new(52.0, 0.0, 0.0), Vec3::NEG_X);
        assert_eq!(crowd.foot_ik_nearest(&back, 2), 2);
        let on: Vec<bool> = ids.iter().map(|&id| crowd.foot_ik(id).unwrap()).collect();
        assert_eq!(on, [false, false, false, false, true, true]);
        assert!(crowd.has_layered_instances());
        assert_eq!(
            crowd.foot_ik_nearest(&looking(Vec3::new(52.0, 0.0, 0.0), Vec3::X), 2),
            0
        );
        // At the start, looking along the row: the choice moves.
        crowd.foot_ik_nearest(&looking(Vec3::new(-5.0, 0.0, 0.0), Vec3::X), 1);
        let on: Vec<bool> = ids.iter().map(|&id| crowd.foot_ik(id).unwrap()).collect();
        assert_eq!(on, [true, false, false, false, false, false]);
        let view = DrawView {
            layers: true,
            layered_only: true,
            ..Default::default()
        };
        let mut list = DrawList::default();
        crowd.build_draw_list(view, &mut list);
        assert_eq!(list.records.len(), 1);
        assert_eq!(list.layer_sets.len(), 1);
        assert_eq!(list.layer_sets[0].foot_ik, 1);
        assert_eq!(list.layer_sets[0].layer_count, 0);
        // Despawned, it is gone from the set; a simulated one is refused.
        crowd.despawn(ids[0]).unwrap();
        assert_eq!(crowd.foot_ik_count(), 0);
        assert!(!crowd.has_layered_instances());
        let sim = Motion::Simulated {
            velocity: Vec3::ZERO,
            ground_speed: 0.0,
            data: glam::Vec4::ZERO,
        };
        crowd.set_motion(ids[1], sim).unwrap();
        assert!(crowd.set_foot_ik(ids[1], true).is_err());
        crowd.set_foot_ik(ids[2], true).unwrap();
        assert!(
            crowd.set_motion(ids[2], sim).is_err(),
            "foot IK is drawn from the CPU's lists"
        );
    }
}
