//! Animation layers on baked clips, on the CPU: the arithmetic the GPU's
//! palette pre-pass (`throng-render/src/passes/palette.wgsl`) does, bone for bone.
//!
//! An instance shows a **base pose** — its clip, cross-faded with the
//! previous one as on the plain path ([`crate::baked::blended_bone_rows`]) —
//! and up to [`MAX_EXTRA_LAYERS`] layers over it, applied in order. Each
//! layer samples its own clip at its own frames and has a weight `w`, an
//! optional [`BoneMask`] (per-bone weights `m`) and a [`LayerMode`]:
//!
//! * **override** moves the bone's local pose toward the layer's by `w · m`;
//! * **additive** adds `w · m` times the layer's difference from a
//!   reference pose (the same clip at another frame, by default its first).
//!
//! Bones are visited parents first ([`Skeleton::order`]). A bone that no
//! layer reaches (weight 0, and masked out together with all its
//! ancestors) keeps the base palette matrix exactly, so an instance whose
//! layers weigh nothing draws bit for bit as on the plain path. A reached
//! bone is blended in local space ([`crate::pose`]: translation, quaternion
//! rotation, scale): its local matrix in any pose is `G(parent)⁻¹ · G(bone)`
//! with `G = P · inverse(inverse_bind)`, derived from the baked palette `P`,
//! so no second texture is needed; the result is re-attached to the
//! *blended* parent. A mask on the subtree of `spine` therefore makes the
//! upper body play the layer's clip on top of wherever the base puts the
//! hips.
//!
//! Morph weights are layered too ([`layered_weights`]): each slot starts
//! from the base pose's weight, and each layer moves it toward its clip's
//! weight (override) or adds its clip's difference from the reference
//! (additive) by `w · m`, where `m` is the mask's weight at the slot's
//! bone ([`Skeleton::slot_bone`]: the bone that carries most of the
//! vertices the slot moves), so a mask on the head takes the face's
//! targets with it.
//!
//! One file per concern: what layers refuse (`error.rs`), the skeleton and
//! its masks (`skeleton.rs`), the layered pose (`blend.rs`); all
//! re-exported here.

mod blend;
mod error;
mod skeleton;

pub use crate::limits::MAX_EXTRA_LAYERS;
pub use blend::{
    LayerMode, LayerPose, check_preset, layered_palette, layered_weights, palette_entries, validate,
};
pub use error::{LayerError, check_layer_count, check_weight};
pub use skeleton::{BoneMask, NO_PARENT, Skeleton};
