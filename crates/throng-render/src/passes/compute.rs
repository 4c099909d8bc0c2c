//! GPU compute readback of skinned vertices: the shader's own `skin()` run
//! for N instances of one model, copied back for comparison with the CPU
//! (`throng_core::baked` and `throng_bake::reference`).

use glam::Vec3;
use throng_core::gpu::InstanceRecord;
use wgpu::util::DeviceExt;

use crate::base::error::RenderError;
use crate::base::shader::program::Program;
use crate::base::uniforms::ComputeParams;
use crate::device::buffers::WORKGROUP;
use crate::device::offscreen::map_read;
use crate::model::gpu_model::GpuModel;
use crate::program::bind_groups;
use crate::program::bind_groups::entries::bind_group;

/// A compute pipeline that skins a model's vertices on the GPU.
pub struct SkinCompute {
    pipeline: wgpu::ComputePipeline,
    io_layout: wgpu::BindGroupLayout,
    records_layout: wgpu::BindGroupLayout,
}

/// Skinned vertex of one instance, in world space (the record's world matrix
/// applied, as the draw stage does; an identity record gives model space).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkinnedVertex {
    /// Position.
    pub position: Vec3,
    /// Unit normal.
    pub normal: Vec3,
}

impl SkinCompute {
    /// Builds the pipeline.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(Program::ComputeSkin.label()),
            source: wgpu::ShaderSource::Wgsl(Program::ComputeSkin.source().into()),
        });
        let io_layout = bind_groups::compute_io(device);
        let records_layout = bind_groups::records_storage(device, wgpu::ShaderStages::COMPUTE);
        let layout =
            bind_groups::pipeline_layout(device, Program::ComputeSkin, bind_groups::Receive::None);
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("throng compute skinning"),
            layout: Some(&layout),
            module: &module,
            entry_point: Some("skin_vertices"),
            compilation_options: Default::default(),
            cache: None,
        });
        Self {
            pipeline,
            io_layout,
            records_layout,
        }
    }

    /// Skins every vertex of `lod` for each record; returns
    /// `result[instance][vertex]`.
    pub fn run(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        model: &GpuModel,
        lod: usize,
        records: &[InstanceRecord],
    ) -> Result<Vec<Vec<SkinnedVertex>>, RenderError> {
        if records.is_empty() {
            return Ok(Vec::new());
        }
        let lod = &model.lods[lod];
        let vertex_count = lod.vertex_count;
        let instances = records.len() as u32;
        let out_size = vertex_count as u64 * instances as u64 * 32;
        let max = device.limits().max_storage_buffer_binding_size;
        if out_size > max {
            return Err(RenderError::TooBig {
                model: model.name().to_owned(),
                what: "compute readback bytes".into(),
                needed: out_size,
                limit: max,
            });
        }
        let params = ComputeParams {
            first_vertex: 0,
            vertex_count,
            instance_count: instances,
            _pad: 0,
        };
        let params_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng compute params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let records_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng compute records"),
            contents: bytemuck::cast_slice(records),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let output = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("throng compute output"),
            size: out_size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("throng compute readback"),
            size: out_size,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let io = bind_group(
            device,
            "throng compute io",
            &self.io_layout,
            &[
                (0, lod.vertex_buffer.as_entire_binding()),
                (1, output.as_entire_binding()),
                (2, params_buffer.as_entire_binding()),
            ],
        );
        let recs = bind_group(
            device,
            "throng compute records",
            &self.records_layout,
            &[(0, records_buffer.as_entire_binding())],
        );
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("throng compute skinning"),
        });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("throng compute skinning"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &io, &[]);
            pass.set_bind_group(1, &model.bind_group, &[]);
            pass.set_bind_group(3, &recs, &[]);
            pass.dispatch_workgroups(vertex_count.div_ceil(WORKGROUP), instances, 1);
        }
        encoder.copy_buffer_to_buffer(&output, 0, &readback, 0, out_size);
        queue.submit([encoder.finish()]);
        let bytes = map_read(device, &readback)?;
        let floats: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&bytes);
        Ok(floats
            .chunks_exact(2 * vertex_count as usize)
            .map(|inst| {
                inst.chunks_exact(2)
                    .map(|pn| SkinnedVertex {
                        position: Vec3::new(pn[0][0], pn[0][1], pn[0][2]),
                        normal: Vec3::new(pn[1][0], pn[1][1], pn[1][2]),
                    })
                    .collect()
            })
            .collect())
    }
}
