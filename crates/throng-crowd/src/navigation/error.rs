//! Errors of navigation: one enum, [`NavigationError`], for every way a
//! grid, an obstacle, a goal or a field can be refused. Each says what was
//! wrong, where, and what to do.

use glam::Vec2;
use thiserror::Error;

/// Errors of navigation grids and flow fields.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum NavigationError {
    /// A cell size that is not finite and positive.
    #[error("navigation cell size {0} must be finite and greater than 0")]
    BadCellSize(f32),
    /// A grid side of no cells or more than the limit.
    #[error(
        "a navigation grid's {axis} side of {cells} cells is out of range 1..={max}; \
         use a larger cell size or a smaller area"
    )]
    BadSide {
        /// `"x"` or `"z"`.
        axis: &'static str,
        /// Cells asked for.
        cells: u64,
        /// [`throng_core::navigation::NAV_MAX_SIDE`].
        max: u32,
    },
    /// A position or size that is NaN or infinite.
    #[error("{what} is not finite ({value}); every position and size must be finite")]
    NonFinite {
        /// What held it, e.g. `"grid origin"`, `"polygon obstacle vertex 3"`.
        what: String,
        /// The offending value, as given.
        value: String,
    },
    /// A shape that is finite but makes no sense.
    #[error("{what} is invalid: {problem}")]
    InvalidShape {
        /// The shape, e.g. `"circle obstacle"`, `"goal 2 (rect)"`.
        what: String,
        /// What is wrong with it and what it must be.
        problem: &'static str,
    },
    /// A polygon of fewer than three points.
    #[error("an obstacle polygon needs at least 3 points, got {points}")]
    PolygonTooSmall {
        /// Points given.
        points: usize,
    },
    /// A goal none of whose grid cells is free.
    #[error(
        "goal {goal} has no free cell: no free cell centre lies inside it and the cell \
         ({}, {}) holding its centre ({}, {}) is blocked; move the goal off the obstacle \
         or make it larger",
        cell.0, cell.1, centre.x, centre.y
    )]
    GoalBlocked {
        /// Index of the goal in the slice given.
        goal: usize,
        /// The goal's centre, world (x, z).
        centre: Vec2,
        /// The blocked cell holding it.
        cell: (u32, u32),
    },
    /// A goal that covers no cell of the grid.
    #[error(
        "goal {goal} covers no cell of the grid: no cell centre lies inside it and its \
         centre ({}, {}) is outside the grid's [{}, {}] × [{}, {}]; move it onto the grid",
        centre.x, centre.y, grid_min.x, grid_max.x, grid_min.y, grid_max.y
    )]
    GoalOutsideGrid {
        /// Index of the goal in the slice given.
        goal: usize,
        /// The goal's centre, world (x, z).
        centre: Vec2,
        /// The grid's lower corner, world (x, z).
        grid_min: Vec2,
        /// The grid's upper corner, world (x, z).
        grid_max: Vec2,
    },
    /// A field asked for with no goal.
    #[error("a flow field needs at least one goal")]
    NoGoals,
    /// More goals than a field has layers for.
    #[error(
        "a flow field has at most {max} goals (one layer each), {count} were given; split them over several fields"
    )]
    TooManyGoals {
        /// Goals given.
        count: usize,
        /// [`throng_core::navigation::NAV_MAX_GOALS`].
        max: u32,
    },
    /// A field of more cells than the limit.
    #[error(
        "a flow field of {width} × {height} cells and {layers} layers is {cells} cells, \
         more than the {max} one field may hold; use a coarser grid or fewer goals"
    )]
    TooLarge {
        /// Cells along x.
        width: u32,
        /// Cells along z.
        height: u32,
        /// Goal layers.
        layers: u32,
        /// `width · height · layers`.
        cells: u64,
        /// [`throng_core::navigation::NAV_MAX_CELLS`].
        max: u64,
    },
    /// A field larger than the memory the host can still give.
    #[error(
        "a flow field of {cells} cells needs about {needed} bytes, more than the host can \
         still give ({available}); use a coarser grid or fewer goals"
    )]
    OutOfMemory {
        /// Cells of the field, all layers.
        cells: u64,
        /// Bytes it needs, output and work buffers.
        needed: u64,
        /// Bytes the host could give.
        available: u64,
    },
    /// A field's worker thread could not start or ended without a field
    /// ([`crate::navigation::FieldJob`]).
    #[error("the flow field's worker: {0}")]
    Worker(String),
    /// A field option out of its range.
    #[error("flow field option {name} = {value} is out of range: it must be {range}")]
    BadOption {
        /// The option's name.
        name: &'static str,
        /// Its value.
        value: f32,
        /// What it must be.
        range: &'static str,
    },
}

/// `Ok` when `v` is finite, else [`NavigationError::NonFinite`] naming `what`.
pub(crate) fn check_finite(what: impl FnOnce() -> String, v: Vec2) -> Result<(), NavigationError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(NavigationError::NonFinite {
            what: what(),
            value: format!("({}, {})", v.x, v.y),
        })
    }
}

/// `Ok` when `v` is finite, else [`NavigationError::NonFinite`] naming `what`.
pub(crate) fn check_finite_scalar(
    what: impl FnOnce() -> String,
    v: f32,
) -> Result<(), NavigationError> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(NavigationError::NonFinite {
            what: what(),
            value: v.to_string(),
        })
    }
}
