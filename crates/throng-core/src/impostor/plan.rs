//! How many views, frames and texels an atlas gets: the [`AtlasPlan`], its
//! cell layout, and its choice within a memory budget ([`AtlasPlan::choose`],
//! from a [`PlanRequest`], or a [`PlanError`] saying why not); the default
//! budget and switch size.

use super::views::ViewGrid;
use crate::limits::MAX_LAYER_SIZE;
use crate::texture_codec::{BLOCK, TextureCodec};

/// Default memory budget of one model's impostor atlas.
pub const DEFAULT_BUDGET_BYTES: u64 = 1 << 20;

/// The screen height, in pixels, that [`default_screen_size`] is chosen
/// for.
pub const DEFAULT_SCREEN_HEIGHT: u32 = 1080;

/// The default switch to the impostor: where a cell's texels meet the
/// pixels of a [`DEFAULT_SCREEN_HEIGHT`] screen one to one (the sphere a
/// cell frames, `cell` texels across, spans `cell` pixels). Nearer, the
/// impostor would be magnified and blur; farther, it is minified.
pub fn default_screen_size(cell: u32) -> f32 {
    (cell as f32 / DEFAULT_SCREEN_HEIGHT as f32).min(1.0)
}

/// The smallest plan: views a side, frames per clip, texels a cell side.
pub const MIN_PLAN: (u32, u32, u32) = (4, 4, 16);

/// What an atlas holds and how it is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtlasPlan {
    /// The views.
    pub views: ViewGrid,
    /// Captures per clip, evenly over its duration.
    pub frames: u32,
    /// Texels along a cell's side.
    pub cell: u32,
    /// Clips captured.
    pub clips: u32,
    /// Side of each square layer (a multiple of `cell`, at most
    /// [`MAX_LAYER_SIZE`]).
    pub layer_size: u32,
    /// Layers of the 2D array.
    pub layers: u32,
    /// How the images are stored.
    pub codec: TextureCodec,
    /// Whether the atlas holds the surface image
    /// ([`ImpostorAtlas::surface`]) besides colour and normal.
    ///
    /// [`ImpostorAtlas::surface`]: super::ImpostorAtlas::surface
    pub surface: bool,
}

impl AtlasPlan {
    /// Cells in all.
    pub fn cells(&self) -> u64 {
        (self.clips as u64)
            .saturating_mul(self.frames as u64)
            .saturating_mul(self.views.count() as u64)
    }

    /// Cells per layer.
    pub fn cells_per_layer(&self) -> u32 {
        (self.layer_size / self.cell).pow(2)
    }

    /// Images the atlas holds: colour and normal, and the surface where
    /// [`Self::surface`].
    pub fn images(&self) -> u32 {
        2 + self.surface as u32
    }

    /// Bytes of the atlas, every image (every layer whole).
    pub fn bytes(&self) -> u64 {
        self.codec
            .image_bytes(self.layer_size, self.layers)
            .saturating_mul(self.images() as u64)
    }

    /// This layout stored in `codec`.
    pub fn with_codec(self, codec: TextureCodec) -> Self {
        Self { codec, ..self }
    }

    /// This layout with the surface image, or without.
    pub fn with_surface(self, surface: bool) -> Self {
        Self { surface, ..self }
    }

    /// The layer and texel origin of cell `(clip, frame, view)`.
    pub fn cell_origin(&self, clip: u32, frame: u32, view: u32) -> (u32, u32, u32) {
        let index = (clip as u64 * self.frames as u64 + frame as u64) * self.views.count() as u64
            + view as u64;
        let per_layer = self.cells_per_layer() as u64;
        let per_row = (self.layer_size / self.cell) as u64;
        let within = index % per_layer;
        (
            (index / per_layer) as u32,
            (within % per_row) as u32 * self.cell,
            (within / per_row) as u32 * self.cell,
        )
    }

    /// The layout of `views`, `frames` and `cell` for `clips` clips: the
    /// smallest square layer that holds every cell (at most
    /// [`MAX_LAYER_SIZE`] texels a side), and as many such layers
    /// as needed; stored as [`TextureCodec::Rgba8`] ([`Self::with_codec`]),
    /// without the surface image ([`Self::with_surface`]).
    pub fn layout(views: u32, frames: u32, cell: u32, clips: u32) -> Self {
        let grid = ViewGrid { side: views };
        let cells = clips as u64 * frames as u64 * grid.count() as u64;
        let max_side = (MAX_LAYER_SIZE / cell).max(1);
        // The least side whose square holds every cell.
        let mut side = (cells as f64).sqrt() as u32;
        while (side as u64).pow(2) < cells {
            side += 1;
        }
        let side = side.clamp(1, max_side);
        let per_layer = (side as u64).pow(2);
        AtlasPlan {
            views: grid,
            frames,
            cell,
            clips,
            layer_size: side * cell,
            layers: cells.div_ceil(per_layer).max(1) as u32,
            codec: TextureCodec::Rgba8,
            surface: false,
        }
    }

    /// The best plan for `clips` clips within `budget` bytes. Values the
    /// request leaves open start at 12 views a side, 16 frames per clip and
    /// 64 texels a cell, and are lowered step by step until the atlas fits:
    /// the cell to 32 texels, the frames to 8, the views to 8 a side, then
    /// each on to [`MIN_PLAN`] (sharpness first gives way to smoothness of
    /// motion and of turning, down to a floor for each).
    pub fn choose(clips: u32, budget: u64, request: PlanRequest) -> Result<Self, PlanError> {
        let check = |what, value: Option<u32>, lo: u32, hi: u32, range| match value {
            Some(v) if v < lo || v > hi => Err(PlanError::OutOfRange {
                what,
                value: v,
                range,
            }),
            _ => Ok(()),
        };
        check("views", request.views, 2, 64, "2 to 64 a side")?;
        check("frames", request.frames, 1, 1024, "1 to 1024 per clip")?;
        check(
            "cell size",
            request.cell,
            4,
            MAX_LAYER_SIZE,
            "4 to 1024 texels",
        )?;
        if let Some(cell) = request.cell
            && !request.codec.fits(cell)
        {
            return Err(PlanError::OutOfRange {
                what: "cell size",
                value: cell,
                range: "a multiple of 4 texels with BC7 (its 4 × 4 blocks)",
            });
        }
        let clips = clips.max(1);
        // [views, frames, cell], each lowered only where the request leaves it open.
        let mut value = [
            request.views.unwrap_or(12),
            request.frames.unwrap_or(16),
            request.cell.unwrap_or(64),
        ];
        let open = [
            request.views.is_none(),
            request.frames.is_none(),
            request.cell.is_none(),
        ];
        let (views, frames, cell) = (0, 1, 2);
        let stages = [
            (cell, 32),
            (frames, 8),
            (views, 8),
            (cell, MIN_PLAN.2),
            (frames, MIN_PLAN.1),
            (views, MIN_PLAN.0),
        ];
        let mut stage = 0;
        loop {
            let plan = Self::layout(value[views], value[frames], value[cell], clips)
                .with_codec(request.codec)
                .with_surface(request.surface.unwrap_or(false));
            if plan.bytes() <= budget {
                return Ok(plan);
            }
            // The next value that may still go down.
            while stage < stages.len() {
                let (k, floor) = stages[stage];
                if open[k] && value[k] > floor {
                    break;
                }
                stage += 1;
            }
            let Some(&(k, floor)) = stages.get(stage) else {
                return Err(PlanError::OverBudget {
                    views: value[views],
                    frames: value[frames],
                    cell: value[cell],
                    clips,
                    needed: plan.bytes(),
                    budget,
                });
            };
            value[k] = if k == views {
                value[k] - 1
            } else if k == cell {
                // Whole blocks a cell (the floors are multiples of 4).
                (value[k] * 7 / 8 / BLOCK * BLOCK).max(floor)
            } else {
                (value[k] * 7 / 8).max(floor)
            };
        }
    }
}

/// What the caller fixes of a plan; the rest is chosen within the budget.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanRequest {
    /// Views a side (`--impostor-views`).
    pub views: Option<u32>,
    /// Frames per clip (`--impostor-frames`).
    pub frames: Option<u32>,
    /// Texels a cell side (`--impostor-size`).
    pub cell: Option<u32>,
    /// How the images are stored (`--impostor-codec`; default BC7).
    pub codec: TextureCodec,
    /// Whether the surface image is captured (`--no-impostor-surface`:
    /// `Some(false)`); `None` leaves it to the model's materials
    /// ([`captures_surface`]; `throng_impostor::with_impostor` decides),
    /// which [`AtlasPlan::choose`] alone reads as no. It takes its share
    /// of the budget.
    ///
    /// [`captures_surface`]: super::captures_surface
    pub surface: Option<bool>,
}

/// Why no plan fits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// A fixed value is out of range.
    #[error("impostor {what} {value} is out of range ({range})")]
    OutOfRange {
        /// Which value.
        what: &'static str,
        /// The value given.
        value: u32,
        /// What is allowed.
        range: &'static str,
    },
    /// Even the smallest plan left open by the request exceeds the budget.
    #[error(
        "the smallest impostor atlas ({views}×{views} views, {frames} frames per clip, {cell}² texels a cell, {clips} clips) needs {needed} bytes, over the budget of {budget}"
    )]
    OverBudget {
        /// Views a side of the smallest plan.
        views: u32,
        /// Frames per clip of the smallest plan.
        frames: u32,
        /// Cell side of the smallest plan.
        cell: u32,
        /// Clips.
        clips: u32,
        /// Its bytes.
        needed: u64,
        /// The budget.
        budget: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_fit_their_budget_and_layers() {
        for clips in [1u32, 3, 10, 40] {
            for budget in [4u64 << 20, DEFAULT_BUDGET_BYTES, 256 << 20] {
                let Ok(plan) = AtlasPlan::choose(clips, budget, PlanRequest::default()) else {
                    continue;
                };
                assert!(plan.bytes() <= budget, "{clips} clips, {budget}: {plan:?}");
                assert!(plan.layer_size <= MAX_LAYER_SIZE && plan.layer_size % plan.cell == 0);
                assert!(
                    plan.layers as u64 * plan.cells_per_layer() as u64 >= plan.cells(),
                    "{plan:?}"
                );
                // Every cell has its own place.
                let last =
                    plan.cell_origin(plan.clips - 1, plan.frames - 1, plan.views.count() - 1);
                assert!(last.0 < plan.layers && last.1 + plan.cell <= plan.layer_size);
            }
        }
        // Ten clips in the default budget still get a usable atlas.
        let plan = AtlasPlan::choose(10, DEFAULT_BUDGET_BYTES, PlanRequest::default()).unwrap();
        assert!(plan.views.side >= 6 && plan.cell >= 16, "{plan:?}");
    }

    #[test]
    fn requests_are_kept_or_refused_with_a_reason() {
        let fixed = PlanRequest {
            views: Some(9),
            frames: Some(8),
            cell: Some(32),
            codec: TextureCodec::Rgba8,
            surface: None,
        };
        let plan = AtlasPlan::choose(3, 1 << 30, fixed).unwrap();
        assert_eq!((plan.views.side, plan.frames, plan.cell), (9, 8, 32));
        let err = AtlasPlan::choose(3, 1 << 20, fixed).unwrap_err();
        assert!(matches!(err, PlanError::OverBudget { .. }), "{err}");
        let err = AtlasPlan::choose(
            3,
            1 << 30,
            PlanRequest {
                views: Some(1),
                ..PlanRequest::default()
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("views 1"), "{err}");
        // Block codecs take whole 4 × 4 blocks a cell, and choose them so.
        let err = AtlasPlan::choose(
            3,
            1 << 30,
            PlanRequest {
                cell: Some(30),
                ..PlanRequest::default()
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("multiple of 4"), "{err}");
        for budget in [300 << 10, 1 << 20, 5 << 20] {
            let plan = AtlasPlan::choose(3, budget, PlanRequest::default()).unwrap();
            assert_eq!(plan.codec, TextureCodec::Bc3);
            assert!(
                plan.cell.is_multiple_of(4) && plan.layer_size.is_multiple_of(4),
                "{plan:?}"
            );
            assert_eq!(
                plan.bytes(),
                2 * plan.layers as u64 * (plan.layer_size as u64).pow(2)
            );
        }
    }
}
