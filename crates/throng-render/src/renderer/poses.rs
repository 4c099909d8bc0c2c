//! The pose cache's part of planning a frame's draws: each planned mesh
//! draw on a storage path binds its (model, LOD)'s group 1 from the
//! [`PoseCache`] and reads the cache where that LOD is cached (a fallback is
//! counted), and every draw of a CPU-built list reads its records as
//! instance-rate vertex attributes; the cache shared by the renderers of
//! several views.

use super::Renderer;
use crate::base::error::RenderError;
use crate::base::options::{FrameStats, RecordPath};
use crate::draw::items::DrawItem;
use crate::model::gpu_model::GpuModel;
use std::sync::MutexGuard;

use crate::base::sync::lock;

use crate::pose_cache::PoseCache;

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
        let Some(buffer) = &self.records.buffer else {
            return;
        };
        let shadow_items = self
            .shadows
            .map
            .iter_mut()
            .flat_map(|sh| sh.items.iter_mut());
        for item in self.items.iter_mut().chain(shadow_items) {
            if item.indirect.is_none() {
                item.records = Some(buffer.clone());
            }
        }
    }

    /// The pose cache (for tests and tools: [`PoseCache::read`]), shared
    /// with the renderers [`Self::share_pose_cache_with`] joined.
    pub fn pose_cache(&self) -> MutexGuard<'_, PoseCache> {
        lock(&self.poses)
    }

    /// Identifies its pose cache: renderers that share one
    /// ([`Self::share_pose_cache_with`]) have the same key (for counting
    /// the bytes of shared caches once).
    pub fn pose_cache_key(&self) -> usize {
        std::sync::Arc::as_ptr(&self.poses) as usize
    }

    /// The pose cache, locked.
    pub(super) fn poses(&self) -> MutexGuard<'_, PoseCache> {
        lock(&self.poses)
    }

    /// Uses `other`'s pose cache from now on, so two views' renderers on
    /// one device fill and hold each model's poses once (the cache is the
    /// models' baked frames skinned: megabytes a model). Only between
    /// renderers of the same device, record path and pose-cache options;
    /// returns false (and changes nothing) otherwise.
    pub fn share_pose_cache_with(&mut self, other: &Renderer) -> bool {
        if std::sync::Arc::ptr_eq(&self.poses, &other.poses) {
            return true;
        }
        let same = self.device == other.device
            && self.path == other.path
            && self.poses().setup() == other.poses().setup();
        if same {
            self.poses = other.poses.clone();
        }
        same
    }
}
