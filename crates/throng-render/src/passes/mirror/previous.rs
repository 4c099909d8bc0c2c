//! The frame before: a mirror's instance transforms as they were one frame
//! ago and the crowd clock then, kept for a motion-vector prepass (the cull
//! pass's `previous` stage reads them as a [`PreviousFrame`]).
//!
//! Kept at the first sync of each new crowd clock, before that frame's
//! uploads and motion pass change the transforms: one copy of the
//! transforms in a command buffer submitted ahead of the sync's queued
//! writes. Two renderers syncing a shared mirror in one frame see the same
//! clock and keep once. Slots past the copy (instances new this frame)
//! read as zeros, which the cull takes as "now's".

use crate::base::error::RenderError;
use crate::device::buffers::{Grown, STORAGE};

/// The frame before the one culled: its crowd clock and the instances'
/// transforms then (all zeros for an instance that had none).
#[derive(Clone, Copy)]
pub struct PreviousFrame<'a> {
    /// The crowd clock one frame before.
    pub now: u64,
    /// [`throng_core::gpu::GpuTransform`]s per dense slot, one frame before.
    pub transforms: &'a wgpu::Buffer,
}

/// Transforms and clock of the frame before the latest sync.
pub(crate) struct KeptFrame {
    transforms: Grown,
    /// The clock of the frame `transforms` are from.
    clock: u64,
    /// The clock of the latest sync (the next frame's previous).
    latest: u64,
}

impl KeptFrame {
    /// Starts keeping at clock `now`: until the next clock, the previous
    /// frame is this one (no motion known yet).
    pub(crate) fn new(device: &wgpu::Device, now: u64) -> Self {
        Self {
            transforms: Grown::new(
                device,
                "throng previous transforms",
                STORAGE | wgpu::BufferUsages::COPY_DST,
            ),
            clock: now,
            latest: now,
        }
    }

    /// At a sync at clock `now`: if the clock moved on, copies `current`
    /// (the transforms before this frame's changes) and takes the clock
    /// of the sync before as the previous frame's.
    pub(crate) fn keep(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        current: &wgpu::Buffer,
        now: u64,
    ) -> Result<(), RenderError> {
        if now == self.latest {
            return Ok(());
        }
        self.transforms.reserve(device, current.size())?;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("throng previous transforms"),
        });
        encoder.copy_buffer_to_buffer(current, 0, &self.transforms.buffer, 0, current.size());
        queue.submit([encoder.finish()]);
        self.clock = self.latest;
        self.latest = now;
        Ok(())
    }

    /// The previous frame, for the cull.
    pub(crate) fn frame(&self) -> PreviousFrame<'_> {
        PreviousFrame {
            now: self.clock,
            transforms: &self.transforms.buffer,
        }
    }

    /// Bytes it holds on the GPU.
    pub(crate) fn gpu_bytes(&self) -> u64 {
        self.transforms.buffer.size()
    }
}
