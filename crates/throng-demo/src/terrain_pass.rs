//! The demo's terrain drawn inside an application's pass beside the
//! crowd ([`TerrainPass`], `terrain.wgsl`): a [`TerrainMesh`] lit by the
//! scene's light and darkened by the crowd's shadow map through Throng's
//! `shadow_receiver` module, as the viewer's flat ground and the examples'
//! are.

use glam::{Mat4, Vec3};
use throng_render::bind_groups::entries;
use throng_render::{Lighting, PassPipeline, wgpu};

use crate::terrain::{TerrainMesh, TerrainVertex};
use crate::uniform::uniform_binding;

/// The WGSL source (`terrain.wgsl`).
pub const SHADER: &str = include_str!("terrain.wgsl");

/// The full program: `terrain.wgsl` composed with Throng's
/// `shadow_receiver`.
pub fn shader_source() -> String {
    throng_render::shader::compose("throng-demo/terrain.wgsl", SHADER, None)
        .unwrap_or_else(|e| panic!("the terrain shader does not compose: {e}"))
}

/// Mirrors `Terrain` in `terrain.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TerrainUniforms {
    /// `clip_from_world`.
    pub clip_from_world: [[f32; 4]; 4],
    /// The camera's position.
    pub eye: [f32; 4],
    /// Direction towards the light.
    pub light: [f32; 4],
    /// The light's colour.
    pub sun: [f32; 4],
    /// The ambient light.
    pub ambient: [f32; 4],
    /// The sky colour the terrain fades into.
    pub sky: [f32; 4],
    /// Grid cell, fade start, fade end, 0.
    pub params: [f32; 4],
}

/// The terrain's pipeline, its uniforms and its mesh.
pub struct TerrainPass {
    pipeline: wgpu::RenderPipeline,
    uniforms: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    count: u32,
}

/// How the terrain fades and is gridded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TerrainLook {
    /// The sky colour (linear RGB).
    pub sky: Vec3,
    /// Grid cell, world units.
    pub cell: f32,
    /// Distances from the camera where the fade into the sky starts and
    /// ends.
    pub fade: (f32, f32),
}

impl TerrainPass {
    /// Uploads `mesh` and builds the pipeline for the crowd pass's targets
    /// (`format`, `sample_count`, Throng's depth format); `shadows` is the
    /// crowd renderer's shadow receiver layout (group 1).
    pub fn new(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        sample_count: u32,
        shadows: &wgpu::BindGroupLayout,
        mesh: &TerrainMesh,
    ) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("terrain shader"),
            source: wgpu::ShaderSource::Wgsl(shader_source().into()),
        });
        let layout = entries::create(
            device,
            "terrain bind group layout",
            &[entries::uniform(
                0,
                wgpu::ShaderStages::VERTEX_FRAGMENT,
                size_of::<TerrainUniforms>(),
                false,
            )],
        );
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("terrain pipeline layout"),
            bind_group_layouts: &[Some(&layout), Some(shadows)],
            immediate_size: 0,
        });
        let attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32];
        let buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<TerrainVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &attributes,
        })];
        let pipeline = PassPipeline {
            vertex_entry: "vs_terrain",
            fragment_entry: "fs_terrain",
            buffers: &buffers,
            ..PassPipeline::opaque(
                "terrain pipeline",
                &pipeline_layout,
                &module,
                format,
                sample_count,
            )
        }
        .create(device);
        let (uniforms, bind_group) = uniform_binding::<TerrainUniforms>(device, &layout, "terrain");
        let init = |label: &str, contents: &[u8], usage| {
            use wgpu::util::DeviceExt;
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        // An empty mesh still binds a buffer of one (unused) vertex.
        let vertex_bytes: &[u8] = if mesh.vertices.is_empty() {
            &[0; size_of::<TerrainVertex>()]
        } else {
            bytemuck::cast_slice(&mesh.vertices)
        };
        let index_bytes: &[u8] = if mesh.indices.is_empty() {
            &[0; 4]
        } else {
            bytemuck::cast_slice(&mesh.indices)
        };
        Self {
            pipeline,
            uniforms,
            bind_group,
            vertices: init("terrain vertices", vertex_bytes, wgpu::BufferUsages::VERTEX),
            indices: init("terrain indices", index_bytes, wgpu::BufferUsages::INDEX),
            count: mesh.indices.len() as u32,
        }
    }

    /// Uploads this frame's uniforms: the camera's `clip_from_world` and
    /// position, the crowd's `lighting`, and the `look`.
    pub fn prepare(
        &self,
        queue: &wgpu::Queue,
        clip_from_world: &Mat4,
        eye: Vec3,
        lighting: &Lighting,
        look: &TerrainLook,
    ) {
        let u = TerrainUniforms {
            clip_from_world: clip_from_world.to_cols_array_2d(),
            eye: eye.extend(1.0).to_array(),
            light: lighting
                .direction
                .normalize_or(Vec3::Y)
                .extend(0.0)
                .to_array(),
            sun: lighting.color.extend(1.0).to_array(),
            ambient: lighting.ambient.extend(1.0).to_array(),
            sky: look.sky.extend(1.0).to_array(),
            params: [look.cell, look.fade.0, look.fade.1, 0.0],
        };
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&u));
    }

    /// Draws the terrain into the crowd's pass; `shadows` is the crowd
    /// renderer's shadow receiver bind group.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, shadows: &wgpu::BindGroup) {
        if self.count == 0 {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_bind_group(1, shadows, &[]);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..self.count, 0, 0..1);
    }
}
