//! Recording, submitting and timing a frame the renderer has prepared:
//! its pass into the caller's target (and a custom fragment's extra
//! targets), `render`/`render_targets` which do prepare, encode and submit
//! in one call, and the GPU times of the passes.

use throng_crowd::camera::Camera;
use throng_crowd::crowd::Crowd;

use super::{FrameStats, Renderer};
use crate::base::error::RenderError;
use crate::device::pass_timer::{PassTimes, SpanKind};
use crate::model::gpu_model::GpuModel;

impl Renderer {
    /// Records the prepared frame's render pass into `encoder`, drawing into
    /// `target` (cleared first).
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder, target: &wgpu::TextureView) {
        self.encode_with(encoder, target, |_| {});
    }

    /// [`Self::encode`], then `extra` records more draws into the same pass
    /// (a ground plane, debug lines), sharing its colour, depth and MSAA
    /// targets. Pipelines used in `extra` must match the pass: the
    /// renderer's colour format, [`DEPTH_FORMAT`](super::DEPTH_FORMAT) and
    /// [`RendererOptions::sample_count`](crate::RendererOptions::sample_count).
    /// Draws made in `extra` are inside the GPU-timed span.
    ///
    /// The shadow pass ([`Self::encode_shadows`]), then a pass into the
    /// renderer's own targets (those of the size given to [`Self::prepare`];
    /// nothing is recorded before `prepare` made them) in which the crowd
    /// is drawn ([`Self::draw`]) before `extra`.
    pub fn encode_with(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        extra: impl FnOnce(&mut wgpu::RenderPass<'_>),
    ) {
        self.encode_into(encoder, &[target], extra);
    }

    /// [`Self::encode_with`] into the renderer's target and its
    /// [`RendererOptions::extra_targets`](crate::RendererOptions::extra_targets),
    /// in that order.
    fn encode_into(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        views: &[&wgpu::TextureView],
        extra: impl FnOnce(&mut wgpu::RenderPass<'_>),
    ) {
        let Some(targets) = &self.targets else { return };
        let two_phase = self.occlusion.as_ref().is_some_and(|o| o.active);
        // Each pass GPU-timed, where the device can.
        let span = |name| self.render_span(name);
        if two_phase {
            self.encode_shadows_two_phase(encoder);
        } else {
            self.shadow_pass(
                encoder,
                self.shadows.map.as_ref().and_then(|_| span("shadow")),
            );
        }
        if two_phase {
            self.encode_two_phase(encoder, views, extra);
        } else {
            let mut pass = targets.begin_pass_into(
                encoder,
                views,
                "throng crowd pass",
                self.options.clear_color,
                span("crowd"),
            );
            self.draw(&mut pass);
            extra(&mut pass);
        }
        if let Some(t) = &self.timer {
            t.resolve(encoder);
        }
    }

    /// The timestamp writes of a render pass of the frame called `name`,
    /// where the device can time it.
    pub(super) fn render_span(
        &self,
        name: &'static str,
    ) -> Option<wgpu::RenderPassTimestampWrites<'_>> {
        let t = self.timer.as_ref()?;
        Some(t.render_writes(t.span(name, SpanKind::Frame)?))
    }

    /// [`Self::render_span`] for a compute pass.
    pub(super) fn compute_span(
        &self,
        name: &'static str,
    ) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        let t = self.timer.as_ref()?;
        Some(t.compute_writes(t.span(name, SpanKind::Frame)?))
    }

    /// Prepares, encodes and submits one frame into `target` of `size`.
    pub fn render(
        &mut self,
        target: &wgpu::TextureView,
        size: (u32, u32),
        camera: &Camera,
        crowds: &[&Crowd],
        models: &[&GpuModel],
    ) -> Result<FrameStats, RenderError> {
        self.render_targets(&[target], size, camera, crowds, models)
    }

    /// [`Self::render`] into the renderer's own target and each of its
    /// [`RendererOptions::extra_targets`](crate::RendererOptions::extra_targets),
    /// in that order, all of `size`: one pass, every draw writing all of
    /// them.
    pub fn render_targets(
        &mut self,
        views: &[&wgpu::TextureView],
        size: (u32, u32),
        camera: &Camera,
        crowds: &[&Crowd],
        models: &[&GpuModel],
    ) -> Result<FrameStats, RenderError> {
        let wanted = 1 + self.options.extra_targets.len();
        if views.len() != wanted {
            return Err(RenderError::Unsupported(format!(
                "{} target views for a renderer of {wanted} colour targets",
                views.len()
            )));
        }
        let device = self.device.clone();
        crate::device::context::catch_device_errors(&device, "drawing a frame", || {
            let mut stats = self.prepare(size, camera, crowds, models)?;
            let mut encoder = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("throng frame"),
                });
            self.encode_into(&mut encoder, views, |_| {});
            let submitting = web_time::Instant::now();
            self.queue.submit([encoder.finish()]);
            stats.submit_ms += submitting.elapsed().as_secs_f64() * 1e3;
            self.after_submit();
            Ok(stats)
        })
        .and_then(|r| r)
        .map_err(|e| self.lost_or(e))
    }

    /// Call after submitting a frame recorded with [`Self::encode`] (render
    /// does it itself): starts the GPU-time readback.
    pub fn after_submit(&self) {
        if let Some(t) = &self.timer {
            t.after_submit();
        }
    }

    /// True if this device can time frames on the GPU (timestamp queries).
    pub fn has_gpu_timing(&self) -> bool {
        self.timer.is_some()
    }

    /// GPU time of a recent frame, without waiting: from the start of its
    /// first drawing pass (the shadow pass, if any) to the end of its last
    /// (`None` without timestamp queries or before the first result).
    pub fn gpu_time(&self) -> Option<std::time::Duration> {
        self.timer.as_ref()?.latest(&self.device)?.frame
    }

    /// Waits for the GPU and returns the last frame's time ([`Self::gpu_time`]).
    pub fn wait_gpu_time(&self) -> Option<std::time::Duration> {
        self.timer.as_ref()?.wait(&self.device)?.frame
    }

    /// Waits for the GPU and returns the last timed frame's GPU time per
    /// pass (`None` without timestamp queries): on the GPU-driven path
    /// `cull` and `shadow cull` (each view's cull, recorded while the
    /// frame is prepared), then `shadow`, and `crowd` — or, with occlusion
    /// culling, `early`, `pyramid`, `late cull` and `late`; and where the
    /// device writes timestamps inside passes, `meshes` and `impostors`
    /// (the crowd passes' mesh and impostor draws, timed apart).
    pub fn wait_pass_times(&self) -> Option<PassTimes> {
        self.timer.as_ref()?.wait(&self.device)
    }

    /// On the GPU-driven path with timestamp queries, waits for the GPU and
    /// returns the latest GPU time of the camera's cull passes (compaction
    /// and indirect arguments included; the mirror's upload, the shadow
    /// view's cull and occlusion culling's late phase are not). `None` on
    /// the other paths.
    pub fn wait_cull_gpu_time(&self) -> Option<std::time::Duration> {
        self.gpu.as_ref()?;
        let ms = self.wait_pass_times()?.get("cull")?;
        Some(std::time::Duration::from_nanos((ms * 1e6) as u64))
    }
}
