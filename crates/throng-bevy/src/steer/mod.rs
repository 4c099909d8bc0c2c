//! Crowds steered on the GPU from Bevy: Throng's built-in steering
//! (`throng_render::simulation::navigate`: a flow field to goals, around
//! obstacles and around each other, with gaits chosen by speed) driven by
//! components.
//!
//! - [`ThrongSteering`] on a [`crate::ThrongCrowd`] entity turns the
//!   steering on for that crowd: its simulated instances walk on the GPU.
//!   Instances are handed to it with [`walk_to`] (bulk instances, through
//!   the crowd's API) or by a [`ThrongSteered`] component on a
//!   [`crate::ThrongAgent`] entity of that crowd.
//! - [`ThrongObstacle`] entities (a circle, a box or a polygon in the
//!   ground plane, placed by the entity's `GlobalTransform`) and
//!   [`ThrongGoal`] entities (a disc or a box, one per goal layer) make
//!   every steered crowd's flow field. It is built again, on the CPU, in
//!   the frame one of them is added, moved, changed or removed, and the GPU
//!   steers by the new one from that frame's draw on ([`field`]).
//! - Where the agents are is the GPU's to say: every
//!   [`ThrongSteering::readback_every`] frames the render world reads their
//!   poses back ([`gpu`]); they reach the main world one or two frames
//!   later as [`ThrongSteeredPoses`] (each pose with the crowd tick it was
//!   taken at), and a [`ThrongSteered`] agent's `Transform` follows them
//!   ([`agents`]).
//!
//! The simulation lives in one camera's renderer (the first active camera
//! that draws crowds): a steered crowd is drawn by that camera only, and a
//! new renderer for it (its format, MSAA or shadows changed, or the camera
//! went) starts the agents again from where they were handed over. With
//! several crowds, keep steered crowds' entities alive (a crowd despawned
//! before a steered one moves its index, which hands its agents over
//! again).

pub mod agents;
pub mod field;
pub mod gpu;

use bevy::prelude::*;
use throng_core::simulation::NavigateParams;
use throng_crowd::crowd::Motion;

pub use agents::{ThrongSteered, ThrongSteeredAgent};
pub use field::{ThrongGoal, ThrongNavigation, ThrongObstacle};
pub use gpu::{SteeredPoses, ThrongSteeredPoses};

/// A crowd's GPU steering: its agents, its flow field's ground and gaits,
/// and how often their poses come back to the main world.
#[derive(Component, Clone, Debug)]
pub struct ThrongSteering {
    /// The agents: radius, speed, acceleration, turn rate, anticipation,
    /// arrival and dwell (`throng_render::simulation::navigate::navigate_params`
    /// gives sensible ones for a radius and a speed).
    pub params: NavigateParams,
    /// The ground the flow field covers, world (x, z): lower and upper
    /// corners. Agents leaving it walk straight to their goal's centre.
    pub area: (Vec2, Vec2),
    /// Side of a flow-field cell, world units: about an agent's radius
    /// (a 256 × 256 field computes in about 20 ms on one core).
    pub cell_size: f32,
    /// The clips chosen by speed (idle, walk, run: each model's clips by
    /// those names), with the walk and run ground speeds at playback speed
    /// 1, world units a second (`None`: agents play what they were given).
    pub gaits: Option<(f32, f32)>,
    /// Read the agents' poses back every this many frames (0: never).
    pub readback_every: u32,
}

impl ThrongSteering {
    /// Agents of `radius` walking at `speed` (world units) over `area`,
    /// cells of one radius, no gaits, poses back every frame.
    pub fn new(radius: f32, speed: f32, area: (Vec2, Vec2)) -> Self {
        Self {
            params: throng_render::simulation::navigate::navigate_params(radius, speed),
            area,
            cell_size: radius,
            gaits: None,
            readback_every: 1,
        }
    }
}

/// The motion that hands an instance to its crowd's steering, walking to
/// goal layer `layer` (a point there the GPU chooses; standing first).
pub fn walk_to(layer: u32) -> Motion {
    walk_to_point(layer, None)
}

/// [`walk_to`], to `point` (world x, z) of the layer's goal when given.
pub fn walk_to_point(layer: u32, point: Option<Vec2>) -> Motion {
    Motion::Simulated {
        velocity: glam::Vec3::ZERO,
        ground_speed: 0.0,
        data: throng_render::simulation::navigate::goal_data(
            layer,
            point.map(|p| glam::Vec2::new(p.x, p.y)),
        ),
    }
}
