//! GPU buffers the passes share: growable storage buffers (`Grown`),
//! the storage-binding limit they grow within, readback buffers, and the
//! dispatch size of the per-instance compute stages (`WORKGROUP`
//! invocations a workgroup, the prelude's `WORKGROUP`).

use crate::base::error::RenderError;

pub(crate) use crate::base::shader::prelude::WORKGROUP;

/// A 2D dispatch of `blocks` workgroups (past 65,535 in one dimension).
pub(crate) fn dispatch_size(blocks: u32) -> (u32, u32) {
    let x = blocks.clamp(1, 65_535);
    (x, blocks.div_ceil(x).max(1))
}

/// A growable GPU buffer.
pub(crate) struct Grown {
    pub(crate) buffer: wgpu::Buffer,
    label: &'static str,
    usage: wgpu::BufferUsages,
}

impl Grown {
    pub(crate) fn new(
        device: &wgpu::Device,
        label: &'static str,
        usage: wgpu::BufferUsages,
    ) -> Self {
        Self {
            buffer: make(device, label, usage, 256),
            label,
            usage,
        }
    }

    /// Makes room for `bytes`; true if the buffer was replaced (contents lost).
    pub(crate) fn reserve(
        &mut self,
        device: &wgpu::Device,
        bytes: u64,
    ) -> Result<bool, RenderError> {
        Ok(self.reserve_keeping(device, bytes)?.is_some())
    }

    /// Makes room for `bytes`; the old buffer if it was replaced, for a
    /// caller that carries its contents over.
    pub(crate) fn reserve_keeping(
        &mut self,
        device: &wgpu::Device,
        bytes: u64,
    ) -> Result<Option<wgpu::Buffer>, RenderError> {
        if bytes <= self.buffer.size() {
            return Ok(None);
        }
        let limit = storage_binding_limit(device);
        if bytes > limit {
            return Err(RenderError::TooBig {
                model: "the crowd".into(),
                what: self.label.into(),
                needed: bytes,
                limit,
            });
        }
        let size = bytes.next_power_of_two().clamp(256, limit.max(256));
        Ok(Some(std::mem::replace(
            &mut self.buffer,
            make(device, self.label, self.usage, size),
        )))
    }
}

/// True if the device has storage buffers at all (not so on WebGL2, which
/// draws the packaged path only).
pub(crate) fn has_storage_buffers(device: &wgpu::Device) -> bool {
    let limits = device.limits();
    limits.max_storage_buffers_per_shader_stage > 0 && limits.max_storage_buffer_binding_size > 0
}

/// The largest buffer this device binds as storage.
pub(crate) fn storage_binding_limit(device: &wgpu::Device) -> u64 {
    let limits = device.limits();
    limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size)
}

/// A buffer of at least `size` bytes (rounded up to 16), unmapped.
pub(crate) fn make(
    device: &wgpu::Device,
    label: &str,
    usage: wgpu::BufferUsages,
    size: u64,
) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: size.div_ceil(16) * 16,
        usage,
        mapped_at_creation: false,
    })
}

/// A buffer GPU-driven results (what a cull drew, the fitted light) are
/// copied into and mapped from.
pub(crate) fn readback_buffer(device: &wgpu::Device, size: u64) -> wgpu::Buffer {
    make(
        device,
        "throng GPU-driven readback",
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        size,
    )
}

pub(crate) const STORAGE: wgpu::BufferUsages =
    wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_DST);
