//! The scene drawn through the renderer's own passes ([`Scene::render_recorded`]):
//! the application gives Throng its target and Throng records the frame —
//! the shadow pass, then its crowd pass over its own depth and MSAA
//! targets, into which the application's ground and obstacles are drawn
//! after the crowd. What a frame drawn into the application's pass
//! ([`Scene::render`]) cannot have: two-phase occlusion culling
//! (`RendererOptions::occlusion`, docs/design/occlusion.md), which needs
//! the crowd's depth between its two phases.

use anyhow::Result;
use throng::render::FrameStats;

use crate::Scene;

impl Scene {
    /// Draws a frame into `view` (of `size`) through the renderer's own
    /// passes and submits it; the ground, terrain and pillars are drawn
    /// in the crowd's last pass. The renderer's options set the clear
    /// colour and sample count: give it [`crate::SKY`] and
    /// [`crate::SAMPLES`] for the picture of [`Self::render`].
    pub fn render_recorded(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        view: &wgpu::TextureView,
        size: (u32, u32),
    ) -> Result<FrameStats> {
        let camera = self.frame_camera(size);
        let models: Vec<&throng::render::GpuModel> = self.models.iter().collect();
        let stats = self
            .renderer
            .prepare(size, &camera, &[&self.crowd], &models)?;
        self.prepare_scenery(queue, &camera);
        let mut encoder = device.create_command_encoder(&Default::default());
        let renderer = &self.renderer;
        renderer.encode_with(&mut encoder, view, |pass| self.draw_scenery(pass, renderer));
        queue.submit([encoder.finish()]);
        renderer.after_submit();
        Ok(stats)
    }
}
