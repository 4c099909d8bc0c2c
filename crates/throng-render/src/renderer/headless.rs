//! Headless drawing: the one way the CLI, the benchmarks and the image
//! tests turn a crowd into a picture — a [`Renderer`] drawing into
//! [`OFFSCREEN_FORMAT`] targets, and one frame drawn into a fresh
//! [`Offscreen`] target and read back.

use throng_crowd::camera::Camera;
use throng_crowd::crowd::Crowd;

use super::Renderer;
use crate::base::error::RenderError;
use crate::base::options::{FrameStats, RendererOptions};
use crate::device::context::Gpu;
use crate::device::offscreen::{OFFSCREEN_FORMAT, Offscreen};
use crate::model::gpu_model::GpuModel;

impl Renderer {
    /// A renderer on `gpu` that draws into [`OFFSCREEN_FORMAT`] targets.
    pub fn headless(gpu: &Gpu, options: RendererOptions) -> Result<Self, RenderError> {
        let mut renderer = Renderer::new(
            &gpu.adapter,
            &gpu.device,
            &gpu.queue,
            OFFSCREEN_FORMAT,
            options,
        )?;
        renderer.set_device_loss(gpu.loss.clone());
        Ok(renderer)
    }

    /// Draws one frame of `crowds` (with their `models`) from `camera` into
    /// a fresh [`Offscreen`] target of `size` and reads it back. Any device
    /// error on the way (validation included) is an error, never a panic.
    pub fn render_image(
        &mut self,
        gpu: &Gpu,
        size: (u32, u32),
        camera: &Camera,
        crowds: &[&Crowd],
        models: &[&GpuModel],
    ) -> Result<(image::RgbaImage, FrameStats), RenderError> {
        let target = Offscreen::new(&gpu.device, size)?;
        let mut stats = self.render(&target.view, size, camera, crowds, models)?;
        // A loss during the frame surfaces as itself, not as the readback's
        // failure.
        let image = target
            .read(&gpu.device, &gpu.queue)
            .map_err(|e| self.lost_or(e))?;
        self.wait_gpu_stats(&mut stats)?;
        Ok((image, stats))
    }
}
