//! Steered agents: a [`ThrongSteered`] on a [`crate::ThrongAgent`] entity
//! (whose crowd has a [`crate::steer::ThrongSteering`]) hands its instance
//! to the GPU's steering, walking to a goal layer. From then on the GPU is
//! its authority: the agent's `Transform` follows the poses read back
//! ([`follow_poses`], one or two frames behind the GPU) instead of moving
//! the instance, and [`ThrongSteeredAgent`] says where the GPU had it and
//! how it was walking. Changing [`ThrongSteered`] (a new goal) hands it
//! over again from where it was last read back; removing it leaves the
//! instance standing there.

use std::collections::HashMap;

use bevy::prelude::*;
use throng_crowd::crowd::InstanceId;

use super::gpu::{Agent, ThrongSteeredPoses};
use crate::agent::{ThrongInstance, ThrongMovedByGpu};
use crate::convert;
use crate::crowd::ThrongCrowd;

/// An agent walking on the GPU to goal layer `goal` (see the module docs).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[require(ThrongMovedByGpu)]
pub struct ThrongSteered {
    /// The goal layer ([`crate::steer::ThrongGoal::layer`]).
    pub goal: u32,
    /// A point of the goal to walk to, world (x, z) (`None`: one the GPU
    /// chooses inside the goal).
    pub point: Option<Vec2>,
}

impl ThrongSteered {
    /// Walking to goal layer `goal`.
    pub fn to(goal: u32) -> Self {
        Self { goal, point: None }
    }
}

/// Where the GPU last had a steered agent (set by [`follow_poses`]).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct ThrongSteeredAgent {
    /// Its agent: position, heading, velocity, arrival.
    pub agent: Agent,
    /// The crowd tick the pose was taken at.
    pub tick: u64,
}

/// Hands the instances of new or re-aimed steered agents to the steering
/// (after the agents' instances are spawned). A re-aimed agent starts from
/// its `Transform`, which [`follow_poses`] keeps where the GPU last had it.
pub fn hand_over_agents(
    agents: Query<(Entity, Ref<ThrongSteered>, &ThrongInstance, &Transform)>,
    left: Query<(&ThrongInstance, &Transform), Without<ThrongSteered>>,
    mut crowds: Query<&mut ThrongCrowd>,
    mut handed: Local<HashMap<Entity, InstanceId>>,
    mut removed: RemovedComponents<ThrongSteered>,
    mut commands: Commands,
) {
    // No longer steered: standing where it was last read back, moved by
    // its Transform again.
    for e in removed.read() {
        if let Ok(mut entity) = commands.get_entity(e) {
            entity.remove::<ThrongMovedByGpu>();
        }
        let Some(id) = handed.remove(&e) else {
            continue;
        };
        if let Ok((instance, transform)) = left.get(e)
            && instance.id == id
            && let Ok(mut c) = crowds.get_mut(instance.crowd)
        {
            let _ = c.crowd.set_motion(id, throng_crowd::crowd::Motion::Still);
            let _ = c
                .crowd
                .set_transform(id, convert::mat4(transform.to_matrix()));
        }
    }
    for (entity, steered, instance, transform) in &agents {
        let again = handed.get(&entity) == Some(&instance.id);
        if again && !steered.is_changed() {
            continue;
        }
        let Ok(mut c) = crowds.get_mut(instance.crowd) else {
            continue;
        };
        let crowd = &mut c.crowd;
        let result = (|| {
            if again {
                crowd.set_transform(instance.id, convert::mat4(transform.to_matrix()))?;
            }
            crowd.set_motion(
                instance.id,
                super::walk_to_point(steered.goal, steered.point),
            )
        })();
        match result {
            Ok(()) => {
                handed.insert(entity, instance.id);
            }
            Err(e) => eprintln!("throng-bevy: steering agent {entity}: {e}"),
        }
    }
}

/// Sets each steered agent's `Transform` (keeping its scale) and
/// [`ThrongSteeredAgent`] from the latest poses read back.
pub fn follow_poses(
    poses: Option<Res<ThrongSteeredPoses>>,
    mut agents: Query<(Entity, &ThrongInstance, &mut Transform), With<ThrongSteered>>,
    mut commands: Commands,
    mut seen: Local<HashMap<Entity, u64>>,
) {
    let Some(poses) = poses else {
        return;
    };
    let mut latest = HashMap::new();
    for (entity, instance, mut transform) in &mut agents {
        let crowd = latest
            .entry(instance.crowd)
            .or_insert_with(|| poses.crowd(instance.crowd));
        let Some(read) = crowd else {
            continue;
        };
        if seen.get(&entity) == Some(&read.tick) {
            continue;
        }
        let Some(pose) = read.get(instance.id) else {
            continue;
        };
        seen.insert(entity, read.tick);
        let (_, rotation, translation) = pose.world.to_scale_rotation_translation();
        transform.translation = Vec3::from_array(translation.to_array());
        transform.rotation = Quat::from_array(rotation.to_array());
        if let Some(agent) = pose.agent {
            commands.entity(entity).insert(ThrongSteeredAgent {
                agent,
                tick: read.tick,
            });
        }
    }
}
