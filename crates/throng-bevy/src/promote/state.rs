//! What a promotion is: the components a game reads and writes
//! ([`ThrongPromote`], [`ThrongPromoted`], [`ThrongCharacter`]) and the
//! stages a character goes through, loading to shown.

use bevy::animation::AnimationPlayer;
use bevy::animation::graph::AnimationNodeIndex;
use bevy::gltf::Gltf;
use bevy::prelude::*;

use super::clips::ClipNodes;

/// Asks for an agent to be drawn by a full Bevy character (insert it) and
/// back in its crowd (remove it).
#[derive(Component, Clone, Debug, Default)]
pub struct ThrongPromote {
    /// The glTF the character is made from (`None`: the file the model was
    /// baked from, beside the `.throng` asset).
    pub gltf: Option<Handle<Gltf>>,
}

/// On an agent being promoted or promoted: its character and how far the
/// switch has come (inserted by the plugin; read only).
#[derive(Component, Debug)]
pub struct ThrongPromoted {
    pub(super) character: Entity,
    pub(super) stage: Stage,
}

impl ThrongPromoted {
    /// The character's root entity (a child of the agent; its scene hangs
    /// below it).
    pub fn character(&self) -> Entity {
        self.character
    }

    /// The character's `AnimationPlayer` entity, once spawned.
    pub fn player(&self) -> Option<Entity> {
        match &self.stage {
            Stage::Ready { player, .. } | Stage::Shown { player, .. } => Some(*player),
            _ => None,
        }
    }

    /// The character is drawn and the instance hidden.
    pub fn is_shown(&self) -> bool {
        matches!(self.stage, Stage::Shown { .. })
    }

    /// The promotion failed (the glTF did not load, has no player, or
    /// lacks the clip the agent plays); the agent stays in its crowd.
    pub fn failed(&self) -> bool {
        matches!(self.stage, Stage::Failed)
    }
}

/// Marks a promoted agent's character root: the agent it stands for.
#[derive(Component, Clone, Copy, Debug)]
pub struct ThrongCharacter {
    /// The agent.
    pub agent: Entity,
}

/// How far a promotion has come.
#[derive(Debug)]
pub(super) enum Stage {
    /// The glTF loading, with what it depends on.
    Loading(Handle<Gltf>),
    /// The scene spawning.
    Spawning(ClipNodes),
    /// Spawned and hidden: shown at the next switch.
    Ready { clips: ClipNodes, player: Entity },
    /// Drawn by Bevy; a cross-fade the instance was in finishes here.
    Shown {
        clips: ClipNodes,
        player: Entity,
        fade: Option<Fade>,
    },
    /// Given up (the warning says why).
    Failed,
}

/// A cross-fade carried over from the crowd: `to`'s weight rises at
/// `rate` per second, `from`'s falls.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fade {
    pub(super) from: AnimationNodeIndex,
    pub(super) to: AnimationNodeIndex,
    pub(super) weight: f32,
    pub(super) rate: f32,
}

impl Fade {
    /// Moves the weights on by `dt`; false once the fade is over (and
    /// the outgoing clip stopped).
    pub(super) fn advance(&mut self, player: &mut AnimationPlayer, dt: f32) -> bool {
        self.weight = (self.weight + dt * self.rate).min(1.0);
        if let Some(a) = player.animation_mut(self.to) {
            a.set_weight(self.weight);
        }
        if self.weight >= 1.0 {
            player.stop(self.from);
            return false;
        }
        if let Some(a) = player.animation_mut(self.from) {
            a.set_weight(1.0 - self.weight);
        }
        true
    }
}
