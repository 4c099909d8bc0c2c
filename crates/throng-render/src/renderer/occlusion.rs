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

use super::Renderer;
use crate::base::error::RenderError;
use crate::draw::targets::PassPlace;
use crate::occlusion::single_early::SingleSampledEarly;
use crate::occlusion::{DepthPyramid, PyramidPass};

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

    /// The pyramids for targets of `size`, made or kept (none without
    /// occlusion culling).
    pub(super) fn ensure_pyramid(&mut self, size: (u32, u32)) -> Result<(), RenderError> {
        if !self.occlusion_culling() {
            return Ok(());
        }
        let map = self
            .shadows
            .map
            .as_ref()
            .filter(|sh| sh.options.occlusion)
            .map(|sh| sh.options.map_size);
        let target = (&self.options, self.color_format);
        match &mut self.occlusion {
            Some(o) => o.ensure(&self.device, &self.queue, size, map, target),
            None => Ok(()),
        }
    }

    /// The single-sampled early pass, where occlusion culling draws one.
    pub(super) fn single_early(&self) -> Option<&SingleSampledEarly> {
        self.occlusion.as_ref()?.single()
    }

    /// [`Self::single_early`], to make its pipelines.
    pub(super) fn single_early_mut(&mut self) -> Option<&mut SingleSampledEarly> {
        self.occlusion.as_mut()?.single_mut()
    }

    /// Records the prepared frame's shadow map in two passes (occlusion
    /// culling from the light: the casters the early shadow pass hides are
    /// not drawn), each GPU-timed where the device can.
    pub(super) fn encode_shadows_two_phase(&self, encoder: &mut wgpu::CommandEncoder) {
        let (Some(sh), Some(o), Some(gd)) = (&self.shadows.map, &self.occlusion, &self.gpu) else {
            return;
        };
        self.shadow_pass_of(encoder, self.render_span("shadow"), &sh.items, true);
        let Some((pyramid, pass)) = o.shadow_pyramid() else {
            return;
        };
        let span = self.compute_span("shadow pyramid");
        pyramid.encode(&self.device, encoder, pass, &sh.view, span);
        gd.encode_late(encoder, self.timer.as_ref(), true);
        let span = self.render_span("shadow late");
        self.shadow_pass_of(encoder, span, &gd.shadow_late_items, false);
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
        let Some(pyramid) = o.camera_pyramid() else {
            return;
        };
        if let Some(single) = o.single() {
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
        let (pyramid, pass) = pyramid;
        pyramid.encode(&self.device, encoder, pass, &targets.depth, span);
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
        (pyramid, pass): (&DepthPyramid, &PyramidPass),
    ) {
        let (Some(targets), Some(gd), Some(depth)) = (&self.targets, &self.gpu, single.depth())
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
        pyramid.encode(&self.device, encoder, pass, depth, span);
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
