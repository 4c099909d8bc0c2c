//! Picking: which character a ray hits. [`ThrongPicker`] is a system
//! parameter casting a Bevy `Ray3d` (from `Camera::viewport_to_world` for a
//! click) against every crowd, each instance tested against the bounds of
//! the pose it shows now (`Crowd::pick`); the hit names the crowd entity,
//! the instance and, for an agent, its entity. Steered instances are
//! tested where the GPU last said they were ([`crate::steer`]).
//!
//! Not a `bevy_picking` backend: the plugin builds with Bevy's render
//! features only; a backend would wrap [`ThrongPicker::cast`] as its hit
//! test.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::shape::Ray3d;
use throng_crowd::crowd::InstanceId;

use crate::agent::ThrongAgents;
use crate::convert;
use crate::crowd::ThrongCrowd;
use crate::steer::ThrongSteeredPoses;

/// A ray's first hit among the crowds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThrongHit {
    /// The crowd's entity.
    pub crowd: Entity,
    /// The instance hit.
    pub instance: InstanceId,
    /// The agent entity that is the instance (`None`: a bulk instance).
    pub agent: Option<Entity>,
    /// Distance along the ray to where it enters the instance's bounds.
    pub distance: f32,
    /// That point.
    pub point: Vec3,
}

/// Casts rays against the crowds (a system parameter).
#[derive(SystemParam)]
pub struct ThrongPicker<'w, 's> {
    crowds: Query<'w, 's, (Entity, &'static ThrongCrowd)>,
    agents: Res<'w, ThrongAgents>,
    steered: Option<Res<'w, ThrongSteeredPoses>>,
}

impl ThrongPicker<'_, '_> {
    /// The first instance of any crowd the ray hits.
    pub fn cast(&self, ray: Ray3d) -> Option<ThrongHit> {
        pick(
            self.crowds.iter(),
            &self.agents,
            self.steered.as_deref(),
            ray,
        )
    }
}

/// The first instance of `crowds` that `ray` hits (what [`ThrongPicker`]
/// does, for a caller with the crowds in hand). Instances steered on the
/// GPU are where `steered` last read them back (a frame or two behind),
/// tested against their model's box over every frame.
pub fn pick<'a>(
    crowds: impl IntoIterator<Item = (Entity, &'a ThrongCrowd)>,
    agents: &ThrongAgents,
    steered: Option<&ThrongSteeredPoses>,
    ray: Ray3d,
) -> Option<ThrongHit> {
    let origin = convert::vec3(ray.origin);
    let direction = convert::vec3(*ray.direction);
    let mut best: Option<ThrongHit> = None;
    for (entity, c) in crowds {
        let poses = steered.and_then(|s| s.crowd(entity));
        let read_back = |id| Some(poses.as_ref()?.get(id)?.world);
        let Some(hit) = c.crowd.pick_with(origin, direction, read_back) else {
            continue;
        };
        if best.is_none_or(|b| hit.distance < b.distance) {
            best = Some(ThrongHit {
                crowd: entity,
                instance: hit.instance,
                agent: agents.agent(entity, hit.instance),
                distance: hit.distance,
                point: ray.get_point(hit.distance),
            });
        }
    }
    best
}
