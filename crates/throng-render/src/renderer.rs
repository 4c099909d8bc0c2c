//! [`Renderer`]: draws crowds of baked models.
//!
//! Per frame: every crowd builds its draw list (one 96-byte record per
//! visible instance, grouped by model and LOD); all records of the frame are
//! written to one buffer with one upload; then each group is drawn, either in
//! packages of at most [`PACKAGE_WIDTH`] records bound as a uniform buffer
//! with a dynamic offset ([`RecordPath::Packaged`], works on every adapter
//! including downlevel/WebGL2), or as one draw per group over a storage
//! buffer ([`RecordPath::Unbounded`], where the vertex stage can read storage
//! buffers). [`PathChoice::Auto`] picks the unbounded path when available.
//!
//! The same [`Renderer::render`] serves the viewer, the CLI and the tests.
//!
//! A frame is [`Renderer::prepare`] (CPU work and the renderer's own depth
//! and MSAA targets), then [`Renderer::encode`] or [`Renderer::encode_with`]
//! (the shadow pass and a crowd pass Throng begins). An application with a
//! render pass of its own embeds the crowd in it instead:
//! [`Renderer::prepare_draws`] (no targets), [`Renderer::encode_shadows`]
//! into its encoder, then [`Renderer::draw`] inside its pass (see the
//! `throng-examples` package). [`RendererOptions::fragment`] replaces
//! Throng's fragment stage with the user's own ([`CustomFragment`]).
//!
//! On adapters with compute shaders and indirect draws,
//! [`RecordPath::GpuDriven`] (the default there) keeps the instances on
//! the GPU and culls them in a compute pass (`renderer/gpu_driven.rs`).
//!
//! Beside this file: the options (`options.rs`), the pipeline kit
//! (`pipeline.rs`), the depth and MSAA attachments (`targets.rs`), the
//! shadow map (`shadow.rs`) and the layout of draw lists into draws
//! (`draw_items.rs`); beside it in `renderer/`, the GPU-driven path, the
//! animation layers' palettes and the pose cache's part of planning
//! (`poses.rs`).

use std::collections::HashMap;

use throng_core::gpu::InstanceRecord;
use throng_core::limits::PACKAGE_WIDTH;
use throng_core::material::AlphaMode;
use throng_core::math::Aabb;
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, DrawList, DrawView};

use crate::bind_groups::{self, PACKAGE_BYTES};
use crate::device_loss::DeviceLoss;
use crate::draw_items::DrawItem;
use crate::draw_items::find_model;
use crate::draw_items::lay_out;
use crate::error::RenderError;
use crate::impostor::{ImpostorPipelines, QUAD_VERTICES};
use crate::model::GpuModel;
pub use crate::options::{
    CustomFragment, DepthConvention, FrameStats, Lighting, PathChoice, PoseCacheOptions,
    RecordPath, RendererOptions, Shading, ShadowOptions,
};
pub use crate::pipeline::{ColorPipeline, PipelineKey};
use crate::pose_cache::PoseCache;
use crate::shader::Program;
use crate::shadow::Shadow;
pub use crate::shadow::ShadowReceiver;
pub use crate::targets::Targets;
use crate::uniforms::FrameUniforms;

mod draw;
mod frame;
mod gpu_driven;
mod layers;
mod poses;
mod simulate;
pub use gpu_driven::supports_gpu_driven;

/// Depth buffer format.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// Draws crowds. See the module docs.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    color_format: wgpu::TextureFormat,
    options: RendererOptions,
    path: RecordPath,
    module: wgpu::ShaderModule,
    pipeline_layout: wgpu::PipelineLayout,
    records_layout: wgpu::BindGroupLayout,
    pipelines: HashMap<PipelineKey, wgpu::RenderPipeline>,
    frame_buffer: wgpu::Buffer,
    frame_bind_group: wgpu::BindGroup,
    records_buffer: Option<wgpu::Buffer>,
    records_bind_group: Option<wgpu::BindGroup>,
    package_stride: u64,
    staging: Vec<u8>,
    draw_lists: Vec<DrawList>,
    items: Vec<DrawItem>,
    targets: Option<Targets>,
    timer: Option<crate::timer::GpuTimer>,
    shadow: Option<Shadow>,
    /// The GPU-driven path's mirrors, cull lists and pipelines.
    gpu: Option<gpu_driven::GpuDriven>,
    /// The impostors' programs and pipelines.
    impostors: ImpostorPipelines,
    /// Animation layers on the CPU-list path: the palettes and pre-pass.
    layers: layers::LayerDraws,
    /// The `layers.generation` the records bind groups were made with.
    records_generation: u64,
    /// The storage paths' per-(model, LOD) group 1 and pose caches
    /// (empty and unused on the packaged path).
    poses: PoseCache,
    /// The device's loss, where it is watched ([`Self::set_device_loss`]).
    loss: Option<DeviceLoss>,
}

/// True if the adapter can read storage buffers in the vertex stage, as
/// many as the storage paths' draw program binds there
/// ([`bind_groups::vertex_storage_buffers`]: records, palettes, pose cache).
pub fn supports_unbounded(adapter: &wgpu::Adapter, device: &wgpu::Device) -> bool {
    adapter
        .get_downlevel_capabilities()
        .flags
        .contains(wgpu::DownlevelFlags::VERTEX_STORAGE)
        && device.limits().max_storage_buffers_per_shader_stage
            >= bind_groups::vertex_storage_buffers()
}

impl Renderer {
    /// A renderer drawing into targets of `color_format`.
    pub fn new(
        adapter: &wgpu::Adapter,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        color_format: wgpu::TextureFormat,
        options: RendererOptions,
    ) -> Result<Self, RenderError> {
        let unbounded_ok = supports_unbounded(adapter, device);
        let gpu_driven_ok = supports_gpu_driven(adapter, device);
        let path = match options.path {
            PathChoice::Auto if gpu_driven_ok => RecordPath::GpuDriven,
            PathChoice::GpuDriven if gpu_driven_ok => RecordPath::GpuDriven,
            PathChoice::GpuDriven => {
                return Err(RenderError::Unsupported(format!(
                    "the GPU-driven path needs compute shaders, indirect draws with a first instance and vertex-stage storage buffers; {} lacks one",
                    crate::context::adapter_summary(adapter)
                )));
            }
            PathChoice::Auto if unbounded_ok => RecordPath::Unbounded,
            PathChoice::Auto | PathChoice::Packaged => RecordPath::Packaged,
            PathChoice::Unbounded if unbounded_ok => RecordPath::Unbounded,
            PathChoice::Unbounded => {
                return Err(RenderError::Unsupported(format!(
                    "the unbounded record path needs vertex-stage storage buffers, which {} lacks",
                    crate::context::adapter_summary(adapter)
                )));
            }
        };
        if !options.extra_targets.is_empty() {
            let most = device.limits().max_color_attachments as usize;
            if options.fragment.is_none() {
                return Err(RenderError::Unsupported(
                    "extra colour targets need a custom fragment stage to write them".into(),
                ));
            }
            if options.extra_targets.len() + 1 > most {
                return Err(RenderError::Unsupported(format!(
                    "{} colour targets; the device takes at most {most}",
                    options.extra_targets.len() + 1
                )));
            }
        }
        if !matches!(options.sample_count, 1 | 4) {
            return Err(RenderError::Unsupported(format!(
                "MSAA sample count {} (1 or 4)",
                options.sample_count
            )));
        }
        if path == RecordPath::Packaged
            && (device.limits().max_uniform_buffer_binding_size as usize) < PACKAGE_BYTES
        {
            return Err(RenderError::Unsupported(format!(
                "uniform bindings of {} bytes are too small for a package of {PACKAGE_BYTES}",
                device.limits().max_uniform_buffer_binding_size
            )));
        }
        let program = Program::draw(path);
        let module = match &options.fragment {
            None => device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(program.label()),
                source: wgpu::ShaderSource::Wgsl(program.source().into()),
            }),
            Some(custom) => {
                let source = crate::shader::compose(&custom.file, &custom.source, Some(path))?;
                if !source.contains("\n// ---- draw.wgsl\n") {
                    return Err(RenderError::Shader(
                        crate::shader::ShaderError::MissingImport {
                            file: custom.file.clone(),
                            name: "draw".into(),
                        },
                    ));
                }
                crate::context::catch_device_errors(
                    device,
                    &format!("compiling the custom fragment shader {}", custom.file),
                    || {
                        device.create_shader_module(wgpu::ShaderModuleDescriptor {
                            label: Some(&custom.file),
                            source: wgpu::ShaderSource::Wgsl(source.into()),
                        })
                    },
                )?
            }
        };
        let packaged = path == RecordPath::Packaged;
        let receive = if options.shadows.is_some() {
            bind_groups::ShadowBindings::Receive
        } else {
            bind_groups::ShadowBindings::None
        };
        let records_layout = bind_groups::records(device, packaged, receive);
        let pipeline_layout =
            bind_groups::pipeline_layout(device, Program::draw(path), options.shadows.is_some());
        let (frame_buffer, frame_bind_group) =
            bind_groups::frame_binding(device, "throng frame uniforms");
        let align = device.limits().min_uniform_buffer_offset_alignment as u64;
        let (options_pose_cache, skinning) = (options.pose_cache, options.skinning);
        let shadow = match options.shadows {
            Some(o) => Some(Shadow::new(device, packaged, o, options.skinning)?),
            None => None,
        };
        let mut renderer = Self {
            device: device.clone(),
            queue: queue.clone(),
            color_format,
            options,
            path,
            module,
            pipeline_layout,
            records_layout,
            pipelines: HashMap::new(),
            frame_buffer,
            frame_bind_group,
            records_buffer: None,
            records_bind_group: None,
            package_stride: (PACKAGE_BYTES as u64).next_multiple_of(align.max(1)),
            staging: Vec::new(),
            draw_lists: Vec::new(),
            items: Vec::new(),
            targets: None,
            timer: crate::timer::GpuTimer::new(device, queue),
            shadow,
            gpu: (path == RecordPath::GpuDriven).then(|| gpu_driven::GpuDriven::new(device, queue)),
            impostors: ImpostorPipelines::new(path),
            layers: layers::LayerDraws::new(device),
            records_generation: 0,
            // The static floor (no skinning) and the packaged path never
            // cache.
            poses: PoseCache::new(
                device,
                options_pose_cache.filter(|_| path != RecordPath::Packaged && skinning),
            ),
            loss: None,
        };
        let custom = renderer.options.fragment.as_ref().map(|custom| {
            format!(
                "creating a pipeline with the custom fragment entry point {:?} of {}",
                custom.entry, custom.file
            )
        });
        if let Some(what) = custom {
            // Build the commonest pipeline now, so that an entry point that
            // is missing or does not fit the layout is an error here rather
            // than a panic in the first frame.
            crate::context::catch_device_errors(device, &what, || {
                renderer.pipeline(PipelineKey {
                    flat: false,
                    double_sided: false,
                    blend: false,
                    cross_fade: false,
                    palettes: false,
                    pose_cache: false,
                });
            })?;
        }
        Ok(renderer)
    }

    /// Watches `loss` (the device's, [`DeviceLoss::watch`]): after it, every
    /// frame is [`RenderError::DeviceLost`] ([`crate::device_loss`]).
    /// [`Self::headless`] does this with the [`crate::Gpu`]'s.
    pub fn set_device_loss(&mut self, loss: DeviceLoss) {
        self.loss = Some(loss);
    }

    /// [`RenderError::DeviceLost`] if the watched device was lost (every
    /// frame checks this first; an application can ask before it advances
    /// its own state for a frame). wgpu runs the lost callback in a poll:
    /// this polls without blocking (a check of the queue's fences).
    pub fn check_device(&self) -> Result<(), RenderError> {
        match &self.loss {
            Some(loss) => {
                let _ = self.device.poll(wgpu::PollType::Poll);
                loss.check()
            }
            None => Ok(()),
        }
    }

    /// `e`, or [`RenderError::DeviceLost`] if the device was lost meanwhile.
    pub(crate) fn lost_or(&self, e: RenderError) -> RenderError {
        match self.loss.as_ref().and_then(DeviceLoss::lost) {
            Some(why) => RenderError::DeviceLost(why),
            None => e,
        }
    }

    /// The record path in use.
    pub fn path(&self) -> RecordPath {
        self.path
    }

    /// The options.
    pub fn options(&self) -> &RendererOptions {
        &self.options
    }

    /// Changes lighting and clear colour (the path and MSAA are fixed).
    pub fn set_lighting(&mut self, lighting: Lighting, clear_color: wgpu::Color) {
        self.options.lighting = lighting;
        self.options.clear_color = clear_color;
    }

    /// Enables or disables frustum culling.
    pub fn set_frustum_culling(&mut self, on: bool) {
        self.options.frustum_culling = on;
    }

    /// Tints instances by LOD (or not).
    pub fn set_lod_tints(&mut self, on: bool) {
        self.options.lod_tints = on;
    }

    /// Draw lists of the last prepared frame, one per crowd.
    pub fn draw_lists(&self) -> &[DrawList] {
        &self.draw_lists
    }

    fn pipeline(&mut self, key: PipelineKey) -> &wgpu::RenderPipeline {
        let mut vertex_constants = vec![
            ("SKINNING", if self.options.skinning { 1.0 } else { 0.0 }),
            ("CROSS_FADE", if key.cross_fade { 1.0 } else { 0.0 }),
        ];
        // Only the storage records module has these.
        if key.palettes {
            vertex_constants.push(("PALETTES", 1.0));
        }

        let desc = ColorPipeline {
            label: "throng draw pipeline",
            layout: &self.pipeline_layout,
            module: &self.module,
            vertex_entry: "vs_main",
            vertex_constants: &vertex_constants,
            fragment_entry: match (&self.options.fragment, &self.shadow) {
                (Some(custom), _) => &custom.entry,
                (None, Some(_)) => "fs_shadowed",
                (None, None) => "fs_main",
            },
            format: self.color_format,
            samples: self.options.sample_count,
            extra_targets: &self.options.extra_targets,
            instance_records: self.path != RecordPath::Packaged,
            depth_compare: self.options.depth.compare(),
        };
        let device = &self.device;
        self.pipelines
            .entry(key)
            .or_insert_with(|| desc.create(device, key))
    }

    fn ensure_targets(&mut self, size: (u32, u32)) -> Result<(), RenderError> {
        Targets::ensure_with(
            &mut self.targets,
            &self.device,
            size,
            self.options.sample_count,
            self.color_format,
            &self.options.extra_targets,
            "throng",
        )?;
        if let Some(t) = &mut self.targets {
            t.depth_clear = self.options.depth.clear();
        }
        Ok(())
    }

    /// CPU work of a frame: makes sure the renderer's own depth (and MSAA)
    /// targets are of `size`, then [`Self::prepare_draws`]. Use before
    /// [`Self::encode`] / [`Self::encode_with`], which draw into those
    /// targets.
    pub fn prepare(
        &mut self,
        size: (u32, u32),
        camera: &Camera,
        crowds: &[&Crowd],
        models: &[&GpuModel],
    ) -> Result<FrameStats, RenderError> {
        self.ensure_targets(size)?;
        self.prepare_draws(camera, crowds, models)
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
        // Calls on a lost device do nothing and raise nothing: say so.
        self.check_device()?;
        let l = &self.options.lighting;
        let frame = FrameUniforms::new(camera, l);
        self.queue
            .write_buffer(&self.frame_buffer, 0, bytemuck::bytes_of(&frame));

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
            _ => self.poses.ensure(&self.device, &self.queue, models)?,
        };
        let mut stats = match self.gpu.take() {
            Some(mut gd) => {
                let result = self.prepare_gpu_driven(&mut gd, view, crowds, models);
                self.gpu = Some(gd);
                result?
            }
            None => self.prepare_lists(view, crowds, models)?,
        };
        stats.pose_fill_ms = pose_fill_ms;
        stats.cached_poses = self.poses.poses();
        stats.pose_cache_bytes = self.poses.bytes();
        Ok(stats)
    }

    /// [`Self::prepare_draws`] on the paths whose draw lists the CPU builds
    /// (frame uniforms written, pose cache ensured).
    fn prepare_lists(
        &mut self,
        view: DrawView,
        crowds: &[&Crowd],
        models: &[&GpuModel],
    ) -> Result<FrameStats, RenderError> {
        simulate::refuse_simulated(self.path, crowds)?;
        self.draw_lists.resize_with(crowds.len(), DrawList::default);
        for (crowd, list) in crowds.iter().zip(&mut self.draw_lists) {
            crowd.build_draw_list(view, list);
        }

        // Shadows: fit the light to what the camera sees, then cull casters
        // against the light's volume (not the camera's: an instance out of
        // view still casts into it).
        if let Some(sh) = &mut self.shadow {
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
        if let Some(sh) = &mut self.shadow {
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
    fn plan_lists(
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
            if let Some(sh) = &mut self.shadow {
                self.layers.place(&mut sh.lists, crowds);
            }
            self.layers.run(&self.device, &self.queue, crowds, models)?;
        }

        // Lay out every record of the frame, both passes, in one staging buffer.
        self.staging.clear();
        let slices = lay_out(
            &mut self.staging,
            &self.draw_lists,
            self.path,
            self.package_stride,
        );
        let shadow_slices = match &self.shadow {
            Some(sh) => lay_out(&mut self.staging, &sh.lists, self.path, self.package_stride),
            None => Vec::new(),
        };
        for list in &self.draw_lists {
            stats.visible += list.visible();
        }
        stats.packages += slices.len() as u32;
        stats.record_bytes += self.staging.len() as u64;
        self.upload_records()?;

        // Plan the draws: opaque first, blended last; shadow casters opaque.
        let mut blended = Vec::new();
        for slice in &slices {
            let group = self.draw_lists[slice.list].groups[slice.group];
            let model = find_model(models, crowds[slice.list], &group)?;
            if let Some(imp) = model.impostor_at(group.lod as usize) {
                self.items.push(DrawItem::impostor(imp, slice));
                stats.draws += 1;
                stats.impostors += slice.count;
                stats.triangles += 2 * slice.count as u64;
                stats.vertices += QUAD_VERTICES as u64 * slice.count as u64;
                continue;
            }
            let lod = &model.lods[(group.lod as usize).min(model.lods.len() - 1)];
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
                let item = Self::poses_of(self.path, &self.poses, item, model, group.lod, stats)?;
                stats.draws += 1;
                stats.triangles += (sub.index_count / 3) as u64 * slice.count as u64;
                stats.vertices += sub.vertex_count as u64 * slice.count as u64;
                if key.blend {
                    blended.push(item)
                } else {
                    self.items.push(item)
                }
            }
        }
        self.items.append(&mut blended);
        if let Some(sh) = &mut self.shadow {
            for slice in &shadow_slices {
                let group = sh.lists[slice.list].groups[slice.group];
                let model = find_model(models, crowds[slice.list], &group)?;
                stats.shadow_casters += slice.count;
                if let Some(imp) = model.impostor_at(group.lod as usize) {
                    sh.items.push(DrawItem::impostor(imp, slice));
                    stats.shadow_draws += 1;
                    continue;
                }
                let lod = &model.lods[(group.lod as usize).min(model.lods.len() - 1)];
                for sub in &lod.submeshes {
                    let material = &model.materials[sub.material];
                    if material.alpha_mode == AlphaMode::Blend {
                        continue; // transparent surfaces cast no shadow
                    }
                    let key = PipelineKey {
                        flat: false,
                        double_sided: true,
                        blend: false,
                        cross_fade: group.cross_fade,
                        palettes: group.layered,
                        pose_cache: false,
                    };
                    let item = DrawItem::new(key, model, lod, sub, slice);
                    sh.items.push(Self::poses_of(
                        self.path,
                        &self.poses,
                        item,
                        model,
                        group.lod,
                        stats,
                    )?);
                    stats.shadow_draws += 1;
                }
            }
        }
        self.bind_instance_records();
        Ok(())
    }

    /// Creates the pipelines the planned draws need.
    fn ensure_pipelines(&mut self) {
        let keys: Vec<PipelineKey> = self
            .items
            .iter()
            .filter(|i| !i.impostor)
            .map(|i| i.key)
            .collect();
        for key in keys {
            self.pipeline(key);
        }
        if self.items.iter().any(|i| i.impostor) {
            self.impostors.colour_pipeline(
                &self.device,
                self.color_format,
                self.options.sample_count,
                self.shadow.is_some(),
                self.options.depth.compare(),
            );
        }
        if let Some(sh) = &self.shadow
            && sh.items.iter().any(|i| i.impostor)
        {
            self.impostors.cast_pipeline(&self.device);
        }
    }

    /// The most bytes of records one frame may upload on this device.
    fn max_record_bytes(&self) -> u64 {
        match self.path {
            RecordPath::Packaged => self.device.limits().max_buffer_size,
            RecordPath::Unbounded | RecordPath::GpuDriven => {
                crate::cull::storage_binding_limit(&self.device)
            }
        }
    }

    /// An error unless a frame in which `instances` instances are visible
    /// (and cast shadows, when shadows are on) fits this device's record
    /// buffer; cheap, so callers can refuse an absurd crowd before spawning
    /// it. The host-memory side is [`Crowd::try_reserve`].
    pub fn check_capacity(&self, instances: u64) -> Result<(), RenderError> {
        let passes = 1 + self.shadow.is_some() as u64;
        let per_pass = match self.path {
            RecordPath::Packaged => instances
                .div_ceil(PACKAGE_WIDTH as u64)
                .saturating_mul(self.package_stride),
            RecordPath::Unbounded => {
                instances.saturating_mul(std::mem::size_of::<InstanceRecord>() as u64)
            }
            // Per crowd and view, separate buffers, so passes do not add: the
            // largest binding is a view's records, or the mirror's states.
            RecordPath::GpuDriven => {
                use throng_core::gpu::{GpuInstance, GpuTransform};
                let per = [
                    std::mem::size_of::<InstanceRecord>(),
                    std::mem::size_of::<GpuInstance>(),
                    std::mem::size_of::<GpuTransform>(),
                ]
                .into_iter()
                .max()
                .unwrap_or(0) as u64;
                return self.check_bytes(instances, instances.saturating_mul(per));
            }
        };
        self.check_bytes(instances, per_pass.saturating_mul(passes))
    }

    fn check_bytes(&self, instances: u64, needed: u64) -> Result<(), RenderError> {
        let limit = self.max_record_bytes();
        if needed > limit {
            return Err(RenderError::TooBig {
                model: "(all crowds)".into(),
                what: format!(
                    "instance records of one frame with {instances} visible instances, bytes"
                ),
                needed,
                limit,
            });
        }
        Ok(())
    }

    /// The colour pipelines' group 3 over `records` (a storage buffer of
    /// records), with the shadow bindings when shadows are on.
    fn records_group(&self, records: &wgpu::Buffer) -> wgpu::BindGroup {
        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: 0,
                resource: records.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 5,
                resource: self.layers.palettes().as_entire_binding(),
            },
        ];
        if let Some(sh) = &self.shadow {
            entries.extend(sh.receive_entries());
        }
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng records bind group (GPU-driven)"),
            layout: &self.records_layout,
            entries: &entries,
        })
    }

    fn upload_records(&mut self) -> Result<(), RenderError> {
        if self.staging.is_empty() {
            return Ok(());
        }
        let needed = self.staging.len() as u64;
        let max = self.max_record_bytes();
        if needed > max {
            return Err(RenderError::TooBig {
                model: "(all crowds)".into(),
                what: "instance records of one frame, bytes".into(),
                needed,
                limit: max,
            });
        }
        let grow = self
            .records_buffer
            .as_ref()
            .is_none_or(|b| b.size() < needed);
        if grow || self.records_generation != self.layers.generation {
            let size = match &self.records_buffer {
                Some(b) if !grow => b.size(),
                _ => needed.next_power_of_two().min(max).max(needed),
            };
            let usage = match self.path {
                RecordPath::Packaged => wgpu::BufferUsages::UNIFORM,
                // Also read as instance-rate vertex attributes.
                RecordPath::Unbounded | RecordPath::GpuDriven => {
                    wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::VERTEX
                }
            } | wgpu::BufferUsages::COPY_DST;
            let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("throng instance records"),
                size,
                usage,
                mapped_at_creation: false,
            });
            let resource = match self.path {
                RecordPath::Packaged => wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &buffer,
                    offset: 0,
                    size: wgpu::BufferSize::new(PACKAGE_BYTES as u64),
                }),
                RecordPath::Unbounded | RecordPath::GpuDriven => buffer.as_entire_binding(),
            };
            let mut entries = vec![wgpu::BindGroupEntry {
                binding: 0,
                resource: resource.clone(),
            }];
            let palettes = (self.path != RecordPath::Packaged).then(|| wgpu::BindGroupEntry {
                binding: 5,
                resource: self.layers.palettes().as_entire_binding(),
            });
            entries.extend(palettes.clone());
            if let Some(sh) = &mut self.shadow {
                entries.push(wgpu::BindGroupEntry {
                    binding: 2,
                    resource: sh.uniform.as_entire_binding(),
                });
                entries.push(wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::TextureView(&sh.view),
                });
                entries.push(wgpu::BindGroupEntry {
                    binding: 4,
                    resource: wgpu::BindingResource::Sampler(&sh.sampler),
                });
                let mut cast_entries = vec![
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource,
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: sh.uniform.as_entire_binding(),
                    },
                ];
                cast_entries.extend(palettes);
                sh.cast_group = Some(self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("throng shadow records bind group"),
                    layout: &sh.cast_layout,
                    entries: &cast_entries,
                }));
            }
            self.records_bind_group =
                Some(self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("throng records bind group"),
                    layout: &self.records_layout,
                    entries: &entries,
                }));
            self.records_buffer = Some(buffer);
            self.records_generation = self.layers.generation;
        }
        let buffer = self.records_buffer.as_ref().expect("allocated above");
        self.queue.write_buffer(buffer, 0, &self.staging);
        Ok(())
    }

    /// Records the prepared frame's shadow pass into `encoder`: the shadow
    /// map that [`Self::draw`]'s shading and [`Self::shadow_receiver`]
    /// sample. Nothing with shadows off. For a caller that owns the crowd's
    /// pass: record this before that pass, in the same frame, after
    /// [`Self::prepare_draws`] (or [`Self::prepare`]). Not GPU-timed
    /// ([`Self::gpu_time`] times [`Self::encode_with`]'s passes only).
    pub fn encode_shadows(&self, encoder: &mut wgpu::CommandEncoder) {
        self.shadow_pass(encoder, None);
    }

    fn shadow_pass(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        timestamps: Option<wgpu::RenderPassTimestampWrites<'_>>,
    ) {
        let Some(sh) = &self.shadow else { return };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("throng shadow pass"),
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &sh.view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: timestamps,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        if sh.items.is_empty() {
            return;
        }
        let group = sh.cast_group.as_ref();
        let mut bound = None;
        for item in &sh.items {
            // Meshes by their cast variant; impostors (None) by their own.
            let which = (!item.impostor).then(|| crate::shadow::cast_variant(item.key));
            if bound != Some(which) {
                match which {
                    None => match self.impostors.cast.as_ref() {
                        Some(p) => pass.set_pipeline(p),
                        None => continue,
                    },
                    Some(v) => pass.set_pipeline(&sh.pipelines[v]),
                }
                bound = Some(which);
            }
            item.bind_geometry(&mut pass);
            if let Some(material) = &item.material_bind_group {
                pass.set_bind_group(2, material, &[]);
            }
            item.issue(&mut pass, group);
        }
    }

    /// Bind group for pipelines outside the renderer to sample the crowd's
    /// shadow map (`None` with shadows off). Valid for the frame last
    /// prepared; see [`ShadowReceiver`].
    pub fn shadow_receiver(&self) -> Option<ShadowReceiver<'_>> {
        self.shadow.as_ref().map(|sh| ShadowReceiver {
            layout: &sh.receiver_layout,
            bind_group: &sh.receiver_group,
        })
    }

    /// The shadow map and the light's `clip_from_world` of the frame last
    /// prepared (for tests and debugging; `None` when nothing was in view).
    /// On the GPU-driven path the light is fitted on the GPU and known here
    /// after [`Self::wait_gpu_stats`].
    pub fn shadow_map(&self) -> Option<(&wgpu::Texture, Option<glam::Mat4>)> {
        self.shadow.as_ref().map(|sh| (&sh.map, sh.light))
    }
}
