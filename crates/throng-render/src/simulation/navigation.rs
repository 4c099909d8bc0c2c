//! A flow field on the GPU: [`throng_crowd::navigation::FlowField`]
//! (obstacles and goals, computed on the CPU) uploaded for the simulation
//! hooks that `// #import navigation` (`navigation.wgsl`), bound in
//! their `@group(2)`: the field's `NavigationParams` (0), its cells (1) and
//! each goal layer's box (2). A new field (goals moved, obstacles changed)
//! replaces the old one between frames; the agents follow it from the next
//! step.

use throng_core::navigation::GpuNavCell;
use throng_crowd::navigation::FlowField;
use wgpu::util::DeviceExt;

use crate::base::error::RenderError;
use crate::device::buffers::STORAGE;
use crate::device::context::catch_device_errors;
use crate::program::bind_groups::navigation_entries;

/// The layout of a navigation hook's `@group(2)`.
pub(crate) fn navigation_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng navigation"),
        entries: &navigation_entries(),
    })
}

/// A field's buffers and their bind group.
pub(crate) struct NavigationBinding {
    /// The bind group of `@group(2)`.
    pub(crate) group: wgpu::BindGroup,
    /// Bytes uploaded.
    pub(crate) bytes: u64,
}

impl NavigationBinding {
    /// Uploads `field` for `layout`. A field larger than the device's
    /// storage binding limit is an error saying so.
    pub(crate) fn new(
        device: &wgpu::Device,
        layout: &wgpu::BindGroupLayout,
        field: &FlowField,
    ) -> Result<Self, RenderError> {
        let cells: &[GpuNavCell] = field.cells();
        let bytes = std::mem::size_of_val(cells) as u64;
        let limit = device.limits().max_storage_buffer_binding_size;
        if bytes > limit {
            return Err(RenderError::Simulation(format!(
                "the flow field's {} cells ({} layers of {}×{}) take {bytes} bytes, more than this device binds ({limit})",
                cells.len(),
                field.params().layers,
                field.params().width,
                field.params().height
            )));
        }
        let boxes: Vec<[f32; 4]> = field.goal_boxes();
        let group = catch_device_errors(device, "uploading the flow field", || {
            let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("throng navigation params"),
                contents: bytemuck::bytes_of(&field.params()),
                usage: wgpu::BufferUsages::UNIFORM,
            });
            let cells = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("throng flow field"),
                contents: bytemuck::cast_slice(cells),
                usage: STORAGE,
            });
            let goals = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("throng navigation goals"),
                contents: bytemuck::cast_slice(&boxes),
                usage: STORAGE,
            });
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("throng navigation"),
                layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: params.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: cells.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: goals.as_entire_binding(),
                    },
                ],
            })
        })?;
        Ok(Self { group, bytes })
    }
}
