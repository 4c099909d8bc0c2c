//! Where a depth pyramid's levels lie: the atlas layout that occlusion
//! culling's pyramid (`occlusion/pyramid.rs`) writes and the cull's late
//! phase (`passes/cull/`) reads, mirrored by `pyramid_layout.wgsl` beside
//! this file. Level 0 is the largest power of two at most the depth
//! buffer's size in each axis; each further level halves it, down to one
//! texel; even levels lie in one atlas, odd ones in another.

/// Format of the pyramid's levels.
pub const PYRAMID_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R32Float;

/// A pyramid as the cull's late phase reads it.
#[derive(Clone, Copy)]
pub struct PyramidRead<'a> {
    /// The atlas of the even levels and that of the odd ones.
    pub views: [&'a wgpu::TextureView; 2],
    /// Level 0's width and height, and the number of levels
    /// (`CullView::pyramid`).
    pub shape: [u32; 4],
}

/// A 1 × 1 pyramid of one level, bound where a cull phase reads none.
pub fn stand_in(device: &wgpu::Device) -> wgpu::TextureView {
    device
        .create_texture(&atlas_descriptor(
            "throng depth pyramid stand-in",
            (1, 1),
            wgpu::TextureUsages::TEXTURE_BINDING,
        ))
        .create_view(&Default::default())
}

/// The descriptor of a pyramid atlas (even or odd levels, or the
/// stand-in) of `size` texels in [`PYRAMID_FORMAT`], labelled `label`,
/// for `usage`.
pub fn atlas_descriptor(
    label: &str,
    size: (u32, u32),
    usage: wgpu::TextureUsages,
) -> wgpu::TextureDescriptor<'_> {
    wgpu::TextureDescriptor {
        usage,
        ..crate::device::textures::descriptor(label, (size.0, size.1, 1), PYRAMID_FORMAT)
    }
}

/// The largest power of two at most `n` (`n` ≥ 1).
fn floor_pow2(n: u32) -> u32 {
    1 << (31 - n.max(1).leading_zeros())
}

/// Level 0's size and the number of levels of the pyramid of a depth
/// buffer of `size`.
pub fn pyramid_shape(size: (u32, u32)) -> ((u32, u32), u32) {
    let level0 = (floor_pow2(size.0), floor_pow2(size.1));
    let levels = 32 - level0.0.max(level0.1).leading_zeros();
    (level0, levels)
}

/// The size of `level` of a pyramid whose level 0 is `size0` (mirrors
/// `pyramid_layout.wgsl`).
pub fn level_size(size0: (u32, u32), level: u32) -> (u32, u32) {
    ((size0.0 >> level).max(1), (size0.1 >> level).max(1))
}

/// Where `level` begins in its atlas (mirrors `pyramid_layout.wgsl`):
/// level 0 at the origin, the others in a column to its right.
pub fn level_origin(size0: (u32, u32), level: u32) -> (u32, u32) {
    if level == 0 {
        return (0, 0);
    }
    let y = (1..level).map(|j| (size0.1 >> j).max(1)).sum();
    (size0.0, y)
}

/// The size of an atlas holding every level of a pyramid whose level 0 is
/// `size0` and which has `levels`.
pub fn atlas_size(size0: (u32, u32), levels: u32) -> (u32, u32) {
    let column = (1..levels).map(|k| level_size(size0, k).1).sum::<u32>();
    (size0.0 + (size0.0 / 2).max(1), size0.1.max(column))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_levels_of_an_atlas_do_not_overlap_and_fit_in_it() {
        for size in [
            (640, 360),
            (1920, 1080),
            (1, 1),
            (257, 3),
            (3, 900),
            (2048, 2048),
        ] {
            let (size0, levels) = pyramid_shape(size);
            let atlas = atlas_size(size0, levels);
            let rects: Vec<_> = (0..levels)
                .map(|k| (level_origin(size0, k), level_size(size0, k)))
                .collect();
            for (k, &((x, y), (w, h))) in rects.iter().enumerate() {
                assert!(
                    x + w <= atlas.0 && y + h <= atlas.1,
                    "{size:?}: level {k} in {atlas:?}"
                );
                for &((x2, y2), (w2, h2)) in &rects[..k] {
                    let apart = x + w <= x2 || x2 + w2 <= x || y + h <= y2 || y2 + h2 <= y;
                    assert!(apart, "{size:?}: level {k} overlaps another");
                }
            }
        }
    }

    #[test]
    fn level_zero_is_the_power_of_two_below_and_levels_reach_one_texel() {
        assert_eq!(pyramid_shape((640, 360)), ((512, 256), 10));
        assert_eq!(pyramid_shape((1920, 1080)), ((1024, 1024), 11));
        assert_eq!(pyramid_shape((1, 1)), ((1, 1), 1));
        assert_eq!(pyramid_shape((256, 256)), ((256, 256), 9));
        assert_eq!(pyramid_shape((257, 3)), ((256, 2), 9));
    }
}
