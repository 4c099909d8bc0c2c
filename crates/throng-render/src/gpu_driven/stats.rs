//! The GPU-driven path's counts: what each view's cull drew comes back
//! from the GPU a frame or two later;
//! [`Renderer::wait_gpu_stats`](crate::Renderer::wait_gpu_stats) waits for
//! the frame last prepared.

use throng_core::gpu::LightFit;

use super::CrowdPlan;
use crate::base::error::RenderError;
use crate::base::options::FrameStats;
use crate::device::offscreen::map_read;
use crate::shadow::map::Shadow;

use super::GpuDriven;

/// What a view's draws submitted, from its per-group counts: instances in
/// view (less those a late phase found occluded), triangles, vertices,
/// impostors and the hidden parts left out into `stats`.
pub(crate) fn count_drawn(
    stats: &mut FrameStats,
    drawn: &crate::passes::cull::Drawn,
    plan: &CrowdPlan,
) {
    stats.visible = (stats.visible + drawn.visible).saturating_sub(drawn.occluded);
    stats.occluded += drawn.occluded;
    let count = |group: u32| drawn.groups.get(group as usize).copied().unwrap_or(0);
    for &(group, parts) in &plan.hidden {
        stats.parts_culled += count(group) as u64 * parts as u64;
    }
    for (s, p) in plan.specs.iter().zip(&plan.planned) {
        let n = count(s.group);
        stats.triangles += n as u64 * (s.index_count / 3) as u64;
        stats.vertices += n as u64 * p.vertices as u64;
        if p.impostor {
            stats.impostors += n;
        }
    }
}

/// The light's casters in view (less those a late phase found occluded)
/// into `stats`.
pub(crate) fn count_casters(stats: &mut FrameStats, drawn: &crate::passes::cull::Drawn) {
    stats.shadow_casters = (stats.shadow_casters + drawn.visible).saturating_sub(drawn.occluded);
    stats.shadow_occluded += drawn.occluded;
}

impl GpuDriven {
    /// [`Renderer::wait_gpu_stats`](crate::Renderer::wait_gpu_stats): waits
    /// for the counts of the frame last prepared (and, with `shadow`, its
    /// light fitted on the GPU) and sets them in `stats`; `two_phase` if
    /// that frame was culled in two phases.
    pub(crate) fn wait_stats(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        shadow: Option<&mut Shadow>,
        two_phase: bool,
        stats: &mut FrameStats,
    ) -> Result<(), RenderError> {
        let shadows = shadow.is_some();
        if let Some(sh) = shadow {
            let size = std::mem::size_of::<LightFit>() as u64;
            let readback = crate::device::buffers::readback_buffer(device, size);
            let mut encoder = device.create_command_encoder(&Default::default());
            encoder.copy_buffer_to_buffer(self.light_fit.fit(), 0, &readback, 0, size);
            queue.submit([encoder.finish()]);
            let fit: LightFit = bytemuck::pod_read_unaligned(&map_read(device, &readback)?);
            sh.light = (fit.visible > 0)
                .then(|| glam::Mat4::from_cols_array_2d(&fit.light_clip_from_world));
        }
        stats.visible = 0;
        stats.occluded = 0;
        stats.shadow_casters = 0;
        stats.shadow_occluded = 0;
        stats.triangles = 0;
        stats.vertices = 0;
        stats.impostors = 0;
        stats.parts_culled = 0;
        add_cpu_counts(stats, &self.layered_stats);
        for (c, plan) in self.crowds.iter_mut().zip(&self.specs).take(self.used) {
            if let Some(drawn) = c.camera.wait_drawn(device)? {
                count_drawn(stats, drawn, plan);
            }
            if two_phase && let Some(drawn) = c.late.wait_drawn(device)? {
                count_drawn(stats, drawn, plan);
            }
            if shadows {
                if let Some(d) = c.shadow.wait_drawn(device)? {
                    count_casters(stats, d);
                }
                if two_phase && let Some(d) = c.shadow_late.wait_drawn(device)? {
                    count_casters(stats, d);
                }
            }
        }
        Ok(())
    }
}

/// Adds what the CPU's lists of instances with animation layers drew to
/// the GPU-driven path's counts (the cull counts them as visible and
/// casting already: it fits the light to them).
pub(crate) fn add_cpu_counts(stats: &mut FrameStats, cpu: &FrameStats) {
    stats.triangles += cpu.triangles;
    stats.vertices += cpu.vertices;
    stats.impostors += cpu.impostors;
}
