//! What Bevy's extract copies of the main world for the crowd: only what
//! the render world draws from, and of the crowds only what changed.
//!
//! With pipelined rendering (Bevy's default with `multi_threaded`) the
//! extract is the one moment both worlds are held: the main world waits
//! for it before simulating the next frame while the render thread draws
//! this one. So the extract does no GPU work and no per-camera work:
//! - [`extract_crowds`] brings each [`ThrongCrowd`]'s render-world
//!   replica ([`CrowdReplica`]) up to date by the crowd's change log: an
//!   idle crowd copies its clock, a crowd where a hundred agents moved
//!   copies a hundred instances;
//! - [`extract_frame`] copies the active 3D cameras Throng draws from (as
//!   Throng cameras), the directional lights with their cascades, and the
//!   settings resources, into [`ThrongFrame`].
//!
//! Everything else — uploads, culling set-up, the pose cache, cascades —
//! is [`crate::prepare`]'s, in the render world's `Render` schedule.

use std::time::{Duration, Instant};

use bevy::camera::{Camera, Camera3d, Exposure, Projection};
use bevy::core_pipeline::prepass::{
    DeferredPrepass, DepthPrepass, MotionVectorPrepass, NormalPrepass,
};
use bevy::light::{Cascades, DirectionalLight, DirectionalLightShadowMap, GlobalAmbientLight};
use bevy::pbr::DistanceFog;
use bevy::prelude::*;
use bevy::render::Extract;
use throng_crowd::crowd::{Crowd, CrowdReplica};

use crate::convert::{self, Prepasses};
use crate::crowd::{ThrongCamera, ThrongCameras, ThrongCrowd, ThrongShadows};
use crate::stats::ThrongStats;

/// The render world's copies of the main world's crowds, in the main
/// world's query order, by crowd entity.
#[derive(Resource, Default)]
pub struct ThrongReplicas {
    replicas: Vec<(Entity, CrowdReplica)>,
    /// Instances copied by the last extract (a whole crowd counts its
    /// length).
    pub copied: usize,
    /// CPU time of the last [`extract_crowds`].
    pub time: Duration,
}

impl ThrongReplicas {
    /// The crowds as of the last extract.
    pub fn crowds(&self) -> impl ExactSizeIterator<Item = &Crowd> + '_ {
        self.replicas.iter().map(|(_, r)| r.crowd())
    }

    /// The crowd of entity `entity`'s index among [`Self::crowds`].
    pub fn index_of(&self, entity: Entity) -> Option<usize> {
        self.replicas.iter().position(|(e, _)| *e == entity)
    }

    /// The crowd at `index` among [`Self::crowds`] (`index` < their count).
    pub fn crowd_at(&self, index: usize) -> &Crowd {
        self.replicas[index].1.crowd()
    }

    /// The crowds' entities, in [`Self::crowds`]' order.
    pub fn entities(&self) -> impl ExactSizeIterator<Item = Entity> + '_ {
        self.replicas.iter().map(|(e, _)| *e)
    }

    /// True when no crowd holds an instance.
    pub fn all_empty(&self) -> bool {
        self.crowds().all(Crowd::is_empty)
    }
}

/// Syncs each main-world crowd's replica from its change log; replicas of
/// crowds gone are dropped.
pub fn extract_crowds(
    crowds: Extract<Query<(Entity, &ThrongCrowd)>>,
    mut replicas: ResMut<ThrongReplicas>,
) {
    let start = Instant::now();
    let mut old = std::mem::take(&mut replicas.replicas);
    let mut copied = 0;
    for (entity, c) in &crowds {
        let mut replica = match old.iter().position(|(e, _)| *e == entity) {
            Some(i) => old.swap_remove(i).1,
            None => CrowdReplica::new(),
        };
        copied += replica.sync(&c.crowd).instances;
        replicas.replicas.push((entity, replica));
    }
    replicas.copied = copied;
    replicas.time = start.elapsed();
}

/// An active 3D camera Throng draws from, as the extract found it.
#[derive(Clone)]
pub struct FrameCamera {
    /// The main-world camera.
    pub entity: Entity,
    /// Where it is and how it sees, as Throng's camera.
    pub view: throng_crowd::camera::Camera,
    /// Its exposure.
    pub exposure: Option<Exposure>,
    /// Its fog.
    pub fog: Option<DistanceFog>,
    /// Which of Bevy's prepasses it has.
    pub prepasses: Prepasses,
}

/// A directional light, as the extract found it.
#[derive(Clone, Debug)]
pub struct FrameLight {
    /// The main-world light.
    pub entity: Entity,
    /// The light.
    pub light: DirectionalLight,
    /// Where it is.
    pub transform: GlobalTransform,
    /// Its cascades per camera (what the crowd is cast into).
    pub cascades: Option<Cascades>,
}

/// The frame's cameras, lights and settings, copied by [`extract_frame`].
#[derive(Resource, Default)]
pub struct ThrongFrame {
    /// The active 3D cameras that draw crowds ([`ThrongCameras`]).
    pub cameras: Vec<FrameCamera>,
    /// Every directional light.
    pub lights: Vec<FrameLight>,
    /// How the crowd casts and receives shadows (the default when the app
    /// set none).
    pub shadows: ThrongShadows,
    /// The scene's ambient light.
    pub ambient: Option<GlobalAmbientLight>,
    /// Bevy's directional shadow map settings.
    pub shadow_map: Option<DirectionalLightShadowMap>,
    /// Where the render world reports the frame ([`ThrongStats`]).
    pub stats: Option<ThrongStats>,
    /// CPU time of the last [`extract_frame`].
    pub time: Duration,
}

/// The camera query's data: the camera, where it is and how it sees,
/// whether it is marked for Throng, and which of Bevy's prepasses it has.
type CameraData = (
    Entity,
    &'static Camera,
    &'static GlobalTransform,
    Option<&'static Projection>,
    Option<&'static Exposure>,
    Option<&'static DistanceFog>,
    Has<ThrongCamera>,
    (
        Has<DepthPrepass>,
        Has<NormalPrepass>,
        Has<MotionVectorPrepass>,
        Has<DeferredPrepass>,
    ),
);

/// The directional light query's data.
type LightData = (
    Entity,
    &'static DirectionalLight,
    &'static GlobalTransform,
    Option<&'static Cascades>,
);

/// The settings resources the render world reads.
type Settings = (
    Option<Res<'static, ThrongShadows>>,
    Option<Res<'static, GlobalAmbientLight>>,
    Option<Res<'static, DirectionalLightShadowMap>>,
    Option<Res<'static, ThrongCameras>>,
    Option<Res<'static, ThrongStats>>,
);

/// Copies the cameras, lights and settings into [`ThrongFrame`].
pub fn extract_frame(
    cameras: Extract<Query<CameraData, With<Camera3d>>>,
    lights: Extract<Query<LightData>>,
    settings: Extract<Settings>,
    mut frame: ResMut<ThrongFrame>,
) {
    let start = Instant::now();
    let (shadows, ambient, shadow_map, which, stats) = &*settings;
    let marked_only = which.as_deref() == Some(&ThrongCameras::Marked);
    frame.cameras.clear();
    for (entity, camera, transform, projection, exposure, fog, marked, passes) in &cameras {
        if !camera.is_active || (marked_only && !marked) {
            continue;
        }
        let (depth, normal, motion_vectors, deferred) = passes;
        frame.cameras.push(FrameCamera {
            entity,
            view: convert::camera(camera, transform, projection),
            exposure: exposure.copied(),
            fog: fog.cloned(),
            prepasses: Prepasses {
                depth,
                normal,
                motion_vectors,
                deferred,
            },
        });
    }
    frame.lights.clear();
    frame
        .lights
        .extend(lights.iter().map(|(entity, l, t, c)| FrameLight {
            entity,
            light: *l,
            transform: *t,
            cascades: c.cloned(),
        }));
    frame.shadows = shadows.as_deref().copied().unwrap_or_default();
    frame.ambient = ambient.as_deref().cloned();
    frame.shadow_map = shadow_map.as_deref().cloned();
    frame.stats = stats.as_deref().cloned();
    frame.time = start.elapsed();
}
