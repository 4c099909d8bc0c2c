//! [`PassPipeline`]: the description of a render pipeline that draws into a
//! pass like the crowd's — a colour target and a [`DEPTH_FORMAT`] depth
//! attachment at some sample count — with the few things that vary between
//! such pipelines named and everything else fixed. The viewer's ground and
//! skeleton lines and a user's own meshes drawn beside the crowd are built
//! with it, so none of them spells out a whole `RenderPipelineDescriptor`.

use throng_core::model::BakedVertex;

use crate::base::options::DEPTH_FORMAT;

/// A render pipeline for a pass with one colour target and a
/// [`DEPTH_FORMAT`] depth attachment.
#[derive(Clone, Debug)]
pub struct PassPipeline<'a> {
    /// Debug label.
    pub label: &'a str,
    /// Its layout.
    pub layout: &'a wgpu::PipelineLayout,
    /// The module holding both entry points.
    pub module: &'a wgpu::ShaderModule,
    /// Vertex entry point.
    pub vertex_entry: &'a str,
    /// Fragment entry point.
    pub fragment_entry: &'a str,
    /// Vertex buffers (none: vertices come from the vertex index).
    pub buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
    /// Primitive topology.
    pub topology: wgpu::PrimitiveTopology,
    /// Faces culled (`None`: none).
    pub cull_mode: Option<wgpu::Face>,
    /// Write depth.
    pub depth_write: bool,
    /// Depth test.
    pub depth_compare: wgpu::CompareFunction,
    /// Colour blending (`None`: replace).
    pub blend: Option<wgpu::BlendState>,
    /// Channels written.
    pub write_mask: wgpu::ColorWrites,
    /// Colour target format.
    pub format: wgpu::TextureFormat,
    /// MSAA sample count of the pass.
    pub samples: u32,
    /// Override constants of the vertex stage.
    pub vertex_constants: &'a [(&'a str, f64)],
    /// Override constants of the fragment stage.
    pub fragment_constants: &'a [(&'a str, f64)],
}

impl<'a> PassPipeline<'a> {
    /// Opaque triangles, depth tested and written, no culling, no blending:
    /// change the fields that differ.
    pub fn opaque(
        label: &'a str,
        layout: &'a wgpu::PipelineLayout,
        module: &'a wgpu::ShaderModule,
        format: wgpu::TextureFormat,
        samples: u32,
    ) -> Self {
        Self {
            label,
            layout,
            module,
            vertex_entry: "vs_main",
            fragment_entry: "fs_main",
            buffers: &[],
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: None,
            depth_write: true,
            depth_compare: wgpu::CompareFunction::Less,
            blend: None,
            write_mask: wgpu::ColorWrites::ALL,
            format,
            samples,
            vertex_constants: &[],
            fragment_constants: &[],
        }
    }

    /// Creates the pipeline.
    pub fn create(&self, device: &wgpu::Device) -> wgpu::RenderPipeline {
        self.create_with_targets(device, &[])
    }

    /// Creates the pipeline with `extra` colour targets (fragment outputs
    /// 1, 2, …, not blended) after its own.
    pub fn create_with_targets(
        &self,
        device: &wgpu::Device,
        extra: &[wgpu::TextureFormat],
    ) -> wgpu::RenderPipeline {
        let targets: Vec<Option<wgpu::ColorTargetState>> =
            std::iter::once(Some(wgpu::ColorTargetState {
                format: self.format,
                blend: self.blend,
                write_mask: self.write_mask,
            }))
            .chain(extra.iter().map(|&format| {
                Some(wgpu::ColorTargetState {
                    format,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })
            }))
            .collect();
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(self.label),
            layout: Some(self.layout),
            vertex: wgpu::VertexState {
                module: self.module,
                entry_point: Some(self.vertex_entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: self.vertex_constants,
                    ..Default::default()
                },
                buffers: self.buffers,
            },
            primitive: wgpu::PrimitiveState {
                topology: self.topology,
                front_face: wgpu::FrontFace::Ccw,
                cull_mode: self.cull_mode,
                ..Default::default()
            },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(self.depth_write),
                depth_compare: Some(self.depth_compare),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: wgpu::MultisampleState {
                count: self.samples,
                ..Default::default()
            },
            fragment: Some(wgpu::FragmentState {
                module: self.module,
                entry_point: Some(self.fragment_entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants: self.fragment_constants,
                    ..Default::default()
                },
                targets: &targets,
            }),
            multiview_mask: None,
            cache: None,
        })
    }
}

/// What varies between the colour pipelines that draw a crowd's submeshes
/// (the crowd renderer's and any other drawing of baked meshes, such as the
/// CPU-skinned baseline of `throng-bench`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PipelineKey {
    /// Flat shading (the fragment shader's `FLAT_SHADING`).
    pub flat: bool,
    /// Draw back faces too.
    pub double_sided: bool,
    /// Alpha blending, without depth writes.
    pub blend: bool,
    /// Some record drawn may be mid-cross-fade (the shader's `CROSS_FADE`;
    /// always false for programs without it).
    pub cross_fade: bool,
    /// Every record drawn has a palette from the pre-pass (the storage
    /// records' `PALETTES`; always false for other programs).
    pub palettes: bool,
    /// Every record drawn is of a (model, LOD) whose poses are cached
    /// ([`crate::pose_cache`]): the pipeline runs the cached vertex entry
    /// point (`vs_cached`), which reads the bind-pose UV alone. Storage
    /// paths only; never with `palettes`.
    pub pose_cache: bool,
}

impl PipelineKey {
    /// The key of an impostor's quads: double-sided, opaque, nothing else
    /// (impostors have their own program; the key only groups their draws).
    pub const IMPOSTOR: PipelineKey = PipelineKey {
        flat: false,
        double_sided: true,
        blend: false,
        cross_fade: false,
        palettes: false,
        pose_cache: false,
    };

    /// The key a shadow caster is drawn with (into a shadow map or a
    /// caller's light view): double-sided, opaque, cross-fading and with
    /// the pre-pass's palettes as its draw.
    pub const fn caster(cross_fade: bool, palettes: bool) -> PipelineKey {
        PipelineKey {
            flat: false,
            double_sided: true,
            blend: false,
            cross_fade,
            palettes,
            pose_cache: false,
        }
    }
}

/// The parts of a colour pipeline that stay the same across [`PipelineKey`]s.
pub struct ColorPipeline<'a> {
    /// Debug label prefix.
    pub label: &'a str,
    /// Bind-group layout of the program.
    pub layout: &'a wgpu::PipelineLayout,
    /// The compiled program.
    pub module: &'a wgpu::ShaderModule,
    /// Vertex entry point.
    pub vertex_entry: &'a str,
    /// Override constants of the vertex stage (besides none from the key).
    pub vertex_constants: &'a [(&'a str, f64)],
    /// Fragment entry point.
    pub fragment_entry: &'a str,
    /// Colour target format.
    pub format: wgpu::TextureFormat,
    /// MSAA sample count.
    pub samples: u32,
    /// Further colour targets ([`crate::RendererOptions::extra_targets`]).
    pub extra_targets: &'a [wgpu::TextureFormat],
    /// Instance records come as instance-rate vertex attributes at
    /// [`RECORDS_SLOT`] (the storage paths' `RecordIn`).
    pub instance_records: bool,
    /// The depth test ([`crate::base::options::DepthConvention::compare`]).
    pub depth_compare: wgpu::CompareFunction,
}

impl ColorPipeline<'_> {
    /// The pipeline for `key`: bind-pose vertices ([`BakedVertex`]; with
    /// `key.pose_cache`, their UV alone and the entry point `vs_cached`),
    /// depth test against [`DEPTH_FORMAT`], back faces culled unless
    /// double-sided, alpha blending without depth writes for blended
    /// materials.
    pub fn create(&self, device: &wgpu::Device, key: PipelineKey) -> wgpu::RenderPipeline {
        let fragment_constants = [("FLAT_SHADING", if key.flat { 1.0 } else { 0.0 })];
        let vertices = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<BakedVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: if key.pose_cache {
                &CACHED_VERTEX_ATTRIBUTES
            } else {
                &VERTEX_ATTRIBUTES
            },
        };
        let buffers = crowd_buffers(Some(vertices), self.instance_records);
        let label = format!("{} {key:?}", self.label);
        PassPipeline {
            label: &label,
            layout: self.layout,
            module: self.module,
            vertex_entry: if key.pose_cache {
                CACHED_VERTEX_ENTRY
            } else {
                self.vertex_entry
            },
            fragment_entry: self.fragment_entry,
            buffers: &buffers,
            topology: wgpu::PrimitiveTopology::TriangleList,
            cull_mode: (!key.double_sided).then_some(wgpu::Face::Back),
            depth_write: !key.blend,
            depth_compare: self.depth_compare,
            blend: key.blend.then_some(wgpu::BlendState::ALPHA_BLENDING),
            write_mask: wgpu::ColorWrites::ALL,
            format: self.format,
            samples: self.samples,
            vertex_constants: self.vertex_constants,
            fragment_constants: &fragment_constants,
        }
        .create_with_targets(device, self.extra_targets)
    }
}

/// The vertex layout of [`BakedVertex`] buffers.
pub(crate) const VERTEX_ATTRIBUTES: [wgpu::VertexAttribute; 7] = wgpu::vertex_attr_array![
    0 => Float32x3, 1 => Float32x3, 2 => Float32x2, 3 => Uint16x4, 4 => Float32x4, 5 => Uint32x2,
    6 => Snorm16x4
];

/// The one attribute the cached entry point reads: the UV (location 2, at
/// its offset in [`BakedVertex`]).
pub(crate) const CACHED_VERTEX_ATTRIBUTES: [wgpu::VertexAttribute; 1] = [wgpu::VertexAttribute {
    format: wgpu::VertexFormat::Float32x2,
    offset: std::mem::offset_of!(BakedVertex, uv) as u64,
    shader_location: 2,
}];

/// The colour pipelines' vertex entry point for cached poses
/// (`shaders/draw.wgsl`).
pub const CACHED_VERTEX_ENTRY: &str = "vs_cached";

/// The vertex-buffer slot of the instance records on the storage paths:
/// the records buffer bound again as an instance-rate vertex buffer
/// (`shaders/records_storage.wgsl`'s `RecordIn`).
pub const RECORDS_SLOT: u32 = 1;

/// An [`InstanceRecord`](throng_core::gpu::InstanceRecord) as vertex
/// attributes 8 to 12: the matrix's three rows, then its eight 32-bit
/// words as two `vec4<u32>` (floats among them by their bits).
pub(crate) const RECORD_ATTRIBUTES: [wgpu::VertexAttribute; 6] = wgpu::vertex_attr_array![
    8 => Float32x4, 9 => Float32x4, 10 => Float32x4, 11 => Uint32x4, 12 => Uint32x4, 13 => Uint32x2
];

/// The records' vertex-buffer layout: one record per instance.
pub(crate) fn records_layout() -> wgpu::VertexBufferLayout<'static> {
    wgpu::VertexBufferLayout {
        array_stride: std::mem::size_of::<throng_core::gpu::InstanceRecord>() as u64,
        step_mode: wgpu::VertexStepMode::Instance,
        attributes: &RECORD_ATTRIBUTES,
    }
}

/// The vertex buffers of a crowd pipeline: `vertices` at slot 0 (if any)
/// and, with `records`, the instance records at [`RECORDS_SLOT`].
pub(crate) fn crowd_buffers(
    vertices: Option<wgpu::VertexBufferLayout<'static>>,
    records: bool,
) -> Vec<Option<wgpu::VertexBufferLayout<'static>>> {
    let mut buffers = vec![vertices];
    if records {
        buffers.push(Some(records_layout()));
    }
    buffers
}

/// The depth state of every shadow-casting pipeline: written, `LessEqual`,
/// with a slope-scaled bias against acne.
pub(crate) fn cast_depth_state() -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: DEPTH_FORMAT,
        depth_write_enabled: Some(true),
        depth_compare: Some(wgpu::CompareFunction::LessEqual),
        stencil: Default::default(),
        bias: wgpu::DepthBiasState {
            constant: 2,
            slope_scale: 2.0,
            clamp: 0.0,
        },
    }
}

/// The primitive state of every shadow-casting pipeline: triangles, both
/// faces (a crowd's thin parts cast from either side).
pub(crate) fn cast_primitive() -> wgpu::PrimitiveState {
    wgpu::PrimitiveState {
        topology: wgpu::PrimitiveTopology::TriangleList,
        cull_mode: None,
        ..Default::default()
    }
}
