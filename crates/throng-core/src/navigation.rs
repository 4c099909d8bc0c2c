//! What a flow field is on the GPU: the layout the navigation module
//! (`throng-render/src/simulation/navigation.wgsl`) reads — the field's [`NavigationParams`]
//! and its cells ([`GpuNavCell`]), layer-major then row-major — and its
//! limits. The CPU computes fields (`throng_crowd::navigation`).

use bytemuck::{Pod, Zeroable};

/// What the navigation module reads (32 bytes), mirrored by WGSL's
/// `NavigationParams` in `throng-render/src/simulation/navigation.wgsl`. Cell `(x, z)` covers
/// world `[origin_x + x·cell_size, origin_x + (x + 1)·cell_size) ×
/// [origin_z + z·cell_size, …)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct NavigationParams {
    /// World x of the grid's corner.
    pub origin_x: f32,
    /// World z of the grid's corner.
    pub origin_z: f32,
    /// Side of a cell, world units.
    pub cell_size: f32,
    /// Cells along x.
    pub width: u32,
    /// Cells along z.
    pub height: u32,
    /// Goal layers.
    pub layers: u32,
    /// Padding to 32 bytes.
    pub pad: [u32; 2],
}

/// One cell of one goal layer (16 bytes), mirrored by WGSL's `NavCell`;
/// cell `(x, z)` of layer `l` is at `(l·height + z)·width + x`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuNavCell {
    /// Unit direction of travel toward the goal, x (zero in goal, blocked
    /// and unreachable cells).
    pub dir_x: f32,
    /// Unit direction of travel toward the goal, z.
    pub dir_z: f32,
    /// Travel distance to the goal region, world units
    /// ([`NAV_UNREACHABLE`] where there is none).
    pub distance: f32,
    /// Signed distance to the nearest obstacle, world units (negative
    /// inside one); the same in every layer.
    pub clearance: f32,
}

/// `distance` of a cell from which the goal cannot be reached (and of
/// blocked cells).
pub const NAV_UNREACHABLE: f32 = -1.0;

/// Largest side of a navigation grid, cells.
pub const NAV_MAX_SIDE: u32 = 4096;

/// Most goal layers of one field.
pub const NAV_MAX_GOALS: u32 = 64;

/// Most cells of one field, all layers together: 2²⁶ cells, 1 GiB of
/// [`GpuNavCell`]s (1024 × 1024 cells with 64 goals, or 4096 × 4096 with 4).
pub const NAV_MAX_CELLS: u64 = 1 << 26;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_have_the_sizes_wgsl_reads() {
        assert_eq!(std::mem::size_of::<NavigationParams>(), 32);
        assert_eq!(std::mem::size_of::<GpuNavCell>(), 16);
    }

    #[test]
    fn the_largest_field_fits_its_cell_limit() {
        let largest_side = u64::from(NAV_MAX_SIDE) * u64::from(NAV_MAX_SIDE);
        assert!(
            largest_side <= NAV_MAX_CELLS,
            "one layer of the largest grid must fit"
        );
        assert_eq!(1024 * 1024 * u64::from(NAV_MAX_GOALS), NAV_MAX_CELLS);
    }
}
