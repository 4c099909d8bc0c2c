//! The frame's instance records on the GPU: how many the device can hold
//! on the renderer's record path, and one upload of every record of the
//! frame, both passes, in package slots or contiguously.

use throng_core::gpu::InstanceRecord;
use throng_core::limits::PACKAGE_WIDTH;

use crate::base::error::RenderError;
use crate::base::options::RecordPath;
use crate::program::bind_groups::PACKAGE_BYTES;

use super::Renderer;

/// The CPU paths' records of a frame on the GPU: every record of the
/// frame, both passes, laid out in `staging` and uploaded in one write to
/// `buffer`, bound through `bind_group` (packages at `package_stride`
/// apart on the packaged path).
pub(super) struct Records {
    /// Group 2's layout (records, and the renderer's own shadow map).
    pub(super) layout: wgpu::BindGroupLayout,
    pub(super) buffer: Option<wgpu::Buffer>,
    pub(super) bind_group: Option<wgpu::BindGroup>,
    /// Bytes from one package's records to the next (a package's bytes
    /// rounded up to the device's uniform offset alignment).
    pub(super) package_stride: u64,
    /// The frame's records, laid out before their upload.
    pub(super) staging: Vec<u8>,
    /// The `layers.generation` the records bind groups were made with.
    pub(super) generation: u64,
}

impl Records {
    /// No records yet, bound through `layout`, packages aligned to `align`.
    pub(super) fn new(layout: wgpu::BindGroupLayout, align: u64) -> Self {
        Self {
            layout,
            buffer: None,
            bind_group: None,
            package_stride: (PACKAGE_BYTES as u64).next_multiple_of(align.max(1)),
            staging: Vec::new(),
            generation: 0,
        }
    }
}

impl Renderer {
    /// The most bytes of records one frame may upload on this device.
    pub(super) fn max_record_bytes(&self) -> u64 {
        match self.path {
            RecordPath::Packaged => self.device.limits().max_buffer_size,
            RecordPath::Unbounded | RecordPath::GpuDriven => {
                crate::device::buffers::storage_binding_limit(&self.device)
            }
        }
    }

    /// An error unless a frame in which `instances` instances are visible
    /// (and cast shadows, when shadows are on) fits this device's record
    /// buffer; cheap, so callers can refuse an absurd crowd before spawning
    /// it. The host-memory side is [`Crowd::try_reserve`](throng_crowd::crowd::Crowd::try_reserve).
    pub fn check_capacity(&self, instances: u64) -> Result<(), RenderError> {
        let passes = 1 + self.shadows.map.is_some() as u64;
        let per_pass = match self.path {
            RecordPath::Packaged => instances
                .div_ceil(PACKAGE_WIDTH as u64)
                .saturating_mul(self.records.package_stride),
            RecordPath::Unbounded => {
                instances.saturating_mul(std::mem::size_of::<InstanceRecord>() as u64)
            }
            // Per crowd and view, separate buffers, so passes do not add: the
            // largest binding is a view's records, or the mirror's states.
            RecordPath::GpuDriven => {
                use throng_core::gpu::{GpuInstance, GpuTransform};
                let per = [
                    std::mem::size_of::<InstanceRecord>(),
                    std::mem::size_of::<GpuInstance>(),
                    std::mem::size_of::<GpuTransform>(),
                ]
                .into_iter()
                .max()
                .unwrap_or(0) as u64;
                return self.check_bytes(instances, instances.saturating_mul(per));
            }
        };
        self.check_bytes(instances, per_pass.saturating_mul(passes))
    }

    pub(super) fn check_bytes(&self, instances: u64, needed: u64) -> Result<(), RenderError> {
        let limit = self.max_record_bytes();
        if needed > limit {
            return Err(RenderError::TooBig {
                model: "(all crowds)".into(),
                what: format!(
                    "instance records of one frame with {instances} visible instances, bytes"
                ),
                needed,
                limit,
            });
        }
        Ok(())
    }

    /// The colour pipelines' group 3 over `records` (a storage buffer of
    /// records), with the shadow bindings when shadows are on.
    pub(super) fn records_group(&self, records: &wgpu::Buffer) -> wgpu::BindGroup {
        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: 0,
                resource: records.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 5,
                resource: self.layers.palettes().as_entire_binding(),
            },
        ];
        if let Some(sh) = &self.shadows.map {
            entries.extend(sh.receive_entries());
        }
        self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng records bind group (GPU-driven)"),
            layout: &self.records.layout,
            entries: &entries,
        })
    }

    pub(super) fn upload_records(&mut self) -> Result<(), RenderError> {
        if self.records.staging.is_empty() {
            return Ok(());
        }
        let needed = self.records.staging.len() as u64;
        let max = self.max_record_bytes();
        if needed > max {
            return Err(RenderError::TooBig {
                model: "(all crowds)".into(),
                what: "instance records of one frame, bytes".into(),
                needed,
                limit: max,
            });
        }
        let grow = self
            .records
            .buffer
            .as_ref()
            .is_none_or(|b| b.size() < needed);
        if grow || self.records.generation != self.layers.generation {
            let size = match &self.records.buffer {
                Some(b) if !grow => b.size(),
                _ => needed.next_power_of_two().min(max).max(needed),
            };
            let usage = match self.path {
                RecordPath::Packaged => wgpu::BufferUsages::UNIFORM,
                // Also read as instance-rate vertex attributes.
                RecordPath::Unbounded | RecordPath::GpuDriven => {
                    wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::VERTEX
                }
            } | wgpu::BufferUsages::COPY_DST;
            let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("throng instance records"),
                size,
                usage,
                mapped_at_creation: false,
            });
            let resource = match self.path {
                RecordPath::Packaged => wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &buffer,
                    offset: 0,
                    size: wgpu::BufferSize::new(PACKAGE_BYTES as u64),
                }),
                RecordPath::Unbounded | RecordPath::GpuDriven => buffer.as_entire_binding(),
            };
            let mut entries = vec![wgpu::BindGroupEntry {
                binding: 0,
                resource: resource.clone(),
            }];
            let palettes = (self.path != RecordPath::Packaged).then(|| wgpu::BindGroupEntry {
                binding: 5,
                resource: self.layers.palettes().as_entire_binding(),
            });
            entries.extend(palettes.clone());
            if let Some(sh) = &mut self.shadows.map {
                entries.push(wgpu::BindGroupEntry {
                    binding: 2,
                    resource: sh.uniform.as_entire_binding(),
                });
                entries.push(wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::TextureView(&sh.view),
                });
                entries.push(wgpu::BindGroupEntry {
                    binding: 4,
                    resource: wgpu::BindingResource::Sampler(&sh.sampler),
                });
                let mut cast_entries = vec![
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource,
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: sh.uniform.as_entire_binding(),
                    },
                ];
                cast_entries.extend(palettes);
                sh.cast_group = Some(self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("throng shadow records bind group"),
                    layout: &sh.cast_layout,
                    entries: &cast_entries,
                }));
            }
            self.records.bind_group =
                Some(self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("throng records bind group"),
                    layout: &self.records.layout,
                    entries: &entries,
                }));
            self.records.buffer = Some(buffer);
            self.records.generation = self.layers.generation;
        }
        let buffer = self.records.buffer.as_ref().expect("allocated above");
        self.queue.write_buffer(buffer, 0, &self.records.staging);
        Ok(())
    }
}
