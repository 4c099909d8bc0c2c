//! [`with_impostor`]: a baked model with its impostor captured on a
//! headless adapter, the one way `throng bake` and the viewer add one.

use throng_core::BakedModel;
use throng_core::impostor::{AtlasPlan, PlanError, PlanRequest};
use throng_crowd::crowd::ModelHandle;
use throng_render::{Gpu, GpuModel};

use crate::capture::{CaptureError, capture};

/// Why no impostor could be added.
#[derive(Debug, thiserror::Error)]
pub enum AttachError {
    /// The model has no clip to capture.
    #[error("the model has no clips to capture an impostor of")]
    NoClips,
    /// The switch is not a fraction of the screen height.
    #[error("impostor screen size {0} is not a fraction of the screen height (0 to 1)")]
    ScreenSize(f32),
    /// No plan fits the budget.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The model is invalid.
    #[error(transparent)]
    Model(#[from] throng_core::FormatError),
    /// The GPU or the capture failed.
    #[error(transparent)]
    Capture(#[from] CaptureError),
}

/// Vertices the capture may skin (cells × the LOD's vertices). At 2 M the
/// default-chain Fox (3,456 cells) is captured from LOD 1 (146 welded
/// vertices against LOD 0's 1,728 unwelded ones), the Woman (5,120 cells)
/// and CesiumMan from LOD 2: capture 1.95 → 1.38 s, 3.2 → 1.94 s and
/// 3.9 → 1.6 s on lavapipe, with the impostor tests' bounds still met. (Capturing
/// from the LOD the chain draws at the switch size, LOD 2 for all three,
/// made a zoom sweep jump 20.6 levels against the bound of 16.)
pub const CAPTURE_VERTEX_BUDGET: u64 = 2_000_000;

/// The LOD an impostor of `plan` is captured from: the finest whose
/// vertices, skinned once per cell, fit [`CAPTURE_VERTEX_BUDGET`] (else
/// the coarsest). A cell spans a few dozen pixels, the size at which the
/// chain draws its coarser LODs anyway.
pub fn capture_lod(model: &BakedModel, plan: &throng_core::impostor::AtlasPlan) -> usize {
    model
        .lods
        .iter()
        .position(|l| plan.cells().saturating_mul(l.vertices.len() as u64) <= CAPTURE_VERTEX_BUDGET)
        .unwrap_or(model.lods.len().saturating_sub(1))
}

/// `model` with an impostor planned within `budget` bytes for what
/// `request` fixes (with the surface image where it says so, or else
/// where [`throng_core::impostor::captures_surface`]), switched to below `screen_size` (default:
/// [`throng_core::impostor::default_screen_size`] of the cell), captured
/// from [`capture_lod`] on a headless adapter. The plan is checked before
/// any GPU is asked for.
pub fn with_impostor(
    model: BakedModel,
    budget: u64,
    request: PlanRequest,
    screen_size: Option<f32>,
) -> Result<BakedModel, AttachError> {
    if model.clips.is_empty() {
        return Err(AttachError::NoClips);
    }
    if let Some(s) = screen_size
        && !(s.is_finite() && (0.0..=1.0).contains(&s))
    {
        return Err(AttachError::ScreenSize(s));
    }
    let request = PlanRequest {
        surface: Some(
            request
                .surface
                .unwrap_or_else(|| throng_core::impostor::captures_surface(&model)),
        ),
        ..request
    };
    let plan = AtlasPlan::choose(model.clips.len() as u32, budget, request)?;
    let gpu = Gpu::headless().map_err(CaptureError::Render)?;
    let mut atlas = capture_from(&gpu, &model, capture_lod(&model, &plan), &plan)?;
    if let Some(s) = screen_size {
        atlas.screen_size = s;
    }
    let mut model = model;
    model.impostor = Some(atlas);
    Ok(model)
}

/// The atlas of `plan` for `model` captured from its LOD `lod` alone.
pub fn capture_from(
    gpu: &Gpu,
    model: &BakedModel,
    lod: usize,
    plan: &throng_core::impostor::AtlasPlan,
) -> Result<throng_core::impostor::ImpostorAtlas, AttachError> {
    let mut only = BakedModel {
        impostor: None,
        lods: vec![model.lods[lod.min(model.lods.len().saturating_sub(1))].clone()],
        ..model.clone()
    };
    only.lods[0].screen_size = 0.0;
    let handle = ModelHandle::new(only)?;
    let gpu_model =
        GpuModel::upload(&gpu.device, &gpu.queue, &handle).map_err(CaptureError::Render)?;
    Ok(capture(gpu, &handle, &gpu_model, plan)?)
}
