//! A GPU-driven frame's draws, once its culls are submitted: every planned
//! draw of every list, indirect — the camera's (with occlusion culling,
//! each twice: the early phase's and the late phase's), the prepass's and
//! the light's — then the instances with animation layers, which the cull
//! skips, culled on the CPU and drawn as on the unbounded path.

use throng_crowd::crowd::{Crowd, DrawList, DrawView};

use crate::base::error::RenderError;
use crate::base::options::FrameStats;
use crate::base::sync::lock;
use crate::draw::items::DrawItem;
use crate::gpu_driven::cull::Plans;
use crate::gpu_driven::plan::{CrowdPlan, Planned};
use crate::gpu_driven::stats::{add_cpu_counts, count_casters, count_drawn};
use crate::model::gpu_model::GpuModel;
use crate::passes::cull::{CullList, INDIRECT_ARGS_SIZE};
use crate::pose_cache::PoseCache;
use crate::prepass::Prepass;
use crate::renderer::Renderer;
use crate::shadow::map::Shadow;

/// What every list's draws are made with.
struct DrawsOf<'a> {
    models: &'a [&'a GpuModel],
    poses: &'a PoseCache,
    device: &'a wgpu::Device,
    palettes: &'a wgpu::Buffer,
}

/// A list's draws: opaque, then blended (drawn after every opaque one).
#[derive(Default)]
struct Sorted {
    opaque: Vec<DrawItem>,
    blended: Vec<DrawItem>,
}

impl Renderer {
    /// The draws of the lists `plans` culled: the camera's into the
    /// renderer's items (blended last), the late phase's (with `late`) and
    /// the light's late phase's (with `shadow_late`) into `gd`, the
    /// prepass's and the light's into theirs.
    pub(super) fn plan_gpu_draws(
        &mut self,
        plans: &Plans,
        models: &[&GpuModel],
        late: bool,
        shadow_late: bool,
        stats: &mut FrameStats,
    ) -> Result<(), RenderError> {
        let held_poses = self.poses.clone();
        let poses = lock(&held_poses);
        let device = self.device.clone();
        let of = DrawsOf {
            models,
            poses: &poses,
            device: &device,
            palettes: self.layers.palettes(),
        };
        let (mut camera, mut late_phase) = (Sorted::default(), Sorted::default());
        let mut shadow_late_items = Vec::new();
        if let Some(sh) = &mut self.shadows.map {
            sh.items.clear();
        }
        if let Some(p) = &mut self.prepass {
            p.items.clear();
        }
        let Some(gd) = &self.gpu else {
            return Ok(());
        };
        for (c, plan) in gd.crowds.iter().zip(plans) {
            if plan.planned.is_empty() {
                continue;
            }
            let planned = &plan.planned;
            self.list_draws(&c.camera, plan, &of, stats, &mut camera)?;
            if let (Some(prepass), Some(previous)) =
                (self.prepass.as_mut(), c.camera.previous_records())
            {
                prepass_draws(prepass, &c.camera, previous, planned, &of)?;
            }
            if late {
                self.list_draws(&c.late, plan, &of, stats, &mut late_phase)?;
            }
            if let Some(sh) = self.shadows.map.as_mut() {
                let lists = [Some(&c.shadow), shadow_late.then_some(&c.shadow_late)];
                let late_items = &mut shadow_late_items;
                caster_draws(sh, lists, planned, &of, stats, late_items)?;
            }
        }
        self.items.clear();
        self.items.append(&mut camera.opaque);
        self.items.append(&mut camera.blended);
        let Some(gd) = &mut self.gpu else {
            return Ok(());
        };
        gd.late_items = late_phase.opaque;
        gd.late_items.append(&mut late_phase.blended);
        gd.shadow_late_items = shadow_late_items;
        Ok(())
    }

    /// `list`'s draws, counted from what it drew last, into `out`.
    fn list_draws(
        &self,
        list: &CullList,
        plan: &CrowdPlan,
        of: &DrawsOf<'_>,
        stats: &mut FrameStats,
        out: &mut Sorted,
    ) -> Result<(), RenderError> {
        if let Some(drawn) = list.latest_drawn() {
            count_drawn(stats, drawn, plan);
        }
        let planned = &plan.planned;
        let records = self.records_group(list.records());
        for (d, p) in planned.iter().enumerate() {
            let offset = d as u64 * INDIRECT_ARGS_SIZE;
            let target = (list.indirect(), offset, &records, list.records());
            let item = p.item(of.models[p.model], p.key, target, of.poses, stats)?;
            stats.draws += 1;
            if p.blend {
                out.blended.push(item);
            } else {
                out.opaque.push(item);
            }
        }
        Ok(())
    }

    /// Instances with animation layers: the cull skipped them; culled on
    /// the CPU and drawn with the palette pre-pass, as on the unbounded
    /// path. Their shadows are cast unculled (the light is fitted on the
    /// GPU, after this).
    pub(super) fn plan_layered(
        &mut self,
        view: DrawView,
        crowds: &[&Crowd],
        models: &[&GpuModel],
        stats: &mut FrameStats,
    ) -> Result<(), RenderError> {
        self.draw_lists.resize_with(crowds.len(), DrawList::default);
        if !crowds.iter().any(|c| c.has_layered_instances()) {
            self.draw_lists
                .iter_mut()
                .for_each(|l| *l = DrawList::default());
            self.set_layered_stats(FrameStats::default());
            return Ok(());
        }
        let layered = DrawView {
            layered_only: true,
            ..view
        };
        for (crowd, list) in crowds.iter().zip(&mut self.draw_lists) {
            crowd.build_draw_list(layered, list);
        }
        if let Some(sh) = &mut self.shadows.map {
            sh.lists.resize_with(crowds.len(), DrawList::default);
            let casters = DrawView {
                frustum: None,
                lod_tints: false,
                lod_scale: sh.caster_lod_scale(layered.lod_scale),
                ..layered
            };
            for (crowd, list) in crowds.iter().zip(&mut sh.lists) {
                crowd.build_draw_list(casters, list);
            }
        }
        let mut layered_stats = FrameStats::default();
        self.plan_lists(crowds, models, &mut layered_stats)?;
        add_cpu_counts(stats, &layered_stats);
        stats.draws += layered_stats.draws;
        stats.shadow_draws += layered_stats.shadow_draws;
        stats.record_bytes += layered_stats.record_bytes;
        self.set_layered_stats(layered_stats);
        Ok(())
    }

    /// Notes what the CPU's lists of layered instances drew this frame.
    fn set_layered_stats(&mut self, stats: FrameStats) {
        if let Some(gd) = &mut self.gpu {
            gd.layered_stats = stats;
        }
    }
}

/// The prepass's draws of the camera's `list`: its opaque meshes, reading
/// the records of the frame before (`previous`) beside this frame's.
fn prepass_draws(
    prepass: &mut Prepass,
    list: &CullList,
    previous: &wgpu::Buffer,
    planned: &[Planned],
    of: &DrawsOf<'_>,
) -> Result<(), RenderError> {
    let group = prepass.group(of.device, list.records(), previous, of.palettes);
    for (d, p) in planned.iter().enumerate().filter(|(_, p)| !p.blend) {
        let offset = d as u64 * INDIRECT_ARGS_SIZE;
        let target = (list.indirect(), offset, &group, list.records());
        let mut ignored = FrameStats::default();
        let item = p.item(of.models[p.model], p.key, target, of.poses, &mut ignored)?;
        if !item.impostor {
            prepass.items.push(item);
        }
    }
    Ok(())
}

/// The light's draws of its `lists` (its only or early phase's into the
/// map's items, its late phase's into `late_items`), counted from what
/// each drew last.
fn caster_draws(
    sh: &mut Shadow,
    lists: [Option<&CullList>; 2],
    planned: &[Planned],
    of: &DrawsOf<'_>,
    stats: &mut FrameStats,
    late_items: &mut Vec<DrawItem>,
) -> Result<(), RenderError> {
    for (phase, list) in lists.into_iter().enumerate() {
        let Some(list) = list else { continue };
        let cast = sh.cast_group_for(of.device, list.records(), of.palettes);
        for (d, p) in planned.iter().enumerate().filter(|(_, p)| !p.blend) {
            let offset = d as u64 * INDIRECT_ARGS_SIZE;
            let target = (list.indirect(), offset, &cast, list.records());
            let item = p.item(of.models[p.model], p.cast_key(), target, of.poses, stats)?;
            match phase {
                0 => sh.items.push(item),
                _ => late_items.push(item),
            }
            stats.shadow_draws += 1;
        }
        if let Some(d) = list.latest_drawn() {
            count_casters(stats, d);
        }
    }
    Ok(())
}
