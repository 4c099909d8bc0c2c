//! The crowd cast into light views the caller owns (an engine's shadow
//! cascades; `shadow/light_views.rs`): [`Renderer::prepare_light_views`]
//! culls the frame's crowds per view on the GPU, from the mirrors the
//! frame's [`Renderer::prepare_draws`] synced, and
//! [`Renderer::draw_light_view`] draws a view's casters in the caller's
//! depth pass. GPU-driven path only: the CPU paths would lay out every
//! caster's record once per view.

use throng_crowd::crowd::{Crowd, DrawView};

use super::Renderer;
use crate::base::error::RenderError;
use crate::base::options::{FrameStats, RecordPath};
use crate::base::sync::lock;
use crate::gpu_driven::GpuDriven;
use crate::model::gpu_model::GpuModel;
use crate::passes::cull::{CullList, CullPhase, CullRequest, INDIRECT_ARGS_SIZE};
use crate::shadow::light_views::{LightView, LightViewStats, LightViewTarget, LightViews};
use crate::shadow::map::cast_group;

impl Renderer {
    /// Culls the crowds for each of `views` and plans their casters' draws
    /// in `target`'s format and convention. Call after
    /// [`Self::prepare_draws`] of the same frame, with the same crowds and
    /// models; then [`Self::draw_light_view`] in each view's depth pass.
    /// Casters choose their LODs by the camera's distances. Instances with
    /// animation layers are not cast (the GPU-driven path culls them on
    /// the CPU). Errors on the CPU paths, which have no GPU cull, and for
    /// a target without depth.
    pub fn prepare_light_views(
        &mut self,
        target: &LightViewTarget,
        views: &[LightView],
        crowds: &[&Crowd],
        models: &[&GpuModel],
    ) -> Result<LightViewStats, RenderError> {
        if self.path != RecordPath::GpuDriven {
            return Err(RenderError::Unsupported(format!(
                "light views of the caller's need the GPU-driven path; this renderer draws on the {:?} path",
                self.path
            )));
        }
        if !target.format.has_depth_aspect() {
            return Err(RenderError::Unsupported(format!(
                "a light view target of {:?}, which has no depth",
                target.format
            )));
        }
        let s = target.caster_lod_scale;
        if !(s > 0.0 && s <= 1.0) {
            return Err(RenderError::Unsupported(format!(
                "a light view caster LOD scale of {s} (in (0, 1])"
            )));
        }
        self.check_device()?;
        let lv = self
            .shadows
            .light_views_for(&self.device, *target, self.options.skinning);
        lv.set_views(&self.device, &self.queue, views);
        let Some(gd) = self.gpu.as_mut() else {
            return Ok(LightViewStats::default());
        };
        let Some(camera) = gd.view.filter(|_| gd.used == crowds.len()) else {
            return Err(RenderError::Unsupported(
                "light views prepared before the frame's prepare_draws, or with other crowds"
                    .into(),
            ));
        };
        let mut stats = LightViewStats {
            views: views.len() as u32,
            ..LightViewStats::default()
        };
        let (device, queue) = (&self.device, &self.queue);
        cull_light_views(device, queue, gd, lv, camera, views, crowds)?;
        let plan = CasterPlan {
            device,
            gd,
            models,
            palettes: self.layers.palettes(),
            poses: &self.poses,
        };
        let impostors = plan.plan(lv, &mut stats)?;
        if impostors && lv.impostor.is_none() {
            let (primitive, depth) = lv.primitive_and_depth(device);
            lv.impostor = Some(self.impostors.cast_with(device, primitive, depth));
        }
        Ok(stats)
    }

    /// Draws light view `index`'s casters (of the frame last given to
    /// [`Self::prepare_light_views`]) into `pass`, a depth pass of that
    /// call's target. Nothing for a view it was not given.
    pub fn draw_light_view(&self, index: usize, pass: &mut wgpu::RenderPass<'_>) {
        self.shadows.draw_light_view(index, pass);
    }

    /// The target of the light views last prepared, if any.
    pub fn light_view_target(&self) -> Option<LightViewTarget> {
        self.shadows.light_view_target()
    }
}

/// Culls the frame's crowds for each of `views` on the GPU, from the
/// mirrors the frame synced (shared ones by identity, else the renderer's
/// own), into each view's cull lists, and submits the culls.
fn cull_light_views(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    gd: &GpuDriven,
    lv: &mut LightViews,
    camera: DrawView,
    views: &[LightView],
    crowds: &[&Crowd],
) -> Result<(), RenderError> {
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("throng light view culls"),
    });
    let held = gd.held_mirrors(device, crowds);
    let guards: Vec<_> = held.iter().map(|m| m.as_deref().map(lock)).collect();
    let frustums: Vec<_> = views.iter().map(|v| lv.frustum(v)).collect();
    let caster_lod_scale = lv.target.caster_lod_scale;
    for (frustum, state) in frustums.into_iter().zip(&mut lv.views) {
        state
            .culls
            .resize_with(crowds.len(), || CullList::new(device));
        let light = DrawView {
            frustum: Some(frustum),
            lod_tints: false,
            lod_scale: camera.lod_scale * caster_lod_scale,
            layered_only: false,
            ..camera
        };
        let lists = crowds.iter().zip(&gd.crowds).zip(&gd.specs).zip(&guards);
        for ((((crowd, c), plan), guard), cull) in lists.zip(&mut state.culls) {
            let Some(mirror) = guard.as_deref().or(c.mirror.as_ref()) else {
                continue;
            };
            if plan.is_empty() {
                continue;
            }
            let request = CullRequest {
                view: light,
                now: crowd.clock(),
                draws: &plan.specs,
                phase: CullPhase::Only,
                previous: None,
            };
            cull.prepare(device, queue, &gd.pass, mirror, &request)?;
            cull.encode(&mut encoder, &gd.pass, None);
        }
    }
    drop(guards);
    queue.submit([encoder.finish()]);
    Ok(())
}

/// What planning the light views' caster draws reads of the renderer.
struct CasterPlan<'a> {
    device: &'a wgpu::Device,
    gd: &'a GpuDriven,
    models: &'a [&'a GpuModel],
    palettes: &'a wgpu::Buffer,
    poses: &'a std::sync::Mutex<crate::pose_cache::PoseCache>,
}

impl CasterPlan<'_> {
    /// Each view's draws, after its culls were submitted: every opaque
    /// planned draw, indirect, double-sided, from the view's cull lists.
    /// True if any draws an impostor.
    fn plan(&self, lv: &mut LightViews, stats: &mut LightViewStats) -> Result<bool, RenderError> {
        let poses = lock(self.poses);
        let mut ignored = FrameStats::default();
        let mut impostors = false;
        for state in &mut lv.views {
            state.items.clear();
            for (cull, plan) in state.culls.iter_mut().zip(&self.gd.specs) {
                if plan.is_empty() {
                    continue;
                }
                let planned = &plan.planned;
                cull.after_submit(self.device);
                if let Some(d) = cull.latest_drawn() {
                    stats.casters += d.visible;
                }
                let group = cast_group(
                    self.device,
                    &lv.cast_layout,
                    cull.records(),
                    &state.uniform,
                    self.palettes,
                );
                for (d, p) in planned.iter().enumerate().filter(|(_, p)| !p.blend) {
                    let key = p.cast_key();
                    let offset = d as u64 * INDIRECT_ARGS_SIZE;
                    let target = (cull.indirect(), offset, &group, cull.records());
                    let item = p.item(self.models[p.model], key, target, &poses, &mut ignored)?;
                    impostors |= item.impostor;
                    state.items.push(item);
                    stats.draws += 1;
                }
            }
        }
        Ok(impostors)
    }
}
