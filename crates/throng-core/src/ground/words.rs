//! The ground as the GPU reads it: one storage buffer of 32-bit words, a
//! [`GpuGroundHeader`], the heightfield's heights (f32, row-major in z),
//! then the pieces ([`GpuGroundPiece`]), mirrored by WGSL's `GroundHeader`
//! and `GroundPiece` in `throng-render/src/passes/ground.wgsl`. A crowd
//! without a ground uploads [`GpuGroundHeader::absent`] alone: its
//! instances keep the heights their motions give them.

use bytemuck::{Pod, Zeroable};

use super::{Ground, GroundAlign};

/// Words of a [`GpuGroundHeader`].
pub const GROUND_HEADER_WORDS: usize = 8;

/// Words of a [`GpuGroundPiece`].
pub const GROUND_PIECE_WORDS: usize = 8;

/// The ground's first words (32 bytes), mirrored by WGSL's `GroundHeader`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuGroundHeader {
    /// Heightfield samples along x (0: no heightfield, the plane y = 0).
    pub columns: u32,
    /// Heightfield samples along z.
    pub rows: u32,
    /// Pieces after the heights.
    pub pieces: u32,
    /// [`Self::PRESENT`]: moving instances are placed on the ground;
    /// [`Self::SLOPE`]: and turned to its normal.
    pub flags: u32,
    /// World x of sample (0, 0).
    pub origin_x: f32,
    /// World z of sample (0, 0).
    pub origin_z: f32,
    /// Distance between samples.
    pub spacing: f32,
    /// Zero.
    pub pad: u32,
}

impl GpuGroundHeader {
    /// Flag: the crowd has a ground.
    pub const PRESENT: u32 = 1;
    /// Flag: instances turn to the ground's normal ([`GroundAlign::Slope`]).
    pub const SLOPE: u32 = 2;

    /// The header of a crowd without a ground.
    pub fn absent() -> Self {
        Self::default()
    }
}

/// One analytic piece (32 bytes), mirrored by WGSL's `GroundPiece`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GpuGroundPiece {
    /// The rectangle's smaller corner, x and z.
    pub min: [f32; 2],
    /// Its larger corner.
    pub max: [f32; 2],
    /// Rise per unit of x and of z.
    pub slope: [f32; 2],
    /// Height at `min`.
    pub height: f32,
    /// Zero.
    pub pad: u32,
}

impl Ground {
    /// The ground's words for the GPU, its instances turned as `align`
    /// says.
    pub fn gpu_words(&self, align: GroundAlign) -> Vec<u32> {
        let flags = GpuGroundHeader::PRESENT
            | if align == GroundAlign::Slope {
                GpuGroundHeader::SLOPE
            } else {
                0
            };
        let mut header = GpuGroundHeader {
            pieces: self.pieces.len() as u32,
            flags,
            ..GpuGroundHeader::default()
        };
        let heights: &[f32] = match &self.heightfield {
            Some(h) => {
                header.columns = h.columns;
                header.rows = h.rows;
                header.origin_x = h.origin.x;
                header.origin_z = h.origin.y;
                header.spacing = h.spacing;
                &h.heights
            }
            None => &[],
        };
        let pieces: Vec<GpuGroundPiece> = self
            .pieces
            .iter()
            .map(|p| GpuGroundPiece {
                min: p.min.to_array(),
                max: p.max.to_array(),
                height: p.height,
                slope: p.slope.to_array(),
                pad: 0,
            })
            .collect();
        let mut words = Vec::with_capacity(
            GROUND_HEADER_WORDS + heights.len() + pieces.len() * GROUND_PIECE_WORDS,
        );
        words.extend_from_slice(bytemuck::cast_slice(&[header]));
        words.extend_from_slice(bytemuck::cast_slice(heights));
        words.extend_from_slice(bytemuck::cast_slice(&pieces));
        words
    }

    /// Bytes of [`Self::gpu_words`].
    pub fn gpu_bytes(&self) -> u64 {
        let heights = self.heightfield.as_ref().map_or(0, |h| h.heights.len());
        ((GROUND_HEADER_WORDS + heights + self.pieces.len() * GROUND_PIECE_WORDS) * 4) as u64
    }
}
