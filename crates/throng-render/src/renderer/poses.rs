//! The pose cache's part of planning a frame's draws: each planned mesh
//! draw on a storage path binds its (model, LOD)'s group 1 from the
//! [`PoseCache`] and reads the cache where that LOD is cached (a fallback is
//! counted), and every draw of a CPU-built list reads its records as
//! instance-rate vertex attributes.

use super::Renderer;
use crate::base::error::RenderError;
use crate::base::options::{FrameStats, RecordPath};
use crate::draw::items::DrawItem;
use crate::model::gpu_model::GpuModel;
use crate::model::pose_cache::PoseCache;

impl Renderer {
    /// `item`, of LOD `lod` of `model`, reading the pose cache where it can
    /// ([`DrawItem::with_poses`]; the packaged path has none), with a
    /// fallback counted in `stats`. An associated function so that callers
    /// holding other parts of the renderer (the shadow's lists) can call it.
    pub(super) fn poses_of(
        path: RecordPath,
        poses: &PoseCache,
        item: DrawItem,
        model: &GpuModel,
        lod: u32,
        stats: &mut FrameStats,
    ) -> Result<DrawItem, RenderError> {
        if path == RecordPath::Packaged {
            return Ok(item);
        }
        let lod = (lod as usize).min(model.lods.len() - 1);
        let (item, fallback) = item.with_poses(poses, model, lod)?;
        stats.pose_fallback_draws += fallback as u32;
        Ok(item)
    }

    /// On the storage paths, every draw of the CPU-built lists (both
    /// passes) reads its records from the frame's records buffer as
    /// instance-rate vertex attributes; the GPU-driven path's own draws
    /// bring their lists' buffers.
    pub(super) fn bind_instance_records(&mut self) {
        if self.path == RecordPath::Packaged {
            return;
        }
        let Some(buffer) = &self.records_buffer else {
            return;
        };
        let shadow_items = self.shadow.iter_mut().flat_map(|sh| sh.items.iter_mut());
        for item in self.items.iter_mut().chain(shadow_items) {
            if item.indirect.is_none() {
                item.records = Some(buffer.clone());
            }
        }
    }

    /// The pose cache (for tests and tools: [`PoseCache::read`]).
    pub fn pose_cache(&self) -> &PoseCache {
        &self.poses
    }
}
