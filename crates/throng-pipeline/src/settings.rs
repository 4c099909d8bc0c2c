//! [`Settings`]: what every job of one bake shares — the bake's options,
//! the impostor's, whether to bake what is up to date — and their
//! canonical text, which the outputs record as their provenance's options.

use throng_bake::BakeOptions;
use throng_core::impostor::{DEFAULT_BUDGET_BYTES, PlanRequest};

/// The meshopt LODs of a default bake: half, then a fifth of LOD 0's
/// triangles.
pub const DEFAULT_LOD_RATIOS: [f32; 2] = [0.5, 0.2];

/// What every job of one bake shares.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The bake's options.
    pub opts: BakeOptions,
    /// The impostor to capture (`None`: no impostor).
    pub impostor: Option<ImpostorSettings>,
    /// Capture an impostor even for a model with no clips, which then
    /// fails with the reason (the impostor's options were asked for by
    /// name); otherwise such a model is baked without one.
    pub impostor_asked: bool,
    /// Bake even where the output is up to date.
    pub force: bool,
    /// Several bodies baked together get each clip at one frame count (the
    /// most any of them needs), so that bodies of one build bake the same
    /// frames and share one bone texture on the GPU
    /// ([`crate::shared_clips`]).
    pub shared_clips: bool,
}

/// The impostor options of a bake.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpostorSettings {
    /// Atlas budget in bytes.
    pub budget: u64,
    /// What is fixed of the plan (the rest is chosen from the budget).
    pub request: PlanRequest,
    /// Switch size, if fixed (else the cell's default).
    pub screen_size: Option<f32>,
}

impl Default for ImpostorSettings {
    /// The default impostor: [`DEFAULT_BUDGET_BYTES`], nothing fixed.
    fn default() -> Self {
        Self {
            budget: DEFAULT_BUDGET_BYTES,
            request: PlanRequest::default(),
            screen_size: None,
        }
    }
}

impl Default for Settings {
    /// The default chain, what a plain `throng bake MODEL` makes: the
    /// default options with [`DEFAULT_LOD_RATIOS`], and the default
    /// impostor for models with clips.
    fn default() -> Self {
        Self {
            opts: BakeOptions {
                lod_ratios: DEFAULT_LOD_RATIOS.to_vec(),
                ..BakeOptions::default()
            },
            impostor: Some(ImpostorSettings::default()),
            impostor_asked: false,
            force: false,
            shared_clips: false,
        }
    }
}

impl Settings {
    /// Every setting that changes the output, as canonical text (recorded
    /// as the provenance's options; `force` is not one of them, and
    /// `shared_clips` is named only when on, so that other bakes keep the
    /// text they had before it existed).
    pub fn canonical(&self) -> String {
        let impostor = match &self.impostor {
            None => "none".to_owned(),
            Some(i) => format!(
                "budget={} views={:?} frames={:?} cell={:?} codec={} surface={} screen_size={:?} asked={}",
                i.budget,
                i.request.views,
                i.request.frames,
                i.request.cell,
                i.request.codec.name(),
                match i.request.surface {
                    None => "auto",
                    Some(true) => "on",
                    Some(false) => "off",
                },
                i.screen_size,
                self.impostor_asked
            ),
        };
        let shared = if self.shared_clips {
            " shared_clips=true"
        } else {
            ""
        };
        format!("{}{shared} impostor=[{impostor}]", self.opts.canonical())
    }
}
