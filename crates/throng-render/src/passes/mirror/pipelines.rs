//! The mirror's compute pipelines ([`MirrorPipelines`]).

use crate::base::shader::program::Program;
use crate::passes::motion::MotionPass;
use crate::program::bind_groups::compute::mirror_entries;

/// The mirror's compute pipelines: its scattered uploads of changed
/// states, transforms and motions (`passes/mirror/mirror.wgsl`: `apply_states`,
/// `apply_transforms`, `apply_motions`) and the motion pass that follows
/// them. [`CullPass`](crate::passes::cull::CullPass) holds one.
pub struct MirrorPipelines {
    pub(super) apply: wgpu::BindGroupLayout,
    pub(super) apply_states: wgpu::ComputePipeline,
    pub(super) apply_transforms: wgpu::ComputePipeline,
    pub(super) apply_motions: wgpu::ComputePipeline,
    pub(super) motion: MotionPass,
}

impl AsRef<MirrorPipelines> for MirrorPipelines {
    fn as_ref(&self) -> &MirrorPipelines {
        self
    }
}

impl MirrorPipelines {
    /// Compiles the mirror's pipelines.
    pub fn new(device: &wgpu::Device) -> Self {
        let mirror = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(Program::Mirror.label()),
            source: wgpu::ShaderSource::Wgsl(Program::Mirror.source().into()),
        });
        let group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(Program::Mirror.label()),
            entries: &mirror_entries(),
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(Program::Mirror.label()),
            bind_group_layouts: &[Some(&group)],
            immediate_size: 0,
        });
        let entry = |name: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(name),
                layout: Some(&layout),
                module: &mirror,
                entry_point: Some(name),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        Self {
            apply_states: entry("apply_states"),
            apply_transforms: entry("apply_transforms"),
            apply_motions: entry("apply_motions"),
            apply: group,
            motion: MotionPass::new(device),
        }
    }
}
