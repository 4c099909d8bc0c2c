//! The ground's impassable cells ([`ObstacleGrid::block_unwalkable`]): on
//! a crowd's ground ([`throng_core::ground`]) a cell is blocked where the
//! surface is steeper than agents walk, and both cells of an edge where
//! the ground jumps (up or down) by more than a step agents take. So the
//! flow field routes around cliffs, steep hills and high ledges, and up
//! stairs whose risers are low enough.
//!
//! A jump is the change of height between two neighbouring cell centres
//! less the change the surface's slope explains (the mean of the two
//! centres' gradients across the edge): a smooth hill makes none, a
//! step's riser all of its height. A cell should be no deeper than a
//! stair's tread, or two risers fall between two centres and count as one
//! jump of twice the height.

use glam::Vec2;
use throng_core::ground::{Ground, GroundSample};

use super::error::NavigationError;
use super::grid::ObstacleGrid;

/// What agents can walk.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Walkable {
    /// Steepest slope walked, degrees from the horizontal (in `(0, 90)`).
    pub max_slope_degrees: f32,
    /// Highest step climbed or stepped down, world units (≥ 0).
    pub step_height: f32,
}

impl Default for Walkable {
    /// A person's: 35° and a 0.35-unit step (metres).
    fn default() -> Self {
        Self {
            max_slope_degrees: 35.0,
            step_height: 0.35,
        }
    }
}

impl Walkable {
    /// The limits are usable: a slope strictly between 0 and 90 degrees,
    /// a finite step of at least 0.
    pub fn validate(&self) -> Result<(), NavigationError> {
        let slope = self.max_slope_degrees;
        let step = self.step_height;
        if !(slope > 0.0 && slope < 90.0 && step >= 0.0 && step.is_finite()) {
            return Err(NavigationError::InvalidShape {
                what: format!("walkable limits (max slope {slope}°, step height {step})"),
                problem: "the slope must be strictly between 0 and 90 degrees, the step finite and at least 0",
            });
        }
        Ok(())
    }
}

impl ObstacleGrid {
    /// Blocks the cells of `ground` that agents limited by `walkable`
    /// cannot stand on or step between (see the module's rule); returns
    /// how many cells it blocked that were free.
    pub fn block_unwalkable(
        &mut self,
        ground: &Ground,
        walkable: Walkable,
    ) -> Result<usize, NavigationError> {
        walkable.validate()?;
        let (w, h) = (self.width(), self.height());
        let cell = self.cell_size();
        let samples: Vec<GroundSample> = (0..h)
            .flat_map(|z| (0..w).map(move |x| (x, z)))
            .map(|(x, z)| ground.sample(self.cell_centre(x, z)))
            .collect();
        let steepest = walkable.max_slope_degrees.to_radians().tan();
        let mut blocked = vec![false; samples.len()];
        let at = |x: u32, z: u32| (z * w + x) as usize;
        for z in 0..h {
            for x in 0..w {
                let i = at(x, z);
                let here = samples[i];
                if here.gradient.length() > steepest {
                    blocked[i] = true;
                }
                let across = [
                    (x + 1 < w, at(x + 1, z), Vec2::X),
                    (z + 1 < h, at(x, z + 1), Vec2::Y),
                ];
                for (inside, j, axis) in across {
                    if inside && jump(here, samples[j], axis, cell) > walkable.step_height {
                        blocked[i] = true;
                        blocked[j] = true;
                    }
                }
            }
        }
        let mut newly = 0;
        for z in 0..h {
            for x in 0..w {
                if blocked[at(x, z)] && !self.is_blocked_cell(x, z) {
                    self.set_blocked_cell(x, z, true);
                    newly += 1;
                }
            }
        }
        Ok(newly)
    }
}

/// The ground's jump from `a` to `b`, centres `cell` apart along `axis`:
/// the change of height the mean gradient across the edge does not
/// explain.
fn jump(a: GroundSample, b: GroundSample, axis: Vec2, cell: f32) -> f32 {
    let slope = 0.5 * (a.gradient + b.gradient).dot(axis);
    (b.height - a.height - slope * cell).abs()
}

#[cfg(test)]
mod tests {
    use glam::Vec2;
    use throng_core::ground::{Ground, Heightfield, Piece};

    use super::*;

    fn grid() -> ObstacleGrid {
        ObstacleGrid::covering(Vec2::new(-10.0, -10.0), Vec2::new(10.0, 10.0), 0.5).unwrap()
    }

    #[test]
    fn a_stair_within_the_step_height_is_walked_a_higher_one_is_a_wall() {
        let stair = Piece::stairs_along_x(Vec2::new(0.0, -2.0), 0.0, 4, 0.8, 0.3, 4.0, 2.0);
        let ground = Ground::new(None, stair).unwrap();
        let mut low = grid();
        let walk = Walkable {
            max_slope_degrees: 30.0,
            step_height: 0.35,
        };
        low.block_unwalkable(&ground, walk).unwrap();
        // Up the middle of the flight every cell is free: risers of 0.3.
        let centre_line = |g: &ObstacleGrid| {
            (0..11)
                .filter(|&k| g.is_blocked(Vec2::new(-0.75 + k as f32 * 0.5, 0.25)))
                .count()
        };
        assert_eq!(centre_line(&low), 0, "risers of 0.3 are walked");
        // The flight's sides from the second step up (0.6 and higher) and
        // the landing's far edge (1.2) are drops: walls.
        assert!(low.is_blocked(Vec2::new(2.25, -1.75)) && low.is_blocked(Vec2::new(2.25, -2.25)));
        assert!(
            !low.is_blocked(Vec2::new(0.25, -2.25)),
            "the first step's side is a 0.3 step"
        );
        assert!(low.is_blocked(Vec2::new(5.25, 0.25)) && low.is_blocked(Vec2::new(4.75, 0.25)));
        let mut high = grid();
        let short = Walkable {
            step_height: 0.25,
            ..walk
        };
        high.block_unwalkable(&ground, short).unwrap();
        // Every riser is now a wall two cells thick across the flight (two
        // risers share the cell between them: 7 of the 11).
        assert!(
            centre_line(&high) >= 7,
            "{} cells of the centre line blocked",
            centre_line(&high)
        );
        assert!(!high.is_blocked(Vec2::new(7.0, 0.0)) && !high.is_blocked(Vec2::new(-5.0, 0.0)));
    }

    #[test]
    fn a_hill_steeper_than_the_limit_is_blocked_where_it_is_steep() {
        // A cone of slope 40°, 3 units in radius, at the origin.
        let rise = 40f32.to_radians().tan();
        let h = Heightfield::from_fn(Vec2::splat(-12.0), 0.25, 97, 97, |p| {
            rise * (3.0 - p.length()).max(0.0)
        })
        .unwrap();
        let ground = Ground::new(Some(h), vec![]).unwrap();
        let mut steep = grid();
        let n = steep
            .block_unwalkable(
                &ground,
                Walkable {
                    max_slope_degrees: 35.0,
                    step_height: 0.3,
                },
            )
            .unwrap();
        assert!(steep.is_blocked(Vec2::new(1.5, 0.2)) && steep.is_blocked(Vec2::new(-0.8, -1.6)));
        assert!(
            !steep.is_blocked(Vec2::new(4.0, 0.0)),
            "flat ground beyond the cone"
        );
        let area = std::f32::consts::PI * 9.0 / 0.25;
        assert!(
            (n as f32) > 0.8 * area && (n as f32) < 1.3 * area,
            "{n} cells for a cone of {area} cells"
        );
        let mut gentle = grid();
        let n = gentle
            .block_unwalkable(
                &ground,
                Walkable {
                    max_slope_degrees: 45.0,
                    step_height: 0.3,
                },
            )
            .unwrap();
        assert!(
            n < 10,
            "a 40° cone is walked under a 45° limit ({n} cells blocked, its tip)"
        );
    }

    #[test]
    fn bad_limits_are_refused() {
        let e = grid()
            .block_unwalkable(
                &Ground::default(),
                Walkable {
                    max_slope_degrees: 90.0,
                    step_height: 0.3,
                },
            )
            .unwrap_err();
        assert!(e.to_string().contains("max slope 90"), "{e}");
    }
}
