//! Navigation on the ground plane: a scene's static obstacles rasterised
//! into an [`ObstacleGrid`], and a [`FlowField`] computed over it on the
//! CPU — per goal, every cell's travel distance to the goal and direction
//! toward it, and every cell's clearance — for GPU crowd steering
//! (`throng-render/src/simulation/navigation.wgsl` reads it; the layout is
//! [`throng_core::navigation`]). Positions are world (x, z) as `Vec2`.
//!
//! One job per file, arrows running down:
//!
//! * [`error`]: [`NavigationError`], every way a grid, shape, goal or field
//!   is refused.
//! * [`grid`]: [`ObstacleGrid`] and the rasterisation of circles, boxes and
//!   polygons (a cell is blocked when its centre is inside).
//! * [`goal`]: [`Goal`] regions and the cells that stand for them.
//! * `clearance`: the exact signed Euclidean distance transform
//!   (Felzenszwalb–Huttenlocher on the half-cell lattice).
//! * `queue`: an untidy bucket queue, the solver's O(1) priority queue.
//! * [`distance`]: travel distance by fast marching (first-order eikonal,
//!   no corner cutting), steps dearer near walls ([`FieldOptions`]).
//! * `direction`: unit directions down the distance's gradient, checked so
//!   that none leads into a wall or across a blocked corner.
//! * [`field`]: [`FlowField`]: the layers assembled (each goal's on a
//!   thread of its own, as many as the system offers), and the CPU's
//!   reading of them, the arithmetic of the WGSL module.
//! * [`job`]: [`FieldJob`], a field computed on a worker thread and
//!   handed to the frame when done, so no frame waits for it.
//! * [`walkable`]: [`Walkable`] limits and the cells of a crowd's ground
//!   ([`throng_core::ground`]) too steep, or beyond too high a step, to
//!   walk, blocked in the grid.
//!
//! Cost, a 2-vCPU machine, release (`cargo bench -p throng-tests --bench
//! navigation`), 4 goals, 10 % of the ground blocked: the clearance once
//! (about 50 ms at 1024²), then per goal about 45 ms of fast marching and
//! 12 ms of directions, goals spread over the cores; the figures at 256²,
//! 1024² and 2048² are in docs/BENCHMARKS.md. No clock: the same field on
//! any number of threads, and on wasm32 (one thread).
//!
//! ## Example
//!
//! ```
//! use throng_core::glam::Vec2;
//! use throng_crowd::navigation::{FlowField, Goal, ObstacleGrid};
//!
//! # fn main() -> Result<(), throng_crowd::navigation::NavigationError> {
//! // 20 × 10 world units at half a unit a cell, a wall across with a gap.
//! let mut grid = ObstacleGrid::covering(Vec2::new(0.0, 0.0), Vec2::new(20.0, 10.0), 0.5)?;
//! grid.block_rect(Vec2::new(9.0, 0.0), Vec2::new(10.0, 7.0));
//! let goal = Goal::Circle { centre: Vec2::new(18.0, 2.0), radius: 1.0 };
//! let field = FlowField::compute(&grid, &[goal])?;
//! // From the far side of the wall the way leads up, toward the gap.
//! let way = field.direction_at(0, Vec2::new(5.0, 2.0)).unwrap();
//! assert!(way.y > 0.0, "{way}");
//! let left = field.distance_at(0, Vec2::new(5.0, 2.0)).unwrap();
//! assert!(left > 14.0, "around the wall, longer than the straight 12: {left}");
//! # Ok(())
//! # }
//! ```

pub mod distance;
pub mod error;
pub mod field;
pub mod goal;
pub mod grid;
pub mod job;
pub mod walkable;

mod clearance;
mod direction;
mod queue;

#[cfg(test)]
mod tests;

pub use distance::FieldOptions;
pub use error::NavigationError;
pub use field::FlowField;
pub use goal::Goal;
pub use grid::ObstacleGrid;
pub use job::{FieldJob, FieldResult};
pub use walkable::Walkable;
