//! Animation events: [`CrowdEvent`]s, the events an instance's playback
//! crosses during an update, collected per step and drained by the caller.

use super::anim_state::Traversed;
use super::models::ModelRt;
use super::{Crowd, InstanceId, ModelId};
use crate::playback::crossings;

/// An event crossed by an instance's playback ([`Crowd::drain_events`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrowdEvent {
    /// The instance.
    pub instance: InstanceId,
    /// Its model.
    pub model: ModelId,
    /// The clip whose event it is.
    pub clip: usize,
    /// Index in the model's [`BakedModel::events`](throng_core::model::BakedModel::events).
    pub event: usize,
    /// Times it was crossed in this update (more than 1 when one update
    /// spans several loops).
    pub count: u32,
    /// Weight of the clip at the time (`1 − fade` for the outgoing clip of a
    /// cross-fade, `fade` for the incoming one, 1 otherwise).
    pub weight: f32,
}

impl Crowd {
    /// Takes the events crossed since the last call, in update order.
    pub fn drain_events(&mut self) -> std::vec::Drain<'_, CrowdEvent> {
        self.events.drain(..)
    }

    /// Events are waiting to be drained.
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }
}

/// Pushes the events that each track crossed in one step of `instance`
/// (of crowd model `model`), each with the weight of its track's clip.
#[inline]
pub(super) fn push_crossed(
    out: &mut Vec<CrowdEvent>,
    rt: &ModelRt,
    instance: InstanceId,
    model: u16,
    tracks: [(Traversed, f32); 2],
) {
    let events = &rt.handle.model().events;
    for (t, weight) in tracks {
        let Some((p, u0, u1, fresh)) = t else {
            continue;
        };
        let map = &rt.maps[p.clip as usize];
        for e in rt.event_ranges[p.clip as usize].clone() {
            let n = crossings(events[e].time, map.duration, p.wrap, u0, u1, fresh);
            if n > 0 {
                out.push(CrowdEvent {
                    instance,
                    model: ModelId(model as u32),
                    clip: p.clip as usize,
                    event: e,
                    count: n.min(u32::MAX as u64) as u32,
                    weight,
                });
            }
        }
    }
}
