//! Attachments: instances that follow a parent instance, either rigidly on
//! one of its bones (props) or sharing its skeleton and animation (skinned
//! clothing); attaching, listing, and moving them after their parents.

use glam::Mat4;

use super::Change;
use super::instances::rows_of;
use super::{Crowd, CrowdError, InstanceId, ModelId, Spawn};
use throng_core::model::BakedModel;

/// How an attachment follows its parent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Attachment {
    /// A rigid prop: `world = parent_world · bone(t) · offset`, rest pose.
    Bone {
        /// Palette index of the parent's bone.
        bone: u32,
        /// Offset in the bone's space.
        offset: Mat4,
    },
    /// A skinned attachment sharing the parent's skeleton and frame table
    /// (baked with `throng_bake::bake_skinned_attachment`): same transform
    /// and same animation state as the parent.
    Skinned,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Follower {
    pub(super) child: InstanceId,
    pub(super) parent: InstanceId,
    pub(super) kind: Attachment,
}

impl Crowd {
    /// Attaches a rigid prop: spawns an instance of `prop` (shown in its rest
    /// pose) that follows `bone` of `parent` with `offset` in the bone's
    /// space, every update, on every instance it is attached to. Despawning
    /// the parent despawns it. Returns the prop's own id (tint it, despawn
    /// it).
    pub fn attach(
        &mut self,
        parent: InstanceId,
        prop: ModelId,
        bone: usize,
        offset: Mat4,
    ) -> Result<InstanceId, CrowdError> {
        let d = self.dense(parent)?;
        let model = self.models[self.metas[d].model as usize].handle.model();
        if bone >= model.bones.len() {
            return Err(CrowdError::BoneOutOfRange {
                model: model.name.clone(),
                index: bone,
                count: model.bones.len(),
            });
        }
        if !offset.is_finite() {
            return Err(CrowdError::NotFinite("attachment offset"));
        }
        self.add_follower(
            parent,
            prop,
            Attachment::Bone {
                bone: bone as u32,
                offset,
            },
        )
    }

    /// Attaches a skinned attachment (clothing baked against the parent's
    /// skeleton): it shares the parent's transform and animation every
    /// update. Its model must have the parent model's frame table
    /// (`throng_bake::bake_skinned_attachment` makes such a model).
    pub fn attach_skinned(
        &mut self,
        parent: InstanceId,
        clothing: ModelId,
    ) -> Result<InstanceId, CrowdError> {
        let d = self.dense(parent)?;
        let parent_model = self.models[self.metas[d].model as usize].handle.model();
        let child_model = self.model(clothing)?;
        let maps = |m: &BakedModel| m.clips.iter().map(|c| c.frame_map()).collect::<Vec<_>>();
        let same =
            child_model.texture == parent_model.texture && maps(child_model) == maps(parent_model);
        if !same {
            return Err(CrowdError::Incompatible(format!(
                "{:?} does not share {:?}'s skeleton and frames; bake it with bake_skinned_attachment",
                child_model.name, parent_model.name
            )));
        }
        self.add_follower(parent, clothing, Attachment::Skinned)
    }

    fn add_follower(
        &mut self,
        parent: InstanceId,
        model: ModelId,
        kind: Attachment,
    ) -> Result<InstanceId, CrowdError> {
        self.authoritative(parent)?;
        let child = self.spawn(model, Spawn::default())?;
        let d = self.dense(child)?;
        self.metas[d].follower = true;
        self.refresh_active(d);
        let p = self.dense(parent)?;
        self.metas[p].parent = true;
        self.touch(Change::state(p));
        let f = Follower {
            child,
            parent,
            kind,
        };
        self.followers.push(f);
        self.sync_follower(f);
        Ok(child)
    }

    /// Attachments of `parent`.
    pub fn attachments(
        &self,
        parent: InstanceId,
    ) -> impl Iterator<Item = (InstanceId, Attachment)> + '_ {
        self.followers
            .iter()
            .filter(move |f| f.parent == parent)
            .map(|f| (f.child, f.kind))
    }

    /// Moves every attachment to where its parent is now.
    pub(super) fn sync_followers(&mut self) {
        for i in 0..self.followers.len() {
            self.sync_follower(self.followers[i]);
        }
    }

    /// Moves one attachment to where its parent is now.
    fn sync_follower(&mut self, f: Follower) {
        let (Ok(p), Ok(c)) = (self.dense(f.parent), self.dense(f.child)) else {
            return;
        };
        match f.kind {
            Attachment::Bone { bone, offset } => {
                let world = self
                    .bone_world_transform(f.parent, bone as usize)
                    .map(|m| m * offset);
                if let Ok(world) = world {
                    self.rows[c] = rows_of(&world);
                }
            }
            Attachment::Skinned => {
                self.rows[c] = self.rows[p];
                self.anims[c] = self.anims[p];
                // It moves with its parent's motion, on the GPU too.
                if !self.motions.is_empty() {
                    self.motions[c] = self.motions[p];
                }
                self.refresh_sphere(c);
                self.touch(Change::all(c));
                return;
            }
        }
        self.refresh_sphere(c);
        self.touch(Change::transform(c));
    }
}
