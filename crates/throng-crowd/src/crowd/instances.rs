//! Instance storage: generational [`InstanceId`]s mapped to dense
//! structure-of-arrays slots; spawning, despawning and clearing (swap-remove),
//! reserving memory up front, and the per-instance transform and tint.

use glam::{Mat4, Vec4};

use super::Change;
use super::anim_state::{Anim, Playback};
use super::{Crowd, CrowdError, ModelId, WrapMode};
use throng_core::gpu::{InstanceRecord, pack_tint};
use throng_core::math::rows_to_mat4;
use throng_core::variety::Look;

/// A generational instance handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InstanceId {
    pub(super) index: u32,
    pub(super) generation: u32,
}

/// What to spawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spawn {
    /// `world_from_model`.
    pub transform: Mat4,
    /// Clip to play (`None`: the rest pose).
    pub clip: Option<usize>,
    /// Start time in seconds.
    pub time: f32,
    /// Speed multiplier.
    pub speed: f32,
    /// Wrap mode.
    pub wrap: WrapMode,
    /// Linear RGBA tint multiplied into the base colour.
    pub tint: Vec4,
    /// Move the instance by its clips' baked root motion (for clips baked
    /// with `--root-motion`).
    pub root_motion: bool,
    /// Its palette row and hidden submeshes ([`Crowd::set_look`]).
    pub look: Look,
}

impl Default for Spawn {
    fn default() -> Self {
        Self {
            transform: Mat4::IDENTITY,
            clip: None,
            time: 0.0,
            speed: 1.0,
            wrap: WrapMode::Loop,
            tint: Vec4::ONE,
            root_motion: false,
            look: Look::DEFAULT,
        }
    }
}

/// Rarely written per-instance facts (dense array element).
#[derive(Clone, Copy, Debug)]
pub(super) struct Meta {
    pub(super) model: u16,
    pub(super) paused: bool,
    /// Integrate the clip's root motion into the transform.
    pub(super) root_motion: bool,
    /// Driven by a parent ([`Crowd::attach`]): not advanced on its own.
    pub(super) follower: bool,
    /// Has (or had) attachments: despawning it looks for them.
    pub(super) parent: bool,
    /// Position in the crowd's active list (stepped every update), or
    /// [`NOT_ACTIVE`].
    pub(super) active: u32,
    /// Has animation layers (`Crowd::set_layers`).
    pub(super) layered: bool,
    /// The path it walks (index), or [`NO_PATH`].
    pub(super) path: u32,
}

/// [`Meta::active`] of an instance not stepped by updates.
pub(super) const NOT_ACTIVE: u32 = u32::MAX;

/// [`Meta::path`] of an instance on no path.
pub(super) const NO_PATH: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
pub(super) struct Slot {
    pub(super) generation: u32,
    /// Dense index, or `u32::MAX` when free.
    pub(super) dense: u32,
}

impl Crowd {
    /// Live instances.
    pub fn len(&self) -> usize {
        self.anims.len()
    }

    /// True if there are no live instances.
    pub fn is_empty(&self) -> bool {
        self.anims.is_empty()
    }

    /// Ids of live instances (in dense order: [`Self::dense_ids`]).
    pub fn ids(&self) -> impl Iterator<Item = InstanceId> + '_ {
        self.dense_ids()
    }

    /// The id of the instance in dense slot `d` (`d < len`).
    pub(super) fn id_at(&self, d: usize) -> InstanceId {
        let s = self.slot_of[d];
        InstanceId {
            index: s,
            generation: self.slots[s as usize].generation,
        }
    }

    /// Dense index of a live id.
    /// The dense slot of `id` now (instances move between dense slots when
    /// others are despawned): where its state, transform and motion are in
    /// [`Self::gpu_transforms`], [`Self::gpu_motions`] and a GPU mirror.
    pub fn dense_slot(&self, id: InstanceId) -> Result<usize, CrowdError> {
        self.dense(id)
    }

    /// Instance slots ever used: stable per instance for its life (a
    /// simulated instance's agent index), up to this.
    pub fn slot_capacity(&self) -> usize {
        self.slots.len()
    }

    pub(super) fn dense(&self, id: InstanceId) -> Result<usize, CrowdError> {
        match self.slots.get(id.index as usize) {
            Some(s) if s.generation == id.generation && s.dense != u32::MAX => Ok(s.dense as usize),
            _ => Err(CrowdError::NoSuchInstance(id)),
        }
    }

    /// Estimated bytes one instance costs on the host: its storage in the
    /// crowd plus its share of a frame's draw lists (a record for the camera
    /// pass and one for the shadow pass, and the renderer's staging copy of
    /// both).
    pub const BYTES_PER_INSTANCE: u64 = (std::mem::size_of::<Slot>()
        + std::mem::size_of::<u32>()
        + std::mem::size_of::<[Vec4; 3]>()
        + std::mem::size_of::<Vec4>()
        + std::mem::size_of::<Anim>()
        + std::mem::size_of::<Meta>()
        + std::mem::size_of::<u32>()
        + std::mem::size_of::<Look>()
        // Its motion, once any instance of the crowd moves.
        + std::mem::size_of::<throng_core::motion::GpuMotion>()
        // Its share of the active list and of the change log (cut at twice
        // the instance count).
        + 3 * std::mem::size_of::<u32>()
        + 4 * std::mem::size_of::<InstanceRecord>()) as u64;

    /// Makes room for `additional` more instances, or says why not: an
    /// error when they would need more memory than the host can still give
    /// ([`throng_core::host_memory`]), checked before anything is allocated.
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), CrowdError> {
        let needed = (additional as u64).saturating_mul(Self::BYTES_PER_INSTANCE);
        let out_of_memory = |available| CrowdError::OutOfMemory {
            instances: additional as u64,
            needed,
            available,
        };
        throng_core::host_memory::check(needed).map_err(out_of_memory)?;
        let fits = self.slots.try_reserve(additional).is_ok()
            && self.slot_of.try_reserve(additional).is_ok()
            && self.rows.try_reserve(additional).is_ok()
            && self.spheres.try_reserve(additional).is_ok()
            && self.local_spheres.try_reserve(additional).is_ok()
            && self.anims.try_reserve(additional).is_ok()
            && self.metas.try_reserve(additional).is_ok()
            && self.tints.try_reserve(additional).is_ok()
            && self.looks.try_reserve(additional).is_ok()
            && (self.motions.is_empty() || self.motions.try_reserve(additional).is_ok());
        if fits {
            Ok(())
        } else {
            Err(out_of_memory(
                throng_core::host_memory::available_bytes().unwrap_or(0),
            ))
        }
    }

    /// Spawns an instance.
    pub fn spawn(&mut self, model: ModelId, spawn: Spawn) -> Result<InstanceId, CrowdError> {
        if model.0 as usize >= self.models.len() {
            return Err(CrowdError::NoSuchModel(model));
        }
        if !spawn.transform.is_finite() {
            return Err(CrowdError::NotFinite("transform"));
        }
        if !spawn.time.is_finite() || !spawn.speed.is_finite() {
            return Err(CrowdError::NotFinite("time and speed"));
        }
        if self.anims.len() >= Change::MAX_SLOTS {
            return Err(CrowdError::TooManyInstances {
                max: Change::MAX_SLOTS,
            });
        }
        let m = model.0 as u16;
        self.check_look(m, spawn.look)?;
        let current = match spawn.clip {
            Some(c) => {
                let d = self.check_clip(m, c)?;
                Playback::new(c, spawn.time, spawn.speed, spawn.wrap, d, true)
            }
            None => Playback {
                speed: spawn.speed,
                wrap: spawn.wrap,
                ..Playback::NONE
            },
        };
        let dense = self.anims.len() as u32;
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    dense: u32::MAX,
                });
                self.slots.len() as u32 - 1
            }
        };
        let slot = &mut self.slots[index as usize];
        slot.dense = dense;
        let id = InstanceId {
            index,
            generation: slot.generation,
        };
        self.slot_of.push(index);
        self.rows.push(rows_of(&spawn.transform));
        self.spheres.push(Vec4::ZERO);
        self.local_spheres.push(Vec4::ZERO);
        self.anims.push(Anim::new(current, self.clock));
        self.metas.push(Meta {
            model: m,
            paused: false,
            root_motion: spawn.root_motion,
            follower: false,
            parent: false,
            active: NOT_ACTIVE,
            layered: false,
            path: NO_PATH,
        });
        self.tints.push(pack_tint(spawn.tint));
        self.looks.push(spawn.look);
        self.note_look(m, spawn.look);
        if !self.motions.is_empty() {
            self.motions.push(throng_core::motion::GpuMotion::still(
                rows_of(&spawn.transform).map(|v| v.to_array()),
            ));
        }
        self.refresh_root_motion(dense as usize);
        self.refresh_sphere(dense as usize);
        self.refresh_active(dense as usize);
        self.touch(Change::all(dense as usize));
        Ok(id)
    }

    /// True if `id` is alive.
    pub fn contains(&self, id: InstanceId) -> bool {
        self.dense(id).is_ok()
    }

    /// Removes an instance. Its id becomes invalid.
    pub fn despawn(&mut self, id: InstanceId) -> Result<(), CrowdError> {
        let meta = self.metas[self.dense(id)?];
        // Attachments go with their parent. Only instances that take part
        // in an attachment pay for the search (mass despawns stay linear).
        if meta.parent || meta.follower {
            let children: Vec<InstanceId> = self
                .followers
                .iter()
                .filter(|f| f.parent == id)
                .map(|f| f.child)
                .collect();
            self.followers.retain(|f| f.child != id && f.parent != id);
            for child in children {
                let _ = self.despawn(child);
            }
        }
        let d = self.dense(id)?;
        self.leave_active(d);
        self.release_path(d);
        self.drop_layers(id.index);
        let slot = &mut self.slots[id.index as usize];
        slot.dense = u32::MAX;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(id.index);
        self.slot_of.swap_remove(d);
        self.rows.swap_remove(d);
        self.spheres.swap_remove(d);
        self.local_spheres.swap_remove(d);
        self.anims.swap_remove(d);
        self.metas.swap_remove(d);
        self.tints.swap_remove(d);
        self.looks.swap_remove(d);
        if !self.motions.is_empty() {
            self.motions.swap_remove(d);
        }
        if d < self.slot_of.len() {
            let moved = self.slot_of[d];
            self.slots[moved as usize].dense = d as u32;
            let at = self.metas[d].active;
            if at != NOT_ACTIVE {
                self.active[at as usize] = d as u32;
            }
        }
        self.touch(Change::all(d));
        Ok(())
    }

    /// Removes every instance (models stay).
    pub fn clear(&mut self) {
        for &index in &self.slot_of {
            let slot = &mut self.slots[index as usize];
            slot.dense = u32::MAX;
            slot.generation = slot.generation.wrapping_add(1);
            self.free.push(index);
        }
        self.slot_of.clear();
        self.rows.clear();
        self.spheres.clear();
        self.local_spheres.clear();
        self.anims.clear();
        self.metas.clear();
        self.tints.clear();
        self.looks.clear();
        self.forget_look_classes();
        self.motions.clear();
        self.simulated = 0;
        for p in &mut self.paths {
            p.release_all();
        }
        self.followers.clear();
        self.active.clear();
        self.layers.clear();
        self.foot_ik.clear();
    }

    /// Sets `world_from_model`.
    pub fn set_transform(
        &mut self,
        id: InstanceId,
        world_from_model: Mat4,
    ) -> Result<(), CrowdError> {
        if !world_from_model.is_finite() {
            return Err(CrowdError::NotFinite("transform"));
        }
        let d = self.dense(id)?;
        self.write_transform(d, rows_of(&world_from_model));
        Ok(())
    }

    /// Writes dense slot `d`'s transform (a mover's motion re-anchored
    /// there), its sphere and the log.
    #[inline]
    fn write_transform(&mut self, d: usize, rows: [Vec4; 3]) {
        self.rows[d] = rows;
        if self.moving(d) {
            self.reanchor_motion(d, rows);
            self.touch(Change::all(d));
        }
        self.move_sphere(d);
        self.touch(Change::transform(d));
    }

    /// Sets many instances' transforms in one call (`ids[i]` gets
    /// `world_from_model[i]`): what a simulation that stays on the CPU (an
    /// ECS, physics) writes every frame. All or nothing: every id and
    /// matrix is checked before any is written. The rows go straight into
    /// the crowd's transform stream, which a GPU mirror uploads as runs.
    pub fn set_transforms(
        &mut self,
        ids: &[InstanceId],
        world_from_model: &[Mat4],
    ) -> Result<(), CrowdError> {
        if ids.len() != world_from_model.len() {
            return Err(CrowdError::Incompatible(format!(
                "set_transforms: {} ids but {} transforms",
                ids.len(),
                world_from_model.len()
            )));
        }
        for (id, m) in ids.iter().zip(world_from_model) {
            self.dense(*id)?;
            if !m.is_finite() {
                return Err(CrowdError::NotFinite("transform"));
            }
        }
        self.log_reserve(ids.len());
        for (id, m) in ids.iter().zip(world_from_model) {
            let d = self.slots[id.index as usize].dense as usize;
            self.write_transform(d, rows_of(m));
        }
        Ok(())
    }

    /// Sets the tint (linear RGBA).
    pub fn set_tint(&mut self, id: InstanceId, tint: Vec4) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        self.tints[d] = pack_tint(tint);
        self.touch(Change::state(d));
        Ok(())
    }
}

/// Top three rows of an affine matrix.
#[inline]
pub(super) fn rows_of(m: &Mat4) -> [Vec4; 3] {
    let t = m.transpose();
    [t.x_axis, t.y_axis, t.z_axis]
}

#[inline]
pub(super) fn mat4_of(r: &[Vec4; 3]) -> Mat4 {
    rows_to_mat4(r)
}

#[cfg(test)]
mod tests {
    use super::super::DrawList;
    use super::super::fixtures::{at, test_model};
    use super::*;

    #[test]
    fn despawn_keeps_every_other_instance_intact() {
        let h = test_model(1.0);
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&h);
        let ids: Vec<_> = (0..5)
            .map(|i| crowd.spawn(m, at(i as f32 * 10.0)).unwrap())
            .collect();
        crowd
            .set_tint(ids[4], Vec4::new(1.0, 0.0, 0.0, 1.0))
            .unwrap();
        crowd.despawn(ids[1]).unwrap(); // the last instance moves into slot 1
        for (i, id) in ids.iter().enumerate() {
            if i == 1 {
                assert!(!crowd.contains(*id));
                continue;
            }
            let s = crowd.state(*id).unwrap();
            assert_eq!(
                s.world_from_model.w_axis.x,
                i as f32 * 10.0,
                "instance {i} kept its transform"
            );
        }
        let mut list = DrawList::default();
        crowd.build_draw_list(None, &mut list);
        assert_eq!(list.visible(), 4);
        assert!(
            list.records
                .iter()
                .any(|r| r.tint == pack_tint(Vec4::new(1.0, 0.0, 0.0, 1.0))),
            "tint moved with its instance"
        );
        assert_eq!(crowd.ids().count(), 4);
    }

    #[test]
    fn clear_invalidates_every_id_including_attachments() {
        let h = test_model(1.0);
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&h);
        let a = crowd.spawn(m, at(0.0)).unwrap();
        let b = crowd.spawn(m, at(5.0)).unwrap();
        let prop = crowd.attach(a, m, 0, Mat4::IDENTITY).unwrap();
        crowd.clear();
        assert!(crowd.is_empty());
        for id in [a, b, prop] {
            assert!(!crowd.contains(id));
            assert!(crowd.despawn(id).is_err());
        }
        assert_eq!(crowd.attachments(a).count(), 0);
        // Slots are reused with new generations; old ids stay dead.
        let c = crowd.spawn(m, at(1.0)).unwrap();
        assert!(crowd.contains(c) && !crowd.contains(a) && !crowd.contains(b));
        let mut list = DrawList::default();
        crowd.update(0.1);
        crowd.build_draw_list(None, &mut list);
        assert_eq!(list.visible(), 1);
    }
}
