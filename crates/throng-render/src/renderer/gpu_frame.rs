//! The renderer's side of a GPU-driven frame ([`RecordPath::GpuDriven`];
//! the path's owner, [`GpuDriven`], is in `gpu_driven/`): the frame's culls
//! handed to the owner with what they read of the renderer, the draws
//! planned (`gpu_draws.rs`), and the counts waited for.

use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, DrawView};

use super::Renderer;
use crate::base::error::RenderError;
use crate::base::options::FrameStats;
#[cfg(doc)]
use crate::base::options::RecordPath;
#[cfg(doc)]
use crate::gpu_driven::GpuDriven;
use crate::gpu_driven::cull::{CullInputs, LightCull};
use crate::model::gpu_model::GpuModel;

impl Renderer {
    /// [`Self::prepare_draws`] on the GPU-driven path (frame uniforms already
    /// written): the crowds culled by the path's owner ([`GpuDriven::cull`]),
    /// in two phases if `two_phase` and occlusion culling has its pyramids,
    /// then the draws planned.
    pub(super) fn prepare_gpu_driven(
        &mut self,
        camera: &Camera,
        view: DrawView,
        crowds: &[&Crowd],
        models: &[&GpuModel],
        two_phase: bool,
    ) -> Result<FrameStats, RenderError> {
        let Some(gd) = self.gpu.as_mut() else {
            return self.prepare_lists(view, crowds, models);
        };
        let occlusion = self.occlusion.as_ref().filter(|_| two_phase);
        let late = occlusion.and_then(|o| o.late_view(camera, self.options.depth));
        let shadow_pyramid = occlusion
            .filter(|_| late.is_some())
            .and_then(|o| o.shadow_pyramid())
            .map(|(pyramid, _)| pyramid);
        let inputs = CullInputs {
            device: &self.device,
            queue: &self.queue,
            timer: self.timer.as_ref(),
            view,
            crowds,
            models,
            occlusion: late,
            prepass: self.prepass.is_some(),
            cull_hidden_parts: self.options.cull_hidden_parts,
        };
        let light = self.shadows.map.as_mut().map(|map| LightCull {
            map,
            direction: self.options.lighting.direction,
            shadow_pyramid,
        });
        let culled = gd.cull(&inputs, light);
        let (late, shadow_late) = (late.is_some(), shadow_pyramid.is_some());
        // The late view borrowed the pyramid: the frame is drawn in two
        // phases if it was culled in two.
        if let Some(o) = &mut self.occlusion {
            o.active = late && culled.is_ok();
        }
        let (plans, mut stats) = culled?;
        self.plan_gpu_draws(&plans, models, late, shadow_late, &mut stats)?;
        stats.packages = stats.draws;
        self.plan_layered(view, crowds, models, &mut stats)?;
        if let Some(gd) = &mut self.gpu {
            gd.specs = plans;
        }
        self.ensure_pipelines();
        if let Some(p) = &mut self.prepass {
            p.ensure_pipelines(&self.device);
        }
        self.ensure_single_early_pipelines();
        Ok(stats)
    }

    /// On the GPU-driven path, where the counts of a frame come back from
    /// the GPU a frame or two later, waits for the GPU and sets `stats`'s
    /// visible instances and shadow casters to those of the frame last
    /// prepared. Does nothing on the other paths, whose counts are exact.
    /// With shadows, also reads back the light fitted on the GPU (see
    /// [`Renderer::shadow_map`]).
    pub fn wait_gpu_stats(&mut self, stats: &mut FrameStats) -> Result<(), RenderError> {
        let two_phase = self.occlusion.as_ref().is_some_and(|o| o.active);
        let Some(gd) = self.gpu.as_mut() else {
            return Ok(());
        };
        let shadow = self.shadows.map.as_mut();
        gd.wait_stats(&self.device, &self.queue, shadow, two_phase, stats)
    }
}
