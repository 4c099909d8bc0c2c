//! The ground a crowd stands on, as data the runtime owns and the GPU
//! reads: a heightfield (heights sampled on a square grid over a
//! rectangle, from code or from an image's grey levels) and a few analytic
//! pieces over it (flat boxes: steps, stairs, platforms; tilted
//! rectangles: ramps). Its height at a point is the highest of the
//! heightfield's (bilinear, clamped at its edge; 0 where there is none)
//! and the pieces' that cover the point.
//!
//! # Files
//! This file holds [`Ground`], [`Heightfield`], [`Piece`] and their
//! validity rules; `sample.rs` the height and the surface's normal at a
//! point and an instance placed on the ground, the math WGSL's
//! `throng-render/src/passes/ground.wgsl` mirrors operation for operation;
//! `words.rs` the ground as the GPU reads it (one array of 32-bit words).

use glam::Vec2;
use thiserror::Error;

mod sample;
mod words;

pub use sample::{GroundAlign, GroundSample};
pub use words::{GROUND_HEADER_WORDS, GROUND_PIECE_WORDS, GpuGroundHeader, GpuGroundPiece};

/// Largest side of a heightfield, samples (4096², 64 MiB of heights).
pub const MAX_GROUND_SIDE: u32 = 4096;

/// Most analytic pieces of one ground.
pub const MAX_GROUND_PIECES: usize = 1024;

/// Largest height or coordinate a ground accepts, world units: larger is
/// a unit error, and f32 steps there are coarser than a foot.
pub const MAX_GROUND_EXTENT: f32 = 1.0e6;

/// A ground that cannot be used, saying what and where.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum GroundError {
    /// The heightfield's grid is malformed.
    #[error("heightfield: {0}")]
    Heightfield(String),
    /// A piece is malformed.
    #[error("ground piece {index}: {what}")]
    Piece {
        /// Its index in [`Ground::pieces`].
        index: usize,
        /// What is wrong.
        what: String,
    },
    /// Too many pieces.
    #[error("{0} ground pieces, more than the {MAX_GROUND_PIECES} a ground takes")]
    TooManyPieces(usize),
}

/// Heights sampled on a square grid: sample `(i, j)` is the height at world
/// `(origin.x + i·spacing, origin.y + j·spacing)` (x, z), row-major in z.
/// Between samples the height is bilinear; outside the grid it is the
/// nearest edge's.
#[derive(Clone, Debug, PartialEq)]
pub struct Heightfield {
    origin: Vec2,
    spacing: f32,
    columns: u32,
    rows: u32,
    heights: Vec<f32>,
}

impl Heightfield {
    /// A heightfield of `columns × rows` samples `spacing` apart from
    /// world (x, z) `origin`, `heights` row-major in z.
    pub fn new(
        origin: Vec2,
        spacing: f32,
        columns: u32,
        rows: u32,
        heights: Vec<f32>,
    ) -> Result<Self, GroundError> {
        let bad = |what: String| Err(GroundError::Heightfield(what));
        check_grid(columns, rows)?;
        if heights.len() != columns as usize * rows as usize {
            return bad(format!(
                "{} heights for {columns} × {rows} samples",
                heights.len()
            ));
        }
        if !(spacing.is_finite() && spacing > 0.0 && spacing <= MAX_GROUND_EXTENT) {
            return bad(format!(
                "spacing {spacing} must be positive and at most {MAX_GROUND_EXTENT}"
            ));
        }
        let far = origin + Vec2::new(columns as f32 - 1.0, rows as f32 - 1.0) * spacing;
        if !(origin.abs().max_element() <= MAX_GROUND_EXTENT
            && far.abs().max_element() <= MAX_GROUND_EXTENT)
        {
            return bad(format!(
                "it spans {origin} to {far}, beyond ±{MAX_GROUND_EXTENT}"
            ));
        }
        if let Some((i, h)) = heights
            .iter()
            .enumerate()
            .find(|(_, h)| !h.is_finite() || h.abs() > MAX_GROUND_EXTENT)
        {
            let (c, r) = (i % columns as usize, i / columns as usize);
            return bad(format!(
                "height {h} at sample ({c}, {r}) is not finite or beyond ±{MAX_GROUND_EXTENT}"
            ));
        }
        Ok(Self {
            origin,
            spacing,
            columns,
            rows,
            heights,
        })
    }

    /// A heightfield from `f(x, z)` sampled at each grid point.
    pub fn from_fn(
        origin: Vec2,
        spacing: f32,
        columns: u32,
        rows: u32,
        f: impl Fn(Vec2) -> f32,
    ) -> Result<Self, GroundError> {
        check_grid(columns, rows)?;
        let heights = (0..rows)
            .flat_map(|r| (0..columns).map(move |c| (c, r)))
            .map(|(c, r)| f(origin + Vec2::new(c as f32, r as f32) * spacing))
            .collect();
        Self::new(origin, spacing, columns, rows, heights)
    }

    /// A heightfield from an image's grey levels, `luma` row-major (rows
    /// along z): level 0 is `low`, the brightest level of the sample type
    /// (255 or 65,535) is `high`.
    pub fn from_luma<T: Copy + Into<f64>>(
        origin: Vec2,
        spacing: f32,
        columns: u32,
        rows: u32,
        luma: &[T],
        max_level: f64,
        (low, high): (f32, f32),
    ) -> Result<Self, GroundError> {
        if max_level.is_nan() || max_level <= 0.0 {
            return Err(GroundError::Heightfield(format!(
                "brightest level {max_level} must be positive"
            )));
        }
        let heights = luma
            .iter()
            .map(|&v| low + (high - low) * (v.into() / max_level) as f32)
            .collect();
        Self::new(origin, spacing, columns, rows, heights)
    }

    /// World (x, z) of sample (0, 0).
    pub fn origin(&self) -> Vec2 {
        self.origin
    }

    /// Distance between neighbouring samples, world units.
    pub fn spacing(&self) -> f32 {
        self.spacing
    }

    /// Samples along x.
    pub fn columns(&self) -> u32 {
        self.columns
    }

    /// Samples along z.
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// The heights, row-major in z.
    pub fn heights(&self) -> &[f32] {
        &self.heights
    }

    /// World (x, z) of the far corner, sample (columns − 1, rows − 1).
    pub fn max(&self) -> Vec2 {
        self.origin + Vec2::new(self.columns as f32 - 1.0, self.rows as f32 - 1.0) * self.spacing
    }
}

/// A grid of `columns × rows` samples is one a heightfield can have.
fn check_grid(columns: u32, rows: u32) -> Result<(), GroundError> {
    if (2..=MAX_GROUND_SIDE).contains(&columns) && (2..=MAX_GROUND_SIDE).contains(&rows) {
        return Ok(());
    }
    Err(GroundError::Heightfield(format!(
        "{columns} × {rows} samples: each side takes 2 to {MAX_GROUND_SIDE}"
    )))
}

/// An analytic piece of ground over the rectangle `[min, max]` (world x,
/// z): its height at `p` inside is `height + slope · (p − min)`. A flat
/// piece (zero slope) is a box's top: a step, a platform; a sloped one a
/// ramp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Piece {
    /// Corner of the rectangle with the smaller x and z.
    pub min: Vec2,
    /// Corner with the larger x and z.
    pub max: Vec2,
    /// Height at `min`.
    pub height: f32,
    /// Rise per unit of x and of z.
    pub slope: Vec2,
}

impl Piece {
    /// A flat piece: a box whose top is at `top`.
    pub fn step(min: Vec2, max: Vec2, top: f32) -> Self {
        Self {
            min,
            max,
            height: top,
            slope: Vec2::ZERO,
        }
    }

    /// A staircase of `steps` boxes climbing along +x from `start` (the
    /// first step's corner with the smaller x and z), each `tread` deep
    /// along x, `rise` higher than the one before (the first at `rise`
    /// above `base`), `width` wide along z; the top step extends `landing`
    /// further.
    pub fn stairs_along_x(
        start: Vec2,
        base: f32,
        steps: u32,
        tread: f32,
        rise: f32,
        width: f32,
        landing: f32,
    ) -> Vec<Self> {
        (0..steps)
            .map(|k| {
                let x0 = start.x + k as f32 * tread;
                let deep = if k + 1 == steps {
                    tread + landing
                } else {
                    tread
                };
                Self::step(
                    Vec2::new(x0, start.y),
                    Vec2::new(x0 + deep, start.y + width),
                    base + (k + 1) as f32 * rise,
                )
            })
            .collect()
    }

    fn validate(&self) -> Result<(), String> {
        let words = [self.min.x, self.min.y, self.max.x, self.max.y, self.height];
        if !words.iter().all(|v| v.abs() <= MAX_GROUND_EXTENT) {
            return Err(format!(
                "rectangle {} to {} or height {} is not finite or beyond ±{MAX_GROUND_EXTENT}",
                self.min, self.max, self.height
            ));
        }
        if !(self.min.x < self.max.x && self.min.y < self.max.y) {
            return Err(format!("rectangle {} to {} is empty", self.min, self.max));
        }
        let rise = self.slope * (self.max - self.min);
        if !(self.slope.is_finite() && (self.height + rise.x + rise.y).abs() <= MAX_GROUND_EXTENT) {
            return Err(format!(
                "slope {} is not finite or rises beyond ±{MAX_GROUND_EXTENT}",
                self.slope
            ));
        }
        Ok(())
    }
}

/// The ground of a crowd: an optional heightfield and pieces over it. The
/// default is the flat plane y = 0 (no heightfield, no pieces).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ground {
    heightfield: Option<Heightfield>,
    pieces: Vec<Piece>,
}

impl Ground {
    /// A ground of `heightfield` (or the plane y = 0) with `pieces` on it.
    pub fn new(heightfield: Option<Heightfield>, pieces: Vec<Piece>) -> Result<Self, GroundError> {
        if pieces.len() > MAX_GROUND_PIECES {
            return Err(GroundError::TooManyPieces(pieces.len()));
        }
        for (index, piece) in pieces.iter().enumerate() {
            piece
                .validate()
                .map_err(|what| GroundError::Piece { index, what })?;
        }
        Ok(Self {
            heightfield,
            pieces,
        })
    }

    /// The heightfield, if any.
    pub fn heightfield(&self) -> Option<&Heightfield> {
        self.heightfield.as_ref()
    }

    /// The analytic pieces.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }
}

#[cfg(test)]
mod tests;
