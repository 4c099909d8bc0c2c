//! Level-of-detail choice: the hysteresis band around each LOD's screen
//! size, the choice itself ([`select_lod`]), the mesh–impostor cross-fade
//! across the band and the debug tints per LOD. Plain functions of sizes,
//! below both the per-model data that places the impostor in its chain
//! (`models.rs`) and the draw lists that choose per instance (`draw/`).

use throng_core::gpu::LOD_DITHER_LEVELS;

/// Relative band around each LOD threshold inside which an instance keeps
/// its LOD (avoids popping back and forth at the boundary).
pub const LOD_HYSTERESIS: f32 = 0.15;

/// Record tints (RGBA8, `r | g << 8 | b << 16 | a << 24`) showing LOD 0, 1,
/// 2, 3+ when [`DrawView::lod_tints`] is on: green, blue, magenta, red.
///
/// [`DrawView::lod_tints`]: super::DrawView::lod_tints
pub const LOD_TINTS: [u32; 4] = [0xff4c_ff4c, 0xffff_8c59, 0xffe6_4cff, 0xff40_40ff];

/// The cross-fade between a model's last mesh LOD and its impostor, for an
/// instance of projected size `size` and the switch at `threshold`: across
/// the hysteresis band (`threshold · (1 ± LOD_HYSTERESIS)`) the fraction
/// drawn as the mesh, in [`LOD_DITHER_LEVELS`] steps: 0 below the band
/// (impostor only), [`LOD_DITHER_LEVELS`] above it (mesh only), both
/// halves in between ([`InstanceRecord::with_lod_dither`]).
///
/// [`InstanceRecord::with_lod_dither`]: throng_core::gpu::InstanceRecord::with_lod_dither
pub fn impostor_fade_level(size: f32, threshold: f32) -> u32 {
    let low = threshold * (1.0 - LOD_HYSTERESIS);
    let f = (size - low) / (2.0 * LOD_HYSTERESIS * threshold);
    let levels = LOD_DITHER_LEVELS as f32;
    (f * levels).round().clamp(0.0, levels) as u32
}

/// LOD for a projected size, given the previous LOD and each LOD's smallest
/// screen size (see [`throng_core::model::Lod::screen_size`]).
pub fn select_lod(size: f32, sizes: &[f32], current: usize) -> usize {
    let last = sizes.len().saturating_sub(1);
    let first_at = |scale: f32| {
        sizes
            .iter()
            .position(|&t| size >= t * scale)
            .unwrap_or(last)
    };
    let finer = first_at(1.0 + LOD_HYSTERESIS);
    let coarser = first_at(1.0 - LOD_HYSTERESIS);
    if finer < current {
        finer
    } else if coarser > current {
        coarser
    } else {
        current.min(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_impostor_fade_spans_the_hysteresis_band() {
        let t = 0.1;
        assert_eq!(impostor_fade_level(t * (1.0 - LOD_HYSTERESIS) * 0.99, t), 0);
        assert_eq!(impostor_fade_level(t, t), LOD_DITHER_LEVELS / 2);
        assert_eq!(
            impostor_fade_level(t * (1.0 + LOD_HYSTERESIS) * 1.01, t),
            LOD_DITHER_LEVELS
        );
    }

    #[test]
    fn lod_selection_has_hysteresis() {
        let sizes = [0.25, 0.1, 0.0];
        assert_eq!(select_lod(0.5, &sizes, 0), 0);
        assert_eq!(select_lod(0.24, &sizes, 0), 0, "inside the band: stays");
        assert_eq!(select_lod(0.2, &sizes, 0), 1, "below the band: coarser");
        assert_eq!(select_lod(0.26, &sizes, 1), 1, "inside the band: stays");
        assert_eq!(select_lod(0.3, &sizes, 1), 0, "above the band: finer");
        assert_eq!(select_lod(0.001, &sizes, 0), 2, "straight to the coarsest");
        assert_eq!(select_lod(0.9, &sizes, 2), 0, "straight to the finest");
        assert_eq!(select_lod(0.5, &[0.0], 0), 0, "one LOD");
    }
}
