//! Device loss: a driver reset, a removed GPU, `Device::destroy`. wgpu
//! reports it only through the device's lost callback, run in the next
//! poll — the calls made on a lost device afterwards do nothing and raise
//! no error — so [`DeviceLoss`] records it there, and a
//! [`Renderer`](crate::Renderer) that holds one polls (without blocking)
//! at the start of each frame and answers every frame after the loss with
//! [`RenderError::DeviceLost`], instead of drawing nothing or panicking on
//! a readback. Readbacks (`offscreen::map_read`) also fail as errors, never
//! panics or waits forever.
//!
//! **Recovery.** Everything on the GPU is gone; everything a crowd is lives
//! on the CPU (the [`throng_crowd::crowd::Crowd`] stays the authority: the
//! GPU-driven path's mirror is a copy). Make a new device ([`Gpu::headless`]
//! or the application's own), upload the models again
//! ([`GpuModel::upload`](crate::GpuModel::upload) from the same
//! `ModelHandle`s), make a new `Renderer`, and draw the same crowds: the new
//! renderer's mirror is filled from the crowd on its first frame. The
//! crowds lose nothing but what the GPU alone knew: instances steered by a
//! simulation hook are where the CPU last placed them.
//!
//! [`Gpu::headless`]: crate::Gpu::headless

use std::sync::{Arc, Mutex};

use crate::base::error::RenderError;
use crate::base::sync::lock;

/// Whether, and why, a device was lost; clones share the record.
#[derive(Clone, Debug, Default)]
pub struct DeviceLoss(Arc<Mutex<Option<String>>>);

impl DeviceLoss {
    /// A record of no loss yet, for an application that keeps its own lost
    /// callback and forwards to [`Self::record`] from it.
    pub fn new() -> Self {
        Self::default()
    }

    /// Watches `device`: sets its lost callback (replacing any earlier one:
    /// wgpu keeps one per device) to record the loss here.
    pub fn watch(device: &wgpu::Device) -> Self {
        let loss = Self::new();
        let record = loss.clone();
        device.set_device_lost_callback(move |reason, message| record.record(reason, &message));
        loss
    }

    /// Records a loss (the first one is kept).
    pub fn record(&self, reason: wgpu::DeviceLostReason, message: &str) {
        let mut lost = lock(&self.0);
        if lost.is_none() {
            let reason = match reason {
                wgpu::DeviceLostReason::Destroyed => "destroyed",
                _ => "lost",
            };
            *lost = Some(if message.trim().is_empty() {
                reason.to_owned()
            } else {
                format!("{reason}: {}", message.trim())
            });
        }
    }

    /// Why the device was lost, if it was.
    pub fn lost(&self) -> Option<String> {
        lock(&self.0).clone()
    }

    /// [`RenderError::DeviceLost`] if the device was lost.
    pub fn check(&self) -> Result<(), RenderError> {
        match self.lost() {
            Some(why) => Err(RenderError::DeviceLost(why)),
            None => Ok(()),
        }
    }
}
