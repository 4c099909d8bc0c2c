//! Throng's `bevy_picking` backend (the `picking` feature, on by default):
//! with Bevy's picking plugins in the app (`DefaultPlugins` has them), each
//! pointer's ray is cast against the crowds ([`crate::pick::pick`]) and
//! the first hit is reported as Bevy's `PointerHits`: an agent as its
//! entity, a bulk instance as its crowd's entity. So `PointerClick`,
//! `PointerOver` and the rest reach agents as they reach Bevy's meshes
//! (`commands.spawn(agent).observe(|click: On<PointerClick>| …)`), and
//! Bevy sorts the crowd's hits among its other backends' by depth. Every
//! hit carries the [`ThrongHit`] (crowd, instance, agent, point) as its
//! `HitData::extra`, for a bulk instance's id.

use bevy::picking::backend::HitData;
use bevy::picking::backend::prelude::{PointerHits, RayMap};
use bevy::prelude::*;

use crate::agent::ThrongAgents;
use crate::crowd::ThrongCrowd;
use crate::pick::{ThrongHit, pick};
use crate::steer::ThrongSteeredPoses;

/// Casts every pointer's ray against the crowds and reports the first hit
/// (in `PreUpdate`, Bevy's `PickingSystems::Backend`).
pub fn crowd_hits(
    rays: Res<RayMap>,
    cameras: Query<&Camera>,
    crowds: Query<(Entity, &ThrongCrowd)>,
    agents: Res<ThrongAgents>,
    steered: Option<Res<ThrongSteeredPoses>>,
    mut out: MessageWriter<PointerHits>,
) {
    for (id, &ray) in rays.iter() {
        let Ok(camera) = cameras.get(id.camera) else {
            continue;
        };
        let Some(hit) = pick(crowds.iter(), &agents, steered.as_deref(), ray) else {
            continue;
        };
        let entity = hit.agent.unwrap_or(hit.crowd);
        let data = HitData::new_with_extra(id.camera, hit.distance, Some(hit.point), None, hit);
        out.write(PointerHits::new(
            id.pointer,
            vec![(entity, data)],
            camera.order as f32,
        ));
    }
}

/// The hit's Throng details, from a `HitData` this backend reported.
pub fn throng_hit(data: &HitData) -> Option<ThrongHit> {
    data.extra_as::<ThrongHit>().copied()
}
