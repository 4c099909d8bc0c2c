//! Goals: the regions a flow field leads to, one layer each, and the grid
//! cells that stand for them.
//!
//! A goal's cells are the free cells whose centre lies inside it (boundary
//! included). A goal that holds no free cell centre — a point, or a region
//! smaller than a cell — is the cell holding its centre, which must then be
//! on the grid and free; otherwise the goal is an error that says so.

use glam::Vec2;

use super::error::NavigationError;
use super::grid::{ObstacleGrid, check_circle, check_rect};

/// A region agents walk to, world (x, z).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Goal {
    /// A disc (radius 0: a point).
    Circle {
        /// Centre, world (x, z).
        centre: Vec2,
        /// Radius, world units, at least 0.
        radius: f32,
    },
    /// An axis-aligned box.
    Rect {
        /// Lower corner, world (x, z).
        min: Vec2,
        /// Upper corner, world (x, z), at least `min` on both axes.
        max: Vec2,
    },
}

impl Goal {
    /// A point goal: the cell holding `p`.
    pub fn point(p: Vec2) -> Self {
        Self::Circle {
            centre: p,
            radius: 0.0,
        }
    }

    /// The goal's centre, world (x, z).
    pub fn centre(&self) -> Vec2 {
        match *self {
            Self::Circle { centre, .. } => centre,
            Self::Rect { min, max } => (min + max) * 0.5,
        }
    }

    /// Whether world point `p` is inside the goal (boundary included).
    pub fn contains(&self, p: Vec2) -> bool {
        match *self {
            Self::Circle { centre, radius } => p.distance_squared(centre) <= radius * radius,
            Self::Rect { min, max } => p.cmpge(min).all() && p.cmple(max).all(),
        }
    }

    /// A box inside the goal, `(min, max)`: the box itself, or the square
    /// inscribed in the disc (a point for a point goal). Every point of it
    /// is in the goal, so a hook may pick a destination there.
    pub fn inner_box(&self) -> (Vec2, Vec2) {
        match *self {
            Self::Circle { centre, radius } => {
                let half = Vec2::splat(radius * std::f32::consts::FRAC_1_SQRT_2);
                (centre - half, centre + half)
            }
            Self::Rect { min, max } => (min, max),
        }
    }

    /// The goal's bounding box, `(min, max)`.
    pub fn bounds(&self) -> (Vec2, Vec2) {
        match *self {
            Self::Circle { centre, radius } => (centre - radius, centre + radius),
            Self::Rect { min, max } => (min, max),
        }
    }

    /// Appends the row-major indices of goal `index`'s cells on `grid` to
    /// `cells`, or says why it has none.
    pub(crate) fn cells(
        &self,
        index: usize,
        grid: &ObstacleGrid,
        cells: &mut Vec<u32>,
    ) -> Result<(), NavigationError> {
        match *self {
            Self::Circle { centre, radius } => {
                check_circle(&format!("goal {index} (circle)"), centre, radius)?
            }
            Self::Rect { min, max } => check_rect(&format!("goal {index} (rect)"), min, max)?,
        }
        let start = cells.len();
        let (lo, hi) = self.bounds();
        if let Some(span) = grid.centres_in(lo, hi) {
            for z in span.z.0..=span.z.1 {
                for x in span.x.0..=span.x.1 {
                    if !grid.is_blocked_cell(x, z) && self.contains(grid.cell_centre(x, z)) {
                        cells.push(grid.index(x, z) as u32);
                    }
                }
            }
        }
        if cells.len() > start {
            return Ok(());
        }
        let centre = self.centre();
        match grid.cell_of(centre) {
            Some((x, z)) if !grid.is_blocked_cell(x, z) => {
                cells.push(grid.index(x, z) as u32);
                Ok(())
            }
            Some(cell) => Err(NavigationError::GoalBlocked {
                goal: index,
                centre,
                cell,
            }),
            None => Err(NavigationError::GoalOutsideGrid {
                goal: index,
                centre,
                grid_min: grid.origin(),
                grid_max: grid.max(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells_of(goal: Goal, grid: &ObstacleGrid) -> Result<Vec<u32>, NavigationError> {
        let mut cells = Vec::new();
        goal.cells(0, grid, &mut cells).map(|()| cells)
    }

    #[test]
    fn goal_cells_are_the_free_cells_whose_centre_is_inside() {
        let mut grid = ObstacleGrid::new(Vec2::ZERO, 1.0, 5, 5).unwrap();
        grid.set_blocked_cell(2, 2, true);
        let disc = Goal::Circle {
            centre: Vec2::splat(2.5),
            radius: 1.0,
        };
        // The plus around (2, 2), less its blocked middle.
        assert_eq!(cells_of(disc, &grid).unwrap(), [7, 11, 13, 17]);
        let rect = Goal::Rect {
            min: Vec2::new(0.0, 0.0),
            max: Vec2::new(1.5, 0.9),
        };
        assert_eq!(cells_of(rect, &grid).unwrap(), [0, 1]);
        // A point between centres: the cell holding it.
        assert_eq!(
            cells_of(Goal::point(Vec2::new(4.1, 0.2)), &grid).unwrap(),
            [4]
        );
    }

    #[test]
    fn goals_without_a_free_cell_are_errors() {
        let mut grid = ObstacleGrid::new(Vec2::ZERO, 1.0, 5, 5).unwrap();
        grid.block_rect(Vec2::ZERO, Vec2::splat(3.0));
        let inside = cells_of(Goal::point(Vec2::splat(1.2)), &grid).unwrap_err();
        assert_eq!(
            inside,
            NavigationError::GoalBlocked {
                goal: 0,
                centre: Vec2::splat(1.2),
                cell: (1, 1)
            }
        );
        assert!(inside.to_string().contains("is blocked"), "{inside}");
        let outside = cells_of(Goal::point(Vec2::new(-3.0, 1.0)), &grid).unwrap_err();
        assert!(matches!(outside, NavigationError::GoalOutsideGrid { .. }));
        let nan = Goal::Circle {
            centre: Vec2::ONE,
            radius: f32::NAN,
        };
        let error = cells_of(nan, &grid).unwrap_err();
        assert!(
            error.to_string().contains("goal 0 (circle)'s radius"),
            "{error}"
        );
        let inverted = Goal::Rect {
            min: Vec2::ONE,
            max: Vec2::ZERO,
        };
        assert!(matches!(
            cells_of(inverted, &grid),
            Err(NavigationError::InvalidShape { .. })
        ));
    }

    #[test]
    fn the_inner_box_is_inside_the_goal() {
        let disc = Goal::Circle {
            centre: Vec2::new(1.0, -2.0),
            radius: 2.0,
        };
        let (lo, hi) = disc.inner_box();
        for corner in [lo, hi, Vec2::new(lo.x, hi.y), Vec2::new(hi.x, lo.y)] {
            assert!(corner.distance(disc.centre()) <= 2.0 + 1e-5, "{corner}");
        }
        assert_eq!(Goal::point(Vec2::ONE).inner_box(), (Vec2::ONE, Vec2::ONE));
    }
}
