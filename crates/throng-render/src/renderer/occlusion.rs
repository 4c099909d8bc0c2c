//! Two-phase occlusion culling in the renderer's frame
//! (docs/design/occlusion.md). On the GPU-driven path, a frame the
//! renderer records its own passes for is drawn in two: the early pass
//! draws what was visible last frame (the camera's cull, early phase);
//! a depth pyramid is reduced from its depth ([`DepthPyramid`]); the cull's
//! late phase tests every instance in view against it; the late pass
//! loads the early pass's colour and depth and draws what has just become
//! visible, then everything blended, then the caller's `extra` draws.
//! An instance is drawn by exactly one of the phases, so the picture is the
//! one without occlusion culling.

use throng_crowd::camera::Camera;

use super::Renderer;
use super::gpu_driven::LateView;
use crate::base::error::RenderError;
use crate::base::options::{DepthConvention, RecordPath};
use crate::draw::single_early::SingleSampledEarly;
use crate::draw::targets::PassPlace;
use crate::passes::depth_pyramid::{DepthPyramid, PyramidPass, supports_pyramid};

/// The renderer's occlusion culling: the pyramids' pipelines and chains,
/// the camera's and the light's.
pub(super) struct Occlusion {
    pass: PyramidPass,
    pyramid: Option<DepthPyramid>,
    /// The shadow map's reduction (single-sampled, standard depth).
    shadow_pass: PyramidPass,
    shadow_pyramid: Option<DepthPyramid>,
    /// The frame last prepared is drawn in two phases (its late draws are
    /// the GPU-driven path's `late_items`).
    pub(super) active: bool,
    /// The early pass drawn single-sampled, where multisampled attachments
    /// do not outlive a pass (MSAA on wgpu's GL backend): the pyramid is
    /// reduced from its depth, and one multisampled pass draws both
    /// phases.
    single: Option<SingleSampledEarly>,
}

impl Occlusion {
    /// Occlusion culling for a renderer on `path` whose depth has `samples`
    /// and `convention`, where the path and device allow it. With MSAA on
    /// wgpu's GL backend, whose multisampled attachments do not survive
    /// from one pass to the next (measured on llvmpipe GL: the late pass
    /// resolves nothing, and the depth reads back as zeros), the early
    /// pass is drawn single-sampled ([`SingleSampledEarly`]).
    pub(super) fn new(
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
}

impl Renderer {
    /// True if frames prepared with [`Self::prepare`] are occlusion-culled
    /// (the option is on and the path and device allow it).
    pub fn occlusion_culling(&self) -> bool {
        self.occlusion.is_some() && self.options.occlusion
    }

    /// Turns occlusion culling on or off (where the path and device allow
    /// it; see [`crate::RendererOptions::occlusion`]).
    pub fn set_occlusion(&mut self, on: bool) {
        self.options.occlusion = on;
    }

    /// The pyramid for targets of `size`, made or kept (`None` without
    /// occlusion culling).
    pub(super) fn ensure_pyramid(&mut self, size: (u32, u32)) -> Result<(), RenderError> {
        if !self.occlusion_culling() {
            return Ok(());
        }
        let (device, queue) = (self.device.clone(), self.queue.clone());
        let (options, format) = (&self.options, self.color_format);
        if let Some(single) = self.occlusion.as_mut().and_then(|o| o.single.as_mut()) {
            single.ensure(&device, size, options, format)?;
        }
        let map = self
            .shadows
            .map
            .as_ref()
            .filter(|sh| sh.options.occlusion)
            .map(|sh| sh.options.map_size);
        if let Some(o) = &mut self.occlusion {
            DepthPyramid::ensure(&mut o.pyramid, &device, &queue, &o.pass, size)?;
            match map {
                Some(m) => {
                    let pass = &o.shadow_pass;
                    DepthPyramid::ensure(&mut o.shadow_pyramid, &device, &queue, pass, (m, m))?
                }
                None => o.shadow_pyramid = None,
            }
        }
        Ok(())
    }

    /// The single-sampled early pass, where occlusion culling draws one.
    pub(super) fn single_early(&self) -> Option<&SingleSampledEarly> {
        self.occlusion.as_ref()?.single.as_ref()
    }

    /// [`Self::single_early`], to make its pipelines.
    pub(super) fn single_early_mut(&mut self) -> Option<&mut SingleSampledEarly> {
        self.occlusion.as_mut()?.single.as_mut()
    }

    /// The pyramid the light's late phase tests against, if the frame about
    /// to be prepared is drawn in two phases with shadows.
    pub(super) fn shadow_pyramid(occlusion: Option<&Occlusion>) -> Option<&DepthPyramid> {
        occlusion?.shadow_pyramid.as_ref()
    }

    /// Records the prepared frame's shadow map in two passes (occlusion
    /// culling from the light: the casters the early shadow pass hides are
    /// not drawn), each GPU-timed where the device can.
    pub(super) fn encode_shadows_two_phase(&self, encoder: &mut wgpu::CommandEncoder) {
        let (Some(sh), Some(o), Some(gd)) = (&self.shadows.map, &self.occlusion, &self.gpu) else {
            return;
        };
        self.shadow_pass_of(encoder, self.render_span("shadow"), &sh.items, true);
        let Some(pyramid) = &o.shadow_pyramid else {
            return;
        };
        let span = self.compute_span("shadow pyramid");
        pyramid.encode(&self.device, encoder, &o.shadow_pass, &sh.view, span);
        gd.encode_late(encoder, self.timer.as_ref(), true);
        let span = self.render_span("shadow late");
        self.shadow_pass_of(encoder, span, &gd.shadow_late_items, false);
    }

    /// The late phase's view of the frame about to be prepared with
    /// `camera`, if it is to be drawn in two phases.
    pub(super) fn late_view<'a>(
        occlusion: Option<&'a Occlusion>,
        camera: &Camera,
        convention: DepthConvention,
    ) -> Option<LateView<'a>> {
        let pyramid = occlusion?.pyramid.as_ref()?;
        Some(LateView {
            pyramid,
            clip_from_world: camera.clip_from_world(),
            reversed: convention == DepthConvention::Reversed,
        })
    }

    /// Records the prepared frame's crowd in two passes through the
    /// renderer's targets (see the module docs), `extra` last in the late
    /// one; each pass GPU-timed where the device can.
    pub(super) fn encode_two_phase(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        views: &[&wgpu::TextureView],
        extra: impl FnOnce(&mut wgpu::RenderPass<'_>),
    ) {
        let (Some(targets), Some(o), Some(gd)) = (&self.targets, &self.occlusion, &self.gpu) else {
            return;
        };
        let Some(pyramid) = &o.pyramid else { return };
        if let Some(single) = &o.single {
            self.encode_two_phase_single(encoder, views, extra, single, pyramid);
            return;
        }
        let clear = self.options.clear_color;
        let blended = self.first_blended();
        let mut pass = targets.begin_pass_at(
            encoder,
            views,
            "throng crowd pass (early)",
            clear,
            self.render_span("early"),
            PassPlace {
                first: true,
                last: false,
            },
        );
        self.draw_items(&mut pass, &self.items[..blended]);
        drop(pass);
        let span = self.compute_span("pyramid");
        pyramid.encode(&self.device, encoder, &o.pass, &targets.depth, span);
        gd.encode_late(encoder, self.timer.as_ref(), false);
        let mut pass = targets.begin_pass_at(
            encoder,
            views,
            "throng crowd pass (late)",
            clear,
            self.render_span("late"),
            PassPlace {
                first: false,
                last: true,
            },
        );
        let late = &gd.late_items;
        let late_blended = late.partition_point(|item| !item.key.blend);
        self.draw_items(&mut pass, &late[..late_blended]);
        self.draw_items(&mut pass, &self.items[blended..]);
        self.draw_items(&mut pass, &late[late_blended..]);
        extra(&mut pass);
    }

    /// [`Self::encode_two_phase`] where the early pass is drawn
    /// single-sampled: the early phase's opaque draws into `single`'s
    /// targets, the pyramid from their depth, the late phase's cull, then
    /// one multisampled pass through the renderer's targets drawing both
    /// phases' opaque draws, then both phases' blended ones, then `extra`.
    fn encode_two_phase_single(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        views: &[&wgpu::TextureView],
        extra: impl FnOnce(&mut wgpu::RenderPass<'_>),
        single: &SingleSampledEarly,
        pyramid: &DepthPyramid,
    ) {
        let (Some(targets), Some(o), Some(gd), Some(depth)) =
            (&self.targets, &self.occlusion, &self.gpu, single.depth())
        else {
            return;
        };
        let blended = self.first_blended();
        let span = self.render_span("early");
        if let Some(mut pass) = single.begin_pass(encoder, span) {
            let impostor = single.impostors.colour.as_ref();
            self.draw_items_with(
                &mut pass,
                &self.items[..blended],
                &single.pipelines,
                impostor,
            );
        }
        let span = self.compute_span("pyramid");
        pyramid.encode(&self.device, encoder, &o.pass, depth, span);
        gd.encode_late(encoder, self.timer.as_ref(), false);
        let mut pass = targets.begin_pass_at(
            encoder,
            views,
            "throng crowd pass (late, both phases)",
            self.options.clear_color,
            self.render_span("late"),
            PassPlace::ONLY,
        );
        let late = &gd.late_items;
        let late_blended = late.partition_point(|item| !item.key.blend);
        self.draw_items(&mut pass, &self.items[..blended]);
        self.draw_items(&mut pass, &late[..late_blended]);
        self.draw_items(&mut pass, &self.items[blended..]);
        self.draw_items(&mut pass, &late[late_blended..]);
        extra(&mut pass);
    }
}
