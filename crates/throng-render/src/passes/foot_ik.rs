//! The foot IK pass on the GPU (`passes/foot_ik.wgsl`): after the palette
//! pre-pass, the palettes of the instances whose layer set asks for it
//! ([`GpuLayerSet::foot_ik`](throng_core::gpu::GpuLayerSet)) are edited
//! in place so that their feet meet the crowd's ground — the twin of
//! [`throng_core::foot_ik::plant_feet`], one invocation an instance. The
//! renderer runs it in the layers' submission (`renderer/layers.rs`);
//! [`FootIkPass::evaluate`] runs the pre-pass and it and reads the
//! palettes back (tests, tools).

use throng_core::foot_ik::Leg;
use throng_core::gpu::{GpuIkInstance, GpuLayerSet, GpuLeg, IkParams};
use wgpu::util::DeviceExt;

use crate::base::error::RenderError;
use crate::base::shader::program::Program;
use crate::device::buffers::{WORKGROUP, dispatch_size};
use crate::model::gpu_model::GpuModel;
use crate::passes::entry_pipeline::entry_pipeline;
use crate::passes::palette::{LayeredPose, PalettePass, PaletteTables};
use crate::program::bind_groups;
use crate::program::bind_groups::entries::bind_group;

/// The pass's compute pipeline.
pub struct FootIkPass {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
}

/// A model's legs on the GPU (one unused entry for a model without).
pub struct GpuLegs {
    buffer: wgpu::Buffer,
    count: u32,
}

impl GpuLegs {
    /// Uploads `legs` (a model's: `IkSkeleton::legs`, or
    /// `Crowd::legs`).
    pub fn new(device: &wgpu::Device, legs: &[Leg]) -> Self {
        let mut legs: Vec<GpuLeg> = legs
            .iter()
            .map(|l| GpuLeg {
                hip: l.hip,
                knee: l.knee,
                foot: l.foot,
                pad: 0,
            })
            .collect();
        let count = legs.len() as u32;
        if legs.is_empty() {
            legs.push(GpuLeg::default());
        }
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng legs"),
            contents: bytemuck::cast_slice(&legs),
            usage: wgpu::BufferUsages::STORAGE,
        });
        Self { buffer, count }
    }

    /// Legs of the model.
    pub fn count(&self) -> u32 {
        self.count
    }
}

/// What one dispatch reads and edits.
pub struct FootIkJob<'a> {
    /// The instances.
    pub instances: &'a [GpuIkInstance],
    /// Their model's legs.
    pub legs: &'a GpuLegs,
    /// Their model's skeleton table.
    pub tables: &'a PaletteTables,
    /// The palettes the pre-pass wrote.
    pub palettes: &'a wgpu::Buffer,
    /// The crowd's ground words (`Crowd::ground_words`).
    pub ground: &'a [u32],
}

impl FootIkPass {
    /// Builds the pipeline.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(Program::FootIk.label()),
            source: wgpu::ShaderSource::Wgsl(Program::FootIk.source().into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("throng foot IK group 0"),
            entries: &bind_groups::foot_ik_entries(),
        });
        // The program's layout from its row of the layouts' table.
        let pipeline_layout =
            bind_groups::pipeline_layout(device, Program::FootIk, bind_groups::Receive::None);
        let pipeline = entry_pipeline(device, &module, &pipeline_layout, "plant_feet");
        Self { pipeline, layout }
    }

    /// Records `job`'s dispatch into `encoder` (nothing for no instances
    /// or a model without legs), its pass timed by `timestamps` if given.
    pub fn encode(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        job: &FootIkJob<'_>,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) {
        if job.instances.is_empty() || job.legs.count == 0 {
            return;
        }
        let init = |label, contents: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        let params = IkParams {
            count: job.instances.len() as u32,
            legs: job.legs.count,
            bones: job.tables.bone_count(),
            pad: 0,
        };
        let params = init(
            "throng foot IK params",
            bytemuck::bytes_of(&params),
            wgpu::BufferUsages::UNIFORM,
        );
        let instances = init(
            "throng foot IK instances",
            bytemuck::cast_slice(job.instances),
            wgpu::BufferUsages::STORAGE,
        );
        let ground = init(
            "throng foot IK ground",
            bytemuck::cast_slice(job.ground),
            wgpu::BufferUsages::STORAGE,
        );
        let group = bind_group(
            device,
            "throng foot IK",
            &self.layout,
            &[
                (0, params.as_entire_binding()),
                (1, instances.as_entire_binding()),
                (2, job.legs.buffer.as_entire_binding()),
                (3, job.tables.skeleton().as_entire_binding()),
                (4, job.palettes.as_entire_binding()),
                (bind_groups::GROUND_BINDING, ground.as_entire_binding()),
            ],
        );
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("throng foot IK"),
            timestamp_writes: timestamps,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &group, &[]);
        let (x, y) = dispatch_size((job.instances.len() as u32).div_ceil(WORKGROUP));
        pass.dispatch_workgroups(x, y, 1);
    }

    /// Evaluates `sets` by the palette pre-pass, plants the feet of
    /// `instances` (each naming a set's palette) on `ground`, and reads the
    /// palettes back, one [`LayeredPose`] a set.
    #[allow(clippy::too_many_arguments)]
    pub fn evaluate(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        palette: &PalettePass,
        model: &GpuModel,
        tables: &PaletteTables,
        legs: &GpuLegs,
        sets: &[GpuLayerSet],
        instances: &[GpuIkInstance],
        ground: &[u32],
    ) -> Result<Vec<LayeredPose>, RenderError> {
        palette.evaluate_then(device, queue, model, tables, sets, |encoder, palettes| {
            let job = FootIkJob {
                instances,
                legs,
                tables,
                palettes,
                ground,
            };
            self.encode(device, encoder, &job, None);
        })
    }
}
