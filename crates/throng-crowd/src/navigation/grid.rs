//! The obstacle grid: a square lattice of cells on the ground plane, each
//! free or blocked, with the scene's static obstacles (circles, boxes,
//! polygons) rasterised into it.
//!
//! Positions are world (x, z) as [`Vec2`] (`Vec2::y` is world z). Cell
//! `(x, z)` covers `[origin.x + x·cell, origin.x + (x + 1)·cell) ×
//! [origin.y + z·cell, origin.y + (z + 1)·cell)`; cells are stored row-major
//! (`z·width + x`), the layout of [`throng_core::navigation`].
//!
//! Rasterisation rule: a shape blocks the cells whose **centre** lies inside
//! it (circles and boxes boundary included; polygons by the even-odd rule,
//! half-open at the boundary). A shape that holds no cell centre at all —
//! smaller than a cell, or a sliver between centres — blocks the cell
//! holding its centre (circle, box) or its vertices (polygon), so no
//! obstacle vanishes; draw walls at least a cell thick to keep them
//! watertight. Outside the grid counts as blocked.

use glam::Vec2;
use throng_core::navigation::NAV_MAX_SIDE;

use super::error::{NavigationError, check_finite, check_finite_scalar};

/// Free and blocked cells of a rectangle of the ground plane.
///
/// Validity: `cell_size` is finite and positive, each side is in
/// `1..=NAV_MAX_SIDE`, the origin and the far corner are finite. Every
/// constructor checks these; nothing else changes them.
#[derive(Clone, Debug, PartialEq)]
pub struct ObstacleGrid {
    origin: Vec2,
    cell_size: f32,
    width: u32,
    height: u32,
    blocked: Vec<bool>,
}

/// Cells whose centres lie in a box: inclusive column and row ranges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CellSpan {
    /// First and last column.
    pub(crate) x: (u32, u32),
    /// First and last row.
    pub(crate) z: (u32, u32),
}

impl ObstacleGrid {
    /// A grid of `width × height` free cells of side `cell_size` whose
    /// lower corner is `origin` (world x, z).
    pub fn new(
        origin: Vec2,
        cell_size: f32,
        width: u32,
        height: u32,
    ) -> Result<Self, NavigationError> {
        check_finite(|| "navigation grid origin".into(), origin)?;
        if !(cell_size.is_finite() && cell_size > 0.0) {
            return Err(NavigationError::BadCellSize(cell_size));
        }
        for (axis, cells) in [("x", width), ("z", height)] {
            if cells == 0 || cells > NAV_MAX_SIDE {
                return Err(NavigationError::BadSide {
                    axis,
                    cells: u64::from(cells),
                    max: NAV_MAX_SIDE,
                });
            }
        }
        let far = origin + Vec2::new(width as f32, height as f32) * cell_size;
        check_finite(|| "navigation grid's far corner".into(), far)?;
        Ok(Self {
            origin,
            cell_size,
            width,
            height,
            blocked: vec![false; width as usize * height as usize],
        })
    }

    /// The smallest grid of `cell_size` cells with lower corner `min` that
    /// covers the rectangle `[min, max]` (a degenerate side gets one cell).
    pub fn covering(min: Vec2, max: Vec2, cell_size: f32) -> Result<Self, NavigationError> {
        check_finite(|| "covered rectangle's min".into(), min)?;
        check_finite(|| "covered rectangle's max".into(), max)?;
        if !(cell_size.is_finite() && cell_size > 0.0) {
            return Err(NavigationError::BadCellSize(cell_size));
        }
        if max.x < min.x || max.y < min.y {
            return Err(NavigationError::InvalidShape {
                what: format!("covered rectangle [{min}, {max}]"),
                problem: "its max must be at least its min on both axes",
            });
        }
        let side = |axis, extent: f32| {
            let cells = (f64::from(extent) / f64::from(cell_size)).ceil().max(1.0);
            if cells > f64::from(NAV_MAX_SIDE) {
                Err(NavigationError::BadSide {
                    axis,
                    cells: cells.min(u64::MAX as f64) as u64,
                    max: NAV_MAX_SIDE,
                })
            } else {
                Ok(cells as u32)
            }
        };
        let width = side("x", max.x - min.x)?;
        let height = side("z", max.y - min.y)?;
        Self::new(min, cell_size, width, height)
    }

    /// The lower corner, world (x, z).
    pub fn origin(&self) -> Vec2 {
        self.origin
    }

    /// The upper corner, world (x, z).
    pub fn max(&self) -> Vec2 {
        self.origin + Vec2::new(self.width as f32, self.height as f32) * self.cell_size
    }

    /// Side of a cell, world units.
    pub fn cell_size(&self) -> f32 {
        self.cell_size
    }

    /// Cells along x.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Cells along z.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Whether each cell is blocked, row-major (`z·width + x`).
    pub fn blocked(&self) -> &[bool] {
        &self.blocked
    }

    /// Blocked cells.
    pub fn blocked_count(&self) -> usize {
        self.blocked.iter().filter(|&&b| b).count()
    }

    /// Whether cell `(x, z)` is blocked; a cell outside the grid is.
    pub fn is_blocked_cell(&self, x: u32, z: u32) -> bool {
        x >= self.width || z >= self.height || self.blocked[self.index(x, z)]
    }

    /// Blocks or frees cell `(x, z)`.
    ///
    /// # Panics
    ///
    /// If the cell is outside the grid.
    pub fn set_blocked_cell(&mut self, x: u32, z: u32, blocked: bool) {
        assert!(
            x < self.width && z < self.height,
            "cell ({x}, {z}) is outside the {}×{} grid",
            self.width,
            self.height
        );
        let i = self.index(x, z);
        self.blocked[i] = blocked;
    }

    /// Whether world point `p` is in a blocked cell; outside the grid (and
    /// a non-finite point) counts as blocked.
    pub fn is_blocked(&self, p: Vec2) -> bool {
        self.cell_of(p)
            .is_none_or(|(x, z)| self.is_blocked_cell(x, z))
    }

    /// The cell holding world point `p`, if it is on the grid.
    pub fn cell_of(&self, p: Vec2) -> Option<(u32, u32)> {
        let g = (p - self.origin) / self.cell_size;
        // Negated comparisons so that NaN is outside too.
        if !(g.x >= 0.0 && g.y >= 0.0) {
            return None;
        }
        let (x, z) = (g.x.floor(), g.y.floor());
        (x < self.width as f32 && z < self.height as f32).then_some((x as u32, z as u32))
    }

    /// The centre of cell `(x, z)`, world (x, z).
    pub fn cell_centre(&self, x: u32, z: u32) -> Vec2 {
        self.origin + (Vec2::new(x as f32, z as f32) + 0.5) * self.cell_size
    }

    /// Blocks the cells whose centre is within `radius` of `centre`.
    ///
    /// # Panics
    ///
    /// If `centre` or `radius` is not finite or `radius` is negative
    /// ([`Self::try_block_circle`] returns the error instead).
    pub fn block_circle(&mut self, centre: Vec2, radius: f32) {
        if let Err(error) = self.try_block_circle(centre, radius) {
            panic!("{error}");
        }
    }

    /// Blocks the cells whose centre is within `radius` of `centre`, or
    /// says why the circle is invalid.
    pub fn try_block_circle(&mut self, centre: Vec2, radius: f32) -> Result<(), NavigationError> {
        check_circle("circle obstacle", centre, radius)?;
        self.block_inside(centre, centre - radius, centre + radius, |p| {
            p.distance_squared(centre) <= radius * radius
        });
        Ok(())
    }

    /// Blocks the cells whose centre is in the box `[min, max]`.
    ///
    /// # Panics
    ///
    /// If a corner is not finite or `max < min` on an axis
    /// ([`Self::try_block_rect`] returns the error instead).
    pub fn block_rect(&mut self, min: Vec2, max: Vec2) {
        if let Err(error) = self.try_block_rect(min, max) {
            panic!("{error}");
        }
    }

    /// Blocks the cells whose centre is in the box `[min, max]`, or says
    /// why the box is invalid.
    pub fn try_block_rect(&mut self, min: Vec2, max: Vec2) -> Result<(), NavigationError> {
        check_rect("box obstacle", min, max)?;
        self.block_inside((min + max) * 0.5, min, max, |_| true);
        Ok(())
    }

    /// Blocks the cells whose centre is inside the polygon `points` (in
    /// order, either winding; closed implicitly), by the even-odd rule, so
    /// a self-intersecting outline leaves its doubly covered parts free.
    pub fn block_polygon(&mut self, points: &[Vec2]) -> Result<(), NavigationError> {
        if points.len() < 3 {
            return Err(NavigationError::PolygonTooSmall {
                points: points.len(),
            });
        }
        for (i, &p) in points.iter().enumerate() {
            check_finite(|| format!("polygon obstacle vertex {i}"), p)?;
        }
        let (lo, hi) = points.iter().fold((points[0], points[0]), |(lo, hi), &p| {
            (lo.min(p), hi.max(p))
        });
        let mut covered = 0usize;
        if let Some(span) = self.centres_in(lo, hi) {
            let mut crossings: Vec<f32> = Vec::with_capacity(8);
            for z in span.z.0..=span.z.1 {
                let y = self.cell_centre(0, z).y;
                crossings.clear();
                for (k, &a) in points.iter().enumerate() {
                    let b = points[(k + 1) % points.len()];
                    if (a.y > y) != (b.y > y) {
                        crossings.push(a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y));
                    }
                }
                crossings.sort_unstable_by(f32::total_cmp);
                for pair in crossings.chunks_exact(2) {
                    // Centres in [pair[0], pair[1]).
                    // (A NaN from overflowing coordinates sorts last and
                    // makes an empty span.)
                    let x0 = self.first_column_at(pair[0]);
                    let x1 = self.first_column_at(pair[1]).max(x0);
                    for x in x0..x1 {
                        let i = self.index(x, z);
                        self.blocked[i] = true;
                    }
                    covered += (x1 - x0) as usize;
                }
            }
        }
        if covered == 0 {
            for &p in points {
                self.block_point(p);
            }
        }
        Ok(())
    }

    /// The cells whose centre lies in `[min, max]`, or `None` when none do.
    pub(crate) fn centres_in(&self, min: Vec2, max: Vec2) -> Option<CellSpan> {
        let lo = ((min - self.origin) / self.cell_size - 0.5)
            .ceil()
            .max(Vec2::ZERO);
        let hi = ((max - self.origin) / self.cell_size - 0.5).floor();
        let last = Vec2::new(self.width as f32 - 1.0, self.height as f32 - 1.0);
        let hi = hi.min(last);
        (lo.x <= hi.x && lo.y <= hi.y).then_some(CellSpan {
            x: (lo.x as u32, hi.x as u32),
            z: (lo.y as u32, hi.y as u32),
        })
    }

    /// Row-major index of cell `(x, z)`.
    pub(crate) fn index(&self, x: u32, z: u32) -> usize {
        z as usize * self.width as usize + x as usize
    }

    /// The first column whose centre is at or beyond world x `at`, clamped
    /// to `0..=width`.
    fn first_column_at(&self, at: f32) -> u32 {
        let c = ((at - self.origin.x) / self.cell_size - 0.5).ceil();
        c.clamp(0.0, self.width as f32) as u32
    }

    /// Blocks the cells of `[min, max]` whose centre passes `inside`; if
    /// none does, the cell holding `centre`.
    fn block_inside(&mut self, centre: Vec2, min: Vec2, max: Vec2, inside: impl Fn(Vec2) -> bool) {
        let mut covered = false;
        if let Some(span) = self.centres_in(min, max) {
            for z in span.z.0..=span.z.1 {
                for x in span.x.0..=span.x.1 {
                    if inside(self.cell_centre(x, z)) {
                        let i = self.index(x, z);
                        self.blocked[i] = true;
                        covered = true;
                    }
                }
            }
        }
        if !covered {
            self.block_point(centre);
        }
    }

    /// Blocks the cell holding `p`, if any.
    fn block_point(&mut self, p: Vec2) {
        if let Some((x, z)) = self.cell_of(p) {
            let i = self.index(x, z);
            self.blocked[i] = true;
        }
    }
}

/// `Ok` for a finite circle of non-negative radius.
pub(crate) fn check_circle(what: &str, centre: Vec2, radius: f32) -> Result<(), NavigationError> {
    check_finite(|| format!("{what}'s centre"), centre)?;
    check_finite_scalar(|| format!("{what}'s radius"), radius)?;
    if radius < 0.0 {
        return Err(NavigationError::InvalidShape {
            what: format!("{what} of radius {radius}"),
            problem: "its radius must be at least 0",
        });
    }
    Ok(())
}

/// `Ok` for a finite box with `min <= max` on both axes.
pub(crate) fn check_rect(what: &str, min: Vec2, max: Vec2) -> Result<(), NavigationError> {
    check_finite(|| format!("{what}'s min"), min)?;
    check_finite(|| format!("{what}'s max"), max)?;
    if max.x < min.x || max.y < min.y {
        return Err(NavigationError::InvalidShape {
            what: format!("{what} [{min}, {max}]"),
            problem: "its max must be at least its min on both axes",
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_shape_is_drawn_or_refused_without_a_panic(
            points in proptest::collection::vec((any::<f32>(), any::<f32>()), 0..8),
            radius in any::<f32>(),
        ) {
            let mut grid = ObstacleGrid::new(Vec2::new(-8.0, -8.0), 0.5, 32, 32).unwrap();
            let points: Vec<Vec2> = points.into_iter().map(|(x, z)| Vec2::new(x, z)).collect();
            let _ = grid.block_polygon(&points);
            if let Some(&p) = points.first() {
                let _ = grid.try_block_circle(p, radius);
                let _ = grid.try_block_rect(p, p + radius.abs());
            }
        }
    }

    /// The grid drawn as text, `#` blocked, row z = 0 first.
    fn picture(grid: &ObstacleGrid) -> Vec<String> {
        (0..grid.height())
            .map(|z| {
                (0..grid.width())
                    .map(|x| if grid.is_blocked_cell(x, z) { '#' } else { '.' })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn cells_map_to_world_and_back() {
        let grid = ObstacleGrid::new(Vec2::new(-2.0, 3.0), 0.5, 8, 4).unwrap();
        assert_eq!(grid.cell_centre(0, 0), Vec2::new(-1.75, 3.25));
        assert_eq!(grid.cell_of(Vec2::new(-1.75, 3.25)), Some((0, 0)));
        assert_eq!(grid.cell_of(Vec2::new(1.99, 4.99)), Some((7, 3)));
        assert_eq!(
            grid.cell_of(Vec2::new(2.0, 4.0)),
            None,
            "the far edge is outside"
        );
        assert_eq!(grid.cell_of(Vec2::new(-2.01, 3.0)), None);
        assert_eq!(grid.cell_of(Vec2::NAN), None);
        assert!(
            grid.is_blocked(Vec2::new(100.0, 0.0)),
            "outside counts as blocked"
        );
        assert!(!grid.is_blocked(Vec2::new(0.0, 3.5)));
        assert_eq!(grid.max(), Vec2::new(2.0, 5.0));
    }

    #[test]
    fn covering_rounds_up_and_keeps_the_corner() {
        let grid =
            ObstacleGrid::covering(Vec2::new(-30.0, -22.0), Vec2::new(30.0, 22.0), 0.5).unwrap();
        assert_eq!((grid.width(), grid.height()), (120, 88));
        let grid = ObstacleGrid::covering(Vec2::ZERO, Vec2::new(1.1, 0.0), 0.5).unwrap();
        assert_eq!((grid.width(), grid.height()), (3, 1));
        assert!(matches!(
            ObstacleGrid::covering(Vec2::ZERO, Vec2::splat(1e6), 1.0),
            Err(NavigationError::BadSide { axis: "x", .. })
        ));
    }

    #[test]
    fn bad_grids_are_errors_that_say_why() {
        let nan = ObstacleGrid::new(Vec2::new(f32::NAN, 0.0), 1.0, 4, 4).unwrap_err();
        assert!(nan.to_string().contains("grid origin"), "{nan}");
        for size in [0.0, -1.0, f32::INFINITY, f32::NAN] {
            assert!(matches!(
                ObstacleGrid::new(Vec2::ZERO, size, 4, 4),
                Err(NavigationError::BadCellSize(_))
            ));
        }
        let zero = ObstacleGrid::new(Vec2::ZERO, 1.0, 0, 4).unwrap_err();
        assert!(matches!(
            zero,
            NavigationError::BadSide {
                axis: "x",
                cells: 0,
                ..
            }
        ));
        let big = ObstacleGrid::new(Vec2::ZERO, 1.0, 4, NAV_MAX_SIDE + 1).unwrap_err();
        assert!(big.to_string().contains("4097"), "{big}");
        let overflow = ObstacleGrid::new(Vec2::ZERO, 1e36, 4096, 4).unwrap_err();
        assert!(matches!(overflow, NavigationError::NonFinite { .. }));
        let mut grid = ObstacleGrid::new(Vec2::ZERO, 1.0, 4, 4).unwrap();
        assert!(
            grid.try_block_circle(Vec2::new(f32::NAN, 0.0), 1.0)
                .is_err()
        );
        assert!(grid.try_block_circle(Vec2::ZERO, -1.0).is_err());
        assert!(grid.try_block_rect(Vec2::ONE, Vec2::ZERO).is_err());
        assert!(matches!(
            grid.block_polygon(&[Vec2::ZERO, Vec2::ONE]),
            Err(NavigationError::PolygonTooSmall { points: 2 })
        ));
        let error = grid
            .block_polygon(&[Vec2::ZERO, Vec2::ONE, Vec2::new(0.0, f32::INFINITY)])
            .unwrap_err();
        assert!(error.to_string().contains("vertex 2"), "{error}");
        assert_eq!(grid.blocked_count(), 0, "a refused shape blocks nothing");
        // Finite but overflowing arithmetic: no panic.
        let huge = [
            Vec2::new(-3e38, -3e38),
            Vec2::new(3e38, -3e38),
            Vec2::new(0.0, 3e38),
        ];
        grid.block_polygon(&huge).unwrap();
        grid.block_circle(Vec2::splat(3e38), 3e38);
        grid.block_rect(Vec2::splat(-3e38), Vec2::splat(3e38));
    }

    #[test]
    #[should_panic(expected = "circle obstacle")]
    fn block_circle_panics_on_a_nan_centre() {
        let mut grid = ObstacleGrid::new(Vec2::ZERO, 1.0, 4, 4).unwrap();
        grid.block_circle(Vec2::NAN, 1.0);
    }

    #[test]
    fn circles_and_boxes_block_the_cells_whose_centre_they_hold() {
        let mut grid = ObstacleGrid::new(Vec2::ZERO, 1.0, 7, 7).unwrap();
        grid.block_circle(Vec2::new(3.5, 3.5), 1.0);
        grid.block_rect(Vec2::new(0.0, 0.0), Vec2::new(1.5, 0.5));
        assert_eq!(
            picture(&grid),
            [
                "##.....", //
                ".......", "...#...", "..###..", "...#...", ".......", ".......",
            ]
        );
        // Smaller than a cell and between centres: the cell holding it.
        let mut grid = ObstacleGrid::new(Vec2::ZERO, 1.0, 3, 3).unwrap();
        grid.block_circle(Vec2::new(1.9, 1.1), 0.2);
        assert_eq!(picture(&grid), ["...", ".#.", "..."]);
        // Off the grid: nothing.
        grid.block_rect(Vec2::splat(10.0), Vec2::splat(11.0));
        assert_eq!(grid.blocked_count(), 1);
    }

    #[test]
    fn polygons_rasterise_by_cell_centre() {
        // A right triangle with legs 6 along x and z from the origin: the
        // centres with x + z < 6 are inside (those on
        // the hypotenuse are not: half-open).
        let mut grid = ObstacleGrid::new(Vec2::ZERO, 1.0, 7, 7).unwrap();
        let triangle = [Vec2::ZERO, Vec2::new(6.0, 0.0), Vec2::new(0.0, 6.0)];
        grid.block_polygon(&triangle).unwrap();
        assert_eq!(
            picture(&grid),
            [
                "#####..", //
                "####...", "###....", "##.....", "#......", ".......", ".......",
            ]
        );
        // An L, clockwise, offset by half a cell's rounding.
        let mut grid = ObstacleGrid::new(Vec2::new(-1.0, -1.0), 1.0, 6, 6).unwrap();
        let l = [
            Vec2::new(0.0, 0.0),
            Vec2::new(0.0, 4.0),
            Vec2::new(1.0, 4.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(3.0, 1.0),
            Vec2::new(3.0, 0.0),
        ];
        grid.block_polygon(&l).unwrap();
        assert_eq!(
            picture(&grid),
            [
                "......", //
                ".###..", ".#....", ".#....", ".#....", "......",
            ]
        );
        // Even-odd: a pentagram leaves its middle free.
        let mut grid = ObstacleGrid::new(Vec2::splat(-5.0), 0.5, 20, 20).unwrap();
        let star: Vec<Vec2> = (0..5)
            .map(|k| {
                let a = std::f32::consts::TAU * (k * 2) as f32 / 5.0;
                Vec2::new(a.sin(), a.cos()) * 4.5
            })
            .collect();
        grid.block_polygon(&star).unwrap();
        assert!(
            !grid.is_blocked(Vec2::new(0.25, 0.25)),
            "the middle is covered twice"
        );
        assert!(
            grid.is_blocked(Vec2::new(0.25, 3.0)),
            "a point is covered once"
        );
    }

    #[test]
    fn cell_spans_clip_to_the_grid() {
        let grid = ObstacleGrid::new(Vec2::ZERO, 1.0, 4, 4).unwrap();
        let all = grid
            .centres_in(Vec2::splat(-9.0), Vec2::splat(9.0))
            .unwrap();
        assert_eq!(
            all,
            CellSpan {
                x: (0, 3),
                z: (0, 3)
            }
        );
        let one = grid.centres_in(Vec2::splat(1.5), Vec2::splat(1.5)).unwrap();
        assert_eq!(
            one,
            CellSpan {
                x: (1, 1),
                z: (1, 1)
            }
        );
        assert_eq!(grid.centres_in(Vec2::splat(1.6), Vec2::splat(2.4)), None);
        assert_eq!(grid.centres_in(Vec2::splat(5.0), Vec2::splat(9.0)), None);
    }
}
