//! The palette pre-pass on the GPU (`passes/palette.wgsl`): per instance,
//! its base pose and up to [`MAX_EXTRA_LAYERS`](throng_core::layers::MAX_EXTRA_LAYERS)
//! animation layers evaluated once per bone into a palette buffer, then its
//! layered morph weights after the bones' matrices — the twin of
//! [`throng_core::layers::layered_palette`] and
//! [`layered_weights`](throng_core::layers::layered_weights).
//! [`PalettePass::evaluate`] runs it for a list of layer sets and reads the
//! palettes and weights back (tests, tools).

use glam::Vec4;
use throng_core::gpu::{GpuBone, GpuLayerSet, PaletteParams};
use throng_core::layers::Skeleton;
use throng_core::limits::PALETTE_WEIGHTS_PER_MATRIX;
use throng_core::math::Rows3x4;
use wgpu::util::DeviceExt;

use crate::base::error::RenderError;
use crate::base::shader::program::Program;
use crate::device::buffers::WORKGROUP;
use crate::device::offscreen::map_read;
use crate::model::gpu_model::GpuModel;
use crate::program::bind_groups;
use crate::program::bind_groups::entries::bind_group;

/// Bytes of one palette matrix (3 rows of 4 floats).
pub const PALETTE_MATRIX_BYTES: u64 = 48;

/// What one dispatch reads and writes: `count` layer sets of `sets` from
/// `first` on, into `palettes` (which must hold every set's palette).
pub struct PaletteJob<'a> {
    /// The layer sets ([`GpuLayerSet`]).
    pub sets: &'a wgpu::Buffer,
    /// The first set of the dispatch.
    pub first: u32,
    /// How many.
    pub count: u32,
    /// The palette buffer.
    pub palettes: &'a wgpu::Buffer,
}

/// The pre-pass's compute pipeline.
pub struct PalettePass {
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
}

/// A model's skeleton and masks on the GPU, as the pre-pass reads them.
pub struct PaletteTables {
    skeleton: wgpu::Buffer,
    masks: wgpu::Buffer,
    bone_count: u32,
    slot_count: u32,
}

/// One instance's evaluated pose, read back ([`PalettePass::evaluate`]).
#[derive(Clone, Debug, PartialEq)]
pub struct LayeredPose {
    /// One matrix per bone.
    pub palette: Vec<Rows3x4>,
    /// One weight per morph slot.
    pub weights: Vec<f32>,
}

impl PaletteTables {
    /// Uploads `skeleton`'s table ([`Skeleton::gpu_table`]) and a mask
    /// table (the masks' [`gpu_entries`](throng_core::layers::BoneMask::gpu_entries)
    /// one after the other; empty if there are none).
    pub fn new(device: &wgpu::Device, skeleton: &Skeleton, masks: &[[f32; 2]]) -> Self {
        let slot_count = skeleton.slot_bones().len() as u32;
        let skeleton: Vec<GpuBone> = skeleton.gpu_table();
        let init = |label, bytes: &[u8]| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytes,
                usage: wgpu::BufferUsages::STORAGE,
            })
        };
        // A binding is never empty: one unused entry stands in.
        let masks: &[[f32; 2]] = if masks.is_empty() { &[[0.0; 2]] } else { masks };
        Self {
            skeleton: init("throng skeleton table", bytemuck::cast_slice(&skeleton)),
            masks: init("throng mask table", bytemuck::cast_slice(masks)),
            bone_count: skeleton.len() as u32,
            slot_count,
        }
    }

    /// The skeleton table ([`GpuBone`] per bone).
    pub fn skeleton(&self) -> &wgpu::Buffer {
        &self.skeleton
    }

    /// Bones of the skeleton.
    pub fn bone_count(&self) -> u32 {
        self.bone_count
    }
}

impl PalettePass {
    /// Builds the pipeline.
    pub fn new(device: &wgpu::Device) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(Program::Palette.label()),
            source: wgpu::ShaderSource::Wgsl(Program::Palette.source().into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("throng palette pre-pass group 0"),
            entries: &bind_groups::palette_entries(),
        });
        let pipeline_layout =
            bind_groups::pipeline_layout(device, Program::Palette, bind_groups::Receive::None);
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(Program::Palette.label()),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("evaluate"),
            compilation_options: Default::default(),
            cache: None,
        });
        Self { pipeline, layout }
    }

    /// Records the pre-pass of `job` for `model` into `encoder`, its pass
    /// timed by `timestamps` if given.
    pub fn encode(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        model: &GpuModel,
        tables: &PaletteTables,
        job: &PaletteJob,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) {
        let params = PaletteParams {
            set_count: job.count,
            first_set: job.first,
            pad: [0; 2],
        };
        let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng palette params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let group = bind_group(
            device,
            "throng palette pre-pass",
            &self.layout,
            &[
                (0, params.as_entire_binding()),
                (1, job.sets.as_entire_binding()),
                (2, tables.skeleton.as_entire_binding()),
                (3, tables.masks.as_entire_binding()),
                (4, job.palettes.as_entire_binding()),
            ],
        );
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("throng palette pre-pass"),
            timestamp_writes: timestamps,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.set_bind_group(1, &model.bind_group, &[]);
        pass.dispatch_workgroups(job.count.div_ceil(WORKGROUP), 1, 1);
    }

    /// Evaluates `sets` and reads the palettes and weights back, one
    /// [`LayeredPose`] a set.
    pub fn evaluate(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        model: &GpuModel,
        tables: &PaletteTables,
        sets: &[GpuLayerSet],
    ) -> Result<Vec<LayeredPose>, RenderError> {
        self.evaluate_then(device, queue, model, tables, sets, |_, _| {})
    }

    /// [`Self::evaluate`], with `after` recording more work on the
    /// palettes (the foot IK pass) before they are read back.
    pub fn evaluate_then(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        model: &GpuModel,
        tables: &PaletteTables,
        sets: &[GpuLayerSet],
        after: impl FnOnce(&mut wgpu::CommandEncoder, &wgpu::Buffer),
    ) -> Result<Vec<LayeredPose>, RenderError> {
        if sets.is_empty() {
            return Ok(Vec::new());
        }
        let bones = tables.bone_count as u64;
        let slots = tables.slot_count as usize;
        let entries = bones + u64::from(tables.slot_count.div_ceil(PALETTE_WEIGHTS_PER_MATRIX));
        let matrices = sets
            .iter()
            .map(|s| s.palette as u64 + entries)
            .max()
            .unwrap_or(0);
        let size = matrices * PALETTE_MATRIX_BYTES;
        let max = device.limits().max_storage_buffer_binding_size;
        if size > max {
            return Err(RenderError::TooBig {
                model: model.name().to_owned(),
                what: "palette bytes".into(),
                needed: size,
                limit: max,
            });
        }
        let set_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng layer sets"),
            contents: bytemuck::cast_slice(sets),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let palettes = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("throng palettes"),
            size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("throng palette readback"),
            size,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("throng palette pre-pass"),
        });
        let job = PaletteJob {
            sets: &set_buffer,
            first: 0,
            count: sets.len() as u32,
            palettes: &palettes,
        };
        self.encode(device, &mut encoder, model, tables, &job, None);
        after(&mut encoder, &palettes);
        encoder.copy_buffer_to_buffer(&palettes, 0, &readback, 0, size);
        queue.submit([encoder.finish()]);
        let bytes = map_read(device, &readback)?;
        let rows: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&bytes);
        let floats: &[f32] = bytemuck::cast_slice(&rows);
        Ok(sets
            .iter()
            .map(|s| {
                let first = s.palette as usize;
                let palette = (0..bones as usize)
                    .map(|b| {
                        let m = (first + b) * 3;
                        [
                            Vec4::from(rows[m]),
                            Vec4::from(rows[m + 1]),
                            Vec4::from(rows[m + 2]),
                        ]
                    })
                    .collect();
                let at = (first + bones as usize) * PALETTE_WEIGHTS_PER_MATRIX as usize;
                LayeredPose {
                    palette,
                    weights: floats[at..at + slots].to_vec(),
                }
            })
            .collect())
    }
}
