//! The GPU simulation hook's data, shared by Rust and WGSL
//! (`shaders/simulation.wgsl`): the state of one agent, one entry of the
//! neighbour grid, and the pass's parameters. An instance handed to the
//! simulation ([`crate::motion::MotionKind::Simulated`]) has an agent,
//! indexed by the instance's stable slot; the GPU is its authority.
//!
//! The neighbour grid hashes world xz cells of [`SimulationParams::cell_size`]
//! into [`SIM_CELLS`] buckets and lists, per bucket, the agents that were in
//! it at the start of the frame (their positions and velocities of the
//! previous frame), sorted by bucket; a visit reads at most
//! [`SIM_MAX_PER_CELL`] of them, so a crowd piled into one cell costs a
//! bounded time per agent instead of hanging the GPU.

use bytemuck::{Pod, Zeroable};

/// Buckets of the neighbour grid (a power of two).
pub const SIM_CELLS: u32 = 1 << 16;

/// Most neighbours one visit of a bucket reads.
pub const SIM_MAX_PER_CELL: u32 = 64;

/// Longest time step a simulation is given, seconds: a stall (a window
/// dragged, a breakpoint) is not integrated as one huge step.
pub const SIM_MAX_DT: f32 = 0.25;

/// One agent of the simulation (48 bytes), mirrored by WGSL's `Agent`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuAgent {
    /// World position.
    pub position: [f32; 3],
    /// Heading, radians about +y from +z (model forward): the instance
    /// faces `(sin yaw, 0, cos yaw)`.
    pub yaw: f32,
    /// World velocity, units per second.
    pub velocity: [f32; 3],
    /// The serial of the hand-over the agent was started from (the
    /// motion's; a differing one starts it afresh).
    pub serial: u32,
    /// The user's own four words, zero when the agent starts.
    pub data: [f32; 4],
}

/// One entry of the neighbour grid (32 bytes), mirrored by WGSL's
/// `Neighbour`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuNeighbour {
    /// Position at the start of the frame.
    pub position: [f32; 3],
    /// The instance's dense slot.
    pub slot: u32,
    /// Velocity at the start of the frame.
    pub velocity: [f32; 3],
    /// Padding to 32 bytes.
    pub pad: u32,
}

/// What every simulation pass reads (32 bytes), mirrored by WGSL's
/// `SimulationParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SimulationParams {
    /// The crowd clock, low word.
    pub now_lo: u32,
    /// The crowd clock, high word.
    pub now_hi: u32,
    /// Seconds since the previous step, at most [`SIM_MAX_DT`].
    pub dt: f32,
    /// Instances in the crowd (dense slots).
    pub instance_count: u32,
    /// Side of a grid cell, world units.
    pub cell_size: f32,
    /// Agents the agent buffers hold.
    pub agent_capacity: u32,
    /// The crowd clock in seconds (f32: for the user's noise and phases).
    pub seconds: f32,
    /// Steps taken so far.
    pub step: u32,
}
