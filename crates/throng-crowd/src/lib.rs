//! # throng-crowd
//!
//! The runtime simulation of a crowd, with no GPU and no glTF: instances of
//! baked models ([`throng_core::BakedModel`]), each playing its own clip at
//! its own time; cross-fades, events, root motion and attachments; culling,
//! LOD choice and the per-frame draw list the renderer consumes.
//!
//! * [`crowd`]: the [`Crowd`] and everything an instance does (one job per
//!   file; see the module's docs).
//! * [`playback`]: playback arithmetic on unwrapped clip time: wrap modes,
//!   event crossings, root-motion deltas.
//! * [`camera`]: cameras and frustum culling.
//! * [`herd`]: where a crowd stands: a seeded, round, varied herd.
//! * [`walkers`]: a crowd that walks waypoint loops at speed-matched
//!   playback, re-targeted 1 % a second.
//!
//! It depends on the contract crate (`throng-core`) only; a test
//! (`tests/tests/integration/crate_graph.rs`) fails if it comes to depend on the offline
//! crate or on glTF.

pub mod camera;
pub mod crowd;
pub mod herd;
pub mod playback;
pub mod walkers;

pub use crowd::{
    Attachment, Crowd, CrowdError, CrowdEvent, DrawGroup, DrawList, DrawView, InstanceId,
    InstanceState, ModelHandle, ModelId, Spawn, WrapMode,
};
