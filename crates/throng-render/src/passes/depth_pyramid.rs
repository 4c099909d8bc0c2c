//! Occlusion culling's depth pyramid (docs/design/occlusion.md): after the
//! early phase has drawn what was visible last frame, its depth buffer is
//! reduced by compute into an R32Float mip chain whose every texel holds the
//! farthest depth it covers (`shaders/pyramid_reduce.wgsl`), in the standard
//! order whatever the depth convention; the cull's late phase tests each
//! instance's bounds against it (`shaders/cull.wgsl`, `occluded`).
//!
//! Level 0 is the largest power of two at most the depth buffer's size in
//! each axis (its texels cover 1 to 2 pixels per axis, reduced over every
//! pixel they touch, so the pyramid stays conservative for any size); each
//! further level halves it, down to one texel. [`PyramidPass`] holds the
//! pipelines (for single-sampled or multisampled depth); [`DepthPyramid`] is
//! one target size's chain.

use throng_core::gpu::PyramidParams;

use crate::base::error::RenderError;
use crate::base::options::DepthConvention;
use crate::base::shader::program::Program;
use crate::device::buffers::make;
use crate::program::bind_groups::entries::create;
use crate::program::bind_groups::{PyramidStage, pyramid_entries};

/// Format of the pyramid's levels.
pub const PYRAMID_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R32Float;

/// Invocations per axis of a reduction workgroup (`@workgroup_size(8, 8)`).
const TILE: u32 = 8;

/// The pyramid's pipelines.
pub struct PyramidPass {
    reduce: (wgpu::BindGroupLayout, wgpu::ComputePipeline),
    downsample: (wgpu::BindGroupLayout, wgpu::ComputePipeline),
    params: wgpu::Buffer,
}

/// True if the device can build and read a depth pyramid: storage textures
/// in compute (the GPU-driven path's other needs are checked apart).
pub fn supports_pyramid(device: &wgpu::Device) -> bool {
    device.limits().max_storage_textures_per_shader_stage >= 1
}

impl PyramidPass {
    /// Compiles the reduction for a depth buffer of `samples` per pixel and
    /// the depth `convention`.
    pub fn new(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        samples: u32,
        convention: DepthConvention,
    ) -> Self {
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
            let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(stage.entry()),
                layout: Some(&layout),
                module: &module,
                entry_point: Some(stage.entry()),
                compilation_options: Default::default(),
                cache: None,
            });
            (group, pipeline)
        };
        let params = make(
            device,
            "throng depth pyramid params",
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            std::mem::size_of::<PyramidParams>() as u64,
        );
        let reversed = PyramidParams {
            reversed: (convention == DepthConvention::Reversed) as u32,
            pad: [0; 3],
        };
        queue.write_buffer(&params, 0, bytemuck::bytes_of(&reversed));
        Self {
            reduce: pipeline(PyramidStage::Reduce),
            downsample: pipeline(PyramidStage::Downsample),
            params,
        }
    }
}

/// A 1 × 1 pyramid of one level, bound where a cull phase reads none.
pub fn stand_in(device: &wgpu::Device) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("throng depth pyramid stand-in"),
            size: wgpu::Extent3d {
                width: 1,
                height: 1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: PYRAMID_FORMAT,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        })
        .create_view(&Default::default())
}

/// The largest power of two at most `n` (`n` ≥ 1).
fn floor_pow2(n: u32) -> u32 {
    1 << (31 - n.max(1).leading_zeros())
}

/// Level 0's size and the number of levels of the pyramid of a depth
/// buffer of `size`.
pub fn pyramid_shape(size: (u32, u32)) -> ((u32, u32), u32) {
    let level0 = (floor_pow2(size.0), floor_pow2(size.1));
    let levels = 32 - level0.0.max(level0.1).leading_zeros();
    (level0, levels)
}

/// One depth buffer size's pyramid.
pub struct DepthPyramid {
    /// The depth buffer size it was made for.
    depth_size: (u32, u32),
    level0: (u32, u32),
    levels: u32,
    /// Every level, as the cull reads it.
    view: wgpu::TextureView,
    /// Per level: its view as written (and, for the next level, read).
    level_views: Vec<wgpu::TextureView>,
    /// Per level from 1: its downsample bind group.
    downsample_groups: Vec<wgpu::BindGroup>,
}

impl DepthPyramid {
    /// Keeps `pyramid` when it was made for a depth buffer of `size`, else
    /// makes a new one.
    pub fn ensure(
        pyramid: &mut Option<DepthPyramid>,
        device: &wgpu::Device,
        pass: &PyramidPass,
        size: (u32, u32),
    ) -> Result<(), RenderError> {
        if pyramid.as_ref().is_some_and(|p| p.depth_size == size) {
            return Ok(());
        }
        *pyramid = None;
        let (level0, levels) = pyramid_shape(size);
        let texture = crate::device::context::catch_device_errors(
            device,
            "creating the depth pyramid",
            || {
                device.create_texture(&wgpu::TextureDescriptor {
                    label: Some("throng depth pyramid"),
                    size: wgpu::Extent3d {
                        width: level0.0,
                        height: level0.1,
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: levels,
                    sample_count: 1,
                    dimension: wgpu::TextureDimension::D2,
                    format: PYRAMID_FORMAT,
                    usage: wgpu::TextureUsages::TEXTURE_BINDING
                        | wgpu::TextureUsages::STORAGE_BINDING,
                    view_formats: &[],
                })
            },
        )?;
        let level_views: Vec<wgpu::TextureView> = (0..levels)
            .map(|k| {
                texture.create_view(&wgpu::TextureViewDescriptor {
                    label: Some("throng depth pyramid level"),
                    base_mip_level: k,
                    mip_level_count: Some(1),
                    ..Default::default()
                })
            })
            .collect();
        let downsample_groups = (1..levels as usize)
            .map(|k| {
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("throng depth pyramid downsample"),
                    layout: &pass.downsample.0,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: wgpu::BindingResource::TextureView(&level_views[k - 1]),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: wgpu::BindingResource::TextureView(&level_views[k]),
                        },
                    ],
                })
            })
            .collect();
        *pyramid = Some(DepthPyramid {
            depth_size: size,
            level0,
            levels,
            view: texture.create_view(&Default::default()),
            level_views,
            downsample_groups,
        });
        Ok(())
    }

    /// Every level, as the cull's late phase binds it.
    pub fn view(&self) -> &wgpu::TextureView {
        &self.view
    }

    /// Level 0's width and height, and the number of levels (the cull's
    /// `CullView::pyramid`).
    pub fn shape(&self) -> [u32; 4] {
        [self.level0.0, self.level0.1, self.levels, 0]
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
        let reduce = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng depth pyramid reduce"),
            layout: &pass.reduce.0,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(depth),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::TextureView(&self.level_views[0]),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: pass.params.as_entire_binding(),
                },
            ],
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
            let level = k as u32 + 1;
            let size = (
                (self.level0.0 >> level).max(1),
                (self.level0.1 >> level).max(1),
            );
            cpass.set_bind_group(0, group, &[]);
            let (x, y) = groups(size);
            cpass.dispatch_workgroups(x, y, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_zero_is_the_power_of_two_below_and_levels_reach_one_texel() {
        assert_eq!(pyramid_shape((640, 360)), ((512, 256), 10));
        assert_eq!(pyramid_shape((1920, 1080)), ((1024, 1024), 11));
        assert_eq!(pyramid_shape((1, 1)), ((1, 1), 1));
        assert_eq!(pyramid_shape((256, 256)), ((256, 256), 9));
        assert_eq!(pyramid_shape((257, 3)), ((256, 2), 9));
    }
}
