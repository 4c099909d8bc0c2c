//! The GPU-driven path's motion pass: every frame, one dispatch of
//! `passes/motion.wgsl`'s `pose_movers` writes each moving instance's
//! transform of the frame into the mirror's transform stream, from its
//! motion ([`throng_core::gpu::GpuMotion`]) and the clock, before the cull
//! pass reads it. So a walking crowd costs the CPU nothing per frame: its
//! motions are uploaded when they change, like its states.
//!
//! Equivalence with the CPU twin ([`throng_core::motion::motion_rows`]) is
//! tested on lavapipe in `tests/render/motion.rs`.

use throng_core::gpu::MotionParams;

use crate::base::shader::program::Program;
use crate::device::buffers::{WORKGROUP, dispatch_size, make};
use crate::program::bind_groups::motion_entries;

/// The motion pass's pipeline and its parameters' buffer.
pub struct MotionPass {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

/// What one motion dispatch binds.
pub(crate) struct MotionBindings<'a> {
    pub(crate) params: &'a wgpu::Buffer,
    pub(crate) motions: &'a wgpu::Buffer,
    pub(crate) points: &'a wgpu::Buffer,
    pub(crate) keys: &'a wgpu::Buffer,
    pub(crate) transforms: &'a wgpu::Buffer,
    pub(crate) ground: &'a wgpu::Buffer,
}

impl MotionPass {
    /// Compiles the motion pass.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(Program::Motion.label()),
            source: wgpu::ShaderSource::Wgsl(Program::Motion.source().into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(Program::Motion.label()),
            entries: &motion_entries(),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(Program::Motion.label()),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("pose_movers"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("pose_movers"),
            compilation_options: Default::default(),
            cache: None,
        });
        Self { layout, pipeline }
    }

    /// A uniform buffer for [`MotionParams`].
    pub(crate) fn params_buffer(device: &wgpu::Device) -> wgpu::Buffer {
        make(
            device,
            "throng motion params",
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            std::mem::size_of::<MotionParams>() as u64,
        )
    }

    /// Records the dispatch posing `count` instances at tick `now` (the
    /// parameters are written through `queue`, so the dispatch sees them
    /// when `encoder` is submitted).
    pub(crate) fn encode(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        b: &MotionBindings<'_>,
        now: u64,
        count: u32,
    ) {
        if count == 0 {
            return;
        }
        let params = MotionParams {
            now_lo: now as u32,
            now_hi: (now >> 32) as u32,
            instance_count: count,
            pad: 0,
        };
        queue.write_buffer(b.params, 0, bytemuck::bytes_of(&params));
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng motion pass"),
            layout: &self.layout,
            entries: &[
                (0, b.params),
                (1, b.motions),
                (2, b.points),
                (3, b.keys),
                (4, b.transforms),
                (crate::program::bind_groups::GROUND_BINDING, b.ground),
            ]
            .map(|(binding, buffer)| wgpu::BindGroupEntry {
                binding,
                resource: buffer.as_entire_binding(),
            }),
        });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("throng motion pass"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &group, &[]);
        let (x, y) = dispatch_size(count.div_ceil(WORKGROUP));
        pass.dispatch_workgroups(x, y, 1);
    }
}
