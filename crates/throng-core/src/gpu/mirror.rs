//! The GPU-driven path's crowd mirror: each instance's state
//! ([`GpuInstance`], its two [`GpuTrack`]s) and transform
//! ([`GpuTransform`]), and the scattered uploads of what changed (state,
//! transform and motion updates, [`MirrorParams`]).

use bytemuck::{Pod, Zeroable};

use super::motion::GpuMotion;
use super::record::Look;
use crate::clock::{Track, WrapMode};

/// One clip track of a [`GpuInstance`]: a [`crate::clock::Track`] split
/// into 32-bit words, and the clip it plays (20 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuTrack {
    /// Phase at the anchor, 32.32 fixed-point periods: low word (fraction).
    pub phase_lo: u32,
    /// Phase at the anchor: high word (whole periods).
    pub phase_hi: u32,
    /// Rate, signed 2⁻⁶⁴ periods per tick: low word.
    pub rate_lo: u32,
    /// Rate: high word (two's complement).
    pub rate_hi: u32,
    /// Clip index in the low 16 bits ([`GpuTrack::NO_CLIP`]: none), wrap
    /// mode code ([`crate::clock::WrapMode::code`]) in the high 16.
    pub clip: u32,
}

impl GpuTrack {
    /// The clip field's "no clip" (rest pose, or no previous clip).
    pub const NO_CLIP: u32 = 0xffff;

    /// The words of `track` playing `clip` (`None`: no clip) with `wrap`.
    pub fn new(track: &Track, clip: Option<u16>, wrap: WrapMode) -> Self {
        Self {
            phase_lo: track.phase as u32,
            phase_hi: (track.phase >> 32) as u32,
            rate_lo: track.rate as u64 as u32,
            rate_hi: ((track.rate as u64) >> 32) as u32,
            clip: clip.map_or(Self::NO_CLIP, u32::from) | wrap.code() << 16,
        }
    }
}

/// One instance's animation and look as the GPU-driven path keeps it on
/// the GPU (80 bytes), mirrored by WGSL's `GpuInstance` in
/// `shaders/gpu_instance.wgsl`: both tracks of a cross-fade at one anchor
/// tick, the fade as a line in time, the tint and the model. Its transform
/// is a separate stream ([`GpuTransform`]), so that moving an instance, the
/// most frequent change, uploads 48 bytes and nothing else. The cull pass
/// derives the frame's [`InstanceRecord`] from both and the clock, so an
/// idle instance is never uploaded again.
///
/// [`InstanceRecord`]: super::InstanceRecord
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuInstance {
    /// Anchor tick, low word.
    pub anchor_lo: u32,
    /// Anchor tick, high word.
    pub anchor_hi: u32,
    /// The current clip.
    pub current: GpuTrack,
    /// The clip faded out of.
    pub previous: GpuTrack,
    /// Fade weight of the current clip at the anchor.
    pub fade0: f32,
    /// Growth of the fade weight per second (0: no fade running).
    pub fade_rate: f32,
    /// Tint, RGBA8 (as [`InstanceRecord::tint`](super::InstanceRecord::tint)).
    pub tint: u32,
    /// Model index within the crowd, with [`GpuInstance::LAYERED`] set for
    /// an instance with animation layers (the cull pass leaves those to the
    /// CPU's draw lists and the palette pre-pass).
    pub model: u32,
    /// Its look (as [`InstanceRecord::look`](super::InstanceRecord::look)).
    pub look: Look,
    /// Keeps the struct a multiple of 16 bytes.
    pub pad: [u32; 2],
}

impl GpuInstance {
    /// The bit of [`GpuInstance::model`] that marks an instance with
    /// animation layers.
    pub const LAYERED: u32 = 1 << 31;
}

/// One instance's transform on the GPU-driven path (48 bytes): the top
/// three rows of `world_from_model`, mirrored by WGSL's `GpuTransform` in
/// `shaders/gpu_instance.wgsl`. The layout of the crowd's own transform
/// rows, so a run of them uploads as one copy.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuTransform {
    /// Top three rows of `world_from_model`.
    pub rows: [[f32; 4]; 3],
}

/// One changed instance state of a crowd mirror's scattered upload (96
/// bytes), mirrored by WGSL's `StateUpdate` in `throng-render/src/passes/mirror/mirror.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct StateUpdate {
    /// Dense slot the state goes to.
    pub slot: u32,
    /// Padding to 16 bytes.
    pub pad: [u32; 3],
    /// The state.
    pub state: GpuInstance,
}

/// One changed transform of a crowd mirror's scattered upload (64 bytes),
/// mirrored by WGSL's `TransformUpdate` in `throng-render/src/passes/mirror/mirror.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct TransformUpdate {
    /// Dense slot the transform goes to.
    pub slot: u32,
    /// Padding to 16 bytes.
    pub pad: [u32; 3],
    /// The transform.
    pub transform: GpuTransform,
}

/// One changed motion of a crowd mirror's scattered upload (128 bytes),
/// mirrored by WGSL's `MotionUpdate` in `throng-render/src/passes/mirror/mirror.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct MotionUpdate {
    /// Dense slot the motion goes to.
    pub slot: u32,
    /// Padding to 16 bytes.
    pub pad: [u32; 3],
    /// The motion.
    pub motion: GpuMotion,
}

/// Parameters of a scattered upload (16 bytes), mirrored by WGSL's
/// `MirrorParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct MirrorParams {
    /// State updates in the batch.
    pub state_count: u32,
    /// Transform updates in the batch.
    pub transform_count: u32,
    /// Instances in the mirror (slots at or past it are ignored).
    pub instance_count: u32,
    /// Motion updates in the batch.
    pub motion_count: u32,
}
