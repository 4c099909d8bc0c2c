//! [`CpuSkinnedRenderer`]: the baseline's GPU side, one palette slice and
//! one draw per submesh for every visible character.

use std::collections::HashMap;

use glam::Mat4;
use throng_bake::sample::PoseEvaluator;
use throng_bake::scene::AlphaMode;
use throng_core::math::{Rows3x4, mat4_to_rows};
use throng_crowd::camera::Camera;

use throng_render::Gpu;
use throng_render::GpuModel;
use throng_render::bind_groups;
use throng_render::error::RenderError;
use throng_render::shader::Program;
use throng_render::timer::GpuTimer;
use throng_render::uniforms::{CharacterHeader, FrameUniforms};
use throng_render::wgpu;
use throng_render::{ColorPipeline, FrameStats, PipelineKey, RendererOptions, Targets};

use super::model::{Character, CpuSkinnedModel};
use super::{CpuSkinnedError, supports};

struct SubmeshDraw {
    key: PipelineKey,
    material_bind_group: wgpu::BindGroup,
    indices: std::ops::Range<u32>,
    base_vertex: i32,
}

struct Plan {
    vertex_buffer: wgpu::Buffer,
    index_buffer: wgpu::Buffer,
    submeshes: Vec<SubmeshDraw>,
}

/// Draws characters skinned from CPU-evaluated palettes, one draw per
/// character and submesh. See the module docs.
pub struct CpuSkinnedRenderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    color_format: wgpu::TextureFormat,
    options: RendererOptions,
    module: wgpu::ShaderModule,
    pipeline_layout: wgpu::PipelineLayout,
    character_layout: wgpu::BindGroupLayout,
    pipelines: HashMap<PipelineKey, wgpu::RenderPipeline>,
    frame_buffer: wgpu::Buffer,
    frame_bind_group: wgpu::BindGroup,
    palette_buffer: Option<wgpu::Buffer>,
    palette_bind_group: Option<wgpu::BindGroup>,
    /// Bytes bound per character (header + palette).
    binding_size: u64,
    offset_alignment: u64,
    staging: Vec<u8>,
    locals: Vec<Mat4>,
    globals: Vec<Mat4>,
    previous_globals: Vec<Mat4>,
    offsets: Vec<u32>,
    plan: Option<Plan>,
    targets: Option<Targets>,
    timer: Option<GpuTimer>,
}

/// The label of the baseline's targets and pass.
const LABEL: &str = "throng CPU-skinned pass";

/// What a frame of the baseline draws: the characters, the source model
/// their poses are sampled from, and the upload of its baked model (the
/// same [`ModelHandle`](throng_crowd::crowd::ModelHandle)).
#[derive(Clone, Copy)]
pub struct Cast<'a> {
    /// The characters.
    pub characters: &'a [Character],
    /// Their source model.
    pub skin: &'a CpuSkinnedModel,
    /// Its baked model on the GPU.
    pub model: &'a GpuModel,
}

impl CpuSkinnedRenderer {
    /// A renderer on `gpu` drawing into
    /// [`OFFSCREEN_FORMAT`](throng_render::OFFSCREEN_FORMAT) targets, as the
    /// benchmark draws. Of `options` it uses the MSAA sample count, clear
    /// colour, lighting and frustum culling; `path` and `skinning` do not
    /// apply.
    pub fn headless(gpu: &Gpu, options: RendererOptions) -> Result<Self, CpuSkinnedError> {
        let (adapter, device, queue) = (&gpu.adapter, &gpu.device, &gpu.queue);
        let color_format = throng_render::OFFSCREEN_FORMAT;
        if !supports(adapter, device) {
            return Err(RenderError::Unsupported(format!(
                "CPU palette skinning needs vertex-stage storage buffers, which {} lacks",
                throng_render::context::adapter_summary(adapter)
            ))
            .into());
        }
        if !matches!(options.sample_count, 1 | 4) {
            return Err(RenderError::Unsupported(format!(
                "MSAA sample count {} (1 or 4)",
                options.sample_count
            ))
            .into());
        }
        let program = Program::CpuSkinned;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(program.label()),
            source: wgpu::ShaderSource::Wgsl(program.source().into()),
        });
        let character_layout = bind_groups::character_palette(device);
        let pipeline_layout =
            bind_groups::pipeline_layout(device, program, bind_groups::Receive::None);
        let (frame_buffer, frame_bind_group) =
            bind_groups::frame_binding(device, "throng CPU-skinned frame uniforms");
        Ok(Self {
            device: device.clone(),
            queue: queue.clone(),
            color_format,
            options,
            module,
            pipeline_layout,
            character_layout,
            pipelines: HashMap::new(),
            frame_buffer,
            frame_bind_group,
            palette_buffer: None,
            palette_bind_group: None,
            binding_size: 0,
            offset_alignment: (device.limits().min_storage_buffer_offset_alignment as u64).max(1),
            staging: Vec::new(),
            locals: Vec::new(),
            globals: Vec::new(),
            previous_globals: Vec::new(),
            offsets: Vec::new(),
            plan: None,
            targets: None,
            timer: GpuTimer::new(device, queue),
        })
    }

    /// Bytes of one character's slice: header and palette, padded to the
    /// storage-offset alignment.
    pub fn slice_stride(&self, bone_count: usize) -> u64 {
        character_binding_size(bone_count).next_multiple_of(self.offset_alignment)
    }

    fn pipeline(&mut self, key: PipelineKey) {
        let desc = ColorPipeline {
            label: "throng palette-skinned pipeline",
            layout: &self.pipeline_layout,
            module: &self.module,
            vertex_entry: "vs_palette",
            vertex_constants: &[],
            fragment_entry: "fs_main",
            format: self.color_format,
            samples: self.options.sample_count,
            extra_targets: &[],
            // Its records are its palettes' headers, not crowd records.
            instance_records: false,
            depth_compare: self.options.depth.compare(),
        };
        let device = &self.device;
        self.pipelines
            .entry(key)
            .or_insert_with(|| desc.create(device, key));
    }

    fn ensure_targets(&mut self, size: (u32, u32)) -> Result<(), RenderError> {
        let (o, format) = (&self.options, self.color_format);
        Targets::ensure_for(
            &mut self.targets,
            &self.device,
            size,
            o,
            format,
            LABEL,
            false,
        )
    }

    /// CPU work of a frame: culls the characters, samples and evaluates each
    /// visible one's pose, builds its palette, uploads all palettes with one
    /// write, and plans one draw per character and submesh. `model` must be
    /// the upload of the same [`ModelHandle`](throng_crowd::crowd::ModelHandle) as `skin`.
    pub fn prepare(
        &mut self,
        size: (u32, u32),
        camera: &Camera,
        cast: Cast,
    ) -> Result<FrameStats, CpuSkinnedError> {
        let Cast {
            characters,
            skin,
            model,
        } = cast;
        if model.key() != skin.key() {
            return Err(RenderError::MissingModel {
                name: skin.name.clone(),
                key: skin.key(),
            }
            .into());
        }
        self.ensure_targets(size)?;
        let l = &self.options.lighting;
        let frame = FrameUniforms::new(camera, l);
        self.queue
            .write_buffer(&self.frame_buffer, 0, bytemuck::bytes_of(&frame));

        let frustum = self.options.frustum_culling.then(|| camera.frustum());
        let stride = self.slice_stride(skin.bone_count()) as usize;
        self.staging.clear();
        self.offsets.clear();
        for c in characters {
            if let Some(f) = &frustum
                && !f.intersects_aabb(&skin.bounds(c).transformed(&c.world_from_model))
            {
                continue;
            }
            let start = self.staging.len();
            self.offsets.push(start as u32);
            self.write_character(c, skin);
            self.staging.resize(start + stride, 0);
        }
        self.upload(skin.bone_count())?;

        // Plan: every visible character draws every submesh of LOD 0.
        let lod = &model.lods[0];
        let submeshes: Vec<SubmeshDraw> = lod
            .submeshes
            .iter()
            .map(|sub| {
                let material = &model.materials[sub.material];
                SubmeshDraw {
                    key: PipelineKey {
                        flat: sub.flat,
                        double_sided: material.double_sided,
                        blend: material.alpha_mode == AlphaMode::Blend,
                        cross_fade: false,
                        palettes: false,
                        pose_cache: false,
                    },
                    material_bind_group: sub.bind_group.clone(),
                    indices: sub.first_index..sub.first_index + sub.index_count,
                    base_vertex: sub.base_vertex,
                }
            })
            .collect();
        for s in &submeshes {
            self.pipeline(s.key);
        }
        let visible = self.offsets.len() as u32;
        let stats = FrameStats {
            instances: characters.len() as u32,
            visible,
            draws: visible * submeshes.len() as u32,
            packages: visible,
            triangles: submeshes
                .iter()
                .map(|s| (s.indices.len() / 3) as u64)
                .sum::<u64>()
                * visible as u64,
            vertices: lod.vertex_count as u64 * visible as u64,
            record_bytes: self.staging.len() as u64,
            ..FrameStats::default()
        };
        self.plan = Some(Plan {
            vertex_buffer: lod.vertex_buffer.clone(),
            index_buffer: lod.index_buffer.clone(),
            submeshes,
        });
        Ok(stats)
    }

    /// Samples, evaluates and writes one character's header and palette to
    /// the end of the staging buffer.
    fn write_character(&mut self, c: &Character, skin: &CpuSkinnedModel) {
        let header = CharacterHeader {
            world_from_model: mat4_to_rows(&c.world_from_model).map(|r| r.to_array()),
            tint: c.tint,
            _pad: [0; 3],
        };
        self.staging.extend_from_slice(bytemuck::bytes_of(&header));
        let pose = |eval: &PoseEvaluator,
                    clip: Option<(usize, f32)>,
                    locals: &mut Vec<Mat4>,
                    globals: &mut Vec<Mat4>| {
            let clip =
                clip.and_then(|(i, t)| skin.clip_of.get(i).map(|&s| (&skin.scene.clips[s], t)));
            eval.locals(clip.map(|c| c.0), clip.map_or(0.0, |c| c.1), locals);
            eval.globals_from_locals(locals, globals);
        };
        pose(&skin.eval, c.current, &mut self.locals, &mut self.globals);
        let fading = c.previous.is_some() && c.fade < 1.0;
        if fading {
            pose(
                &skin.eval,
                c.previous,
                &mut self.locals,
                &mut self.previous_globals,
            );
        }
        for &(node, inverse_bind) in &skin.bones {
            let mut m = self.globals[node] * inverse_bind;
            if fading {
                // Mix palette matrices, as the shader mixes baked ones.
                let p = self.previous_globals[node] * inverse_bind;
                m = p * (1.0 - c.fade) + m * c.fade;
            }
            let rows: Rows3x4 = mat4_to_rows(&m);
            self.staging.extend_from_slice(bytemuck::cast_slice(&rows));
        }
    }

    fn upload(&mut self, bone_count: usize) -> Result<(), RenderError> {
        if self.staging.is_empty() {
            return Ok(());
        }
        let limits = self.device.limits();
        let needed = self.staging.len() as u64;
        let binding_size = character_binding_size(bone_count);
        let too_big = |what: &str, needed: u64, limit: u64| RenderError::TooBig {
            model: "(CPU-skinned characters)".into(),
            what: what.into(),
            needed,
            limit,
        };
        if needed > limits.max_buffer_size {
            return Err(too_big(
                "palettes of one frame, bytes",
                needed,
                limits.max_buffer_size,
            ));
        }
        if binding_size > limits.max_storage_buffer_binding_size {
            return Err(too_big(
                "one character's palette, bytes",
                binding_size,
                limits.max_storage_buffer_binding_size,
            ));
        }
        if binding_size != self.binding_size
            || self
                .palette_buffer
                .as_ref()
                .is_none_or(|b| b.size() < needed)
        {
            let size = needed
                .next_power_of_two()
                .min(limits.max_buffer_size)
                .max(needed);
            let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("throng character palettes"),
                size,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            self.palette_bind_group =
                Some(self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("throng character palette bind group"),
                    layout: &self.character_layout,
                    entries: &[wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &buffer,
                            offset: 0,
                            size: wgpu::BufferSize::new(binding_size),
                        }),
                    }],
                }));
            self.palette_buffer = Some(buffer);
            self.binding_size = binding_size;
        }
        let buffer = self.palette_buffer.as_ref().expect("allocated above");
        self.queue.write_buffer(buffer, 0, &self.staging);
        Ok(())
    }

    /// Records the prepared frame's render pass into `encoder`, drawing into
    /// `target` (cleared first). Opaque submeshes of every character first,
    /// then blended ones.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder, target: &wgpu::TextureView) {
        let Some(targets) = &self.targets else { return };
        let timestamps = self.timer.as_ref().and_then(|t| t.pass_writes());
        let timed = timestamps.is_some();
        let clear = self.options.clear_color;
        self.draw(&mut targets.begin_pass(encoder, target, LABEL, clear, timestamps));
        if let Some(t) = self.timer.as_ref().filter(|_| timed) {
            t.resolve(encoder);
        }
    }

    /// Draws every visible character into `pass`: one draw per character
    /// and submesh, opaque submeshes first.
    fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        let (Some(plan), Some(palettes)) = (&self.plan, &self.palette_bind_group) else {
            return;
        };
        if self.offsets.is_empty() {
            return;
        }
        pass.set_bind_group(0, &self.frame_bind_group, &[]);
        pass.set_vertex_buffer(0, plan.vertex_buffer.slice(..));
        pass.set_index_buffer(plan.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
        let mut bound_key = None;
        for blended in [false, true] {
            if !plan.submeshes.iter().any(|s| s.key.blend == blended) {
                continue;
            }
            for &offset in &self.offsets {
                pass.set_bind_group(3, palettes, &[offset]);
                for sub in plan.submeshes.iter().filter(|s| s.key.blend == blended) {
                    if bound_key != Some(sub.key) {
                        pass.set_pipeline(&self.pipelines[&sub.key]);
                        bound_key = Some(sub.key);
                    }
                    pass.set_bind_group(2, &sub.material_bind_group, &[]);
                    pass.draw_indexed(sub.indices.clone(), sub.base_vertex, 0..1);
                }
            }
        }
    }

    /// Prepares, encodes and submits one frame into `target` of `size`.
    pub fn render(
        &mut self,
        target: &wgpu::TextureView,
        size: (u32, u32),
        camera: &Camera,
        cast: Cast,
    ) -> Result<FrameStats, CpuSkinnedError> {
        let device = self.device.clone();
        throng_render::context::catch_device_errors(&device, "drawing a CPU-skinned frame", || {
            let stats = self.prepare(size, camera, cast)?;
            let mut encoder = self
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("throng palette-skinned frame"),
                });
            self.encode(&mut encoder, target);
            self.queue.submit([encoder.finish()]);
            if let Some(t) = &self.timer {
                t.after_submit();
            }
            Ok(stats)
        })?
    }

    /// True if this device can time frames on the GPU (timestamp queries).
    pub fn has_gpu_timing(&self) -> bool {
        self.timer.is_some()
    }

    /// Waits for the GPU and returns the last frame's pass time.
    pub fn wait_gpu_time(&self) -> Option<std::time::Duration> {
        self.timer.as_ref().and_then(|t| t.wait(&self.device))
    }
}

/// Bytes bound per character: the header and `bone_count` palette entries.
fn character_binding_size(bone_count: usize) -> u64 {
    (std::mem::size_of::<CharacterHeader>() + bone_count.max(1) * std::mem::size_of::<Rows3x4>())
        as u64
}
