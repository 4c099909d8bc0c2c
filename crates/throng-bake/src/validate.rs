//! The validate stage: the scene's validity rules ([`Scene::validate`]) and
//! the options' ranges, checked before anything is converted or sampled.

use throng_core::limits::{MAX_FPS, MAX_LAYER_SIZE};

use crate::error::BakeError;
use crate::options::BakeOptions;
use crate::scene::Scene;

/// Checks `scene`, then `opts`; the first rule broken is the error.
pub(crate) fn validate(scene: &Scene, opts: &BakeOptions) -> Result<(), BakeError> {
    scene.validate()?;
    check_options(opts)
}

fn check_options(opts: &BakeOptions) -> Result<(), BakeError> {
    if opts.max_bake_bytes == 0 {
        return Err(BakeError::Option(
            "--max-bake-bytes 0 would refuse every bake".into(),
        ));
    }
    if !(opts.fps > 0.0 && opts.fps <= MAX_FPS) {
        return Err(BakeError::Option(format!(
            "--fps {} is outside (0, {MAX_FPS}]",
            opts.fps
        )));
    }
    if !(opts.max_fps >= opts.fps && opts.max_fps <= MAX_FPS) {
        return Err(BakeError::Option(format!(
            "--max-fps {} is outside [--fps {}, {MAX_FPS}]",
            opts.max_fps, opts.fps
        )));
    }
    if !(opts.max_error.is_finite() && opts.max_error > 0.0) {
        return Err(BakeError::Option(format!(
            "--max-error {} is not a finite number > 0 (a fraction of the bounding radius, e.g. 1e-3)",
            opts.max_error
        )));
    }
    if let Some(r) = opts.lod_ratios.iter().find(|r| !(**r > 0.0 && **r < 1.0)) {
        return Err(BakeError::Option(format!(
            "LOD ratio {r} is outside (0, 1)"
        )));
    }
    if let Some(sizes) = &opts.lod_screen_sizes {
        let ok = sizes.iter().all(|s| s.is_finite() && *s >= 0.0)
            && sizes.windows(2).all(|w| w[0] >= w[1]);
        if !ok {
            return Err(BakeError::Option(format!(
                "LOD screen sizes {sizes:?} must be finite, non-negative and non-increasing"
            )));
        }
    }
    if !(1..=MAX_LAYER_SIZE).contains(&opts.max_layer_size) {
        return Err(BakeError::Option(format!(
            "--max-layer-size {} is outside 1..={MAX_LAYER_SIZE}",
            opts.max_layer_size
        )));
    }
    Ok(())
}
