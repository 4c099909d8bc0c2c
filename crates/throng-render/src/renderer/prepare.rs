//! The CPU work of a frame: the renderer's own targets, each crowd's draw
//! list (or, on the GPU-driven path, its mirror and cull), and the plan of
//! draws laid out into packages or groups.

use throng_core::material::AlphaMode;
use throng_core::math::Aabb;
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, DrawGroup, DrawList, DrawView};

use crate::base::error::RenderError;
use crate::base::options::{FrameStats, RecordPath};
use crate::base::sync::lock;
use crate::base::uniforms::FrameUniforms;
use crate::draw::items::DrawItem;
use crate::draw::items::find_model;
use crate::draw::items::{Slice, lay_out};
use crate::draw::targets::Targets;
use crate::impostor::QUAD_VERTICES;
use crate::model::gpu_model::{GpuLod, GpuModel};
use crate::pose_cache::PoseCache;
use crate::program::pipeline::PipelineKey;
use crate::shadow::map::Shadow;

use super::Renderer;

impl Renderer {
    pub(super) fn ensure_targets(&mut self, size: (u32, u32)) -> Result<(), RenderError> {
        // The pyramid reads the targets' depth, except where the early pass
        // is drawn single-sampled into targets of its own (on wgpu's GL
        // backend a readable multisampled depth is attached as a texture
        // beside a multisampled colour renderbuffer: an incomplete
        // framebuffer, measured on llvmpipe GL).
        let readable_depth = self.occlusion_culling() && self.single_early().is_none();
        Targets::ensure_for(
            &mut self.targets,
            &self.device,
            size,
            &self.options,
            self.color_format,
            "throng",
            readable_depth,
        )?;
        self.ensure_pyramid(size)
    }

    /// CPU work of a frame: makes sure the renderer's own depth (and MSAA)
    /// targets are of `size`, then [`Self::prepare_draws`]'s work. Use
    /// before [`Self::encode`] / [`Self::encode_with`], which draw into
    /// those targets — and only with them: a frame prepared here is drawn
    /// in two phases where occlusion culling is on
    /// ([`Self::occlusion_culling`]), which [`Self::draw`] in a caller's
    /// pass cannot do (prepare such a frame with [`Self::prepare_draws`]).
    pub fn prepare(
        &mut self,
        size: (u32, u32),
        camera: &Camera,
        crowds: &[&Crowd],
        models: &[&GpuModel],
    ) -> Result<FrameStats, RenderError> {
        self.ensure_targets(size)?;
        let two_phase = self.occlusion_culling();
        self.prepare_frame(camera, crowds, models, two_phase)
    }

    /// CPU work of a frame, without render targets of the renderer's own:
    /// culls, builds and uploads records (both passes), writes the frame's
    /// uniforms and plans the draws. `models` must hold a [`GpuModel`] for
    /// every model the crowds use. Use before [`Self::encode_shadows`] and
    /// [`Self::draw`], when the caller owns the pass and its targets; the
    /// viewport's aspect ratio is the camera's.
    pub fn prepare_draws(
        &mut self,
        camera: &Camera,
        crowds: &[&Crowd],
        models: &[&GpuModel],
    ) -> Result<FrameStats, RenderError> {
        self.prepare_frame(camera, crowds, models, false)
    }

    /// [`Self::prepare_draws`], occlusion-culled in two phases if
    /// `two_phase` (the renderer's targets and pyramid ensured).
    fn prepare_frame(
        &mut self,
        camera: &Camera,
        crowds: &[&Crowd],
        models: &[&GpuModel],
        two_phase: bool,
    ) -> Result<FrameStats, RenderError> {
        if let Some(o) = &mut self.occlusion {
            o.active = false;
        }
        if let Some(t) = &self.timer {
            t.start();
        }
        if let Some(gd) = &mut self.gpu {
            gd.late_items.clear();
        }
        // Calls on a lost device do nothing and raise nothing: say so.
        self.check_device()?;
        let l = &self.options.lighting;
        let frame = FrameUniforms {
            impostor_one_view_size: self.options.impostor_one_view_size.max(0.0),
            ..FrameUniforms::new(camera, l)
        };
        self.queue
            .write_buffer(&self.frame_buffer, 0, bytemuck::bytes_of(&frame));
        if let Some(p) = &mut self.prepass {
            p.set_camera(&self.queue, camera.clip_from_world());
        }

        let view = DrawView {
            lod_tints: self.options.lod_tints,
            // The storage paths draw layers with the palette pre-pass; the
            // packaged one shows their base pose.
            layers: self.path != RecordPath::Packaged,
            ..DrawView::from_camera(camera, self.options.frustum_culling)
        };
        // The storage paths bind each (model, LOD)'s group 1 from the pose
        // cache, filled here for models met for the first time.
        let pose_fill_ms = match self.path {
            RecordPath::Packaged => 0.0,
            _ => self.poses().ensure(&self.device, &self.queue, models)?,
        };
        let mut stats = match self.gpu {
            Some(_) => self.prepare_gpu_driven(camera, view, crowds, models, two_phase)?,
            None => self.prepare_lists(view, crowds, models)?,
        };
        stats.pose_fill_ms = pose_fill_ms;
        let poses = self.poses();
        stats.cached_poses = poses.poses();
        stats.pose_cache_bytes = poses.bytes();
        drop(poses);
        (stats.bone_bytes, stats.shared_bone_bytes) = GpuModel::bone_bytes_of(models);
        Ok(stats)
    }

    /// [`Self::prepare_draws`] on the paths whose draw lists the CPU builds
    /// (frame uniforms written, pose cache ensured).
    pub(super) fn prepare_lists(
        &mut self,
        view: DrawView,
        crowds: &[&Crowd],
        models: &[&GpuModel],
    ) -> Result<FrameStats, RenderError> {
        super::simulate::refuse_simulated(self.path, crowds)?;
        self.draw_lists.resize_with(crowds.len(), DrawList::default);
        for (crowd, list) in crowds.iter().zip(&mut self.draw_lists) {
            crowd.build_draw_list(view, list);
        }

        // Shadows: fit the light to what the camera sees, then cull casters
        // against the light's volume (not the camera's: an instance out of
        // view still casts into it).
        if let Some(sh) = &mut self.shadows.map {
            let receivers = self
                .draw_lists
                .iter()
                .fold(Aabb::EMPTY, |a, l| a.union(&l.bounds));
            sh.lists.resize_with(crowds.len(), DrawList::default);
            let direction = self.options.lighting.direction;
            match sh.fit_light(&self.queue, direction, &receivers, &view) {
                Some(light_view) => {
                    for (crowd, list) in crowds.iter().zip(&mut sh.lists) {
                        crowd.build_draw_list(light_view, list);
                    }
                }
                None => sh.lists.iter_mut().for_each(|l| *l = DrawList::default()),
            }
        }

        let mut stats = FrameStats {
            instances: self.draw_lists.iter().map(|l| l.instances).sum(),
            ..FrameStats::default()
        };
        self.items.clear();
        if let Some(sh) = &mut self.shadows.map {
            sh.items.clear();
        }
        self.plan_lists(crowds, models, &mut stats)?;
        self.ensure_pipelines();
        Ok(stats)
    }

    /// From the frame's draw lists (`self.draw_lists`, and the shadow's):
    /// the palettes of instances with animation layers, the records laid
    /// out and uploaded, and the planned draws appended to the items (both
    /// passes; opaque first, blended last).
    pub(super) fn plan_lists(
        &mut self,
        crowds: &[&Crowd],
        models: &[&GpuModel],
        stats: &mut FrameStats,
    ) -> Result<(), RenderError> {
        // Palettes of the instances with animation layers, evaluated now
        // (their records then point at them).
        self.layers.clear();
        if self.path != RecordPath::Packaged {
            self.layers.place(&mut self.draw_lists, crowds);
            if let Some(sh) = &mut self.shadows.map {
                self.layers.place(&mut sh.lists, crowds);
            }
            let timer = self.timer.as_ref();
            self.layers
                .run(&self.device, &self.queue, crowds, models, timer)?;
        }

        // Lay out every record of the frame, both passes, in one staging buffer.
        self.records.staging.clear();
        let slices = lay_out(
            &mut self.records.staging,
            &self.draw_lists,
            self.path,
            self.records.package_stride,
        );
        let shadow_slices = match &self.shadows.map {
            Some(sh) => lay_out(
                &mut self.records.staging,
                &sh.lists,
                self.path,
                self.records.package_stride,
            ),
            None => Vec::new(),
        };
        for list in &self.draw_lists {
            stats.visible += list.visible();
        }
        stats.packages += slices.len() as u32;
        stats.record_bytes += self.records.staging.len() as u64;
        self.upload_records()?;

        // Plan the draws: opaque first, blended last; shadow casters opaque.
        let held = self.poses.clone();
        let poses = lock(&held);
        let plan = ListPlan {
            path: self.path,
            crowds,
            models,
            poses: &poses,
        };
        plan.draws(&slices, &self.draw_lists, stats, &mut self.items)?;
        if let Some(sh) = &mut self.shadows.map {
            plan.casters(&shadow_slices, sh, stats)?;
        }
        self.bind_instance_records();
        Ok(())
    }
}

/// What planning a frame's CPU-built draw lists into draw items reads.
struct ListPlan<'a> {
    path: RecordPath,
    crowds: &'a [&'a Crowd],
    models: &'a [&'a GpuModel],
    poses: &'a PoseCache,
}

impl<'a> ListPlan<'a> {
    /// The group `slice` of `lists` draws, its model and (unless the group
    /// draws the impostor) its LOD's mesh, the last for a LOD past them.
    fn group_of(
        &self,
        lists: &[DrawList],
        slice: &Slice,
    ) -> Result<(DrawGroup, &'a GpuModel, &'a GpuLod), RenderError> {
        let group = lists[slice.list].groups[slice.group];
        let model = find_model(self.models, self.crowds[slice.list], &group)?;
        let lod = &model.lods[(group.lod as usize).min(model.lods.len() - 1)];
        Ok((group, model, lod))
    }

    /// The draws of `lists`' laid-out `slices` into `items`: each group's
    /// impostor or its LOD's submeshes, opaque first, blended last.
    fn draws(
        &self,
        slices: &[Slice],
        lists: &[DrawList],
        stats: &mut FrameStats,
        items: &mut Vec<DrawItem>,
    ) -> Result<(), RenderError> {
        let mut blended = Vec::new();
        for slice in slices {
            let (group, model, lod) = self.group_of(lists, slice)?;
            if let Some(imp) = model.impostor_at(group.lod as usize) {
                items.push(DrawItem::impostor(imp, slice));
                stats.draws += 1;
                stats.impostors += slice.count;
                stats.triangles += 2 * slice.count as u64;
                stats.vertices += QUAD_VERTICES as u64 * slice.count as u64;
                continue;
            }
            for sub in &lod.submeshes {
                let material = &model.materials[sub.material];
                let key = PipelineKey {
                    flat: sub.flat,
                    double_sided: material.double_sided,
                    blend: material.alpha_mode == AlphaMode::Blend,
                    cross_fade: group.cross_fade,
                    palettes: group.layered,
                    pose_cache: false,
                };
                let item = DrawItem::new(key, model, lod, sub, slice);
                let item =
                    Renderer::poses_of(self.path, self.poses, item, model, group.lod, stats)?;
                stats.draws += 1;
                stats.triangles += (sub.index_count / 3) as u64 * slice.count as u64;
                stats.vertices += sub.vertex_count as u64 * slice.count as u64;
                if key.blend {
                    blended.push(item)
                } else {
                    items.push(item)
                }
            }
        }
        items.append(&mut blended);
        Ok(())
    }

    /// The shadow casters of the map's lists' laid-out `slices` into its
    /// items: opaque submeshes (transparent surfaces cast no shadow) and
    /// impostors.
    fn casters(
        &self,
        slices: &[Slice],
        sh: &mut Shadow,
        stats: &mut FrameStats,
    ) -> Result<(), RenderError> {
        for slice in slices {
            let (group, model, lod) = self.group_of(&sh.lists, slice)?;
            stats.shadow_casters += slice.count;
            if let Some(imp) = model.impostor_at(group.lod as usize) {
                sh.items.push(DrawItem::impostor(imp, slice));
                stats.shadow_draws += 1;
                continue;
            }
            for sub in &lod.submeshes {
                let material = &model.materials[sub.material];
                if material.alpha_mode == AlphaMode::Blend {
                    continue; // transparent surfaces cast no shadow
                }
                let key = PipelineKey::caster(group.cross_fade, group.layered);
                let item = DrawItem::new(key, model, lod, sub, slice);
                let item =
                    Renderer::poses_of(self.path, self.poses, item, model, group.lod, stats)?;
                sh.items.push(item);
                stats.shadow_draws += 1;
            }
        }
        Ok(())
    }
}
