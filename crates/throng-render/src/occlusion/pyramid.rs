//! Occlusion culling's depth pyramid (docs/design/occlusion.md): after the
//! early phase has drawn what was visible last frame, its depth buffer is
//! reduced by compute into an R32Float mip chain whose every texel holds the
//! farthest depth it covers (`pyramid_reduce.wgsl` beside this file), in the standard
//! order whatever the depth convention; the cull's late phase tests each
//! instance's bounds against it (`passes/cull/cull.wgsl`, `occluded`).
//!
//! Level 0 is the largest power of two at most the depth buffer's size in
//! each axis (its texels cover 1 to 2 pixels per axis, reduced over every
//! pixel they touch, so the pyramid stays conservative for any size); each
//! further level halves it, down to one texel. [`PyramidPass`] holds the
//! pipelines (for single-sampled or multisampled depth); [`DepthPyramid`] is
//! one target size's chain, its levels alternating between two atlases
//! (`passes/pyramid_layout.rs`).

use throng_core::gpu::PyramidParams;

use crate::base::error::RenderError;
use crate::base::options::DepthConvention;
use crate::base::shader::program::Program;
use crate::device::buffers::make;
use crate::passes::entry_pipeline::entry_pipeline;
use crate::passes::pyramid_layout::{
    PyramidRead, atlas_descriptor, atlas_size, level_size, pyramid_shape,
};
use crate::program::bind_groups::entries::create;
use crate::program::bind_groups::{PyramidStage, pyramid_entries};

/// Invocations per axis of a reduction workgroup (`@workgroup_size(8, 8)`).
const TILE: u32 = 8;

/// The pyramid's pipelines.
pub struct PyramidPass {
    reduce: (wgpu::BindGroupLayout, wgpu::ComputePipeline),
    downsample: (wgpu::BindGroupLayout, wgpu::ComputePipeline),
    /// The depth it reduces is reversed.
    reversed: bool,
}

/// True if the device can build and read a depth pyramid: storage textures
/// in compute (the GPU-driven path's other needs are checked apart).
pub fn supports_pyramid(device: &wgpu::Device) -> bool {
    device.limits().max_storage_textures_per_shader_stage >= 1
}

impl PyramidPass {
    /// Compiles the reduction for a depth buffer of `samples` per pixel and
    /// the depth `convention`.
    pub fn new(device: &wgpu::Device, samples: u32, convention: DepthConvention) -> Self {
        let multisampled = samples > 1;
        let program = if multisampled {
            Program::DepthPyramidMultisampled
        } else {
            Program::DepthPyramid
        };
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(program.label()),
            source: wgpu::ShaderSource::Wgsl(program.source().into()),
        });
        let pipeline = |stage: PyramidStage| {
            let group = create(
                device,
                stage.entry(),
                &pyramid_entries(Some(stage), multisampled),
            );
            let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(stage.entry()),
                bind_group_layouts: &[Some(&group)],
                immediate_size: 0,
            });
            let pipeline = entry_pipeline(device, &module, &layout, stage.entry());
            (group, pipeline)
        };
        Self {
            reduce: pipeline(PyramidStage::Reduce),
            downsample: pipeline(PyramidStage::Downsample),
            reversed: convention == DepthConvention::Reversed,
        }
    }
}

/// One depth buffer size's pyramid: its even levels in one atlas, its odd
/// ones in another (`passes/pyramid_layout.wgsl` says why), each a texture
/// of one mip level.
pub struct DepthPyramid {
    /// The depth buffer size it was made for.
    depth_size: (u32, u32),
    level0: (u32, u32),
    levels: u32,
    /// The atlases: even levels, odd levels.
    views: [wgpu::TextureView; 2],
    /// Per level from 1: its downsample bind group.
    downsample_groups: Vec<wgpu::BindGroup>,
    /// The reduction's bind group's parameters (the depth convention).
    reduce_params: wgpu::Buffer,
}

impl DepthPyramid {
    /// Keeps `pyramid` when it was made for a depth buffer of `size`, else
    /// makes a new one.
    pub fn ensure(
        pyramid: &mut Option<DepthPyramid>,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        pass: &PyramidPass,
        size: (u32, u32),
    ) -> Result<(), RenderError> {
        if pyramid.as_ref().is_some_and(|p| p.depth_size == size) {
            return Ok(());
        }
        *pyramid = None;
        let (level0, levels) = pyramid_shape(size);
        let atlas = atlas_size(level0, levels);
        let textures = crate::device::context::catch_device_errors(
            device,
            "creating the depth pyramid",
            || {
                [
                    "throng depth pyramid (even levels)",
                    "throng depth pyramid (odd levels)",
                ]
                .map(|label| {
                    device.create_texture(&atlas_descriptor(
                        label,
                        atlas,
                        wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::STORAGE_BINDING,
                    ))
                })
            },
        )?;
        let views = [0, 1].map(|t: usize| textures[t].create_view(&Default::default()));
        let params = |source_level: u32| {
            let buffer = make(
                device,
                "throng depth pyramid params",
                wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                std::mem::size_of::<PyramidParams>() as u64,
            );
            let p = PyramidParams {
                reversed: pass.reversed as u32,
                source_level,
                size0: [level0.0, level0.1],
            };
            queue.write_buffer(&buffer, 0, bytemuck::bytes_of(&p));
            buffer
        };
        let downsample_groups = (1..levels)
            .map(|k| {
                let params = params(k - 1);
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("throng depth pyramid downsample"),
                    layout: &pass.downsample.0,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: wgpu::BindingResource::TextureView(
                                &views[((k - 1) % 2) as usize],
                            ),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: wgpu::BindingResource::TextureView(&views[(k % 2) as usize]),
                        },
                        wgpu::BindGroupEntry {
                            binding: 3,
                            resource: params.as_entire_binding(),
                        },
                    ],
                })
            })
            .collect();
        *pyramid = Some(DepthPyramid {
            depth_size: size,
            level0,
            levels,
            views,
            downsample_groups,
            reduce_params: params(0),
        });
        Ok(())
    }

    /// The texture of the even levels and that of the odd ones, each its
    /// whole chain, as the cull's late phase binds them.
    pub fn views(&self) -> [&wgpu::TextureView; 2] {
        [&self.views[0], &self.views[1]]
    }

    /// Level 0's width and height, and the number of levels (the cull's
    /// `CullView::pyramid`).
    pub fn shape(&self) -> [u32; 4] {
        [self.level0.0, self.level0.1, self.levels, 0]
    }

    /// The pyramid as the cull's late phase reads it.
    pub fn read(&self) -> PyramidRead<'_> {
        PyramidRead {
            views: self.views(),
            shape: self.shape(),
        }
    }

    /// Records the reduction of `depth` (the depth buffer of the size the
    /// pyramid was made for, of the pass's sample count) into every level.
    pub fn encode(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        pass: &PyramidPass,
        depth: &wgpu::TextureView,
        timestamps: Option<wgpu::ComputePassTimestampWrites<'_>>,
    ) {
        let entries = [
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(depth),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::TextureView(&self.views[0]),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: self.reduce_params.as_entire_binding(),
            },
        ];
        let reduce = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng depth pyramid reduce"),
            layout: &pass.reduce.0,
            entries: &entries,
        });
        let mut cpass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("throng depth pyramid"),
            timestamp_writes: timestamps,
        });
        let groups = |(w, h): (u32, u32)| (w.div_ceil(TILE), h.div_ceil(TILE));
        cpass.set_pipeline(&pass.reduce.1);
        cpass.set_bind_group(0, &reduce, &[]);
        let (x, y) = groups(self.level0);
        cpass.dispatch_workgroups(x, y, 1);
        cpass.set_pipeline(&pass.downsample.1);
        for (k, group) in self.downsample_groups.iter().enumerate() {
            let size = level_size(self.level0, k as u32 + 1);
            cpass.set_bind_group(0, group, &[]);
            let (x, y) = groups(size);
            cpass.dispatch_workgroups(x, y, 1);
        }
    }
}
