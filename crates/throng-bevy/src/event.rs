//! Animation events as Bevy messages: after the plugin advances the
//! crowds, every event an instance's playback crossed (`Crowd::drain_events`)
//! becomes a [`ThrongEvent`] naming the crowd's entity, the instance, and
//! the agent entity when the instance is a [`crate::ThrongAgent`]. Read
//! them with `MessageReader<ThrongEvent>` in `Update` (they are written in
//! `PostUpdate` and kept for two frames, as Bevy's messages are).
//!
//! The plugin drains every crowd's events; code that drained them itself
//! from the crowd reads these messages instead.

use bevy::prelude::*;
use throng_crowd::crowd::{CrowdEvent, InstanceId};

use crate::agent::ThrongAgents;
use crate::crowd::ThrongCrowd;

/// An animation event an instance crossed.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct ThrongEvent {
    /// The crowd's entity.
    pub crowd: Entity,
    /// The agent entity that is the instance (`None`: an instance of the
    /// crowd's bulk API).
    pub agent: Option<Entity>,
    /// The event as the crowd reported it (instance, model, clip, index in
    /// the model's events, count, weight).
    pub event: CrowdEvent,
}

impl ThrongEvent {
    /// The instance.
    pub fn instance(&self) -> InstanceId {
        self.event.instance
    }

    /// The event's name in its model (`None`: the crowd is not `crowd`).
    pub fn name<'a>(&self, crowd: &'a ThrongCrowd) -> Option<&'a str> {
        let model = crowd.crowd.model(self.event.model).ok()?;
        model.events.get(self.event.event).map(|e| e.name.as_str())
    }
}

/// Turns every crowd's drained events into [`ThrongEvent`] messages.
pub fn send_events(
    mut crowds: Query<(Entity, &mut ThrongCrowd)>,
    agents: Res<ThrongAgents>,
    mut out: MessageWriter<ThrongEvent>,
) {
    for (entity, mut c) in &mut crowds {
        // Touch the crowd mutably only when it has events: a mutable borrow
        // marks the component changed.
        if !c.crowd.has_events() {
            continue;
        }
        for event in c.crowd.drain_events() {
            out.write(ThrongEvent {
                crowd: entity,
                agent: agents.agent(entity, event.instance),
                event,
            });
        }
    }
}
