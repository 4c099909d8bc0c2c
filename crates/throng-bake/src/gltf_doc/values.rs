//! The small resolved values [`super::Doc`]'s lookups return: a view, an
//! accessor, an image's source, a texture, an animation sampler and
//! channel, a skin, a primitive and its morph targets, every index in them
//! checked. Plain data below the lookups, naming no wrapper of the `gltf`
//! crate (only `gltf::json`'s enumerations).

use std::collections::BTreeMap;

use gltf::json::accessor::ComponentType as DataType;
use gltf::json::accessor::Type as Dimensions;
use gltf::json::animation::{Interpolation, Property};
use gltf::json::mesh::{Mode, Semantic};
use gltf::json::texture::WrappingMode;

/// A buffer view, its buffer index in range.
#[derive(Clone, Copy, Debug)]
pub(crate) struct View {
    /// Index in `bufferViews`.
    pub index: usize,
    /// Index in `buffers` (checked).
    pub buffer: usize,
    /// `byteOffset` into the buffer.
    pub offset: u64,
    /// `byteLength`.
    pub length: u64,
    /// `byteStride`, when set and non-zero.
    pub stride: Option<usize>,
}

/// Where a sparse accessor's substitutions are.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sparse {
    /// Number of substituted elements.
    pub count: u64,
    /// The indices' view.
    pub indices: View,
    /// The indices' offset in their view.
    pub indices_offset: u64,
    /// The indices' component type (U8, U16 or U32: checked).
    pub index_type: DataType,
    /// The values' view.
    pub values: View,
    /// The values' offset in their view.
    pub values_offset: u64,
}

/// An accessor, its views resolved.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Accessor {
    /// Index in `accessors`.
    pub index: usize,
    /// Component type.
    pub data_type: DataType,
    /// Element type.
    pub dims: Dimensions,
    /// `normalized`.
    pub normalized: bool,
    /// Element count.
    pub count: u64,
    /// `byteOffset` into its view.
    pub offset: u64,
    /// Its view; `None`: zeros (glTF 2.0 §3.6.2.3), then the sparse values.
    pub view: Option<View>,
    /// Sparse substitutions.
    pub sparse: Option<Sparse>,
}

/// Where an image's bytes are.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ImageSource<'a> {
    /// In a buffer view.
    View(View),
    /// At a URI (a `data:` URI or a file).
    Uri(&'a str),
}

/// A texture: its image and its sampler's wrap modes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Texture {
    /// Index in `images` (checked; the image itself is looked up apart, so
    /// that a broken image drops only the textures that use it).
    pub image: usize,
    /// `wrapS`, `wrapT` (REPEAT without a sampler).
    pub wrap: [WrappingMode; 2],
}

/// An animation channel's sampler.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AnimSampler {
    /// Index in its animation's `samplers`.
    pub index: usize,
    /// Key times.
    pub input: Accessor,
    /// Key values.
    pub output: Accessor,
    /// Interpolation.
    pub interpolation: Interpolation,
}

/// An animation channel, resolved.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Channel {
    /// Target node (checked).
    pub node: usize,
    /// Animated property.
    pub property: Property,
    /// Its sampler.
    pub sampler: AnimSampler,
}

/// A skin, resolved.
#[derive(Clone, Debug)]
pub(crate) struct Skin {
    /// Joint nodes (checked).
    pub joints: Vec<usize>,
    /// Inverse bind matrices, when given.
    pub inverse_binds: Option<Accessor>,
}

/// A morph target's attributes.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MorphTarget {
    /// POSITION offsets.
    pub positions: Option<Accessor>,
    /// NORMAL offsets.
    pub normals: Option<Accessor>,
}

/// A mesh primitive, resolved.
#[derive(Clone, Debug)]
pub(crate) struct Primitive {
    /// Topology.
    pub mode: Mode,
    /// Every attribute, by semantic.
    pub attributes: BTreeMap<Semantic, Accessor>,
    /// Index accessor.
    pub indices: Option<Accessor>,
    /// Material index (checked).
    pub material: Option<usize>,
    /// Morph targets.
    pub targets: Vec<MorphTarget>,
}

impl Primitive {
    /// The accessor of `semantic`, if the primitive has it.
    pub fn get(&self, semantic: &Semantic) -> Option<Accessor> {
        self.attributes.get(semantic).copied()
    }
}
