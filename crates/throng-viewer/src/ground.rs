//! The ground plane: a large square under the crowd with a world-space grid
//! that fades into the sky colour, and a soft blob shadow under every
//! instance, drawn inside the crowd's render pass (see
//! [`throng_render::Renderer::encode_with`]) so they share its depth and
//! MSAA targets.

use glam::{Mat4, Vec3};
use throng_core::math::Aabb;
use throng_demo::uniform::uniform_binding;
use throng_render::bind_groups::entries;
use throng_render::{Lighting, PassPipeline};

/// The WGSL source (`shaders/ground.wgsl`).
pub const SHADER: &str = include_str!("../shaders/ground.wgsl");

/// The full ground program: `ground.wgsl` composed with what it imports
/// (the renderer's binding-free shadow filter).
pub fn shader_source() -> String {
    throng_render::shader::compose("viewer/ground.wgsl", SHADER, None)
        .unwrap_or_else(|e| panic!("the viewer's ground shader does not compose: {e}"))
}

/// Unlit ground colour (linear RGB): a muted grey-green.
pub const GROUND_ALBEDO: Vec3 = Vec3::new(0.33, 0.38, 0.27);

/// Blob shadow half extents as a fraction of the model's rest-pose
/// footprint.
pub const BLOB_SIZE: f32 = 0.45;

/// Grid line colour relative to the lit ground colour.
pub const LINE_SHADE: f32 = 0.72;

/// Mirrors `Ground` in `shaders/ground.wgsl`, field for field.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GroundUniforms {
    /// `clip_from_world`.
    pub clip_from_world: [[f32; 4]; 4],
    /// Centre (xyz) and half side (w).
    pub center: [f32; 4],
    /// Lit base colour.
    pub color: [f32; 4],
    /// Grid line colour.
    pub line_color: [f32; 4],
    /// Sky colour.
    pub fog_color: [f32; 4],
    /// Cell size, fade start, fade end, blob height over the ground.
    pub params: [f32; 4],
    /// Blob half extents (x, z) and centre (x, z) in model space.
    pub blob: [f32; 4],
}

/// One blob shadow: world x, world z, heading (radians), scale. The
/// per-instance vertex attribute of `vs_blob`.
pub type BlobInstance = [f32; 4];

/// Where the ground lies and how it fades.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundPlacement {
    /// Centre of the square (its height is the ground height).
    pub center: Vec3,
    /// Half the side of the square.
    pub half_size: f32,
    /// Grid cell size.
    pub cell: f32,
    /// Distance from the centre where the fade to the sky starts.
    pub fade_start: f32,
    /// Blob shadow half extents (x, z) and centre (x, z), model space.
    pub blob: [f32; 4],
    /// Height of the blobs over the ground (against depth fighting).
    pub blob_lift: f32,
}

impl GroundPlacement {
    /// A ground at height `y` under a crowd centred at `center` with radius
    /// `radius`, gridded in cells of `cell`, with blob shadows sized after
    /// a model whose rest-pose box is `footprint`.
    pub fn under(center: Vec3, y: f32, radius: f32, cell: f32, footprint: &Aabb) -> Self {
        let radius = radius.max(1e-3);
        let e = if footprint.is_empty() {
            Vec3::ZERO
        } else {
            footprint.max - footprint.min
        };
        // Centred under the model's origin, where it stands (a bounds
        // centre would follow a long tail or a raised arm).
        let c = Vec3::ZERO;
        Self {
            center: Vec3::new(center.x, y, center.z),
            half_size: radius * 10.0,
            cell: cell.max(1e-4),
            fade_start: radius * 1.2,
            blob: [e.x * BLOB_SIZE, e.z * BLOB_SIZE, c.x, c.z],
            blob_lift: e.y.max(e.x).max(e.z) * 0.005,
        }
    }
}

/// The ground pipeline and its uniforms.
pub struct Ground {
    pipeline: wgpu::RenderPipeline,
    blob_pipeline: wgpu::RenderPipeline,
    buffer: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    blobs: Option<wgpu::Buffer>,
    blob_count: u32,
}

impl Ground {
    /// Builds the pipeline for targets of `format` with `sample_count`
    /// samples and [`DEPTH_FORMAT`](throng_render::DEPTH_FORMAT) depth (the crowd pass's targets).
    /// `shadows` is the crowd renderer's shadow receiver layout: the ground
    /// samples the same shadow map (group 1).
    pub fn new(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        sample_count: u32,
        shadows: &wgpu::BindGroupLayout,
    ) -> Self {
        let source = shader_source();
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("viewer ground shader"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let uniforms = size_of::<GroundUniforms>();
        let layout = entries::create(
            device,
            "viewer ground bind group layout",
            &[entries::uniform(
                0,
                wgpu::ShaderStages::VERTEX_FRAGMENT,
                uniforms,
                false,
            )],
        );
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("viewer ground pipeline layout"),
            bind_group_layouts: &[Some(&layout), Some(shadows)],
            immediate_size: 0,
        });
        let base = PassPipeline::opaque(
            "viewer ground pipeline",
            &pipeline_layout,
            &module,
            format,
            sample_count,
        );
        let pipeline = base.create(device);
        let blob_attributes = wgpu::vertex_attr_array![0 => Float32x4];
        let blob_buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<BlobInstance>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &blob_attributes,
        })];
        let blob_pipeline = PassPipeline {
            label: "viewer blob shadow pipeline",
            vertex_entry: "vs_blob",
            fragment_entry: "fs_blob",
            buffers: &blob_buffers,
            depth_write: false,
            depth_compare: wgpu::CompareFunction::LessEqual,
            blend: Some(wgpu::BlendState::ALPHA_BLENDING),
            write_mask: wgpu::ColorWrites::COLOR,
            ..base
        }
        .create(device);
        let (buffer, bind_group) =
            uniform_binding::<GroundUniforms>(device, &layout, "viewer ground");
        Self {
            pipeline,
            blob_pipeline,
            buffer,
            bind_group,
            blobs: None,
            blob_count: 0,
        }
    }

    /// Sets the blob shadows (one per instance; call when the crowd is
    /// respawned).
    pub fn set_blobs(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        blobs: &[BlobInstance],
    ) {
        self.blob_count = blobs.len() as u32;
        if blobs.is_empty() {
            return;
        }
        let bytes: &[u8] = bytemuck::cast_slice(blobs);
        if self
            .blobs
            .as_ref()
            .is_none_or(|b| b.size() < bytes.len() as u64)
        {
            self.blobs = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("viewer blob shadows"),
                size: (bytes.len() as u64).next_power_of_two(),
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        if let Some(b) = &self.blobs {
            queue.write_buffer(b, 0, bytes);
        }
    }

    /// Uploads this frame's uniforms. `sky` is the clear colour (linear);
    /// `fade_end` is where the ground has fully faded into it (at most the
    /// far plane, so the square's edge is never seen).
    pub fn prepare(
        &self,
        queue: &wgpu::Queue,
        clip_from_world: &Mat4,
        placement: &GroundPlacement,
        lighting: &Lighting,
        sky: wgpu::Color,
        fade_end: f32,
    ) {
        let uniforms = ground_uniforms(clip_from_world, placement, lighting, sky, fade_end);
        queue.write_buffer(&self.buffer, 0, bytemuck::bytes_of(&uniforms));
    }

    /// Draws the ground (receiving the crowd's shadows through `shadows`, a
    /// bind group of the layout given to [`Self::new`]) and the contact
    /// blobs into the crowd's pass.
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, shadows: &wgpu::BindGroup) {
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_bind_group(1, shadows, &[]);
        pass.draw(0..6, 0..1);
        if let Some(blobs) = &self.blobs
            && self.blob_count > 0
        {
            pass.set_pipeline(&self.blob_pipeline);
            pass.set_vertex_buffer(0, blobs.slice(..));
            pass.draw(0..6, 0..self.blob_count);
        }
    }
}

/// The ground's uniforms: lit like the crowd (Lambert with the scene's
/// light on an up-facing surface, plus ambient).
pub fn ground_uniforms(
    clip_from_world: &Mat4,
    placement: &GroundPlacement,
    lighting: &Lighting,
    sky: wgpu::Color,
    fade_end: f32,
) -> GroundUniforms {
    let light = lighting.direction.normalize_or(Vec3::Y);
    let lit = GROUND_ALBEDO * (lighting.ambient + lighting.color * light.y.max(0.0));
    let fade_end = fade_end
        .min(placement.half_size)
        .max(placement.fade_start * 1.01);
    GroundUniforms {
        clip_from_world: clip_from_world.to_cols_array_2d(),
        center: placement.center.extend(placement.half_size).to_array(),
        color: lit.extend(1.0).to_array(),
        line_color: (lit * LINE_SHADE).extend(1.0).to_array(),
        fog_color: [sky.r as f32, sky.g as f32, sky.b as f32, 1.0],
        params: [
            placement.cell,
            placement.fade_start,
            fade_end,
            placement.blob_lift,
        ],
        blob: placement.blob,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use throng_tests::wgsl::{struct_layout, validate};

    #[test]
    fn shader_parses_and_validates_and_matches_the_rust_struct() {
        let module = validate(
            "ground.wgsl",
            &shader_source(),
            naga::valid::Capabilities::empty(),
        );
        let (members, span) = struct_layout(&module, "Ground");
        assert_eq!(span as usize, std::mem::size_of::<GroundUniforms>());
        let offsets: Vec<usize> = members.iter().map(|m| m.1 as usize).collect();
        assert_eq!(
            offsets,
            [
                std::mem::offset_of!(GroundUniforms, clip_from_world),
                std::mem::offset_of!(GroundUniforms, center),
                std::mem::offset_of!(GroundUniforms, color),
                std::mem::offset_of!(GroundUniforms, line_color),
                std::mem::offset_of!(GroundUniforms, fog_color),
                std::mem::offset_of!(GroundUniforms, params),
                std::mem::offset_of!(GroundUniforms, blob),
            ]
        );
    }

    #[test]
    fn ground_sits_under_the_crowd_and_fades_before_its_edge() {
        let footprint = Aabb {
            min: Vec3::new(-1.0, 0.0, -3.0),
            max: Vec3::new(1.0, 2.0, 1.0),
        };
        let p = GroundPlacement::under(Vec3::new(10.0, 50.0, -5.0), -2.0, 100.0, 20.0, &footprint);
        assert_eq!(p.blob[2..], [0.0, 0.0], "blob centred under the origin");
        assert!(p.blob[1] > p.blob[0], "long along z like the model");
        assert_eq!(p.center, Vec3::new(10.0, -2.0, -5.0));
        assert!(p.half_size > p.fade_start);
        let u = ground_uniforms(
            &Mat4::IDENTITY,
            &p,
            &Lighting::default(),
            wgpu::Color::WHITE,
            1e9,
        );
        assert!(u.params[2] <= p.half_size, "fully faded at the edge");
        assert!(u.params[2] > u.params[1]);
        assert!(u.color[1] > 0.0 && u.color[1] < 1.0);
    }
}
