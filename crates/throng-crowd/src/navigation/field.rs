//! The flow field: per goal layer, each cell's travel distance to the goal
//! and direction toward it, with the grid's clearance, laid out as the GPU
//! reads it ([`throng_core::navigation`]); and the CPU's reading of it,
//! the arithmetic of `throng-render/src/simulation/navigation.wgsl` (`nav_direction`,
//! `nav_distance`, `nav_clearance`).

use glam::Vec2;
use throng_core::navigation::{
    GpuNavCell, NAV_MAX_CELLS, NAV_MAX_GOALS, NAV_UNREACHABLE, NavigationParams,
};

use super::clearance::signed_clearance;
use super::direction::write_layer;
use super::distance::{Eikonal, FieldOptions};
use super::error::NavigationError;
use super::goal::Goal;
use super::grid::ObstacleGrid;

/// Distances and directions to each of a set of goals over an
/// [`ObstacleGrid`], one layer per goal, ready to upload.
///
/// Per layer and cell ([`GpuNavCell`]): `distance`, the travel distance in
/// world units from the cell's centre to the goal's cells over free cells
/// (weighted near walls, see [`FieldOptions`]; 0 in goal cells,
/// [`NAV_UNREACHABLE`] in blocked cells and where the goal cannot be
/// reached); `dir_x, dir_z`, the unit direction of travel (zero in goal,
/// blocked and unreachable cells); `clearance`, the signed distance to the
/// nearest obstacle, the same in every layer. Cells are layer-major then
/// row-major: `(layer·height + z)·width + x`.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowField {
    params: NavigationParams,
    goals: Vec<Goal>,
    cells: Vec<GpuNavCell>,
}

/// Threads a field's layers are solved on by default: every core the
/// system offers, or one where threads cannot be spawned (wasm32).
pub fn available_threads() -> usize {
    if cfg!(target_arch = "wasm32") {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

/// Most bytes the solver's buffers of the threads beyond the first may
/// take together: each has its own (13 bytes a padded cell), so a 4096²
/// field runs on at most 5 threads (218 MB each), a 1024² one on any.
pub const THREAD_WORK_BUDGET: u64 = 1 << 30;

/// Threads whose work buffers for a `width` × `height` grid fit
/// [`THREAD_WORK_BUDGET`] beyond the first.
fn threads_within_budget(width: u32, height: u32) -> usize {
    let padded = (u64::from(width) + 2) * (u64::from(height) + 2);
    1 + (THREAD_WORK_BUDGET / (padded * 13).max(1)) as usize
}

/// A cell outside the grid, as `nav_cell` in WGSL reads it.
fn outside(cell_size: f32) -> GpuNavCell {
    GpuNavCell {
        dir_x: 0.0,
        dir_z: 0.0,
        distance: NAV_UNREACHABLE,
        clearance: -cell_size,
    }
}

impl FlowField {
    /// The field of `goals` over `grid` with the default
    /// [`FieldOptions`].
    pub fn compute(grid: &ObstacleGrid, goals: &[Goal]) -> Result<Self, NavigationError> {
        Self::compute_with(grid, goals, &FieldOptions::default())
    }

    /// The field of `goals` over `grid`, paths weighed by `options`, its
    /// layers solved on as many threads as the system offers
    /// ([`Self::compute_on`]; one on wasm32). Every goal and the field's
    /// size are checked before any work.
    pub fn compute_with(
        grid: &ObstacleGrid,
        goals: &[Goal],
        options: &FieldOptions,
    ) -> Result<Self, NavigationError> {
        Self::compute_on(grid, goals, options, available_threads())
    }

    /// [`Self::compute_with`] on at most `threads` threads (0 or 1: this
    /// one alone; never more than one per goal). Each goal's layer is
    /// solved independently of the others from the same clearance, so the
    /// field is the same, bit for bit, on any number of threads.
    pub fn compute_on(
        grid: &ObstacleGrid,
        goals: &[Goal],
        options: &FieldOptions,
        threads: usize,
    ) -> Result<Self, NavigationError> {
        options.validate()?;
        if goals.is_empty() {
            return Err(NavigationError::NoGoals);
        }
        if goals.len() > NAV_MAX_GOALS as usize {
            return Err(NavigationError::TooManyGoals {
                count: goals.len(),
                max: NAV_MAX_GOALS,
            });
        }
        let (width, height, layers) = (grid.width(), grid.height(), goals.len() as u32);
        let per_layer = width as usize * height as usize;
        let total = per_layer as u64 * u64::from(layers);
        if total > NAV_MAX_CELLS {
            return Err(NavigationError::TooLarge {
                width,
                height,
                layers,
                cells: total,
                max: NAV_MAX_CELLS,
            });
        }
        let mut goal_cells = Vec::new();
        let mut ends = Vec::with_capacity(goals.len());
        for (k, goal) in goals.iter().enumerate() {
            goal.cells(k, grid, &mut goal_cells)?;
            ends.push(goal_cells.len());
        }
        let mut cells = allocate(width, height, total)?;

        let clearance = signed_clearance(grid);
        let eikonal = Eikonal::new(grid, &clearance, options);
        // Per layer, its goal cells and its share of the output.
        let starts = std::iter::once(0).chain(ends.iter().copied());
        let mut work: Vec<(&[u32], &mut [GpuNavCell])> = starts
            .zip(ends.iter().copied())
            .map(|(a, b)| &goal_cells[a..b])
            .zip(cells.chunks_exact_mut(per_layer))
            .collect();
        let solve = |mut eikonal: Eikonal, layers: &mut [(&[u32], &mut [GpuNavCell])]| {
            for (goal, out) in layers {
                eikonal.solve(goal);
                write_layer(&eikonal, &clearance, width as usize, out);
            }
        };
        let threads = threads
            .clamp(1, work.len())
            .min(threads_within_budget(width, height));
        if threads == 1 {
            solve(eikonal, &mut work);
        } else {
            let per_thread = work.len().div_ceil(threads);
            std::thread::scope(|scope| {
                let mut groups = work.chunks_mut(per_thread);
                let first = groups.next();
                for group in groups {
                    let e = eikonal.clone();
                    scope.spawn(move || solve(e, group));
                }
                if let Some(group) = first {
                    solve(eikonal, group);
                }
            });
        }
        let origin = grid.origin();
        Ok(Self {
            params: NavigationParams {
                origin_x: origin.x,
                origin_z: origin.y,
                cell_size: grid.cell_size(),
                width,
                height,
                layers,
                pad: [0; 2],
            },
            goals: goals.to_vec(),
            cells,
        })
    }

    /// What the GPU's navigation module reads.
    pub fn params(&self) -> NavigationParams {
        self.params
    }

    /// Every cell, layer-major then row-major, as the GPU reads them.
    pub fn cells(&self) -> &[GpuNavCell] {
        &self.cells
    }

    /// Goal layers (one per goal).
    pub fn layers(&self) -> u32 {
        self.params.layers
    }

    /// Cells along x.
    pub fn width(&self) -> u32 {
        self.params.width
    }

    /// Cells along z.
    pub fn height(&self) -> u32 {
        self.params.height
    }

    /// The grid's lower corner, world (x, z).
    pub fn origin(&self) -> Vec2 {
        Vec2::new(self.params.origin_x, self.params.origin_z)
    }

    /// Side of a cell, world units.
    pub fn cell_size(&self) -> f32 {
        self.params.cell_size
    }

    /// The goals, one per layer, as given.
    pub fn goals(&self) -> &[Goal] {
        &self.goals
    }

    /// Each layer's goal as a box `[min x, min z, max x, max z]`, as the
    /// GPU's `nav_goal_box` reads it: the goal's [`Goal::inner_box`]
    /// clipped to the grid (never empty: a goal has a cell on the grid).
    pub fn goal_boxes(&self) -> Vec<[f32; 4]> {
        let (lo, hi) = (self.origin(), self.origin() + self.extent());
        self.goals
            .iter()
            .map(|goal| {
                let (min, max) = goal.inner_box();
                let (min, max) = (min.clamp(lo, hi), max.clamp(lo, hi));
                [min.x, min.y, max.x, max.y]
            })
            .collect()
    }

    /// One layer's cells, row-major.
    pub fn layer(&self, layer: u32) -> Option<&[GpuNavCell]> {
        let n = self.width() as usize * self.height() as usize;
        let start = layer as usize * n;
        self.cells.get(start..start + n)
    }

    /// Cell `(x, z)` of `layer`.
    pub fn cell(&self, layer: u32, x: u32, z: u32) -> Option<GpuNavCell> {
        if x >= self.width() || z >= self.height() {
            return None;
        }
        self.layer(layer)
            .map(|cells| cells[z as usize * self.width() as usize + x as usize])
    }

    /// The cell of `layer` holding world point `p` (nearest-cell sampling),
    /// or `None` off the grid or past the last layer.
    pub fn sample(&self, layer: u32, p: Vec2) -> Option<GpuNavCell> {
        let g = (p - self.origin()) / self.cell_size();
        if !(g.x >= 0.0 && g.y >= 0.0) {
            return None;
        }
        // Saturating casts: a point far off the grid is off it still.
        self.cell(layer, g.x as u32, g.y as u32)
    }

    /// The signed clearance at world point `p`, bilinear between the four
    /// nearest cell centres, a cell off the grid counting as a blocked one
    /// of clearance `-cell_size` (as WGSL's `nav_clearance`).
    pub fn clearance_at(&self, p: Vec2) -> f32 {
        let (c, f) = self.corners(p);
        let v = |dx, dz| self.corner(0, c.0 + dx, c.1 + dz).clearance;
        let a = v(0, 0) + (v(1, 0) - v(0, 0)) * f.x;
        let b = v(0, 1) + (v(1, 1) - v(0, 1)) * f.x;
        a + (b - a) * f.y
    }

    /// The travel distance to `layer`'s goal from world point `p`:
    /// bilinear over those of the four nearest cells that reach it, `None`
    /// where none does or past the last layer (as WGSL's `nav_distance`).
    pub fn distance_at(&self, layer: u32, p: Vec2) -> Option<f32> {
        if layer >= self.layers() {
            return None;
        }
        let (c, f) = self.corners(p);
        let (mut sum, mut weight) = (0.0, 0.0);
        for (dx, dz, w) in weights(f) {
            let d = self.corner(layer, c.0 + dx, c.1 + dz).distance;
            if d >= 0.0 {
                sum += d * w;
                weight += w;
            }
        }
        (weight > 1e-6).then(|| sum / weight)
    }

    /// The direction of travel toward `layer`'s goal at world point `p`:
    /// the bilinear blend of the four nearest cells' directions, unit
    /// length, or zero where they cancel or have none; `None` past the last
    /// layer (as WGSL's `nav_direction`).
    pub fn direction_at(&self, layer: u32, p: Vec2) -> Option<Vec2> {
        if layer >= self.layers() {
            return None;
        }
        let (c, f) = self.corners(p);
        let mut sum = Vec2::ZERO;
        for (dx, dz, w) in weights(f) {
            let cell = self.corner(layer, c.0 + dx, c.1 + dz);
            sum += Vec2::new(cell.dir_x, cell.dir_z) * w;
        }
        let length = sum.length();
        Some(if length > 1e-6 {
            sum / length
        } else {
            Vec2::ZERO
        })
    }

    /// The grid's size, world units.
    fn extent(&self) -> Vec2 {
        Vec2::new(self.width() as f32, self.height() as f32) * self.cell_size()
    }

    /// The lower of the four cells around `p` and `p`'s place between their
    /// centres.
    fn corners(&self, p: Vec2) -> ((i64, i64), Vec2) {
        let g = (p - self.origin()) / self.cell_size() - 0.5;
        let c = g.floor();
        ((c.x as i64, c.y as i64), g - c)
    }

    /// Cell `(x, z)` of `layer`, or a blocked one off the grid.
    fn corner(&self, layer: u32, x: i64, z: i64) -> GpuNavCell {
        let on = x >= 0 && z >= 0;
        on.then(|| self.cell(layer, x as u32, z as u32))
            .flatten()
            .unwrap_or_else(|| outside(self.cell_size()))
    }
}

/// The four corners' offsets and bilinear weights at fraction `f`.
fn weights(f: Vec2) -> [(i64, i64, f32); 4] {
    [
        (0, 0, (1.0 - f.x) * (1.0 - f.y)),
        (1, 0, f.x * (1.0 - f.y)),
        (0, 1, (1.0 - f.x) * f.y),
        (1, 1, f.x * f.y),
    ]
}

/// The field's cells, zeroed, or an error when the host cannot give them
/// (checked before allocating, with the solver's work buffers).
fn allocate(width: u32, height: u32, total: u64) -> Result<Vec<GpuNavCell>, NavigationError> {
    let cell_bytes = std::mem::size_of::<GpuNavCell>() as u64;
    let padded = (u64::from(width) + 2) * (u64::from(height) + 2);
    let grid = u64::from(width) * u64::from(height);
    // Cells; per padded cell: free, step, tentative and distance; per cell:
    // clearance, and the distance transform's two bytes per lattice column.
    let needed = total * cell_bytes + padded * 13 + grid * 8;
    let out_of_memory = |available| NavigationError::OutOfMemory {
        cells: total,
        needed,
        available,
    };
    throng_core::host_memory::check(needed).map_err(out_of_memory)?;
    let mut cells = Vec::new();
    cells
        .try_reserve_exact(total as usize)
        .map_err(|_| out_of_memory(throng_core::host_memory::available_bytes().unwrap_or(0)))?;
    cells.resize(total as usize, GpuNavCell::default());
    Ok(cells)
}
