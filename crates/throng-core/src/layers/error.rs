//! What masks and layers refuse ([`LayerError`]), and the value checks
//! both make: a weight in `[0, 1]` and the layer count. Below the skeleton
//! and masks (`skeleton.rs`) and the layered pose (`blend.rs`).

use thiserror::Error;

use crate::limits::MAX_EXTRA_LAYERS;

/// What [`BoneMask`] and layer validation refuse.
///
/// [`BoneMask`]: super::BoneMask
#[derive(Debug, Error, Clone, PartialEq)]
pub enum LayerError {
    /// No bone of that name.
    #[error("no bone named {name:?} in the model (its bones: {known})")]
    UnknownBone {
        /// The name asked for.
        name: String,
        /// The model's bone names, comma-separated.
        known: String,
    },
    /// A weight list of the wrong length.
    #[error("a bone mask needs {expected} weights (one per bone), got {got}")]
    MaskLength {
        /// Bones in the model.
        expected: usize,
        /// Weights given.
        got: usize,
    },
    /// A morph slot past the model's.
    #[error("no morph slot {slot} (the model has {slots})")]
    UnknownSlot {
        /// The slot asked for.
        slot: u32,
        /// Slots of the model.
        slots: usize,
    },
    /// A weights layer without a morph preset, or another layer with one.
    #[error("layer {layer}: {what}")]
    Preset {
        /// The layer's index.
        layer: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// A weight outside `[0, 1]` or not finite.
    #[error("{what} weight {value} is not in [0, 1]")]
    Weight {
        /// Which weight.
        what: String,
        /// Its value.
        value: f32,
    },
    /// More layers than [`MAX_EXTRA_LAYERS`].
    #[error("{got} layers given; an instance has at most {MAX_EXTRA_LAYERS} over its base pose")]
    TooManyLayers {
        /// Layers given.
        got: usize,
    },
}

/// At most [`MAX_EXTRA_LAYERS`] layers.
pub fn check_layer_count(count: usize) -> Result<(), LayerError> {
    if count > MAX_EXTRA_LAYERS {
        return Err(LayerError::TooManyLayers { got: count });
    }
    Ok(())
}

/// A weight in `[0, 1]` (NaN is not); `what` names it in the error
/// ("layer 0's", "bone 5's mask").
pub fn check_weight(value: f32, what: impl FnOnce() -> String) -> Result<(), LayerError> {
    if (0.0..=1.0).contains(&value) {
        return Ok(());
    }
    Err(LayerError::Weight {
        what: what(),
        value,
    })
}
