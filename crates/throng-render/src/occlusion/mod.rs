//! Occlusion culling (docs/design/occlusion.md), one feature in one
//! folder: its owner, `Occlusion` (the pyramids' pipelines and chains,
//! the camera's and the light's, and the single-sampled early pass where
//! one is drawn); the depth pyramid reduced from the early pass's depth
//! (`pyramid.rs`, with `depth_pyramid.wgsl`, `depth_pyramid_ms.wgsl` and
//! `pyramid_reduce.wgsl` beside it); the early pass drawn single-sampled
//! where multisampled attachments do not outlive a pass
//! (`single_early.rs`). The cull's late phase, which reads the pyramid,
//! is the GPU-driven cull's (`passes/cull/`, the atlas layout in
//! `passes/pyramid_layout.rs`); the renderer's frame draws the two phases
//! (`renderer/occlusion.rs`).
//!
//! Floor 6, beside `shadow`: imports the floors below.

use throng_crowd::camera::Camera;

use crate::base::error::RenderError;
use crate::base::options::{DepthConvention, RecordPath, RendererOptions};
use crate::passes::pyramid_layout::PyramidRead;

mod pyramid;
pub(crate) mod single_early;

pub use crate::passes::pyramid_layout::{
    PYRAMID_FORMAT, atlas_descriptor, atlas_size, level_origin, level_size, pyramid_shape, stand_in,
};
pub use pyramid::{DepthPyramid, PyramidPass, supports_pyramid};
use single_early::SingleSampledEarly;

/// A renderer's occlusion culling: the pyramids' pipelines and chains, the
/// camera's and the light's.
pub(crate) struct Occlusion {
    pass: PyramidPass,
    pyramid: Option<DepthPyramid>,
    /// The shadow map's reduction (single-sampled, standard depth).
    shadow_pass: PyramidPass,
    shadow_pyramid: Option<DepthPyramid>,
    /// The frame last prepared is drawn in two phases (its late draws are
    /// the GPU-driven path's).
    pub(crate) active: bool,
    /// The early pass drawn single-sampled, where multisampled attachments
    /// do not outlive a pass (MSAA on wgpu's GL backend): the pyramid is
    /// reduced from its depth, and one multisampled pass draws both
    /// phases.
    single: Option<SingleSampledEarly>,
}

/// The cull's late phase's view of a frame: the pyramid of the early
/// phase's depth and the camera that drew it.
#[derive(Clone, Copy)]
pub(crate) struct LateView<'a> {
    pub(crate) pyramid: PyramidRead<'a>,
    pub(crate) clip_from_world: glam::Mat4,
    pub(crate) reversed: bool,
}

impl Occlusion {
    /// Occlusion culling for a renderer on `path` whose depth has `samples`
    /// and `convention`, where the path and device allow it. With MSAA on
    /// wgpu's GL backend, whose multisampled attachments do not survive
    /// from one pass to the next (measured on llvmpipe GL: the late pass
    /// resolves nothing, and the depth reads back as zeros), the early
    /// pass is drawn single-sampled ([`SingleSampledEarly`]).
    pub(crate) fn new(
        adapter: &wgpu::Adapter,
        device: &wgpu::Device,
        path: RecordPath,
        samples: u32,
        convention: DepthConvention,
    ) -> Option<Self> {
        let gl_msaa = adapter.get_info().backend == wgpu::Backend::Gl && samples > 1;
        let usable = path == RecordPath::GpuDriven && supports_pyramid(device);
        let pyramid_samples = if gl_msaa { 1 } else { samples };
        usable.then(|| Self {
            pass: PyramidPass::new(device, pyramid_samples, convention),
            pyramid: None,
            shadow_pass: PyramidPass::new(device, 1, DepthConvention::Standard),
            shadow_pyramid: None,
            active: false,
            single: gl_msaa.then(|| SingleSampledEarly::new(path)),
        })
    }

    /// The pyramids (and the single-sampled early pass's targets) for
    /// targets of `size` and, where the light culls in two phases, a
    /// shadow map of `shadow_map` texels a side; made or kept.
    pub(crate) fn ensure(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        size: (u32, u32),
        shadow_map: Option<u32>,
        target: (&RendererOptions, wgpu::TextureFormat),
    ) -> Result<(), RenderError> {
        if let Some(single) = &mut self.single {
            single.ensure(device, size, target.0, target.1)?;
        }
        DepthPyramid::ensure(&mut self.pyramid, device, queue, &self.pass, size)?;
        match shadow_map {
            Some(m) => {
                let pass = &self.shadow_pass;
                DepthPyramid::ensure(&mut self.shadow_pyramid, device, queue, pass, (m, m))
            }
            None => {
                self.shadow_pyramid = None;
                Ok(())
            }
        }
    }

    /// The single-sampled early pass, where one is drawn.
    pub(crate) fn single(&self) -> Option<&SingleSampledEarly> {
        self.single.as_ref()
    }

    /// [`Self::single`], to make its pipelines.
    pub(crate) fn single_mut(&mut self) -> Option<&mut SingleSampledEarly> {
        self.single.as_mut()
    }

    /// The late phase's view of the frame about to be prepared with
    /// `camera`, once the pyramid is made.
    pub(crate) fn late_view(
        &self,
        camera: &Camera,
        convention: DepthConvention,
    ) -> Option<LateView<'_>> {
        Some(LateView {
            pyramid: self.pyramid.as_ref()?.read(),
            clip_from_world: camera.clip_from_world(),
            reversed: convention == DepthConvention::Reversed,
        })
    }

    /// The camera's pyramid and its pipelines.
    pub(crate) fn camera_pyramid(&self) -> Option<(&DepthPyramid, &PyramidPass)> {
        Some((self.pyramid.as_ref()?, &self.pass))
    }

    /// The light's pyramid (the early shadow pass's), where the light
    /// culls in two phases, and its pipelines.
    pub(crate) fn shadow_pyramid(&self) -> Option<(&DepthPyramid, &PyramidPass)> {
        Some((self.shadow_pyramid.as_ref()?, &self.shadow_pass))
    }
}
