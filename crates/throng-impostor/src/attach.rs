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

/// `model` with an impostor planned within `budget` bytes for what
/// `request` fixes, switched to below `screen_size` (default:
/// [`throng_core::impostor::default_screen_size`] of the cell), captured on
/// a headless adapter. The plan is checked before any GPU is asked for.
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
    let plan = AtlasPlan::choose(model.clips.len() as u32, budget, request)?;
    let gpu = Gpu::headless().map_err(CaptureError::Render)?;
    let handle = ModelHandle::new(model)?;
    let gpu_model =
        GpuModel::upload(&gpu.device, &gpu.queue, &handle).map_err(CaptureError::Render)?;
    let mut atlas = capture(&gpu, &handle, &gpu_model, &plan)?;
    if let Some(s) = screen_size {
        atlas.screen_size = s;
    }
    let mut model = handle.model().clone();
    model.impostor = Some(atlas);
    Ok(model)
}
