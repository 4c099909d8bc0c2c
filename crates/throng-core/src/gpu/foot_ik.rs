//! What the GPU's foot IK pass reads (`throng-render/src/passes/foot_ik.wgsl`,
//! the twin of `throng_core::foot_ik`): per dispatch its [`IkParams`], per
//! instance a [`GpuIkInstance`], per model its legs ([`GpuLeg`]).

use bytemuck::{Pod, Zeroable};

/// One instance whose feet are planted (64 bytes), mirrored by WGSL's
/// `IkInstance`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuIkInstance {
    /// `world_from_model`, rows.
    pub world_from_model: [[f32; 4]; 3],
    /// First matrix of its palette (written by the palette pre-pass).
    pub palette: u32,
    /// Its base clip's ground, model units.
    pub clip_ground: f32,
    /// Padding.
    pub pad: [u32; 2],
}

/// One leg (16 bytes), mirrored by WGSL's `Leg`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuLeg {
    /// The hip's palette index.
    pub hip: u32,
    /// The knee's.
    pub knee: u32,
    /// The foot's.
    pub foot: u32,
    /// Padding.
    pub pad: u32,
}

/// One dispatch's parameters (16 bytes), mirrored by WGSL's `IkParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct IkParams {
    /// Instances.
    pub count: u32,
    /// Legs of the model.
    pub legs: u32,
    /// Bones of the model.
    pub bones: u32,
    /// Padding.
    pub pad: u32,
}
