//! The renderer's GPU-driven path ([`RecordPath::GpuDriven`]): each crowd is
//! mirrored on the GPU ([`CrowdMirror`], only changed instances uploaded), a
//! compute cull pass per view builds the records and indirect draw
//! arguments ([`CullList`]), and every (model, LOD, fading, submesh) is one
//! `draw_indexed_indirect` whose instance count the GPU wrote. The CPU's
//! work per frame is proportional to the crowd's changes and its number of
//! draws, not to its instances.
//!
//! Shadows: the light is fitted, as on the CPU paths, to the box of the
//! instances the camera sees, which the camera's cull pass writes; the fit
//! runs on the GPU ([`LightFitPass`]) between the camera's and the light's
//! cull passes, in the same submission, so no frame waits for the GPU.
//! [`FrameStats::visible`] and the shadow casters report the newest frame
//! whose counts have come back (one or two frames late), or exactly after
//! [`Renderer::wait_gpu_stats`].

use throng_core::gpu::{DrawSpec, LightFit};
use throng_crowd::camera::Frustum;
use throng_crowd::crowd::{Crowd, DrawList, DrawView, GpuTables};

use super::Renderer;
use crate::base::error::RenderError;
use crate::base::options::FrameStats;
use crate::device::offscreen::map_read;
use crate::device::pass_timer::{PassTimer, SpanKind};
use crate::draw::items::DrawItem;
use crate::draw::items::find_model_by_key;
use crate::model::gpu_model::GpuModel;
use crate::model::impostor::{QUAD_INDICES, QUAD_VERTICES};
use crate::model::pose_cache::PoseCache;
use crate::passes::cull::{CullList, CullPass, CullPhase, CullRequest, INDIRECT_ARGS_SIZE};
use crate::passes::depth_pyramid::DepthPyramid;
use crate::passes::light_fit::{self, LightFitPass};
use crate::passes::mirror::crowd_mirror::CrowdMirror;
use crate::passes::mirror::shared::{self, SharedMirrors};
use crate::passes::simulation::Simulation;
use crate::program::pipeline::PipelineKey;
use throng_core::material::AlphaMode;

/// True if the adapter and device can run the GPU-driven path: storage
/// buffers in the vertex stage, compute shaders with 8 storage buffers,
/// indirect draws with a first instance.
pub fn supports_gpu_driven(adapter: &wgpu::Adapter, device: &wgpu::Device) -> bool {
    let flags = adapter.get_downlevel_capabilities().flags;
    super::supports_unbounded(adapter, device)
        && flags.contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
        && flags.contains(wgpu::DownlevelFlags::INDIRECT_EXECUTION)
        && device
            .features()
            .contains(wgpu::Features::INDIRECT_FIRST_INSTANCE)
        && device.limits().max_storage_buffers_per_shader_stage >= 8
        && device.limits().max_compute_workgroup_size_x >= 64
}

/// The GPU-driven state of a renderer.
pub(super) struct GpuDriven {
    pub(super) pass: CullPass,
    pub(super) crowds: Vec<CrowdGpu>,
    /// Crowds drawn in the frame last prepared.
    pub(super) used: usize,
    /// Their indirect draws, and per draw the vertices an instance shades
    /// and whether it draws the impostor.
    pub(super) specs: Vec<(Vec<DrawSpec>, Vec<Planned>)>,
    /// What the CPU's lists of instances with animation layers drew last
    /// frame (added to the GPU's counts).
    layered_stats: FrameStats,
    /// Fits the shadow light on the GPU.
    light_fit: LightFitPass,
    /// Occlusion culling's late phase's draws: opaque first, blended last
    /// (empty for a frame drawn in one phase).
    pub(super) late_items: Vec<DrawItem>,
    /// Occlusion culling's late phase's shadow casters.
    pub(super) shadow_late_items: Vec<DrawItem>,
    /// Mirrors shared with other views' renderers, if any
    /// ([`Renderer::share_mirrors`]).
    pub(super) shared: Option<SharedMirrors>,
    /// The camera's view of the frame last prepared (light views of the
    /// caller's choose their casters' LODs by it).
    pub(super) view: Option<DrawView>,
}

/// What a view's draws submitted, from its per-group counts: instances in
/// view (less those a late phase found occluded), triangles, vertices and
/// impostors into `stats`.
fn count_drawn(
    stats: &mut FrameStats,
    drawn: &crate::passes::cull::Drawn,
    specs: &[DrawSpec],
    planned: &[Planned],
) {
    stats.visible = (stats.visible + drawn.visible).saturating_sub(drawn.occluded);
    stats.occluded += drawn.occluded;
    for (s, p) in specs.iter().zip(planned) {
        let n = drawn.groups.get(s.group as usize).copied().unwrap_or(0);
        stats.triangles += n as u64 * (s.index_count / 3) as u64;
        stats.vertices += n as u64 * p.vertices as u64;
        if p.impostor {
            stats.impostors += n;
        }
    }
}

/// The light's casters in view (less those a late phase found occluded)
/// into `stats`.
fn count_casters(stats: &mut FrameStats, drawn: &crate::passes::cull::Drawn) {
    stats.shadow_casters = (stats.shadow_casters + drawn.visible).saturating_sub(drawn.occluded);
    stats.shadow_occluded += drawn.occluded;
}

/// One crowd's mirror and its views' lists.
pub(super) struct CrowdGpu {
    /// Its own mirror (made when first synced): none while the renderer
    /// shares mirrors, unless it is simulated (a simulation steps its own).
    pub(super) mirror: Option<CrowdMirror>,
    /// The camera's list: its only one, or occlusion culling's early phase.
    camera: CullList,
    /// Occlusion culling's late phase of the camera (unused without it).
    late: CullList,
    /// The light's list: its only one, or occlusion culling's early phase.
    shadow: CullList,
    /// Occlusion culling's late phase of the light (unused without it).
    shadow_late: CullList,
    /// The GPU simulation stepped over it, if any.
    pub(super) simulation: Option<Simulation>,
}

/// One planned indirect draw: what it draws and with which pipeline.
#[derive(Clone, Copy)]
pub(super) struct Planned {
    pub(super) key: PipelineKey,
    pub(super) model: usize,
    lod: usize,
    sub: usize,
    pub(super) blend: bool,
    /// Draws the model's impostor (`sub` unused).
    impostor: bool,
    /// Vertices an instance shades.
    vertices: u32,
}

impl Planned {
    /// Its indirect draw at `offset` of `args`, reading `records` (the bind
    /// group, and the buffer as instance-rate attributes: `target`); a mesh
    /// is drawn with pipeline `key`, from the pose cache
    /// where its LOD is cached (a fallback is counted in `stats`).
    pub(super) fn item(
        &self,
        model: &GpuModel,
        key: PipelineKey,
        (args, offset, records, buffer): (&wgpu::Buffer, u64, &wgpu::BindGroup, &wgpu::Buffer),
        poses: &PoseCache,
        stats: &mut FrameStats,
    ) -> Result<DrawItem, RenderError> {
        if let Some(imp) = model.impostor_at(self.lod).filter(|_| self.impostor) {
            let item = DrawItem::of_impostor(imp).with_indirect(args, offset, records.clone());
            return Ok(item.with_records(buffer));
        }
        let lod_index = self.lod.min(model.lods.len() - 1);
        let lod = &model.lods[lod_index];
        let sub = &lod.submeshes[self.sub];
        let item = DrawItem::of_submesh(key, model, lod, sub)
            .with_indirect(args, offset, records.clone())
            .with_records(buffer);
        let (item, fallback) = item.with_poses(poses, model, lod_index)?;
        stats.pose_fallback_draws += fallback as u32;
        Ok(item)
    }
}

impl GpuDriven {
    pub(super) fn new(device: &wgpu::Device) -> Self {
        Self {
            pass: CullPass::new(device),
            crowds: Vec::new(),
            used: 0,
            specs: Vec::new(),
            layered_stats: FrameStats::default(),
            light_fit: LightFitPass::new(device),
            late_items: Vec::new(),
            shadow_late_items: Vec::new(),
            shared: None,
            view: None,
        }
    }

    fn crowd_gpu(device: &wgpu::Device) -> CrowdGpu {
        CrowdGpu {
            mirror: None,
            camera: CullList::new(device),
            late: CullList::new(device),
            shadow: CullList::new(device),
            shadow_late: CullList::new(device),
            simulation: None,
        }
    }

    /// Sets the simulation of crowd `index`.
    pub(super) fn set_simulation(
        &mut self,
        device: &wgpu::Device,
        index: usize,
        simulation: Option<Simulation>,
    ) {
        if self.crowds.len() <= index {
            self.crowds
                .resize_with(index + 1, || Self::crowd_gpu(device));
        }
        self.crowds[index].simulation = simulation;
    }

    /// The simulation of crowd `index`.
    pub(super) fn simulation_mut(&mut self, index: usize) -> Option<&mut Simulation> {
        self.crowds.get_mut(index)?.simulation.as_mut()
    }

    /// Uses `mirrors` from the next prepare on (the own mirrors are let go).
    pub(super) fn share(&mut self, mirrors: SharedMirrors) {
        self.shared = Some(mirrors);
        for c in &mut self.crowds {
            if c.simulation.is_none() {
                c.mirror = None;
            }
        }
    }

    /// Bytes of the crowds' own mirrors.
    pub(super) fn own_mirror_bytes(&self) -> u64 {
        self.crowds
            .iter()
            .filter_map(|c| c.mirror.as_ref())
            .map(CrowdMirror::gpu_bytes)
            .sum()
    }

    /// The shared mirror of `crowd`, when this renderer shares mirrors and
    /// one was made for it.
    pub(super) fn shared_mirror(
        &self,
        crowd: &Crowd,
    ) -> Option<std::sync::Arc<std::sync::Mutex<CrowdMirror>>> {
        self.shared.as_ref()?.get(crowd.identity())
    }

    /// The mirror of crowd `index` and its simulation.
    pub(super) fn mirror_of(&self, index: usize) -> Option<(&CrowdMirror, Option<&Simulation>)> {
        let c = self.crowds.get(index)?;
        Some((c.mirror.as_ref()?, c.simulation.as_ref()))
    }
}

/// Every (model, LOD, fading, submesh) of a crowd: the indirect draws'
/// specs and what each draws.
fn plan(
    crowd: &Crowd,
    tables: &GpuTables,
    models: &[&GpuModel],
) -> Result<(Vec<DrawSpec>, Vec<Planned>), RenderError> {
    let mut specs = Vec::new();
    let mut planned = Vec::new();
    for (m, handle) in crowd.models().enumerate() {
        let (index, model) = find_model_by_key(models, handle)?;
        let info = &tables.models[m];
        for lod in 0..info.lod_count as usize {
            if model.impostor_at(lod).is_some() {
                for fading in [false, true] {
                    specs.push(DrawSpec {
                        group: info.group_base + 2 * lod as u32 + fading as u32,
                        index_count: QUAD_INDICES.len() as u32,
                        first_index: 0,
                        base_vertex: 0,
                    });
                    planned.push(Planned {
                        key: PipelineKey::IMPOSTOR,
                        model: index,
                        lod,
                        sub: 0,
                        blend: false,
                        impostor: true,
                        vertices: QUAD_VERTICES,
                    });
                }
                continue;
            }
            let gl = &model.lods[lod.min(model.lods.len() - 1)];
            for fading in [false, true] {
                for (s, sub) in gl.submeshes.iter().enumerate() {
                    let material = &model.materials[sub.material];
                    specs.push(DrawSpec {
                        group: info.group_base + 2 * lod as u32 + fading as u32,
                        index_count: sub.index_count,
                        first_index: sub.first_index,
                        base_vertex: sub.base_vertex,
                    });
                    let blend = material.alpha_mode == AlphaMode::Blend;
                    planned.push(Planned {
                        key: PipelineKey {
                            flat: sub.flat,
                            double_sided: material.double_sided,
                            blend,
                            cross_fade: fading,
                            palettes: false,
                            pose_cache: false,
                        },
                        model: index,
                        lod,
                        sub: s,
                        blend,
                        impostor: false,
                        vertices: sub.vertex_count,
                    });
                }
            }
        }
    }
    Ok((specs, planned))
}

impl Renderer {
    /// [`Self::prepare_draws`] on the GPU-driven path (frame uniforms already
    /// written).
    pub(super) fn prepare_gpu_driven(
        &mut self,
        gd: &mut GpuDriven,
        view: DrawView,
        crowds: &[&Crowd],
        models: &[&GpuModel],
        occlusion: Option<LateView<'_>>,
        shadow_pyramid: Option<&DepthPyramid>,
    ) -> Result<FrameStats, RenderError> {
        let device = self.device.clone();
        let queue = self.queue.clone();
        if gd.crowds.len() < crowds.len() {
            gd.crowds
                .resize_with(crowds.len(), || GpuDriven::crowd_gpu(&device));
        }
        gd.used = crowds.len();
        gd.view = Some(view);
        let mut stats = FrameStats::default();
        let mut plans = Vec::with_capacity(crowds.len());
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("throng cull"),
        });
        // Each view's cull pass is GPU-timed, where the device can.
        let timer = self.timer.as_ref();
        let span =
            |name| timer.and_then(|t| Some(t.compute_writes(t.span(name, SpanKind::Prepared)?)));
        // The shared mirrors this frame's crowds use, held until their
        // culls are recorded.
        let held: Vec<Option<std::sync::Arc<std::sync::Mutex<CrowdMirror>>>> = crowds
            .iter()
            .zip(&gd.crowds)
            .map(|(crowd, c)| {
                let shared = gd.shared.as_ref().filter(|_| c.simulation.is_none())?;
                Some(shared.mirror(&device, crowd.identity()))
            })
            .collect();
        let mut guards: Vec<_> = held
            .iter()
            .map(|m| m.as_deref().map(shared::lock))
            .collect();
        for ((crowd, c), guard) in crowds.iter().zip(&mut gd.crowds).zip(&mut guards) {
            let mirror = match guard {
                Some(g) => &mut **g,
                None => c.mirror.get_or_insert_with(|| CrowdMirror::new(&device)),
            };
            if self.prepass.is_some() {
                // Before the sync changes them: the frame before's transforms.
                mirror.keep_previous(&device, &queue, crowd.clock())?;
            }
            let sync = mirror.sync(&device, &queue, &mut encoder, &gd.pass, crowd)?;
            if let Some(sim) = &mut c.simulation {
                sim.encode(&device, &queue, &mut encoder, mirror, crowd)?;
            }
            stats.record_bytes += sync.bytes;
            stats.instances += crowd.len() as u32;
            if crowd.is_empty() {
                // Nothing to cull or draw.
                plans.push((Vec::new(), Vec::new()));
                continue;
            }
            let (specs, planned) = plan(crowd, mirror.tables(), models)?;
            let request = CullRequest {
                view,
                now: crowd.clock(),
                draws: &specs,
                phase: match occlusion {
                    Some(_) => CullPhase::Early,
                    None => CullPhase::Only,
                },
                previous: self.prepass.as_ref().and(mirror.previous()),
            };
            c.camera
                .prepare(&device, &queue, &gd.pass, mirror, &request)?;
            // The late phase is recorded with the frame's passes, after the
            // early phase's draws and the pyramid of their depth.
            if let Some(late) = &occlusion {
                let request = CullRequest {
                    phase: CullPhase::Late {
                        early: &c.camera,
                        pyramid: late.pyramid,
                        clip_from_world: late.clip_from_world,
                        reversed: late.reversed,
                    },
                    ..request
                };
                c.late
                    .prepare(&device, &queue, &gd.pass, mirror, &request)?;
            }
            c.camera.encode(&mut encoder, &gd.pass, span("cull"));
            plans.push((specs, planned));
        }

        // Shadows: the light is fitted on the GPU to what the camera's cull
        // drew, then the casters are culled against the light's volume (not
        // the camera's: an instance out of view still casts into it), all in
        // this submission. The light view's planes and the shadow uniforms'
        // matrix are copied from the fit over what the CPU wrote.
        if let Some(sh) = &mut self.shadow {
            sh.light = None;
            sh.write_uniforms(&queue, glam::Mat4::IDENTITY);
            let cameras: Vec<&CullList> = gd
                .crowds
                .iter()
                .zip(&plans)
                .filter(|(_, (specs, _))| !specs.is_empty())
                .map(|(c, _)| &c.camera)
                .collect();
            let direction = self.options.lighting.direction;
            gd.light_fit
                .encode(&device, &queue, &mut encoder, direction, &cameras)?;
            let fit = gd.light_fit.fit();
            let (at, bytes) = light_fit::MATRIX;
            encoder.copy_buffer_to_buffer(fit, at, &sh.uniform, 0, bytes);
            let light_view = DrawView {
                frustum: Some(Frustum {
                    planes: [glam::Vec4::ZERO; 6],
                }),
                lod_tints: false,
                lod_scale: sh.caster_lod_scale(view.lod_scale),
                ..view
            };
            let casters = crowds.iter().zip(&mut gd.crowds).zip(&plans).zip(&guards);
            for (((crowd, c), (specs, _)), guard) in casters {
                if specs.is_empty() {
                    continue;
                }
                let Some(mirror) = guard.as_deref().or(c.mirror.as_ref()) else {
                    continue; // synced above: never
                };
                let request = CullRequest {
                    view: light_view,
                    now: crowd.clock(),
                    draws: specs,
                    phase: match shadow_pyramid {
                        Some(_) => CullPhase::Early,
                        None => CullPhase::Only,
                    },
                    previous: None,
                };
                c.shadow
                    .prepare(&device, &queue, &gd.pass, mirror, &request)?;
                let (at, bytes) = light_fit::PLANES;
                encoder.copy_buffer_to_buffer(fit, at, c.shadow.view_buffer(), 0, bytes);
                // The light's late phase tests against the pyramid of the
                // early shadow pass, in the light's projection: the fitted
                // matrix is copied over the view's `clip_from_world`.
                if let Some(pyramid) = shadow_pyramid {
                    let request = CullRequest {
                        phase: CullPhase::Late {
                            early: &c.shadow,
                            pyramid,
                            clip_from_world: glam::Mat4::IDENTITY,
                            reversed: false,
                        },
                        ..request
                    };
                    c.shadow_late
                        .prepare(&device, &queue, &gd.pass, mirror, &request)?;
                    let late = c.shadow_late.view_buffer();
                    encoder.copy_buffer_to_buffer(fit, at, late, 0, bytes);
                    let (from, bytes) = light_fit::MATRIX;
                    let to = std::mem::offset_of!(throng_core::gpu::CullView, clip_from_world);
                    encoder.copy_buffer_to_buffer(fit, from, late, to as u64, bytes);
                }
                c.shadow.encode(&mut encoder, &gd.pass, span("shadow cull"));
            }
        }
        let submitting = web_time::Instant::now();
        queue.submit([encoder.finish()]);
        stats.submit_ms += submitting.elapsed().as_secs_f64() * 1e3;
        for c in &gd.crowds {
            if let Some(sim) = &c.simulation {
                sim.after_submit();
            }
        }
        for (c, (specs, _)) in gd.crowds.iter_mut().zip(&plans) {
            if !specs.is_empty() {
                c.camera.after_submit(&device);
                if occlusion.is_some() {
                    // Collects the late phase of frames before.
                    c.late.after_submit(&device);
                }
                if self.shadow.is_some() {
                    c.shadow.after_submit(&device);
                    if shadow_pyramid.is_some() {
                        c.shadow_late.after_submit(&device);
                    }
                }
            }
        }

        // The draws: every planned one, indirect (with occlusion culling,
        // each twice: the early phase's and the late phase's).
        let held_poses = self.poses.clone();
        let poses = super::poses::lock(&held_poses);
        self.items.clear();
        let mut late_items = Vec::new();
        let mut late_blended = Vec::new();
        let mut blended = Vec::new();
        let mut shadow_late_items = Vec::new();
        if let Some(sh) = &mut self.shadow {
            sh.items.clear();
        }
        if let Some(p) = &mut self.prepass {
            p.items.clear();
        }
        for (c, (specs, planned)) in gd.crowds.iter().zip(&plans) {
            if planned.is_empty() {
                continue;
            }
            let records = self.records_group(c.camera.records());
            if let Some(drawn) = c.camera.latest_drawn() {
                count_drawn(&mut stats, drawn, specs, planned);
            }
            for (d, p) in planned.iter().enumerate() {
                let offset = d as u64 * INDIRECT_ARGS_SIZE;
                let target = (c.camera.indirect(), offset, &records, c.camera.records());
                let item = p.item(models[p.model], p.key, target, &poses, &mut stats)?;
                stats.draws += 1;
                if p.blend {
                    blended.push(item);
                } else {
                    self.items.push(item);
                }
            }
            if let (Some(prepass), Some(previous)) =
                (self.prepass.as_mut(), c.camera.previous_records())
            {
                let palettes = self.layers.palettes();
                let group = prepass.group(&device, c.camera.records(), previous, palettes);
                let opaque = planned.iter().enumerate().filter(|(_, p)| !p.blend);
                for (d, p) in opaque {
                    let offset = d as u64 * INDIRECT_ARGS_SIZE;
                    let target = (c.camera.indirect(), offset, &group, c.camera.records());
                    let mut ignored = FrameStats::default();
                    let item = p.item(models[p.model], p.key, target, &poses, &mut ignored)?;
                    if !item.impostor {
                        prepass.items.push(item);
                    }
                }
            }
            if occlusion.is_some() {
                if let Some(drawn) = c.late.latest_drawn() {
                    count_drawn(&mut stats, drawn, specs, planned);
                }
                let records = self.records_group(c.late.records());
                for (d, p) in planned.iter().enumerate() {
                    let offset = d as u64 * INDIRECT_ARGS_SIZE;
                    let target = (c.late.indirect(), offset, &records, c.late.records());
                    let item = p.item(models[p.model], p.key, target, &poses, &mut stats)?;
                    stats.draws += 1;
                    if p.blend {
                        late_blended.push(item);
                    } else {
                        late_items.push(item);
                    }
                }
            }
            if let Some(sh) = self.shadow.as_mut() {
                let lists = [Some(&c.shadow), shadow_pyramid.map(|_| &c.shadow_late)];
                for (phase, list) in lists.into_iter().enumerate() {
                    let Some(list) = list else { continue };
                    let cast = sh.cast_group_for(&device, list.records(), self.layers.palettes());
                    for (d, p) in planned.iter().enumerate().filter(|(_, p)| !p.blend) {
                        let key = PipelineKey {
                            flat: false,
                            double_sided: true,
                            blend: false,
                            cross_fade: p.key.cross_fade,
                            palettes: false,
                            pose_cache: false,
                        };
                        let offset = d as u64 * INDIRECT_ARGS_SIZE;
                        let target = (list.indirect(), offset, &cast, list.records());
                        let item = p.item(models[p.model], key, target, &poses, &mut stats)?;
                        match phase {
                            0 => sh.items.push(item),
                            _ => shadow_late_items.push(item),
                        }
                        stats.shadow_draws += 1;
                    }
                    if let Some(d) = list.latest_drawn() {
                        count_casters(&mut stats, d);
                    }
                }
            }
        }
        self.items.append(&mut blended);
        late_items.append(&mut late_blended);
        gd.late_items = late_items;
        gd.shadow_late_items = shadow_late_items;
        stats.packages = stats.draws;
        gd.specs = plans;
        // Planning the layered instances' lists locks the cache again.
        drop(poses);

        // Instances with animation layers: the cull skipped them; culled on
        // the CPU and drawn with the palette pre-pass, as on the unbounded
        // path. Their shadows are cast unculled (the light is fitted on the
        // GPU, after this).
        self.draw_lists.resize_with(crowds.len(), DrawList::default);
        if crowds.iter().any(|c| c.has_layered_instances()) {
            let layered = DrawView {
                layered_only: true,
                ..view
            };
            for (crowd, list) in crowds.iter().zip(&mut self.draw_lists) {
                crowd.build_draw_list(layered, list);
            }
            if let Some(sh) = &mut self.shadow {
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
            add_cpu_counts(&mut stats, &layered_stats);
            stats.draws += layered_stats.draws;
            stats.shadow_draws += layered_stats.shadow_draws;
            stats.record_bytes += layered_stats.record_bytes;
            gd.layered_stats = layered_stats;
        } else {
            self.draw_lists
                .iter_mut()
                .for_each(|l| *l = DrawList::default());
            gd.layered_stats = FrameStats::default();
        }
        self.ensure_pipelines();
        if let Some(p) = &mut self.prepass {
            p.ensure_pipelines(&device);
        }
        Ok(stats)
    }

    /// On the GPU-driven path, where the counts of a frame come back from
    /// the GPU a frame or two later, waits for the GPU and sets `stats`'s
    /// visible instances and shadow casters to those of the frame last
    /// prepared. Does nothing on the other paths, whose counts are exact.
    /// With shadows, also reads back the light fitted on the GPU (see
    /// [`Renderer::shadow_map`]).
    pub fn wait_gpu_stats(&mut self, stats: &mut FrameStats) -> Result<(), RenderError> {
        let device = self.device.clone();
        let shadows = self.shadow.is_some();
        let two_phase = self.occlusion.as_ref().is_some_and(|o| o.active);
        let Some(gd) = self.gpu.as_mut() else {
            return Ok(());
        };
        if let Some(sh) = &mut self.shadow {
            let size = std::mem::size_of::<LightFit>() as u64;
            let readback = crate::device::buffers::readback_buffer(&device, size);
            let mut encoder = device.create_command_encoder(&Default::default());
            encoder.copy_buffer_to_buffer(gd.light_fit.fit(), 0, &readback, 0, size);
            self.queue.submit([encoder.finish()]);
            let fit: LightFit = bytemuck::pod_read_unaligned(&map_read(&device, &readback)?);
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
        add_cpu_counts(stats, &gd.layered_stats);
        for (c, (specs, planned)) in gd.crowds.iter_mut().zip(&gd.specs).take(gd.used) {
            if let Some(drawn) = c.camera.wait_drawn(&device)? {
                count_drawn(stats, drawn, specs, planned);
            }
            if two_phase && let Some(drawn) = c.late.wait_drawn(&device)? {
                count_drawn(stats, drawn, specs, planned);
            }
            if shadows {
                if let Some(d) = c.shadow.wait_drawn(&device)? {
                    count_casters(stats, d);
                }
                if two_phase && let Some(d) = c.shadow_late.wait_drawn(&device)? {
                    count_casters(stats, d);
                }
            }
        }
        Ok(())
    }
}

/// What the late phase of occlusion culling tests against: the pyramid
/// of the early phase's depth and the camera that drew it.
#[derive(Clone, Copy)]
pub(super) struct LateView<'a> {
    pub pyramid: &'a DepthPyramid,
    pub clip_from_world: glam::Mat4,
    pub reversed: bool,
}

impl GpuDriven {
    /// Records every used crowd's late phase of the camera (`shadow`
    /// false) or of the light (the early phase's depth pyramid built), each
    /// GPU-timed as `late cull` or `shadow late cull` where `timer` can.
    pub(super) fn encode_late(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        timer: Option<&PassTimer>,
        shadow: bool,
    ) {
        let name = if shadow {
            "shadow late cull"
        } else {
            "late cull"
        };
        for (c, (specs, _)) in self.crowds.iter().zip(&self.specs).take(self.used) {
            if !specs.is_empty() {
                let span =
                    timer.and_then(|t| Some(t.compute_writes(t.span(name, SpanKind::Frame)?)));
                let list = if shadow { &c.shadow_late } else { &c.late };
                list.encode_phase(encoder, &self.pass, span);
            }
        }
    }
}

/// Adds what the CPU's lists of instances with animation layers drew to
/// the GPU-driven path's counts (the cull counts them as visible and
/// casting already: it fits the light to them).
fn add_cpu_counts(stats: &mut FrameStats, cpu: &FrameStats) {
    stats.triangles += cpu.triangles;
    stats.vertices += cpu.vertices;
    stats.impostors += cpu.impostors;
}
