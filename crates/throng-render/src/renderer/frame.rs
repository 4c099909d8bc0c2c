//! Recording, submitting and timing a frame the renderer has prepared:
//! its pass into the caller's target (and a custom fragment's extra
//! targets), `render`/`render_targets` which do prepare, encode and submit
//! in one call, and the GPU times of the passes.

use throng_crowd::camera::Camera;
use throng_crowd::crowd::Crowd;

use super::{FrameStats, Renderer};
use crate::base::error::RenderError;
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
        // GPU time spans the shadow pass (if any) and the crowd's passes.
        let spanned = self.shadow.is_some() || two_phase;
        let (shadow_timestamps, timestamps, timed) = match &self.timer {
            Some(t) if spanned => match t.span_writes() {
                Some((begin, end)) => (Some(begin), Some(end), true),
                None => (None, None, false),
            },
            Some(t) => {
                let w = t.pass_writes();
                let timed = w.is_some();
                (None, w, timed)
            }
            None => (None, None, false),
        };
        // Without shadows, the span begins with the early pass.
        let (shadow_timestamps, early_timestamps) = match self.shadow {
            Some(_) => (shadow_timestamps, None),
            None => (None, shadow_timestamps),
        };
        self.shadow_pass(encoder, shadow_timestamps);
        if two_phase {
            self.encode_two_phase(encoder, views, extra, (early_timestamps, timestamps));
        } else {
            let mut pass = targets.begin_pass_into(
                encoder,
                views,
                "throng crowd pass",
                self.options.clear_color,
                timestamps,
            );
            self.draw(&mut pass);
            extra(&mut pass);
        }
        if timed && let Some(t) = &self.timer {
            t.resolve(encoder);
        }
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

    /// GPU time of the crowd pass of a recent frame, without waiting
    /// (`None` without timestamp queries or before the first result).
    pub fn gpu_time(&self) -> Option<std::time::Duration> {
        self.timer.as_ref().and_then(|t| t.latest(&self.device))
    }

    /// Waits for the GPU and returns the last frame's pass time.
    pub fn wait_gpu_time(&self) -> Option<std::time::Duration> {
        self.timer.as_ref().and_then(|t| t.wait(&self.device))
    }

    /// On the GPU-driven path with timestamp queries, waits for the GPU and
    /// returns the latest GPU time of the camera's cull passes (compaction
    /// and indirect arguments included; the mirror's upload and the shadow
    /// view's cull are not). `None` on the other paths.
    pub fn wait_cull_gpu_time(&self) -> Option<std::time::Duration> {
        let timer = self.gpu.as_ref()?.cull_timer.as_ref()?;
        timer.wait(&self.device)
    }
}
