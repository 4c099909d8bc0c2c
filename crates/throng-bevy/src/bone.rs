//! Bones as entities: a [`ThrongBone`] child of a [`crate::ThrongAgent`]
//! follows the named bone of the agent's skeleton — its `Transform` is set
//! each frame to the bone's pose in the agent's space (the baked pose the
//! GPU draws, cross-fades and layers included,
//! `Crowd::bone_world_transform`) — so a sword, a light or a camera
//! parented to it rides the hand. Bones are made on request only: one
//! entity and one bone evaluation a frame each.
//!
//! The plugin sets them after the crowds advance and before Bevy
//! propagates transforms, so what hangs from a bone is where the bone is
//! drawn the same frame.

use bevy::prelude::*;

use crate::agent::ThrongInstance;
use crate::crowd::ThrongCrowd;
use crate::steer::{ThrongSteered, ThrongSteeredPoses};

/// Follows bone `name` of the parent agent's model. Parent it to the agent
/// (`ChildOf`) and hang things from it (it has a `Visibility` for meshes
/// to inherit).
#[derive(Component, Clone, Debug)]
#[require(Transform, Visibility)]
pub struct ThrongBone {
    /// The bone's node name in the glTF.
    pub name: String,
    /// Its palette index, found when first followed (per model).
    index: Option<(throng_crowd::crowd::ModelId, usize)>,
}

impl ThrongBone {
    /// Follows the bone named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            index: None,
        }
    }

    /// The palette index it follows (`None`: not yet found, or no bone of
    /// that name).
    pub fn index(&self) -> Option<usize> {
        self.index.map(|(_, i)| i)
    }
}

/// An agent's instance, transform, visibility and whether the GPU steers
/// it.
type AgentData = (
    &'static ThrongInstance,
    &'static Transform,
    Option<&'static Visibility>,
    Has<ThrongSteered>,
);

/// Sets every [`ThrongBone`]'s `Transform` to its bone in its agent's
/// space (a steered agent's as the GPU's pose read back has it,
/// `Crowd::bone_world_transform_read`).
pub fn follow_bones(
    mut bones: Query<(Entity, &mut ThrongBone, &ChildOf, &mut Transform)>,
    agents: Query<AgentData, Without<ThrongBone>>,
    crowds: Query<&ThrongCrowd>,
    steered: Option<Res<ThrongSteeredPoses>>,
    mut warned: Local<std::collections::HashSet<Entity>>,
) {
    for (entity, mut bone, child_of, mut transform) in &mut bones {
        let Ok((instance, agent_transform, visibility, is_steered)) = agents.get(child_of.parent())
        else {
            continue; // not an agent, or not spawned yet
        };
        if visibility == Some(&Visibility::Hidden) {
            continue; // hidden with the agent (Bevy's visibility inherits)
        }
        let Ok(c) = crowds.get(instance.crowd) else {
            continue;
        };
        let index = match bone.index {
            Some((m, i)) if m == instance.model => i,
            _ => {
                let found = c
                    .crowd
                    .model(instance.model)
                    .ok()
                    .and_then(|m| m.bones.iter().position(|b| b.name == bone.name));
                let Some(i) = found else {
                    if warned.insert(entity) {
                        eprintln!(
                            "throng-bevy: ThrongBone {entity}: the agent's model has no bone {:?}",
                            bone.name
                        );
                    }
                    continue;
                };
                bone.index = Some((instance.model, i));
                i
            }
        };
        let world = if is_steered {
            // Where the GPU had it, as the agent's Transform is.
            let poses = steered.as_ref().and_then(|s| s.crowd(instance.crowd));
            let Some((pose, tick)) = poses
                .as_ref()
                .and_then(|p| Some((*p.get(instance.id)?, p.tick)))
            else {
                continue;
            };
            c.crowd
                .bone_world_transform_read(instance.model, index, pose.world, &pose.state, tick)
        } else {
            c.crowd.bone_world_transform(instance.id, index)
        };
        let Ok(world) = world else {
            continue;
        };
        let world = bevy::math::Mat4::from_cols_array(&world.to_cols_array());
        let local = agent_transform.to_matrix().inverse() * world;
        let next = Transform::from_matrix(local);
        // Only a moved bone marks its subtree for propagation.
        transform.set_if_neq(next);
    }
}
