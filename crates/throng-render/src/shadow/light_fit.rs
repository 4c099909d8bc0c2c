//! The GPU-driven path's light fit: the directional light's view fitted on
//! the GPU (`shadow/light_fit.wgsl`) to the box of what the camera's cull
//! passes drew, so that a shadowed frame's light cull follows its camera
//! cull in the same submission and no frame waits for a readback. The CPU
//! paths fit the same light on the CPU (`Shadow::fit_light`); the two are
//! compared in `tests/render/gpu_driven/light_fit.rs`.

use std::mem::offset_of;

use throng_core::gpu::{DRAWN_WORDS, LightFit, LightFitParams};

use crate::base::error::RenderError;
use crate::base::shader::program::Program;
use crate::device::buffers::{Grown, STORAGE, make};
use crate::passes::cull::CullList;
use crate::program::bind_groups::entries::bind_group;
use crate::program::bind_groups::light_fit_entries;

/// Where the fitted light's planes are in [`LightFitPass::fit`]: the bytes
/// to copy over a shadow view's `CullView::planes` (its first field).
pub(crate) const PLANES: (u64, u64) = (
    offset_of!(LightFit, planes) as u64,
    std::mem::size_of::<[[f32; 4]; 6]>() as u64,
);

/// Where the fitted `light_clip_from_world` is in [`LightFitPass::fit`]:
/// the bytes to copy over the shadow uniforms' matrix (their first field).
pub(crate) const MATRIX: (u64, u64) = (
    offset_of!(LightFit, light_clip_from_world) as u64,
    std::mem::size_of::<[[f32; 4]; 4]>() as u64,
);

/// The light fit's pipeline and buffers.
pub struct LightFitPass {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
    params: wgpu::Buffer,
    receivers: Grown,
    fit: wgpu::Buffer,
}

impl LightFitPass {
    /// Compiles the light fit.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(Program::LightFit.label()),
            source: wgpu::ShaderSource::Wgsl(Program::LightFit.source().into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(Program::LightFit.label()),
            entries: &light_fit_entries(),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(Program::LightFit.label()),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("fit_light"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("fit_light"),
            compilation_options: Default::default(),
            cache: None,
        });
        Self {
            layout,
            pipeline,
            params: make(
                device,
                "throng light fit params",
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                std::mem::size_of::<LightFitParams>() as u64,
            ),
            receivers: Grown::new(device, "throng light fit receivers", STORAGE),
            fit: make(
                device,
                "throng light fit",
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                std::mem::size_of::<LightFit>() as u64,
            ),
        }
    }

    /// The fitted light ([`LightFit`]), once the encoder of
    /// [`Self::encode`] has run.
    pub fn fit(&self) -> &wgpu::Buffer {
        &self.fit
    }

    /// Records the fit into `encoder`, after the cull passes of `cameras`
    /// (one list per crowd, the camera's view): their drawn boxes are
    /// copied side by side, and one invocation fits the light towards
    /// `toward_light` to their union.
    pub fn encode(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        toward_light: glam::Vec3,
        cameras: &[&CullList],
    ) -> Result<(), RenderError> {
        let header = DRAWN_WORDS as u64 * 4;
        self.receivers
            .reserve(device, header * cameras.len().max(1) as u64)?;
        for (k, list) in cameras.iter().enumerate() {
            encoder.copy_buffer_to_buffer(
                list.counts(),
                0,
                &self.receivers.buffer,
                k as u64 * header,
                header,
            );
        }
        let params = LightFitParams {
            toward_light: toward_light.extend(0.0).to_array(),
            crowd_count: cameras.len() as u32,
            pad: [0; 3],
        };
        queue.write_buffer(&self.params, 0, bytemuck::bytes_of(&params));
        let group = bind_group(
            device,
            Program::LightFit.label(),
            &self.layout,
            &[
                (0, self.params.as_entire_binding()),
                (1, self.receivers.buffer.as_entire_binding()),
                (2, self.fit.as_entire_binding()),
            ],
        );
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(Program::LightFit.label()),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
        Ok(())
    }
}
