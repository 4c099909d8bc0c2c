//! What the crowd drew, for the game: [`ThrongStats`] is a main-world
//! resource the render world writes each frame (Throng's
//! [`FrameStats`] per camera, and the CPU time of the extract and of the
//! render world's preparation), so a HUD or a test reads visible counts
//! without reaching into the render world.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bevy::prelude::*;
use throng_render::FrameStats;

/// The last frame's figures, shared by the main and the render world.
#[derive(Resource, Clone, Default)]
pub struct ThrongStats(Arc<Mutex<Frame>>);

/// One frame's figures.
#[derive(Clone, Debug, Default)]
pub struct Frame {
    /// Throng's figures per main-world camera that drew crowds. On the
    /// GPU-driven path the visible count is the newest frame the GPU has
    /// reported (a frame or two old), never waited for.
    pub cameras: HashMap<Entity, FrameStats>,
    /// CPU time of the crowd's part of Bevy's extract, while it holds the
    /// main world: the crowds' replicas synced by their change logs, the
    /// cameras, lights and settings copied ([`crate::extract`]).
    pub extract_time: Duration,
    /// Instances the extract copied into the crowds' replicas (a whole
    /// crowd, the first time, counts its length).
    pub extracted_instances: usize,
    /// CPU time of the render world's preparation (every camera:
    /// uploads, culls' set-up, cascades; [`crate::prepare`]), on the render
    /// thread when rendering is pipelined.
    pub prepare_time: Duration,
    /// Bytes the crowds' GPU mirrors hold (instances, transforms, tables),
    /// once however many cameras draw them (their renderers share the
    /// mirrors). Each camera's upload is its `FrameStats::record_bytes`:
    /// the first camera to prepare uploads a frame's changes, the others
    /// nothing.
    pub mirror_bytes: u64,
    /// Bytes the pose caches hold (each model's baked frames skinned),
    /// once however many cameras draw from them (their renderers share
    /// one cache).
    pub pose_cache_bytes: u64,
    /// Per steered crowd entity, the generation of the flow field the GPU
    /// steers it by ([`crate::ThrongNavigation::generation`]).
    pub steered_fields: HashMap<Entity, u64>,
    /// Per camera, what the crowd cast into Bevy's shadow cascades
    /// ([`crate::cascades`]): views (cascades of every shadowed light),
    /// draws, and casters (a frame or two old).
    pub cascades: HashMap<Entity, throng_render::LightViewStats>,
}

impl ThrongStats {
    /// A copy of the last frame's figures.
    pub fn frame(&self) -> Frame {
        self.0.lock().map(|f| f.clone()).unwrap_or_default()
    }

    /// `camera`'s figures of the last frame (`None`: it drew no crowd).
    pub fn camera(&self, camera: Entity) -> Option<FrameStats> {
        self.0.lock().ok()?.cameras.get(&camera).copied()
    }

    /// Replaces the figures (the render world, once a frame).
    pub(crate) fn set(&self, frame: Frame) {
        if let Ok(mut f) = self.0.lock() {
            *f = frame;
        }
    }
}
