//! Agents promoted to full Bevy characters and back. [`ThrongPromote`]
//! on an agent replaces its instance by the character the model was baked
//! from — Bevy's own glTF scene and `AnimationPlayer`, loaded through the
//! asset server — playing the same clips at the same times, speed and
//! cross-fade weight, at the agent's transform; removing it returns the
//! agent to its crowd at the clip and time the character has reached (or,
//! when the game stopped its animation and posed it, at the baked frame
//! nearest its pose, [`pose`]).
//!
//! The switch is one frame: the character is loaded and spawned hidden
//! (a child of the agent, marked [`ThrongCharacter`]), and shown in the
//! frame its instance is hidden, posed by Bevy's animation in that frame
//! (between `advance_animations` and `animate_targets`, after the crowd
//! advanced). Demotion sets the instance's clip and time and despawns
//! the character in one frame too. Until demoted the character is the
//! game's: [`ThrongPromoted::character`] and [`ThrongPromoted::player`]
//! name its entities.
//!
//! The glTF is [`ThrongPromote::gltf`], or the file the model was baked
//! from (`BakedModel::source`, the name `throng bake` records) beside the
//! `.throng` asset. A steered agent (its instance moved by the GPU) is
//! promoted once it is no longer steered.
pub mod clips;
mod load;
pub mod pose;
mod state;
mod switch;

pub use load::{begin_promotions, character_ready, spawn_characters};
pub use state::{ThrongCharacter, ThrongPromote, ThrongPromoted};
pub use switch::switch_characters;
