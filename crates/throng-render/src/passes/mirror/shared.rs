//! [`SharedMirrors`]: crowds' GPU mirrors shared by the renderers of
//! several views on one device (split screen, a minimap, every camera of
//! a Bevy app), so a crowd is uploaded once a frame and held on the GPU
//! once, whichever view prepares first; each view still culls it into
//! records of its own.
//!
//! A mirror is keyed by its crowd's identity (`Crowd::identity`). The
//! first renderer to prepare a frame syncs the mirror from the crowd's
//! change log; the others find nothing left to upload (the crowd does not
//! change between the views' prepares of a frame) and cull the same
//! buffers. The views must prepare on one queue, one after another, as
//! they do on one thread.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use super::crowd_mirror::CrowdMirror;
use crate::base::sync::lock;

/// Mirrors shared by renderers ([`crate::Renderer::share_mirrors`]);
/// cloning shares them too.
#[derive(Clone, Default)]
pub struct SharedMirrors(Arc<Mutex<HashMap<u64, Arc<Mutex<CrowdMirror>>>>>);

impl SharedMirrors {
    /// No mirrors yet: each is made when a renderer first meets its crowd.
    pub fn new() -> Self {
        Self::default()
    }

    fn map(&self) -> MutexGuard<'_, HashMap<u64, Arc<Mutex<CrowdMirror>>>> {
        // A renderer that panicked mid-sync leaves a mirror whose next
        // sync uploads what the log says: the map itself stays usable.
        lock(&self.0)
    }

    /// The mirror of the crowd with identity `crowd`, made if new.
    // On wasm32 wgpu's objects are neither Send nor Sync: there the mirrors
    // are shared on the page's one thread; natively the Arc is Send + Sync.
    #[allow(clippy::arc_with_non_send_sync)]
    pub(crate) fn mirror(&self, device: &wgpu::Device, crowd: u64) -> Arc<Mutex<CrowdMirror>> {
        self.map()
            .entry(crowd)
            .or_insert_with(|| Arc::new(Mutex::new(CrowdMirror::new(device))))
            .clone()
    }

    /// The mirror of the crowd with identity `crowd`, if one was made.
    pub(crate) fn get(&self, crowd: u64) -> Option<Arc<Mutex<CrowdMirror>>> {
        self.map().get(&crowd).cloned()
    }

    /// Drops the mirrors of crowds other than `crowds` (identities): what
    /// a caller does once a frame, or when crowds go away.
    pub fn retain(&self, crowds: &[u64]) {
        self.map().retain(|k, _| crowds.contains(k));
    }

    /// Crowds mirrored.
    pub fn len(&self) -> usize {
        self.map().len()
    }

    /// No crowd is mirrored.
    pub fn is_empty(&self) -> bool {
        self.map().is_empty()
    }

    /// Bytes the mirrors hold on the GPU.
    pub fn gpu_bytes(&self) -> u64 {
        self.map()
            .values()
            .map(|m| m.lock().map_or(0, |m| m.gpu_bytes()))
            .sum()
    }
}
