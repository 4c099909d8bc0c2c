//! A plaza's obstacles drawn as simple meshes: upright cylinders (pillars,
//! a fountain), instanced, their geometry made from the vertex index
//! (`pillars.wgsl`), drawn inside an application's pass beside Throng's
//! crowd, lit by its light: a helper for scenes that steer crowds around
//! obstacles. The plaza example, the web page and the viewer draw their
//! steered crowds' obstacles with it.

use glam::{Mat4, Vec3};
use throng_render::bind_groups::entries;
use throng_render::{Lighting, PassPipeline, wgpu};

use crate::uniform::uniform_binding;

/// The WGSL source (`pillars.wgsl`).
pub const SHADER: &str = include_str!("pillars.wgsl");

/// Vertices of one cylinder: 24 side quads and 24 top triangles.
const VERTICES: u32 = 24 * 6 + 24 * 3;

/// Stone colour (linear RGB).
pub const STONE: Vec3 = Vec3::new(0.55, 0.52, 0.47);

/// One pillar: centre x, centre z, radius, height (its side goes as deep
/// below y = 0, so it stands on ground that dips).
pub type Pillar = [f32; 4];

/// Mirrors `Pillars` in `pillars.wgsl` (beside this file).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PillarUniforms {
    /// `clip_from_world`.
    pub clip_from_world: [[f32; 4]; 4],
    /// Direction towards the light.
    pub light: [f32; 4],
    /// Albedo times the light's colour.
    pub sun: [f32; 4],
    /// Albedo times the ambient light.
    pub ambient: [f32; 4],
}

/// The pipeline, its uniforms and the pillars.
pub struct Pillars {
    pipeline: wgpu::RenderPipeline,
    buffer: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    pillars: Option<wgpu::Buffer>,
    count: u32,
}

impl Pillars {
    /// Builds the pipeline for the crowd pass's targets (`format`,
    /// `sample_count`, Throng's depth format).
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat, sample_count: u32) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("viewer pillars shader"),
            source: wgpu::ShaderSource::Wgsl(SHADER.into()),
        });
        let layout = entries::create(
            device,
            "viewer pillars bind group layout",
            &[entries::uniform(
                0,
                wgpu::ShaderStages::VERTEX_FRAGMENT,
                size_of::<PillarUniforms>(),
                false,
            )],
        );
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("viewer pillars pipeline layout"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let attributes = wgpu::vertex_attr_array![0 => Float32x4];
        let buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<Pillar>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &attributes,
        })];
        let pipeline = PassPipeline {
            vertex_entry: "vs_pillar",
            fragment_entry: "fs_pillar",
            buffers: &buffers,
            ..PassPipeline::opaque(
                "viewer pillars pipeline",
                &pipeline_layout,
                &module,
                format,
                sample_count,
            )
        }
        .create(device);
        let (buffer, bind_group) =
            uniform_binding::<PillarUniforms>(device, &layout, "viewer pillars");
        Self {
            pipeline,
            buffer,
            bind_group,
            pillars: None,
            count: 0,
        }
    }

    /// Sets the pillars drawn (none: nothing is drawn).
    pub fn set(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, pillars: &[Pillar]) {
        self.count = pillars.len() as u32;
        if pillars.is_empty() {
            return;
        }
        let bytes: &[u8] = bytemuck::cast_slice(pillars);
        if self
            .pillars
            .as_ref()
            .is_none_or(|b| b.size() < bytes.len() as u64)
        {
            self.pillars = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("viewer pillars"),
                size: bytes.len() as u64,
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        if let Some(b) = &self.pillars {
            queue.write_buffer(b, 0, bytes);
        }
    }

    /// Uploads this frame's uniforms.
    pub fn prepare(&self, queue: &wgpu::Queue, clip_from_world: &Mat4, lighting: &Lighting) {
        let u = PillarUniforms {
            clip_from_world: clip_from_world.to_cols_array_2d(),
            light: lighting
                .direction
                .normalize_or(Vec3::Y)
                .extend(0.0)
                .to_array(),
            sun: (STONE * lighting.color).extend(1.0).to_array(),
            ambient: (STONE * lighting.ambient).extend(1.0).to_array(),
        };
        queue.write_buffer(&self.buffer, 0, bytemuck::bytes_of(&u));
    }

    /// Draws the pillars into the crowd's pass.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>) {
        if let Some(b) = &self.pillars
            && self.count > 0
        {
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            pass.set_vertex_buffer(0, b.slice(..));
            pass.draw(0..VERTICES, 0..self.count);
        }
    }
}
