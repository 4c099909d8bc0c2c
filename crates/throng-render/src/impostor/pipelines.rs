//! The impostors' pipelines (`ImpostorPipelines`): a renderer's colour
//! and shadow-casting pipelines for drawing models' animated impostors
//! (`impostor.wgsl`), made when a frame first draws one. The impostors
//! themselves, per model, are uploaded beside this file (`upload.rs`).

use crate::base::options::RecordPath;
use crate::base::shader::program::Program;
use crate::program::bind_groups;
use crate::program::pipeline::{PassPipeline, cast_depth_state, cast_primitive, crowd_buffers};

/// A renderer's impostor pipelines, made when a frame first draws an
/// impostor: the colour pass's (`vs_impostor` with `fs_impostor`, or
/// `fs_impostor_shadowed` when the renderer has shadows) and the shadow
/// pass's (`vs_impostor_cast`, `fs_impostor_cast`, depth only).
pub(crate) struct ImpostorPipelines {
    path: RecordPath,
    module: Option<wgpu::ShaderModule>,
    /// The colour pass's pipeline, once made.
    pub(crate) colour: Option<wgpu::RenderPipeline>,
    /// The shadow pass's pipeline, once made.
    pub(crate) cast: Option<wgpu::RenderPipeline>,
}

impl ImpostorPipelines {
    pub(crate) fn new(path: RecordPath) -> Self {
        Self {
            path,
            module: None,
            colour: None,
            cast: None,
        }
    }

    fn module(&mut self, device: &wgpu::Device) -> wgpu::ShaderModule {
        let program = Program::impostor(self.path);
        self.module
            .get_or_insert_with(|| {
                device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(program.label()),
                    source: wgpu::ShaderSource::Wgsl(program.source().into()),
                })
            })
            .clone()
    }

    /// Makes the colour pass's pipeline if it is not made yet.
    pub(crate) fn colour_pipeline(
        &mut self,
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        samples: u32,
        receive: bind_groups::Receive,
        depth_compare: wgpu::CompareFunction,
    ) {
        if self.colour.is_some() {
            return;
        }
        let module = self.module(device);
        let layout = bind_groups::pipeline_layout(device, Program::impostor(self.path), receive);
        let mut desc = PassPipeline::opaque(
            "throng impostor pipeline",
            &layout,
            &module,
            format,
            samples,
        );
        desc.vertex_entry = "vs_impostor";
        desc.depth_compare = depth_compare;
        let buffers = crowd_buffers(None, self.path != RecordPath::Packaged);
        desc.buffers = &buffers;
        desc.fragment_entry = match receive {
            bind_groups::Receive::None => "fs_impostor",
            bind_groups::Receive::OwnMap => "fs_impostor_shadowed",
            bind_groups::Receive::Cascades => "fs_impostor_cascaded",
        };
        self.colour = Some(desc.create(device));
    }

    /// Makes the shadow pass's pipeline if it is not made yet.
    pub(crate) fn cast_pipeline(&mut self, device: &wgpu::Device) {
        if self.cast.is_none() {
            self.cast = Some(self.cast_with(device, cast_primitive(), cast_depth_state()));
        }
    }

    /// A cast pipeline drawing depth with `primitive` and `depth` (the
    /// renderer's own map's, or a light view's of the caller's).
    pub(crate) fn cast_with(
        &mut self,
        device: &wgpu::Device,
        primitive: wgpu::PrimitiveState,
        depth: wgpu::DepthStencilState,
    ) -> wgpu::RenderPipeline {
        let module = self.module(device);
        let program = Program::impostor_cast(self.path);
        let layout = bind_groups::pipeline_layout(device, program, bind_groups::Receive::None);
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(program.label()),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_impostor_cast"),
                compilation_options: Default::default(),
                buffers: &crowd_buffers(None, self.path != RecordPath::Packaged),
            },
            primitive,
            depth_stencil: Some(depth),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_impostor_cast"),
                compilation_options: Default::default(),
                targets: &[],
            }),
            multiview_mask: None,
            cache: None,
        })
    }
}
