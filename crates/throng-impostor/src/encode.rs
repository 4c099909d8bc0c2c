//! [`encode`]: an atlas image in its [`TextureCodec`], on the CPU, in
//! strips of block rows on rayon's threads, each strip encoded by the
//! contract's [`encode_level`] (the one BC encoder, which the bake's images
//! use too; BC7's opaque profile for a strip with no transparent texel).
//! Blocks are independent, so the output does not depend on the thread
//! count (nor on the adapter the images were captured on, given the same
//! captured texels).

use throng_core::texture_codec::{BLOCK, TextureCodec, encode_level};

/// Block rows encoded as one task.
const STRIP_BLOCK_ROWS: usize = 8;

/// `rgba` (RGBA8, `layers` layers of `side`², rows top to bottom) in
/// `codec`. `side` must be a multiple of [`BLOCK`] for a block codec and `rgba` hold
/// every layer (else `None`).
pub fn encode(codec: TextureCodec, rgba: &[u8], side: u32, layers: u32) -> Option<Vec<u8>> {
    use rayon::prelude::*;
    if rgba.len() as u64 != TextureCodec::Rgba8.image_bytes(side, layers) || !codec.fits(side) {
        return None;
    }
    if !codec.is_block() {
        return Some(rgba.to_vec());
    }
    let side = side as usize;
    let strip_rows = STRIP_BLOCK_ROWS * BLOCK as usize;
    // Strips are cut per layer, so a strip never spans two layers.
    let mut out = vec![0u8; codec.image_bytes(side as u32, layers) as usize];
    let layer_in = side * side * 4;
    let layer_out = side * side;
    out.par_chunks_mut(layer_out)
        .zip(rgba.par_chunks(layer_in))
        .for_each(|(out, rgba)| {
            out.par_chunks_mut(strip_rows * side)
                .zip(rgba.par_chunks(strip_rows * side * 4))
                .for_each(|(blocks, texels)| {
                    let rows = (texels.len() / (side * 4)) as u32;
                    let encoded = encode_level(codec, texels, side as u32, rows)
                        .expect("a strip holds whole rows of whole blocks");
                    blocks.copy_from_slice(&encoded);
                });
        });
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use throng_core::texture_codec::decode;

    #[test]
    fn block_codecs_round_trip_within_a_few_levels_and_keep_coverage() {
        let side = 64u32;
        let layers = 2;
        let mut rgba = vec![0u8; (side * side * 4 * layers) as usize];
        // A disc of smooth colour on transparent black, per layer.
        for l in 0..layers {
            for y in 0..side {
                for x in 0..side {
                    let (dx, dy) = (x as f32 - 31.5, y as f32 - 31.5);
                    if dx * dx + dy * dy < 24.0 * 24.0 {
                        let i = (((l * side + y) * side + x) * 4) as usize;
                        rgba[i..i + 4].copy_from_slice(&[
                            (x * 4) as u8,
                            (y * 4) as u8,
                            (128 + l * 60) as u8,
                            255,
                        ]);
                    }
                }
            }
        }
        for codec in [TextureCodec::Bc3, TextureCodec::Bc7] {
            let blocks = encode(codec, &rgba, side, layers).unwrap();
            assert_eq!(blocks.len(), rgba.len() / 4);
            let back = decode(codec, &blocks, side, layers).unwrap();
            let worst = throng_core::texture_codec::worst_channel_difference(&rgba, &back);
            assert!(worst <= 12, "{codec:?}: worst channel difference {worst}");
            // Transparent texels stay transparent, opaque ones opaque.
            for (a, b) in rgba.chunks(4).zip(back.chunks(4)) {
                assert_eq!(a[3] == 0, b[3] == 0, "{codec:?}: {a:?} → {b:?}");
            }
            // Deterministic, and wrong sizes refused.
            assert_eq!(encode(codec, &rgba, side, layers).unwrap(), blocks);
            assert!(encode(codec, &rgba, side, layers + 1).is_none());
            assert!(encode(codec, &rgba[..rgba.len() - 4], side, layers).is_none());
            assert!(decode(codec, &blocks[1..], side, layers).is_none());
            assert_eq!(TextureCodec::from_u32(codec.to_u32()), Some(codec));
        }
        assert!(!TextureCodec::Bc3.fits(30) && TextureCodec::Rgba8.fits(30));
        assert_eq!(TextureCodec::from_u32(7), None);
    }
}
