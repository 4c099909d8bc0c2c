//! Animation channels of the built document: a target node and property
//! (transform or morph weights), an interpolation, key times and values.

use super::{Interpolation, Property};

/// What a channel animates: a transform property, or the node's morph
/// weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// `translation`, `rotation` or `scale`.
    Transform(Property),
    /// `weights`: one scalar per morph target per key.
    Weights,
}

/// One channel with its own sampler, for [`GltfBuilder::animation`](super::GltfBuilder::animation).
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    /// Target node.
    pub node: usize,
    /// Target property.
    pub path: Path,
    /// Sampler interpolation.
    pub interpolation: Interpolation,
    /// Key times (the sampler's input).
    pub times: Vec<f32>,
    /// Output values, flattened: 3 (or 4 for rotations) floats per element;
    /// cubic splines have 3 elements per key (in-tangent, value, out-tangent).
    pub values: Vec<f32>,
}

impl Channel {
    /// A translation channel; for cubic splines `values` holds
    /// `(in, value, out)` per key.
    pub fn translation(
        node: usize,
        interpolation: Interpolation,
        times: &[f32],
        values: &[[f32; 3]],
    ) -> Self {
        Self::vec3(node, Property::Translation, interpolation, times, values)
    }

    /// A scale channel (values as for [`Self::translation`]).
    pub fn scale(
        node: usize,
        interpolation: Interpolation,
        times: &[f32],
        values: &[[f32; 3]],
    ) -> Self {
        Self::vec3(node, Property::Scale, interpolation, times, values)
    }

    /// A rotation channel with quaternions `[x, y, z, w]`.
    pub fn rotation(
        node: usize,
        interpolation: Interpolation,
        times: &[f32],
        values: &[[f32; 4]],
    ) -> Self {
        Self {
            node,
            path: Path::Transform(Property::Rotation),
            interpolation,
            times: times.to_vec(),
            values: values.iter().flatten().copied().collect(),
        }
    }

    /// A morph weight channel: `values` holds the weights of every target
    /// per key (for cubic splines: in-tangents, values, out-tangents).
    pub fn weights(
        node: usize,
        interpolation: Interpolation,
        times: &[f32],
        values: &[f32],
    ) -> Self {
        Self {
            node,
            path: Path::Weights,
            interpolation,
            times: times.to_vec(),
            values: values.to_vec(),
        }
    }

    fn vec3(
        node: usize,
        path: Property,
        interpolation: Interpolation,
        times: &[f32],
        values: &[[f32; 3]],
    ) -> Self {
        Self {
            node,
            path: Path::Transform(path),
            interpolation,
            times: times.to_vec(),
            values: values.iter().flatten().copied().collect(),
        }
    }
}
