//! The crowd's ground in its mirror ([`MirroredGround`]): its words
//! (`throng_core::ground`, read by `passes/ground.wgsl` in the motion and
//! simulation passes), uploaded when the mirror follows another crowd or
//! the crowd's ground was set; the header of none until then.

use throng_crowd::crowd::Crowd;

use crate::base::error::RenderError;
use crate::device::buffers::{Grown, STORAGE};
use crate::passes::mirror::changes::{SyncStats, write_tables};

/// A mirror's copy of its crowd's ground.
pub(super) struct MirroredGround {
    words: Grown,
    /// The crowd key and ground generation uploaded.
    uploaded: Option<(u64, u64)>,
}

impl MirroredGround {
    pub(super) fn new(device: &wgpu::Device) -> Self {
        Self {
            words: Grown::new(device, "throng ground", STORAGE),
            uploaded: None,
        }
    }

    /// Uploads `crowd`'s ground words when they are another crowd's or its
    /// ground was set since the last sync.
    pub(super) fn sync(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        crowd: &Crowd,
        stats: &mut SyncStats,
    ) -> Result<(), RenderError> {
        let uploaded = (crowd.identity(), crowd.ground_generation());
        if self.uploaded != Some(uploaded) {
            let words = crowd.ground_words();
            write_tables(
                device,
                queue,
                stats,
                [(&mut self.words, bytemuck::cast_slice(&words))],
            )?;
            self.uploaded = Some(uploaded);
        }
        Ok(())
    }

    /// The words' buffer.
    pub(super) fn buffer(&self) -> &wgpu::Buffer {
        &self.words.buffer
    }

    /// The words' buffer as grown (for the mirror's byte count).
    pub(super) fn grown(&self) -> &Grown {
        &self.words
    }
}
