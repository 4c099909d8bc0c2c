//! How an impostor atlas's two images are stored: [`AtlasCodec::Rgba8`]
//! (four bytes a texel), or BC blocks of 4 × 4 texels in 16 bytes (one
//! byte a texel), which keep all four channels — the colour image's
//! coverage and the normal image's depth and coverage need them:
//! [`AtlasCodec::Bc3`] (BC1 colour and a BC4 alpha; the default) or
//! [`AtlasCodec::Bc7`]. On the Fox's atlas BC3 encodes 16 times faster
//! than BC7's fastest profile with a similar error (RMS 11–16 levels a
//! colour channel against 7–12, 16–22 a normal channel against 13–20), and
//! its alpha keeps empty texels exactly empty (no halo of faint coverage
//! around a silhouette; BC7's fast profiles add one). Encoding runs at
//! bake time (`throng_impostor::encode`);
//! decoding ([`decode`]) serves adapters without `TEXTURE_COMPRESSION_BC`
//! and the CPU's reads of coverage
//! ([`crate::impostor::ImpostorAtlas::cell_rects`]). Both are the
//! `block_compression` crate's (a port of Intel's ISPC texture compressor).

use block_compression::{BC7Settings, CompressionVariant};

/// Texels a BC block spans along each side.
pub const BLOCK: u32 = 4;

/// How an atlas image is stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AtlasCodec {
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

impl AtlasCodec {
    /// The codec's number in the file (`IMPO`'s `codec`).
    pub fn to_u32(self) -> u32 {
        match self {
            AtlasCodec::Rgba8 => 0,
            AtlasCodec::Bc7 => 1,
            AtlasCodec::Bc3 => 2,
        }
    }

    /// The codec numbered `n` in the file, if any.
    pub fn from_u32(n: u32) -> Option<Self> {
        match n {
            0 => Some(AtlasCodec::Rgba8),
            1 => Some(AtlasCodec::Bc7),
            2 => Some(AtlasCodec::Bc3),
            _ => None,
        }
    }

    /// Bytes of one image of `layers` square layers `side` texels a side.
    pub fn image_bytes(self, side: u32, layers: u32) -> u64 {
        let texels = (layers as u64).saturating_mul((side as u64).pow(2));
        match self {
            AtlasCodec::Rgba8 => texels.saturating_mul(4),
            AtlasCodec::Bc7 | AtlasCodec::Bc3 => texels,
        }
    }

    /// Whether a layer side or cell of `texels` can be stored.
    pub fn fits(self, texels: u32) -> bool {
        self == AtlasCodec::Rgba8 || texels.is_multiple_of(BLOCK)
    }

    /// A short name (`rgba8`, `bc7`).
    pub fn name(self) -> &'static str {
        match self {
            AtlasCodec::Rgba8 => "rgba8",
            AtlasCodec::Bc7 => "bc7",
            AtlasCodec::Bc3 => "bc3",
        }
    }

    /// The `block_compression` variant of a block codec (`None`: RGBA8).
    pub fn variant(self) -> Option<CompressionVariant> {
        match self {
            AtlasCodec::Rgba8 => None,
            AtlasCodec::Bc7 => Some(CompressionVariant::BC7(BC7Settings::alpha_ultrafast())),
            AtlasCodec::Bc3 => Some(CompressionVariant::BC3),
        }
    }
}

/// `bytes` (`layers` layers of `side`² in `codec`) as RGBA8; `None` if
/// the size does not match.
pub fn decode(codec: AtlasCodec, bytes: &[u8], side: u32, layers: u32) -> Option<Vec<u8>> {
    if bytes.len() as u64 != codec.image_bytes(side, layers) || !codec.fits(side) {
        return None;
    }
    let Some(variant) = codec.variant() else {
        return Some(bytes.to_vec());
    };
    let side = side as usize;
    let mut out = vec![0u8; AtlasCodec::Rgba8.image_bytes(side as u32, layers) as usize];
    let block_row_in = side * BLOCK as usize; // a block row's bytes (16 per 4 × 4 texels)
    let block_row_out = side * BLOCK as usize * 4;
    for (rgba, blocks) in out
        .chunks_mut(block_row_out)
        .zip(bytes.chunks(block_row_in))
    {
        block_compression::decode::decompress_blocks_as_rgba8(
            variant,
            side as u32,
            BLOCK,
            blocks,
            rgba,
        );
    }
    Some(out)
}
