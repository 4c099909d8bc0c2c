//! Clearance: the exact signed Euclidean distance from each cell centre to
//! the boundary between free and blocked space, world units — positive in
//! free cells (the distance to the nearest blocked cell's square, the
//! outside of the grid counting as blocked), negative in blocked cells
//! (minus the distance to the nearest free cell's square).
//!
//! The nearest point of a union of cell squares to a cell centre has
//! coordinates on the half-cell lattice (a square's edge, or the centre's
//! own row or column), so the distance is exact on the lattice of half
//! cells: a point of it is a feature when it lies in the closed square of a
//! feature cell. The transform is Felzenszwalb and Huttenlocher's separable
//! one on squared distances (2012): first, per lattice column, the vertical
//! distance from each cell-centre row to the nearest feature (two sweeps
//! over the rows); then, per cell row, the lower envelope of the parabolas
//! `g(q)² + (p − q)²` over the `2·width + 1` lattice columns, read at the
//! cell centres. Work and memory are linear in the cells, about twice the
//! cells for each sign. Squared distances in half cells are integers, and
//! the envelope is built in exact integer arithmetic (boundaries between
//! parabolas kept as fractions, compared by cross-multiplying: no division
//! and no rounding); a square root is taken only for the cells kept.

use super::grid::ObstacleGrid;

/// Row distance meaning "no feature in this column".
const NONE: u16 = u16::MAX;

/// Signed clearance of every cell of `grid`, row-major, world units. A grid
/// with no free cell at all gets `-(width + height)·cell_size` everywhere.
pub(crate) fn signed_clearance(grid: &ObstacleGrid) -> Vec<f32> {
    let (width, height) = (grid.width() as usize, grid.height() as usize);
    let blocked = grid.blocked();
    let half = 0.5 * grid.cell_size();
    let mut work = Work::new(width, height);
    let mut clearance = vec![0.0f32; width * height];
    work.distances(blocked, true, |cell, d2| {
        if !blocked[cell] {
            clearance[cell] = (d2 as f64).sqrt() as f32 * half;
        }
    });
    if blocked.iter().any(|&b| b) {
        let none = -((width + height) as f32) * grid.cell_size();
        let free: Vec<bool> = blocked.iter().map(|&b| !b).collect();
        work.distances(&free, false, |cell, d2| {
            if blocked[cell] {
                clearance[cell] = if d2 == u64::MAX {
                    none
                } else {
                    -((d2 as f64).sqrt() as f32) * half
                };
            }
        });
    }
    clearance
}

/// The transform's buffers, reused by both signs.
struct Work {
    width: usize,
    height: usize,
    /// Per cell row and lattice column (`row·(2·width + 1) + column`): the
    /// vertical distance in cells to the nearest feature row, [`NONE`] if
    /// none.
    rows: Vec<u16>,
    /// Per lattice column: the last (then the next) feature row seen.
    seen: Vec<i32>,
    /// One row's lattice columns: whether each meets a feature square.
    covered: Vec<bool>,
    /// The lower envelope.
    envelope: Envelope,
    /// One row's squared vertical distances, half cells ([`FAR`]: none).
    f: Vec<i64>,
}

impl Work {
    fn new(width: usize, height: usize) -> Self {
        let columns = 2 * width + 1;
        Self {
            width,
            height,
            rows: vec![NONE; columns * height],
            seen: vec![0; columns],
            covered: vec![false; columns],
            envelope: Envelope {
                apex: vec![0; columns],
                num: vec![0; columns],
                den: vec![1; columns],
            },
            f: vec![0; columns],
        }
    }

    /// Calls `out(cell, d²)` with each cell centre's squared distance, in
    /// half cells, to the nearest point of the closed squares of the cells
    /// where `feature` is true (and of the outside of the grid if
    /// `border`); `u64::MAX` if there is none.
    fn distances(&mut self, feature: &[bool], border: bool, mut out: impl FnMut(usize, u64)) {
        let (width, height) = (self.width, self.height);
        let columns = 2 * width + 1;
        // Vertical sweeps: rows before (the grid's lower edge counting as
        // a feature row -1 when `border`), then rows after (the upper edge
        // as row `height`); a column with none seen is "far" (≥ NONE).
        let far = i32::from(NONE);
        self.seen.fill(if border { -1 } else { -far });
        self.sweep(feature, border, 0..height, |_, d| d);
        let after_last = height as i32;
        self.seen
            .fill(if border { after_last } else { after_last + far });
        self.sweep(feature, border, (0..height).rev(), u16::min);
        // Horizontal: the lower envelope per row.
        for z in 0..height {
            let row = &self.rows[z * columns..(z + 1) * columns];
            for (f, &k) in self.f.iter_mut().zip(row) {
                // k rows away: 2k - 1 half cells from the centre to the
                // nearer edge of that row's square; 0 in the row itself.
                *f = match k {
                    NONE => FAR,
                    0 => 0,
                    k => {
                        let d = 2 * i64::from(k) - 1;
                        d * d
                    }
                };
            }
            let e = &mut self.envelope;
            let n = e.build(&self.f);
            let mut k = 0;
            for x in 0..width {
                if n == 0 {
                    out(z * width + x, u64::MAX);
                    continue;
                }
                let p = 2 * x as i64 + 1;
                while k + 1 < n && e.num[k + 1] < p * e.den[k + 1] {
                    k += 1;
                }
                let q = e.apex[k] as i64;
                out(
                    z * width + x,
                    ((p - q) * (p - q) + self.f[q as usize]) as u64,
                );
            }
        }
    }

    /// One vertical sweep over the cell rows in `order`: per lattice
    /// column, the distance in rows from each row to the last feature row
    /// seen (`seen` holds where the sweep starts), capped at [`NONE`], and
    /// `keep(old, distance)` stored in `rows`.
    fn sweep(
        &mut self,
        feature: &[bool],
        border: bool,
        order: impl Iterator<Item = usize>,
        keep: impl Fn(u16, u16) -> u16,
    ) {
        let width = self.width;
        let columns = 2 * width + 1;
        let far = i32::from(NONE);
        for z in order {
            covered_columns(
                &feature[z * width..(z + 1) * width],
                border,
                &mut self.covered,
            );
            let out_row = &mut self.rows[z * columns..(z + 1) * columns];
            let z = z as i32;
            for ((seen, &covered), out) in self.seen.iter_mut().zip(&self.covered).zip(out_row) {
                if covered {
                    *seen = z;
                }
                *out = keep(*out, (z - *seen).abs().min(far) as u16);
            }
        }
    }
}

/// Which lattice columns meet the closed squares of the feature cells of
/// one cell row `row` (and the grid's edges when `border`): an odd column
/// runs through cell `c / 2`'s centre, an even one along the edge between
/// cells `c / 2 − 1` and `c / 2`.
fn covered_columns(row: &[bool], border: bool, covered: &mut [bool]) {
    let width = row.len();
    covered[0] = border || row[0];
    covered[2 * width] = border || row[width - 1];
    for (j, &f) in row.iter().enumerate() {
        covered[2 * j + 1] = f;
    }
    for j in 1..width {
        covered[2 * j] = row[j - 1] || row[j];
    }
}

/// `f` of a lattice column with no feature.
const FAR: i64 = i64::MAX;

/// The lower envelope of the parabolas `f[q] + (p − q)²` of a row: the
/// apexes of those on it, left to right, and where each takes over from the
/// one before, `num[k] / den[k]` (`den > 0`; `num[0]` unused, −∞).
struct Envelope {
    apex: Vec<u32>,
    num: Vec<i64>,
    den: Vec<i64>,
}

impl Envelope {
    /// Builds the envelope of the columns of `f` other than [`FAR`];
    /// returns how many parabolas it has (0 when there are none).
    ///
    /// Magnitudes: `f` and `q²` are below (2·4097)², so numerators below
    /// 2²⁸, denominators below 2¹⁵, products below 2⁴³.
    fn build(&mut self, f: &[i64]) -> usize {
        let mut n = 0usize;
        for (q, &fq) in f.iter().enumerate() {
            if fq == FAR {
                continue;
            }
            let q = q as i64;
            loop {
                if n == 0 {
                    self.apex[0] = q as u32;
                    n = 1;
                    break;
                }
                let v = i64::from(self.apex[n - 1]);
                // Where parabola q takes over from parabola v (v < q).
                let num = (fq + q * q) - (f[v as usize] + v * v);
                let den = 2 * (q - v);
                if n > 1 && num * self.den[n - 1] <= self.num[n - 1] * den {
                    n -= 1; // v is nowhere lowest.
                } else {
                    self.apex[n] = q as u32;
                    self.num[n] = num;
                    self.den[n] = den;
                    n += 1;
                    break;
                }
            }
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    /// The clearance by brute force: the distance from each centre to each
    /// opposite cell's square (and to the grid's edges for free cells).
    fn brute_force(grid: &ObstacleGrid) -> Vec<f32> {
        let (w, h) = (grid.width(), grid.height());
        let square_distance = |p: Vec2, x: u32, z: u32| {
            let lo = Vec2::new(x as f32, z as f32);
            let q = p.clamp(lo, lo + 1.0);
            p.distance(q)
        };
        let mut out = Vec::new();
        for z in 0..h {
            for x in 0..w {
                let p = Vec2::new(x as f32 + 0.5, z as f32 + 0.5);
                let blocked = grid.is_blocked_cell(x, z);
                let mut best = if blocked {
                    f32::INFINITY
                } else {
                    p.x.min(p.y).min(w as f32 - p.x).min(h as f32 - p.y)
                };
                for zz in 0..h {
                    for xx in 0..w {
                        if grid.is_blocked_cell(xx, zz) != blocked {
                            best = best.min(square_distance(p, xx, zz));
                        }
                    }
                }
                let d = best * grid.cell_size();
                out.push(if blocked { -d } else { d });
            }
        }
        out
    }

    #[test]
    fn one_blocked_cell_and_the_border() {
        let mut grid = ObstacleGrid::new(Vec2::ZERO, 2.0, 9, 7).unwrap();
        grid.set_blocked_cell(4, 3, true);
        let c = signed_clearance(&grid);
        let at = |x: usize, z: usize| c[z * 9 + x];
        assert_eq!(at(4, 3), -1.0, "half a cell to the free neighbours");
        assert_eq!(at(5, 3), 1.0, "half a cell to the blocked one's edge");
        assert_eq!(
            at(3, 2),
            2.0 * std::f32::consts::FRAC_1_SQRT_2,
            "to its corner"
        );
        assert_eq!(at(6, 3), 3.0);
        assert_eq!(at(0, 3), 1.0, "half a cell to the grid's edge");
        assert_eq!(at(8, 6), 1.0);
        assert_eq!(at(1, 1), 3.0, "1.5 cells to the lower and left edges");
    }

    #[test]
    fn matches_brute_force_on_random_obstacles() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        for (w, h, percent) in [
            (13, 9, 10),
            (20, 20, 40),
            (1, 6, 30),
            (7, 1, 50),
            (16, 11, 95),
        ] {
            let mut grid = ObstacleGrid::new(Vec2::ZERO, 0.5, w, h).unwrap();
            for z in 0..h {
                for x in 0..w {
                    grid.set_blocked_cell(x, z, next() % 100 < percent);
                }
            }
            let fast = signed_clearance(&grid);
            let slow = brute_force(&grid);
            for (i, (a, b)) in fast.iter().zip(&slow).enumerate() {
                assert!(
                    (a - b).abs() < 1e-5,
                    "{w}×{h} at {percent} %: cell ({}, {}) has {a}, brute force {b}",
                    i as u32 % w,
                    i as u32 / w
                );
            }
        }
    }

    #[test]
    fn an_all_blocked_grid_is_finite_and_negative() {
        let mut grid = ObstacleGrid::new(Vec2::ZERO, 1.0, 3, 2).unwrap();
        grid.block_rect(Vec2::ZERO, Vec2::new(3.0, 2.0));
        assert!(signed_clearance(&grid).iter().all(|&c| c == -5.0));
    }
}
