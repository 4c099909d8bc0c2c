//! Errors of crowd operations: one enum, [`CrowdError`], for every way a
//! call on a [`super::Crowd`] can be refused.

use thiserror::Error;

use super::{InstanceId, ModelId};

/// Errors of crowd operations.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum CrowdError {
    /// The id was despawned or never existed.
    #[error("instance {0:?} does not exist (despawned?)")]
    NoSuchInstance(InstanceId),
    /// The model id is not in this crowd.
    #[error("model {0:?} is not part of this crowd")]
    NoSuchModel(ModelId),
    /// Clip index out of range.
    #[error("clip index {index} is out of range: model {model:?} has {count} clips")]
    ClipOutOfRange {
        /// Model.
        model: String,
        /// Requested index.
        index: usize,
        /// Clip count.
        count: usize,
    },
    /// No clip with that name.
    #[error("model {model:?} has no clip named {name:?}; it has: {available}")]
    UnknownClip {
        /// Model.
        model: String,
        /// Requested name.
        name: String,
        /// Clip names.
        available: String,
    },
    /// No morph slot with that name.
    #[error("model {model:?} has no morph target named {name:?}; its slots: {available}")]
    UnknownMorphTarget {
        /// Model.
        model: String,
        /// Requested name.
        name: String,
        /// Slot names (none: the model has no morph targets).
        available: String,
    },
    /// A variant past the model's palette rows.
    #[error(
        "variant {variant} is out of range: model {model:?} has {rows} palette rows (ModelHandle::with_palette)"
    )]
    NoSuchVariant {
        /// Model.
        model: String,
        /// Requested variant.
        variant: u32,
        /// Its palette's rows (1 without a palette).
        rows: usize,
    },
    /// Bone index out of range.
    #[error("bone index {index} is out of range: model {model:?} has {count} bones")]
    BoneOutOfRange {
        /// Model.
        model: String,
        /// Requested index.
        index: usize,
        /// Bone count.
        count: usize,
    },
    /// Two models cannot be combined as asked.
    #[error("{0}")]
    Incompatible(String),
    /// A non-finite number (time, speed, duration, transform).
    #[error("{0} must be finite")]
    NotFinite(&'static str),
    /// The crowd holds as many instances as it can index.
    #[error("a crowd holds at most {max} instances; spawn them into another crowd")]
    TooManyInstances {
        /// The most instances one crowd holds.
        max: usize,
    },
    /// More instances than the host's memory can hold.
    #[error(
        "{instances} more instances need about {needed} bytes of memory, but the host has only {available} available; spawn fewer"
    )]
    OutOfMemory {
        /// Instances asked for.
        instances: u64,
        /// Estimated bytes they need (crowd storage and a frame's records).
        needed: u64,
        /// Bytes the host can still give.
        available: u64,
    },
    /// The instance is simulated on the GPU, which is the authority on its
    /// pose: the CPU's would be stale.
    #[error(
        "instance {0:?} is simulated on the GPU, the authority on its pose; read it back (throng_render::PoseReadback) instead of asking the CPU"
    )]
    GpuAuthority(super::InstanceId),
    /// A bad motion or path: what and why.
    #[error("{0}")]
    BadMotion(String),
    /// A bad layer or bone mask.
    #[error(transparent)]
    Layer(#[from] throng_core::layers::LayerError),
}
