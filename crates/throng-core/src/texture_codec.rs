//! How a `.throng`'s textures are stored — the impostor atlas's two images
//! and the materials' images with their mip chains: [`TextureCodec::Rgba8`]
//! (four bytes a texel), or BC blocks of 4 × 4 texels in 16 bytes (one
//! byte a texel), which keep all four channels (the atlas's coverage,
//! depth and normal need them, as does a masked material's alpha):
//! [`TextureCodec::Bc3`] (BC1 colour and a BC4 alpha) or
//! [`TextureCodec::Bc7`].
//!
//! The atlas defaults to BC3: on the Fox's atlas it encodes 16 times faster
//! than BC7's fastest profile with a similar error (RMS 11–16 levels a
//! colour channel against 7–12, 16–22 a normal channel against 13–20), and
//! its alpha keeps empty texels exactly empty (no halo of faint coverage
//! around a silhouette; BC7's fast profiles add one). Material images
//! default to BC7, whose error on smooth colour and normal maps is about
//! half BC1's (`throng_bake::textures`).
//!
//! Encoding runs at bake time ([`encode_level`]; the atlas's in strips on
//! rayon, `throng_impostor::encode`). Decoding ([`decode`],
//! [`decode_level`]) serves adapters without `TEXTURE_COMPRESSION_BC` and
//! the CPU's reads of coverage
//! ([`crate::impostor::ImpostorAtlas::cell_rects`]). Both are the
//! `block_compression` crate's (a port of Intel's ISPC texture compressor).
//! A mip level smaller than a block still takes a whole block, padded by
//! repeating its last column and row.

use block_compression::{BC7Settings, CompressionVariant};

/// How a bake stores the materials' images unless told otherwise.
pub const DEFAULT_IMAGE_CODEC: TextureCodec = TextureCodec::Bc7;

/// Texels a BC block spans along each side.
pub const BLOCK: u32 = 4;

/// How an atlas image is stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TextureCodec {
    /// RGBA8, four bytes a texel.
    Rgba8,
    /// BC7, one byte a texel; layer sides and cells are multiples of
    /// [`BLOCK`] (no block straddles two cells).
    Bc7,
    /// BC3 (BC1 colour, BC4 alpha), one byte a texel; sides and cells as
    /// BC7's.
    #[default]
    Bc3,
}

impl TextureCodec {
    /// The codec's number in the file (`IMPO`'s `codec`).
    pub fn to_u32(self) -> u32 {
        match self {
            TextureCodec::Rgba8 => 0,
            TextureCodec::Bc7 => 1,
            TextureCodec::Bc3 => 2,
        }
    }

    /// The codec numbered `n` in the file, if any.
    pub fn from_u32(n: u32) -> Option<Self> {
        match n {
            0 => Some(TextureCodec::Rgba8),
            1 => Some(TextureCodec::Bc7),
            2 => Some(TextureCodec::Bc3),
            _ => None,
        }
    }

    /// Bytes of one image of `layers` square layers `side` texels a side
    /// (`side` a multiple of [`BLOCK`] for a block codec).
    pub fn image_bytes(self, side: u32, layers: u32) -> u64 {
        (layers as u64).saturating_mul(self.level_bytes(side, side))
    }

    /// Bytes of one `width` × `height` image: a block codec stores whole
    /// blocks, so a mip level under 4 texels a side still takes one block
    /// along that side (as the GPU's copies expect).
    pub fn level_bytes(self, width: u32, height: u32) -> u64 {
        // At most (2³² − 1)² × 4, over u64 by 2 bits: saturated, as a
        // corrupt size is then simply too big.
        match self {
            TextureCodec::Rgba8 => (width as u64)
                .saturating_mul(height as u64)
                .saturating_mul(4),
            TextureCodec::Bc7 | TextureCodec::Bc3 => (width.div_ceil(BLOCK) as u64)
                .saturating_mul(height.div_ceil(BLOCK) as u64)
                .saturating_mul(16),
        }
    }

    /// Bytes of one row of blocks (or texels, for RGBA8) of a level
    /// `width` texels wide, and the rows a level `height` tall has: what a
    /// GPU copy's layout takes.
    pub fn rows(self, width: u32, height: u32) -> (u32, u32) {
        match self {
            TextureCodec::Rgba8 => (width * 4, height),
            TextureCodec::Bc7 | TextureCodec::Bc3 => {
                (width.div_ceil(BLOCK) * 16, height.div_ceil(BLOCK))
            }
        }
    }

    /// Bytes of a full mip chain of a `width` × `height` image.
    pub fn chain_bytes(self, width: u32, height: u32) -> u64 {
        (0..mip_levels(width, height))
            .map(|l| {
                let (w, h) = mip_size(width, height, l);
                self.level_bytes(w, h)
            })
            .sum()
    }

    /// The codec a `width` × `height` image asked to be stored in this one
    /// gets: itself, or RGBA8 when a side is not a whole number of blocks.
    pub fn for_size(self, width: u32, height: u32) -> TextureCodec {
        if self.fits(width) && self.fits(height) {
            self
        } else {
            TextureCodec::Rgba8
        }
    }

    /// Whether this codec compresses into blocks.
    pub fn is_block(self) -> bool {
        self != TextureCodec::Rgba8
    }

    /// Whether a layer side or cell of `texels` can be stored.
    pub fn fits(self, texels: u32) -> bool {
        self == TextureCodec::Rgba8 || texels.is_multiple_of(BLOCK)
    }

    /// A short name (`rgba8`, `bc7`).
    pub fn name(self) -> &'static str {
        match self {
            TextureCodec::Rgba8 => "rgba8",
            TextureCodec::Bc7 => "bc7",
            TextureCodec::Bc3 => "bc3",
        }
    }

    /// The `block_compression` variant of a block codec (`None`: RGBA8).
    pub fn variant(self) -> Option<CompressionVariant> {
        match self {
            TextureCodec::Rgba8 => None,
            TextureCodec::Bc7 => Some(CompressionVariant::BC7(BC7Settings::alpha_ultrafast())),
            TextureCodec::Bc3 => Some(CompressionVariant::BC3),
        }
    }
}

/// `bytes` (`layers` layers of `side`² in `codec`) as RGBA8; `None` if
/// the size does not match.
pub fn decode(codec: TextureCodec, bytes: &[u8], side: u32, layers: u32) -> Option<Vec<u8>> {
    if bytes.len() as u64 != codec.image_bytes(side, layers) || !codec.fits(side) {
        return None;
    }
    let layer = codec.level_bytes(side, side) as usize;
    let mut out = Vec::with_capacity(TextureCodec::Rgba8.image_bytes(side, layers) as usize);
    for blocks in bytes.chunks(layer.max(1)) {
        out.extend(decode_level(codec, blocks, side, side)?);
    }
    Some(out)
}

/// One `width` × `height` image (a mip level) in `codec` as RGBA8, rows top
/// to bottom; the texels a partial block pads with are dropped. `None` if
/// the size does not match.
pub fn decode_level(codec: TextureCodec, bytes: &[u8], width: u32, height: u32) -> Option<Vec<u8>> {
    if bytes.len() as u64 != codec.level_bytes(width, height) {
        return None;
    }
    let Some(variant) = codec.variant() else {
        return Some(bytes.to_vec());
    };
    let (pw, ph) = (
        width.div_ceil(BLOCK) * BLOCK,
        height.div_ceil(BLOCK) * BLOCK,
    );
    let mut padded = vec![0u8; (pw as usize) * (ph as usize) * 4];
    let block_row_in = (pw * BLOCK) as usize; // a block row's bytes (16 per 4 × 4 texels)
    let block_row_out = (pw * BLOCK * 4) as usize;
    for (rgba, blocks) in padded
        .chunks_mut(block_row_out)
        .zip(bytes.chunks(block_row_in))
    {
        block_compression::decode::decompress_blocks_as_rgba8(variant, pw, BLOCK, blocks, rgba);
    }
    if (pw, ph) == (width, height) {
        return Some(padded);
    }
    let row = (width * 4) as usize;
    Some(
        padded
            .chunks(pw as usize * 4)
            .take(height as usize)
            .flat_map(|r| &r[..row])
            .copied()
            .collect(),
    )
}

/// One `width` × `height` RGBA8 image (rows top to bottom) in `codec`, on
/// this thread; a partial block is padded by repeating the last column and
/// row. BC7 uses its opaque profile where every texel is opaque. `None` if
/// `rgba` does not hold the image.
pub fn encode_level(codec: TextureCodec, rgba: &[u8], width: u32, height: u32) -> Option<Vec<u8>> {
    if rgba.len() as u64 != TextureCodec::Rgba8.level_bytes(width, height)
        || width == 0
        || height == 0
    {
        return None;
    }
    let Some(mut variant) = codec.variant() else {
        return Some(rgba.to_vec());
    };
    if codec == TextureCodec::Bc7 && rgba.chunks_exact(4).all(|t| t[3] == 255) {
        // BC7's opaque profile: on the Fox's 1024² texture 5 times faster
        // than the alpha one (89 against 467 ms) for the same error (RMS
        // 0.56 against 0.59 levels), and alpha stays exactly 255.
        variant = CompressionVariant::BC7(BC7Settings::opaque_ultra_fast());
    }
    let (pw, ph) = (
        width.div_ceil(BLOCK) * BLOCK,
        height.div_ceil(BLOCK) * BLOCK,
    );
    let padded: std::borrow::Cow<[u8]> = if (pw, ph) == (width, height) {
        rgba.into()
    } else {
        let mut p = Vec::with_capacity((pw * ph * 4) as usize);
        for y in 0..ph {
            let row = (y.min(height - 1) * width * 4) as usize;
            for x in 0..pw {
                let at = row + (x.min(width - 1) * 4) as usize;
                p.extend_from_slice(&rgba[at..at + 4]);
            }
        }
        p.into()
    };
    let mut out = vec![0u8; codec.level_bytes(width, height) as usize];
    block_compression::encode::compress_rgba8(variant, &padded, &mut out, pw, ph, pw * 4);
    Some(out)
}

/// Mip levels of a full chain down to 1 × 1 for a `width` × `height` image.
pub fn mip_levels(width: u32, height: u32) -> u32 {
    32 - width.max(height).max(1).leading_zeros()
}

/// The size of mip level `level` of a `width` × `height` image.
pub fn mip_size(width: u32, height: u32, level: u32) -> (u32, u32) {
    ((width >> level).max(1), (height >> level).max(1))
}

/// The largest difference between two images' channels, byte by byte
/// (what a lossy codec moved the farthest): 0 for identical images.
pub fn worst_channel_difference(a: &[u8], b: &[u8]) -> u8 {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.abs_diff(*y))
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A smooth diagonal ramp of colour and alpha, `w` × `h` (smooth
    /// enough for BC1's four colours on a line a block).
    fn gradient(w: u32, h: u32) -> Vec<u8> {
        (0..h)
            .flat_map(|y| {
                (0..w).flat_map(move |x| {
                    let t = x + y;
                    [(t * 6) as u8, (40 + t * 3) as u8, 90, (255 - t * 2) as u8]
                })
            })
            .collect()
    }

    #[test]
    fn any_size_round_trips_within_a_few_levels() {
        for (w, h) in [(1, 1), (2, 3), (4, 4), (5, 9), (64, 16), (30, 7)] {
            let rgba = gradient(w, h);
            for codec in [TextureCodec::Rgba8, TextureCodec::Bc3, TextureCodec::Bc7] {
                let blocks = encode_level(codec, &rgba, w, h).unwrap();
                assert_eq!(
                    blocks.len() as u64,
                    codec.level_bytes(w, h),
                    "{codec:?} {w}×{h}"
                );
                let back = decode_level(codec, &blocks, w, h).unwrap();
                assert_eq!(back.len(), rgba.len(), "{codec:?} {w}×{h}");
                let worst = worst_channel_difference(&rgba, &back);
                assert!(
                    worst <= 16,
                    "{codec:?} {w}×{h}: worst channel difference {worst}"
                );
                assert!(decode_level(codec, &blocks[1..], w, h).is_none());
            }
        }
        assert!(encode_level(TextureCodec::Bc7, &[], 0, 0).is_none());
        assert!(encode_level(TextureCodec::Bc7, &[0; 12], 2, 2).is_none());
    }

    #[test]
    fn sizes_of_levels_and_chains() {
        assert_eq!(mip_levels(1, 1), 1);
        assert_eq!(mip_levels(1024, 256), 11);
        assert_eq!(mip_levels(5, 3), 3);
        assert_eq!(mip_size(1024, 256, 9), (2, 1));
        assert_eq!(mip_size(5, 3, 2), (1, 1));
        assert_eq!(TextureCodec::Bc7.level_bytes(2, 1), 16);
        assert_eq!(TextureCodec::Bc3.level_bytes(8, 5), 4 * 16);
        assert_eq!(TextureCodec::Rgba8.level_bytes(3, 2), 24);
        assert_eq!(TextureCodec::Bc7.rows(8, 5), (32, 2));
        assert_eq!(TextureCodec::Rgba8.rows(8, 5), (32, 5));
        assert_eq!(TextureCodec::Bc7.image_bytes(64, 3), 64 * 64 * 3);
        assert_eq!(
            TextureCodec::Rgba8.level_bytes(u32::MAX, u32::MAX),
            u64::MAX
        );
        assert_eq!(
            TextureCodec::Rgba8.image_bytes(u32::MAX, u32::MAX),
            u64::MAX
        );
    }
}
