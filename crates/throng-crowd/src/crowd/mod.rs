//! The crowd: instances of baked models, each playing its own clip at its own
//! time, and the per-frame records that the renderer draws.
//!
//! # Contract
//! * A [`ModelHandle`] is a validated [`BakedModel`] with an identity (a
//!   process-unique key): caches anywhere (GPU models, crowds) are keyed by it,
//!   never by name.
//! * An [`InstanceId`] is generational: after `despawn` every call with the
//!   old id returns [`CrowdError::NoSuchInstance`]; it never aliases a new one.
//! * Clips are addressed by their stable file-order index; names resolve with
//!   [`Crowd::clip_index`].
//! * Time is the crowd's clock ([`Crowd::clock`], integer ticks) and playback
//!   is analytic: an instance holds its clips' phases at an anchor tick plus
//!   their rates ([`throng_core::clock`]), so [`Crowd::update`] advances the
//!   clock and steps only the instances that need it (clips with events,
//!   root motion, attachments); an idle instance costs nothing per frame.
//! * During a cross-fade both clips keep advancing, each at its own speed; the
//!   fade weight grows linearly from 0 to 1 over the fade's duration. A new
//!   cross-fade during a fade keeps whichever of the two clips weighs more as
//!   the previous clip (the smaller pop). Pausing stops both clips and the fade.
//! * Every write to an instance is logged ([`Crowd::changes`]), so a GPU
//!   mirror uploads only what changed.
//! * [`Crowd::build_draw_list`] turns every visible instance into one 96-byte
//!   [`InstanceRecord`], grouped by (model, LOD); the renderer splits groups
//!   into packages of at most [`PACKAGE_WIDTH`] and draws each submesh once per
//!   package. Nothing caps the instance count.
//!
//! # Layout
//! Instances live in dense structure-of-arrays storage (swap-remove on
//! despawn; ids map to dense slots through a generational table), so a frame
//! streams through a few tight arrays: record-ready transform rows, a cached
//! world bounding sphere per instance (recomputed only when its transform or
//! clips change), and 32-byte animation states. Each model's clips are kept as
//! compact [`FrameMap`]s plus bounding spheres.
//!
//! # Files
//! One job per file, each an `impl Crowd` block where it needs the crowd:
//! * `models.rs`: model handles and ids, per-model runtime data, clip lookup.
//! * `instances.rs`: ids, dense storage, spawn/despawn/clear, reserve,
//!   transform and tint; below animation control, motion and bounds.
//! * `anim_state.rs`: the animation state an instance stores (two tracks
//!   and a fade, analytic) and the frames it shows at a tick; below the
//!   instance table that holds it.
//! * `anim.rs`: the animation control (play, cross-fade, speed, wrap,
//!   time, pause) and what an instance shows.
//! * `update.rs`: advancing the clock (`update`, `tick`) and the set of
//!   instances stepped every update.
//! * `changes.rs`: the change log GPU mirrors read.
//! * `read_pose.rs`: a bone posed from a record the GPU read back (an
//!   instance the GPU simulation steers).
//! * `replica.rs`: a read-only copy of a crowd kept equal to it by its
//!   change log (a renderer on another thread draws it).
//! * `mirror.rs`: each instance's GPU state and the crowd's tables, for
//!   the GPU-driven path's cull pass.
//! * `events.rs`, `root_motion.rs`: what a step yields besides the pose.
//! * `motion/`: analytic locomotion (velocity, paths, root motion)
//!   evaluated from the clock, and the crowd's path table.
//! * `attach.rs`: props and skinned attachments following a parent.
//! * `bounds.rs`: bounding spheres for culling.
//! * `pick.rs`: the instance a ray hits first, against posed bounds.
//! * `layers.rs`: animation layers over an instance's base pose, bone
//!   masks, and the palette an instance shows with them.
//! * `look_classes.rs`: the hidden masks each model's instances wear,
//!   which get draw groups of their own on the GPU-driven path.
//! * `lod.rs`: LOD choice with hysteresis, the mesh–impostor band, LOD
//!   tints; below the models and the draw lists.
//! * `draw/`: culling, LOD selection and the per-frame draw list (the
//!   list's types in `mod.rs`, the pass that fills it in `pass.rs`).
//! * `error.rs`: [`CrowdError`].
//!
//! [`BakedModel`]: throng_core::model::BakedModel
//! [`InstanceRecord`]: throng_core::gpu::InstanceRecord
//! [`PACKAGE_WIDTH`]: throng_core::limits::PACKAGE_WIDTH
//! [`FrameMap`]: throng_core::layout::FrameMap

mod anim;
mod anim_state;
mod attach;
mod bounds;
mod bulk;
mod changes;
mod draw;
mod error;
mod events;
#[cfg(test)]
mod fixtures;
mod foot_ik;
mod ground;
mod instances;
mod layers;
mod lod;
mod look_classes;
mod mirror;
mod models;
mod motion;
mod pick;
mod read_pose;
mod replica;
mod root_motion;
mod update;
mod variety;

pub use anim::InstanceState;
pub use attach::Attachment;
pub use changes::{Change, ChangeCursor, Changes};
pub use draw::{DrawGroup, DrawList, DrawView};
pub use error::CrowdError;
pub use events::CrowdEvent;
pub use instances::{InstanceId, Spawn};
pub use layers::{Layer, LayerBlend, MaskId};
pub use lod::{LOD_HYSTERESIS, LOD_TINTS, select_lod};
pub use mirror::GpuTables;
pub use models::{ModelHandle, ModelId};
pub use motion::{MAX_MOTION_SPEED, MAX_PATH_POINTS, MAX_YAW_RATE, Motion, PathEnd, PathId};
pub use pick::Pick;
pub use replica::{CrowdReplica, SyncStats};

pub use crate::playback::WrapMode;

use glam::Vec4;

use anim_state::Anim;
use attach::Follower;
use changes::ChangeLog;
use instances::{Meta, Slot};
use models::ModelRt;

/// Instances of one or more models.
#[derive(Clone, Debug, Default)]
pub struct Crowd {
    models: Vec<ModelRt>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    // Dense arrays, all of the same length.
    slot_of: Vec<u32>,
    rows: Vec<[Vec4; 3]>,
    spheres: Vec<Vec4>,
    /// `spheres` may be out of date: transforms were written in place
    /// (`bulk.rs`), and draw lists compute spheres from the rows.
    spheres_stale: bool,
    /// Model-space spheres of `spheres` (w < 0: layered, recomputed in
    /// full), so that a moved instance's sphere is one transform.
    local_spheres: Vec<Vec4>,
    anims: Vec<Anim>,
    metas: Vec<Meta>,
    tints: Vec<u32>,
    looks: Vec<throng_core::variety::Look>,
    /// Bumped whenever a model gets a look class (`look_classes.rs`).
    looks_generation: u64,
    events: Vec<CrowdEvent>,
    /// Attachments, parents before children (creation order).
    followers: Vec<Follower>,
    /// The clock: seconds of `update` since creation, and as ticks.
    seconds: f64,
    clock: u64,
    /// Dense slots stepped by every update (events, root motion).
    active: Vec<u32>,
    log: ChangeLog,
    /// Bone masks for layers.
    masks: Vec<layers::Mask>,
    /// Layers of the instances that have them, by slot index.
    layers: std::collections::BTreeMap<u32, layers::LayerStack>,
    /// Per dense slot, its motion (empty until an instance first moves).
    motions: Vec<throng_core::motion::GpuMotion>,
    /// Paths' points, every path's after another.
    points: Vec<throng_core::motion::PathPoint>,
    /// Bumped whenever `points` or `root_keys` change.
    points_generation: u64,
    paths: Vec<motion::PathSlot>,
    free_paths: Vec<u32>,
    /// Every model's root-motion keys, model after model.
    root_keys: Vec<throng_core::motion::RootKey>,
    /// Instances handed to the GPU simulation.
    simulated: u32,
    /// The last hand-over's serial (a fresh agent buffer holds 0).
    sim_serial: u32,
    /// The ground moving instances stand on (`ground.rs`).
    ground: Option<ground::CrowdGround>,
    /// Bumped whenever the ground is set.
    ground_generation: u64,
    /// Slots of the instances whose feet are planted by IK (`foot_ik.rs`).
    foot_ik: std::collections::BTreeSet<u32>,
    /// Bumped whenever a model's legs are configured.
    legs_generation: u64,
}

impl Crowd {
    /// An empty crowd.
    pub fn new() -> Self {
        Self::default()
    }
}
