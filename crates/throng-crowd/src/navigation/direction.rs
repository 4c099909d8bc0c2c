//! Directions of travel: per cell, the unit vector down the distance
//! field's gradient, checked against the grid so that it never leads into
//! a wall.
//!
//! The gradient is by central differences where both neighbours along an
//! axis are reachable, one-sided where one is, zero along an axis where
//! neither is. Its negation is kept when the 8-neighbour it points at
//! (rounded to the nearest 45°) is a legal step — free, and for a diagonal
//! both cells beside it free (no corner cutting) — of strictly smaller
//! distance. Otherwise (a ridge where fronts meet, a gradient across a
//! corner, one pointing into a wall) the direction is that of the legal
//! step to the 8-neighbour of least distance. So a walk that steps, cell
//! by cell, to the neighbour its direction points at only goes downhill
//! through free cells, and ends in a goal cell.
//!
//! Goal, blocked and unreachable cells have no direction (zero).

use throng_core::navigation::{GpuNavCell, NAV_UNREACHABLE};

use super::distance::Eikonal;

/// tan 22.5°: the bound between an axis step and a diagonal one.
const TAN_22_5: f32 = 0.414_213_57;

/// Writes one layer's cells from the solved `eikonal` and the grid's
/// `clearance` (row-major, world units) into `out` (row-major).
pub(crate) fn write_layer(
    eikonal: &Eikonal,
    clearance: &[f32],
    width: usize,
    out: &mut [GpuNavCell],
) {
    let s = eikonal.stride;
    let n = &eikonal.nodes;
    let rows = out
        .chunks_exact_mut(width)
        .zip(clearance.chunks_exact(width));
    for (z, (out, clearance)) in rows.enumerate() {
        let first = (z + 1) * s + 1;
        for (x, (record, &clearance)) in out.iter_mut().zip(clearance).enumerate() {
            let i = first + x;
            let here = n[i].distance;
            let (dir, distance) = if here == f32::INFINITY {
                ([0.0, 0.0], NAV_UNREACHABLE)
            } else if here == 0.0 {
                ([0.0, 0.0], 0.0)
            } else {
                (direction(eikonal, i), here)
            };
            *record = GpuNavCell {
                dir_x: dir[0],
                dir_z: dir[1],
                distance,
                clearance,
            };
        }
    }
}

/// The direction of travel at reachable, non-goal padded cell `i`.
fn direction(eikonal: &Eikonal, i: usize) -> [f32; 2] {
    let s = eikonal.stride as isize;
    let n = &eikonal.nodes;
    let d = |i: usize| n[i].distance;
    let here = d(i);
    let slope = |back: f32, ahead: f32| match (back.is_finite(), ahead.is_finite()) {
        (true, true) => 0.5 * (ahead - back),
        (false, true) => ahead - here,
        (true, false) => here - back,
        (false, false) => 0.0,
    };
    let gx = slope(d(i - 1), d(i + 1));
    let gz = slope(d(i - s as usize), d(i + s as usize));
    let length = (gx * gx + gz * gz).sqrt();
    // The gradient's length is about the cell's cost (≥ cell_size); far
    // less is a ridge or a saddle.
    let degenerate = length <= 1e-3 * n[i].step;
    if !degenerate {
        let (vx, vz) = (-gx / length, -gz / length);
        let (ax, az) = (vx.abs(), vz.abs());
        let ox = if ax > az * TAN_22_5 {
            vx.signum() as isize
        } else {
            0
        };
        let oz = if az > ax * TAN_22_5 {
            vz.signum() as isize
        } else {
            0
        };
        if legal_descent(eikonal, i, ox, oz) {
            return [vx, vz];
        }
    }
    // The steepest legal step.
    let mut best: Option<(f32, isize, isize)> = None;
    for oz in -1..=1 {
        for ox in -1..=1 {
            if (ox, oz) != (0, 0) && legal_descent(eikonal, i, ox, oz) {
                let j = (i as isize + ox + oz * s) as usize;
                if best.is_none_or(|(v, _, _)| d(j) < v) {
                    best = Some((d(j), ox, oz));
                }
            }
        }
    }
    match best {
        Some((_, ox, oz)) => {
            let (vx, vz) = (ox as f32, oz as f32);
            let n = (vx * vx + vz * vz).sqrt();
            [vx / n, vz / n]
        }
        None => [0.0, 0.0],
    }
}

/// Whether stepping from padded cell `i` by `(ox, oz)` (not both zero)
/// goes to a reachable cell of strictly smaller distance without cutting a
/// blocked corner.
fn legal_descent(eikonal: &Eikonal, i: usize, ox: isize, oz: isize) -> bool {
    if ox == 0 && oz == 0 {
        return false;
    }
    let s = eikonal.stride as isize;
    let at = |dx: isize, dz: isize| (i as isize + dx + dz * s) as usize;
    let n = &eikonal.nodes;
    let lower = n[at(ox, oz)].distance < n[i].distance;
    let corner_free = ox == 0 || oz == 0 || (n[at(ox, 0)].is_free() && n[at(0, oz)].is_free());
    lower && corner_free
}
