//! The cull's view uniform ([`CullView`]): a [`CullRequest`] — the view's
//! planes, eye and LOD scale, the crowd clock, the phase of occlusion
//! culling with its camera and depth pyramid, the previous frame's clock —
//! as `passes/cull/cull.wgsl` reads it.

use throng_core::gpu::CullView;

use super::{CullPhase, CullRequest};

/// The view uniform of `request` over `instances` instances in `groups`
/// draw groups.
pub(super) fn uniform(request: &CullRequest<'_>, instances: u32, groups: u32) -> CullView {
    let CullRequest {
        view,
        now,
        draws,
        phase,
        previous,
    } = *request;
    let mut planes = [[0.0; 4]; 6];
    if let Some(f) = &view.frustum {
        for (p, q) in planes.iter_mut().zip(&f.planes) {
            *p = q.to_array();
        }
    }
    let (phase_flags, matrices, pyramid_shape) = match phase {
        CullPhase::Only => (0, None, [0; 4]),
        CullPhase::Early => (CullView::EARLY, None, [0; 4]),
        CullPhase::Late {
            pyramid,
            clip_from_world,
            reversed,
            ..
        } => (
            CullView::LATE | flag(reversed, CullView::DEPTH_REVERSED),
            Some(clip_from_world),
            pyramid.shape,
        ),
    };
    let flags = phase_flags
        | flag(view.frustum.is_some(), CullView::CULL)
        | flag(view.lod_scale > 0.0, CullView::LOD)
        | flag(view.lod_tints, CullView::LOD_TINTS)
        | flag(previous.is_some(), CullView::PREVIOUS);
    CullView {
        planes,
        eye: view.eye.extend(1.0).to_array(),
        now_lo: now as u32,
        now_hi: (now >> 32) as u32,
        instance_count: instances,
        flags,
        lod_scale: view.lod_scale,
        group_count: groups,
        draw_count: draws.len() as u32,
        pad: 0,
        clip_from_world: matrices.map_or([[0.0; 4]; 4], |m| m.to_cols_array_2d()),
        pyramid: pyramid_shape,
        previous: previous.map_or([0; 4], |p| [p.now as u32, (p.now >> 32) as u32, 0, 0]),
    }
}

/// `bit` if `on`, else no bit.
fn flag(on: bool, bit: u32) -> u32 {
    if on { bit } else { 0 }
}
