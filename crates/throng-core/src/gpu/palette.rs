//! What the palette pre-pass reads: an instance's base pose and animation
//! layers ([`GpuLayerSet`], [`GpuLayer`]), the model's skeleton table
//! ([`GpuBone`]) and a dispatch's [`PaletteParams`].

use bytemuck::{Pod, Zeroable};

use crate::limits::MAX_EXTRA_LAYERS;

/// One animation layer of an instance as the palette pre-pass reads it
/// (48 bytes), mirrored by WGSL's `GpuLayer` in `throng-render/src/passes/palette.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GpuLayer {
    /// The layer clip's earlier frame.
    pub frame0: u32,
    /// Its later frame.
    pub frame1: u32,
    /// Weight of `frame1`.
    pub t: f32,
    /// The layer's weight in `[0, 1]`.
    pub weight: f32,
    /// The additive reference pose's earlier frame.
    pub ref0: u32,
    /// Its later frame.
    pub ref1: u32,
    /// Weight of `ref1`.
    pub ref_t: f32,
    /// [`GpuLayer::OVERRIDE`], [`GpuLayer::ADDITIVE`] or [`GpuLayer::WEIGHTS`].
    pub mode: u32,
    /// First entry of the layer's mask in the mask table, or
    /// [`GpuLayer::NO_MASK`].
    pub mask: u32,
    /// Padding.
    pub pad: [u32; 3],
}

impl GpuLayer {
    /// `mode` of an override layer.
    pub const OVERRIDE: u32 = 0;
    /// `mode` of an additive layer.
    pub const ADDITIVE: u32 = 1;
    /// `mode` of a weights layer (its mask a morph preset).
    pub const WEIGHTS: u32 = 2;
    /// `mask` of a layer on every bone.
    pub const NO_MASK: u32 = u32::MAX;
}

/// An instance's base pose (its clip cross-faded as on the plain path) and
/// the layers over it, for the palette pre-pass (192 bytes), mirrored by
/// WGSL's `GpuLayerSet`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GpuLayerSet {
    /// The base clip's earlier frame.
    pub frame0: u32,
    /// Its later frame.
    pub frame1: u32,
    /// Weight of `frame1`.
    pub t: f32,
    /// The faded-out clip's earlier frame.
    pub prev0: u32,
    /// Its later frame.
    pub prev1: u32,
    /// Weight of `prev1`.
    pub prev_t: f32,
    /// Weight of the base clip against the faded-out one (1: no fade).
    pub fade: f32,
    /// Layers in use, at most [`MAX_EXTRA_LAYERS`].
    pub layer_count: u32,
    /// First palette matrix the instance's palette is written to.
    pub palette: u32,
    /// 1: its feet are planted on the crowd's ground after the pre-pass
    /// (`throng_core::foot_ik`); 0: not.
    pub foot_ik: u32,
    /// The base clip's ground (`throng_core::contacts::ClipContacts::ground`)
    /// for foot IK, model units.
    pub clip_ground: f32,
    /// Padding.
    pub pad: u32,
    /// The layers, bottom first.
    pub layers: [GpuLayer; MAX_EXTRA_LAYERS],
}

/// One bone of a model's skeleton table for the palette pre-pass (112
/// bytes), mirrored by WGSL's `GpuBone`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct GpuBone {
    /// `inverse(inverse_bind)` as rows.
    pub bind: [[f32; 4]; 3],
    /// `inverse_bind` as rows.
    pub inverse_bind: [[f32; 4]; 3],
    /// Parent bone, or [`crate::layers::NO_PARENT`].
    pub parent: u32,
    /// The bone visited `i`-th (this entry being the `i`-th): parents first.
    pub ordered: u32,
    /// Padding.
    pub pad: [u32; 2],
}

/// Parameters of one palette pre-pass dispatch, mirrored by WGSL's
/// `PaletteParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct PaletteParams {
    /// Layer sets to evaluate.
    pub set_count: u32,
    /// The first of them in the layer-set buffer.
    pub first_set: u32,
    /// Padding.
    pub pad: [u32; 2],
}
