//! The crowd in a caller's prepass, a feature in a folder of its own: an
//! engine's depth, normal and motion-vector prepass (Bevy's, which SSAO,
//! TAA and motion blur read). Its owner, [`Prepass`], holds the pipelines
//! and the draws; the renderer's frame hands it the camera's culled draws
//! (`renderer/prepass.rs`, `renderer/gpu_draws.rs`).
//! The camera's culled draws are drawn again by `prepass.wgsl`'s
//! pipelines, made for the caller's attachments ([`PrepassTarget`]), each
//! record beside its previous record — where its instance was one frame
//! before, written by the cull — and the two cameras ([`PrepassUniforms`]).
//!
//! Positions are computed as the colour pass computes them, so the colour
//! pass's or-equal depth test passes on the prepass's depth. Impostors are
//! left out of the prepass (no depth, normal or motion of theirs there);
//! the colour pass still draws them.

use std::collections::HashMap;

use crate::base::error::RenderError;
use crate::base::options::DepthConvention;
use crate::base::shader::program::Program;
use crate::base::uniforms::PrepassUniforms;
use crate::draw::items::DrawItem;
use crate::program::bind_groups::{self, Receive};
use crate::program::pipeline::{PipelineKey, VERTEX_ATTRIBUTES, crowd_buffers};

/// The caller's prepass attachments: what the prepass pipelines are made
/// for. The fragment stage writes the normal at location 0 and the motion
/// vector at location 1, Bevy's order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrepassTarget {
    /// The depth format.
    pub depth_format: wgpu::TextureFormat,
    /// The depth convention (the test is or-equal, as the colour pass's).
    pub depth: DepthConvention,
    /// The normal attachment's format (slot 0), if the pass has one; the
    /// world normal is written as `n × 0.5 + 0.5`.
    pub normals: Option<wgpu::TextureFormat>,
    /// The motion-vector attachment's format (slot 1), if the pass has
    /// one: `(clip xy now − clip xy one frame before) × (0.5, −0.5)`,
    /// Bevy's convention (a UV offset from now to then, negated).
    pub motion_vectors: Option<wgpu::TextureFormat>,
    /// Colour attachment slots of the pass, unused ones included (Bevy's
    /// prepass has four: normal, motion vectors, and two deferred ones; or
    /// none when it writes depth only).
    pub color_slots: usize,
    /// Samples per pixel.
    pub sample_count: u32,
}

impl Default for PrepassTarget {
    /// Bevy's prepass with depth, normals and motion vectors, no MSAA.
    fn default() -> Self {
        Self {
            depth_format: wgpu::TextureFormat::Depth32Float,
            depth: DepthConvention::Reversed,
            normals: Some(wgpu::TextureFormat::Rgb10a2Unorm),
            motion_vectors: Some(wgpu::TextureFormat::Rg16Float),
            color_slots: 4,
            sample_count: 1,
        }
    }
}

impl PrepassTarget {
    /// An error for a target without depth or with normals or motion
    /// vectors beyond its slots.
    pub(crate) fn check(&self) -> Result<(), RenderError> {
        if !self.depth_format.has_depth_aspect() {
            return Err(RenderError::Unsupported(format!(
                "a prepass depth target of {:?}, which has no depth",
                self.depth_format
            )));
        }
        if (self.normals.is_some() && self.color_slots < 1)
            || (self.motion_vectors.is_some() && self.color_slots < 2)
        {
            return Err(RenderError::Unsupported(format!(
                "a prepass of {} colour slots writing normals (slot 0) or motion vectors (slot 1) past them",
                self.color_slots
            )));
        }
        Ok(())
    }

    /// The pass's colour targets, as the pipelines declare them.
    fn color_targets(&self) -> Vec<Option<wgpu::ColorTargetState>> {
        let target = |format: Option<wgpu::TextureFormat>| {
            format.map(|format| wgpu::ColorTargetState {
                format,
                blend: None,
                write_mask: wgpu::ColorWrites::ALL,
            })
        };
        let mut targets = vec![None; self.color_slots];
        if let Some(slot) = targets.get_mut(0) {
            *slot = target(self.normals);
        }
        if let Some(slot) = targets.get_mut(1) {
            *slot = target(self.motion_vectors);
        }
        targets
    }
}

/// The renderer's prepass: its pipelines, the cameras' uniforms and the
/// frame's draws.
pub(crate) struct Prepass {
    pub(crate) target: PrepassTarget,
    module: wgpu::ShaderModule,
    layout: wgpu::PipelineLayout,
    /// Group 3: records, previous records, uniforms, palettes.
    pub(crate) group_layout: wgpu::BindGroupLayout,
    pipelines: HashMap<PipelineKey, wgpu::RenderPipeline>,
    pub(crate) uniform: wgpu::Buffer,
    /// The camera of the latest frame prepared (the next frame's previous).
    latest: Option<glam::Mat4>,
    pub(crate) items: Vec<DrawItem>,
    skinning: bool,
}

impl Prepass {
    pub(crate) fn new(
        device: &wgpu::Device,
        target: PrepassTarget,
        receive: Receive,
        skinning: bool,
    ) -> Self {
        let program = Program::Prepass;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(program.label()),
            source: wgpu::ShaderSource::Wgsl(program.source().into()),
        });
        Self {
            target,
            module,
            // Group 0 is the colour pass's frame group (its layout follows
            // what the colour pass receives), bound as it is.
            layout: bind_groups::pipeline_layout(device, program, receive),
            group_layout: bind_groups::records(device, false, bind_groups::ShadowBindings::Prepass),
            pipelines: HashMap::new(),
            uniform: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("throng prepass uniforms"),
                size: std::mem::size_of::<PrepassUniforms>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            latest: None,
            items: Vec::new(),
            skinning,
        }
    }

    /// This frame's camera (unjittered): the previous frame's becomes the
    /// one motion is measured from (the first frame's, itself).
    pub(crate) fn set_camera(&mut self, queue: &wgpu::Queue, clip_from_world: glam::Mat4) {
        let previous = self.latest.unwrap_or(clip_from_world);
        self.latest = Some(clip_from_world);
        let uniforms = PrepassUniforms {
            clip_from_world: clip_from_world.to_cols_array_2d(),
            previous_clip_from_world: previous.to_cols_array_2d(),
        };
        queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(&uniforms));
    }

    /// The records group of one list: its records, their previous records,
    /// the uniforms and the palettes.
    pub(crate) fn group(
        &self,
        device: &wgpu::Device,
        records: &wgpu::Buffer,
        previous: &wgpu::Buffer,
        palettes: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        bind_groups::entries::bind_group(
            device,
            "throng prepass records bind group",
            &self.group_layout,
            &[
                (0, records.as_entire_binding()),
                (2, self.uniform.as_entire_binding()),
                (5, palettes.as_entire_binding()),
                (6, previous.as_entire_binding()),
            ],
        )
    }

    /// Makes the pipelines the frame's items need.
    pub(crate) fn ensure_pipelines(&mut self, device: &wgpu::Device) {
        let keys: Vec<PipelineKey> = self.items.iter().map(|i| i.key).collect();
        for key in keys {
            if !self.pipelines.contains_key(&key) {
                let pipeline = self.create(device, key);
                self.pipelines.insert(key, pipeline);
            }
        }
    }

    /// The pipeline for `key`: its faces culled and its vertex stage
    /// (cached or skinned) as the colour pipeline's, depth written,
    /// or-equal.
    fn create(&self, device: &wgpu::Device, key: PipelineKey) -> wgpu::RenderPipeline {
        let vertices = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<throng_core::model::BakedVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &VERTEX_ATTRIBUTES,
        };
        let buffers = crowd_buffers(Some(vertices), true);
        let vertex_constants = [
            ("SKINNING", if self.skinning { 1.0 } else { 0.0 }),
            ("CROSS_FADE", if key.cross_fade { 1.0 } else { 0.0 }),
        ];
        let fragment_constants = [("FLAT_SHADING", if key.flat { 1.0 } else { 0.0 })];
        let targets = self.target.color_targets();
        let label = format!("throng prepass {key:?}");
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(&label),
            layout: Some(&self.layout),
            vertex: wgpu::VertexState {
                module: &self.module,
                entry_point: Some(if key.pose_cache {
                    "vs_prepass_cached"
                } else {
                    "vs_prepass"
                }),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &vertex_constants,
                    ..Default::default()
                },
                buffers: &buffers,
            },
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleList,
                front_face: wgpu::FrontFace::Ccw,
                cull_mode: (!key.double_sided).then_some(wgpu::Face::Back),
                ..Default::default()
            },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: self.target.depth_format,
                depth_write_enabled: Some(true),
                depth_compare: Some(self.target.depth.compare()),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: wgpu::MultisampleState {
                count: self.target.sample_count,
                ..Default::default()
            },
            fragment: Some(wgpu::FragmentState {
                module: &self.module,
                entry_point: Some("fs_prepass"),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: &fragment_constants,
                    ..Default::default()
                },
                targets: &targets,
            }),
            multiview_mask: None,
            cache: None,
        })
    }

    /// Draws the frame's prepass items into `pass`, with the colour pass's
    /// frame group.
    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>, frame: &wgpu::BindGroup) {
        if self.items.is_empty() {
            return;
        }
        pass.set_bind_group(0, frame, &[]);
        let mut bound = None;
        for item in &self.items {
            if bound != Some(item.key) {
                let Some(pipeline) = self.pipelines.get(&item.key) else {
                    continue;
                };
                pass.set_pipeline(pipeline);
                bound = Some(item.key);
            }
            item.bind_geometry(pass);
            if let Some(material) = &item.material_bind_group {
                pass.set_bind_group(2, material, &[]);
            }
            item.issue(pass, None);
        }
    }
}
