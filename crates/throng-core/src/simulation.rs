//! The GPU simulation hook's data, shared by Rust and WGSL
//! (`throng-render/src/simulation/simulation.wgsl`): the state of one agent, one entry of the
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
    /// The user's own four words: `Motion::Simulated`'s `data` when the
    /// agent starts.
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
    /// Its grid cell's key ([`cell_key`]): several cells share a bucket,
    /// so a hook tells its true neighbours by their cell.
    pub cell: u32,
}

/// The key of grid cell `(x, z)`: both coordinates' low 16 bits, x in the
/// low half. Cells 65,536 cells apart on an axis share a key (beyond any
/// steering's reach). Mirrored by WGSL's `cell_key`.
pub fn cell_key(x: i32, z: i32) -> u32 {
    (x as u32 & 0xffff) | (z as u32) << 16
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

/// The settings of Throng's built-in steering hook (`throng-render/src/simulation/navigate.wgsl`,
/// 48 bytes), mirrored by its WGSL `NavigateParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct NavigateParams {
    /// An agent's radius, world units: agents keep two apart, and one from
    /// obstacles.
    pub radius: f32,
    /// Cruising speed, world units per second.
    pub speed: f32,
    /// Fastest change of velocity, world units per second².
    pub accel: f32,
    /// Fastest turn, radians per second.
    pub turn_rate: f32,
    /// How far ahead neighbours are anticipated, seconds.
    pub horizon: f32,
    /// An agent within this distance of its goal point has arrived.
    pub arrive: f32,
    /// Seconds an arrived agent stands before leaving for another goal
    /// (< 0: it stays).
    pub dwell: f32,
    /// Each agent's speed is `speed` times a factor of its own in
    /// `1 ± speed_spread`.
    pub speed_spread: f32,
    /// Lanes: how strongly an agent steps aside from, and slows for,
    /// oncoming traffic in its corridor ahead (0: not at all; 1: the
    /// built-in's tuning; `steer_avoid.wgsl`'s `keep_to_side`).
    pub lanes: f32,
    /// Goal exchange (1 on, 0 off): the agents of a goal layer are
    /// interchangeable, and two of a layer near each other hand each other
    /// their goal points when that shortens their two walks together by
    /// more than a radius (`goal_exchange.wgsl`). A crowd filling a goal
    /// region then fills it from where it enters rather than each agent
    /// pushing through the ones already standing to a point of its own.
    /// Off when each agent's point is its own (a seat, a slot).
    pub exchange_goals: u32,
    /// Zero: the uniform's size is a multiple of 16 bytes.
    pub pad: [f32; 2],
}

/// One model's gaits on the GPU (48 bytes), mirrored by WGSL's `Gait` in
/// `throng-render/src/simulation/agent.wgsl`: which clip a simulated instance plays by its
/// speed, and at what playback rate.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuGait {
    /// Clip played standing ([`crate::gpu::GpuTrack::NO_CLIP`]: none, the walk
    /// slows instead).
    pub idle_clip: u32,
    /// Clip played walking.
    pub walk_clip: u32,
    /// Clip played running ([`crate::gpu::GpuTrack::NO_CLIP`]: none, the walk
    /// speeds up).
    pub run_clip: u32,
    /// 1: gaits are chosen for this model's agents; 0: not.
    pub enabled: u32,
    /// The walk's ground speed at playback speed 1, world units per second.
    pub walk_speed: f32,
    /// The run's ground speed at playback speed 1.
    pub run_speed: f32,
    /// Below this speed an agent idles.
    pub idle_below: f32,
    /// Above this speed it runs.
    pub run_above: f32,
    /// A threshold is crossed upward at `(1 + hysteresis)` times it and
    /// downward at `(1 - hysteresis)` times it.
    pub hysteresis: f32,
    /// Seconds a change of gait cross-fades over.
    pub fade: f32,
    /// Padding to 48 bytes.
    pub pad: [u32; 2],
}
