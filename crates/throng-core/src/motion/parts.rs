//! What motions are made of, below their encoding and evaluation: the
//! [`MotionKind`], the crowd's path points ([`PathPoint`], built by
//! [`path_points`]) and root keys ([`RootKey`]), and the fixed-point angle
//! and tick conversions the CPU and the GPU share.

use std::f32::consts::TAU;

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use crate::clock::TICKS_PER_SECOND;

/// What drives an instance's transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u32)]
pub enum MotionKind {
    /// Its transform, as set.
    #[default]
    Still = 0,
    /// A velocity and yaw rate from the anchor.
    Velocity = 1,
    /// A path of points.
    Path = 2,
    /// The current clip's baked root motion.
    RootMotion = 3,
    /// Steered on the GPU by a simulation hook: the GPU is its authority
    /// (the CPU knows only where it was handed over).
    Simulated = 4,
}

impl MotionKind {
    /// The code WGSL sees (`MOTION_STILL`…).
    pub const fn code(self) -> u32 {
        self as u32
    }
}

/// One point of the crowd's point table (16 bytes): a path point and the
/// distance along its path from the path's first point.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PathPoint {
    /// Position, world.
    pub position: [f32; 3],
    /// Distance from the path's first point along the polyline.
    pub distance: f32,
}

/// One key of the crowd's root-key table (16 bytes): a baked
/// [`crate::model::RootMotionKey`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct RootKey {
    /// Displacement since the clip's start.
    pub translation: [f32; 3],
    /// Yaw since the clip's start, radians.
    pub yaw: f32,
}

/// Radians of a fixed-point angle in 2⁻³² turns, in `[−π, π)`.
#[inline(always)]
pub fn turns_to_radians(turns: u32) -> f32 {
    turns as i32 as f32 * (TAU / 4_294_967_296.0)
}

/// `radians` as a fixed-point angle in 2⁻³² turns (wrapping).
pub fn radians_to_turns(radians: f32) -> u32 {
    let turns = radians as f64 / std::f64::consts::TAU;
    let fraction = turns - turns.floor();
    ((fraction * 4_294_967_296.0).round() as u64 & 0xffff_ffff) as u32
}

/// Seconds in a tick count as f32, the way WGSL computes them: whole
/// 2³²-tick blocks and the rest, each scaled exactly, one rounding each.
#[inline(always)]
pub fn seconds_f32(ticks: u64) -> f32 {
    let hi = (ticks >> 32) as u32 as f32;
    let lo = ticks as u32 as f32;
    hi * (4_294_967_296.0 / TICKS_PER_SECOND as f32) + lo * (1.0 / TICKS_PER_SECOND as f32)
}

/// Points and cumulative distances of a path through `positions` (closed
/// back to the first point when `closed`): `count` points and the length.
pub fn path_points(positions: &[Vec3], closed: bool, out: &mut Vec<PathPoint>) -> (u32, f32) {
    let start = out.len();
    let mut distance = 0.0f32;
    let mut previous: Option<Vec3> = None;
    let first = positions.first().copied();
    for &p in positions.iter().chain(first.filter(|_| closed).iter()) {
        if let Some(q) = previous {
            distance += (p - q).length();
        }
        out.push(PathPoint {
            position: p.to_array(),
            distance,
        });
        previous = Some(p);
    }
    ((out.len() - start) as u32, distance)
}
