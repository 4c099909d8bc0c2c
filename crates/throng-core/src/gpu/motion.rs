//! What the GPU-driven path's motion pass reads: one instance's analytic
//! motion ([`GpuMotion`]; its constructors and CPU evaluation are
//! [`crate::motion`]'s) and the pass's [`MotionParams`].

use bytemuck::{Pod, Zeroable};

/// One instance's analytic motion on the GPU-driven path (112 bytes),
/// mirrored by WGSL's `GpuMotion` in `throng-render/src/passes/motion.wgsl` and evaluated
/// there and by [`crate::motion::motion_rows`] the same way: the instance's
/// transform at the anchor tick, a kind, and the kind's parameters. The
/// motion pass writes the instance's transform of the frame from it, so a
/// walking instance is never uploaded again until its motion changes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuMotion {
    /// Top three rows of `world_from_model` at the anchor.
    pub anchor_rows: [[f32; 4]; 3],
    /// Anchor tick, low word.
    pub anchor_lo: u32,
    /// Anchor tick, high word.
    pub anchor_hi: u32,
    /// [`crate::motion::MotionKind`] code in the low 8 bits, a wrap mode
    /// code ([`crate::clock::WrapMode::code`]) in bits 8 to 15.
    pub kind: u32,
    /// Path: its first point in the crowd's point table. Root motion: the
    /// clip's first key in the crowd's root-key table. Simulated: its agent
    /// (the instance's stable slot).
    pub base: u32,
    /// A [`crate::clock::Track`] as four words (phase lo, hi, rate lo, hi):
    /// velocity: half the yaw, in turns; path: the distance along it; root
    /// motion: the clip's playback. Simulated: the agent's four user words
    /// when it starts, as f32 bits.
    pub track: [u32; 4],
    /// Velocity: (velocity x, y, z, yaw rate). Path: (length, turn
    /// distance, unused, unused). Root motion: (the motion of one whole
    /// loop: x, y, z; the clip's duration). Simulated: (the velocity it
    /// starts with: x, y, z; the clip's ground speed, 0 for none).
    pub a: [f32; 4],
    /// Path: (points, unused…). Root motion: (frames, half the yaw of one
    /// whole loop in 2⁻³² turns, frames per second as f32 bits, unused).
    /// Simulated: (the serial of its hand-over, unused…).
    pub b: [u32; 4],
}

/// What the motion pass reads (16 bytes), mirrored by WGSL's
/// `MotionParams` in `throng-render/src/passes/motion.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
pub struct MotionParams {
    /// The crowd clock, low word.
    pub now_lo: u32,
    /// The crowd clock, high word.
    pub now_hi: u32,
    /// Instances in the crowd.
    pub instance_count: u32,
    /// Padding to 16 bytes.
    pub pad: u32,
}
