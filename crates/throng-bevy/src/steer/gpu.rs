//! The steering's render-world side: the built-in steering hook installed
//! into the simulating camera's renderer for each steered crowd, its flow
//! field swapped when a new one is built, and the agents' poses read back
//! to the main world.
//!
//! - [`extract_steering`] copies each steered crowd's settings and its
//!   field's handle (an `Arc`: nothing is copied when it did not change).
//! - [`install_simulations`] (`PrepareViews`, after the renderers are fitted
//!   and before the draws are prepared) gives the simulating camera's
//!   renderer — the first active camera that draws crowds — one
//!   `navigate_simulation` per steered crowd, with its field and gaits;
//!   it makes it again when the crowd's index, settings or renderer
//!   changed, and only swaps the field when a new one was built. Other
//!   cameras do not draw steered crowds (the simulation writes the
//!   simulating renderer's mirror of the crowd only).
//! - [`read_back`] (after the draws) starts a readback of every steered
//!   crowd's instances every `readback_every` frames and hands the ones
//!   the GPU has finished to the main world's [`ThrongSteeredPoses`]:
//!   typically the frame after next, each pose carrying the crowd tick it
//!   was taken at.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use bevy::prelude::*;
use bevy::render::Extract;
use bevy::render::renderer::RenderDevice;
use throng_core::simulation::NavigateParams;
use throng_crowd::crowd::{Crowd, InstanceId, ModelId};
use throng_render::simulation::gaits::Gaits;
use throng_render::simulation::navigate::navigate_simulation;
use throng_render::{MAX_READBACK, PoseReadback, ReadPose, Renderer};

use super::ThrongSteering;
use super::field::ThrongNavigation;
use crate::extract::{ThrongFrame, ThrongReplicas};
use crate::prepare::ThrongRenderState;

/// The steered crowds' agents as the GPU last reported them, by crowd
/// entity: a main-world resource the render world writes.
#[derive(Resource, Clone, Default)]
pub struct ThrongSteeredPoses(Arc<Mutex<HashMap<Entity, Arc<SteeredPoses>>>>);

impl ThrongSteeredPoses {
    /// The latest poses of steered crowd `crowd` (`None`: none read back
    /// yet).
    pub fn crowd(&self, crowd: Entity) -> Option<Arc<SteeredPoses>> {
        self.0.lock().ok()?.get(&crowd).cloned()
    }

    fn set(&self, crowd: Entity, poses: SteeredPoses) {
        if let Ok(mut m) = self.0.lock() {
            m.insert(crowd, Arc::new(poses));
        }
    }

    fn retain(&self, crowds: &[Entity]) {
        if let Ok(mut m) = self.0.lock() {
            m.retain(|e, _| crowds.contains(e));
        }
    }
}

/// One readback of a steered crowd.
#[derive(Debug, Default)]
pub struct SteeredPoses {
    /// The crowd tick the poses were taken at (`Crowd::clock`).
    pub tick: u64,
    /// The crowd's instances, as the GPU had them.
    pub poses: Vec<SteeredPose>,
    index: HashMap<InstanceId, usize>,
}

impl SteeredPoses {
    /// Instance `id`'s pose.
    pub fn get(&self, id: InstanceId) -> Option<&SteeredPose> {
        self.index.get(&id).map(|&i| &self.poses[i])
    }
}

/// One instance as the GPU had it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SteeredPose {
    /// The instance.
    pub id: InstanceId,
    /// Its transform (Throng's glam).
    pub world: glam::Mat4,
    /// Its animation record (clips, times, fade: the gaits' choice), for
    /// its bones (`Crowd::bone_world_transform_read`).
    pub state: throng_core::gpu::GpuInstance,
    /// Its agent, if the steering has stepped it: position, heading,
    /// velocity.
    pub agent: Option<Agent>,
}

/// A steered agent as the GPU had it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Agent {
    /// World position.
    pub position: Vec3,
    /// Heading, radians about +y from +z.
    pub yaw: f32,
    /// World velocity, units a second.
    pub velocity: Vec3,
    /// It has arrived at its goal.
    pub arrived: bool,
}

impl SteeredPoses {
    fn new(tick: u64, read: Vec<ReadPose>) -> Self {
        let poses: Vec<SteeredPose> = read
            .into_iter()
            .map(|p| SteeredPose {
                id: p.id,
                world: p.world,
                state: p.state,
                agent: p.agent.map(|a| Agent {
                    position: Vec3::from_array(a.position),
                    yaw: a.yaw,
                    velocity: Vec3::from_array(a.velocity),
                    arrived: a.data[3] > 0.0,
                }),
            })
            .collect();
        let index = poses.iter().enumerate().map(|(i, p)| (p.id, i)).collect();
        Self { tick, poses, index }
    }
}

/// A steered crowd as the extract found it.
#[derive(Clone)]
struct SteeredCrowd {
    entity: Entity,
    steering: ThrongSteering,
    field: Option<ThrongNavigation>,
}

/// What [`extract_steering`] copied.
#[derive(Resource, Default)]
pub struct SteeringFrame {
    crowds: Vec<SteeredCrowd>,
    poses: Option<ThrongSteeredPoses>,
}

/// Copies the steered crowds' settings and fields.
pub fn extract_steering(
    crowds: Extract<Query<(Entity, &ThrongSteering, Option<&ThrongNavigation>)>>,
    poses: Extract<Option<Res<ThrongSteeredPoses>>>,
    mut frame: ResMut<SteeringFrame>,
) {
    frame.crowds.clear();
    frame
        .crowds
        .extend(crowds.iter().map(|(entity, s, f)| SteeredCrowd {
            entity,
            steering: s.clone(),
            field: f.cloned(),
        }));
    frame.poses = poses.as_deref().cloned();
}

/// What a crowd's simulation was made from.
#[derive(Clone, Copy, PartialEq)]
struct Made {
    index: usize,
    identity: u64,
    params: NavigateParams,
    gaits: Option<(f32, f32)>,
    generation: u64,
}

/// The render world's steering state.
#[derive(Resource, Default)]
pub struct SteeringState {
    /// The camera whose renderer simulates.
    camera: Option<Entity>,
    /// Per steered crowd entity, what its simulation was made from.
    made: HashMap<Entity, Made>,
    /// Readbacks in flight: the crowd, its tick, its parts.
    pending: Vec<(Entity, u64, Vec<PoseReadback>)>,
    frames: u64,
}

impl SteeringState {
    /// Tells the renderers' frame which camera draws each steered crowd and
    /// which field steers it.
    fn publish(&self, state: &mut ThrongRenderState, steered: &SteeringFrame) {
        state.exclusive.clear();
        if let Some(camera) = self.camera {
            state
                .exclusive
                .extend(steered.crowds.iter().map(|c| (c.entity, camera)));
        }
        state.steered_fields = self.made.iter().map(|(&e, m)| (e, m.generation)).collect();
    }
}

/// Installs, remakes or removes the steered crowds' simulations in the
/// simulating camera's renderer, and swaps in new fields.
pub fn install_simulations(
    mut state: ResMut<ThrongRenderState>,
    mut steering: ResMut<SteeringState>,
    steered: Res<SteeringFrame>,
    frame: Res<ThrongFrame>,
    replicas: Res<ThrongReplicas>,
    device: Res<RenderDevice>,
) {
    let state = &mut *state;
    let camera = frame
        .cameras
        .iter()
        .map(|c| c.entity)
        .find(|e| state.views.contains_key(e));
    if camera != steering.camera {
        if let Some(old) = steering.camera.and_then(|c| state.views.get_mut(&c)) {
            for m in steering.made.values() {
                let _ = old.renderer.set_simulation(m.index, None);
            }
        }
        steering.made.clear();
        steering.pending.clear();
        steering.camera = camera;
    }
    let Some(view) = camera.and_then(|c| state.views.get_mut(&c)) else {
        steering.publish(state, &steered);
        return;
    };
    let renderer = &mut view.renderer;
    let mut failures = Vec::new();
    // Crowds no longer steered (or gone) lose their simulation.
    let gone: Vec<Entity> = steering
        .made
        .keys()
        .copied()
        .filter(|&e| {
            !steered
                .crowds
                .iter()
                .any(|c| c.entity == e && c.field.is_some())
        })
        .collect();
    for e in gone {
        if let Some(m) = steering.made.remove(&e) {
            let _ = renderer.set_simulation(m.index, None);
        }
    }
    for c in &steered.crowds {
        let (Some(field), Some(index)) = (&c.field, replicas.index_of(c.entity)) else {
            continue;
        };
        let crowd = replicas.crowd_at(index);
        let want = Made {
            index,
            identity: crowd.identity(),
            params: c.steering.params,
            gaits: c.steering.gaits,
            generation: field.generation,
        };
        let had = steering.made.get(&c.entity).copied();
        let result = match had {
            Some(m) if m == want && renderer.simulation_mut(index).is_some() => Ok(()),
            Some(m)
                if Made {
                    generation: want.generation,
                    ..m
                } == want
                    && renderer.simulation_mut(index).is_some() =>
            {
                swap_field(renderer, index, field, &device)
            }
            _ => {
                if let Some(m) = had.filter(|m| m.index != index) {
                    let _ = renderer.set_simulation(m.index, None);
                }
                install(renderer, crowd, index, &c.steering, field, &device)
            }
        };
        match result {
            Ok(()) => {
                steering.made.insert(c.entity, want);
            }
            Err(e) => {
                steering.made.remove(&c.entity);
                failures.push(format!("steering crowd {}: {e}", c.entity));
            }
        }
    }
    for f in failures {
        state.warn_once(f);
    }
    steering.publish(state, &steered);
}

/// A new simulation for the crowd at `index`.
fn install(
    renderer: &mut Renderer,
    crowd: &Crowd,
    index: usize,
    steering: &ThrongSteering,
    field: &ThrongNavigation,
    device: &RenderDevice,
) -> Result<(), throng_render::RenderError> {
    let device = device.wgpu_device();
    let mut sim = navigate_simulation(device, &steering.params)?;
    sim.set_navigation(device, &field.field)?;
    if let Some((walk, run)) = steering.gaits {
        for m in 0..crowd.models().len() {
            let model = ModelId(m as u32);
            let gaits = Gaits::by_name(crowd, model, walk, run)?;
            sim.set_gaits(crowd, model, Some(&gaits))?;
        }
    }
    renderer.set_simulation(index, Some(sim))
}

/// The new field into the crowd's simulation.
fn swap_field(
    renderer: &mut Renderer,
    index: usize,
    field: &ThrongNavigation,
    device: &RenderDevice,
) -> Result<(), throng_render::RenderError> {
    match renderer.simulation_mut(index) {
        Some(sim) => sim.set_navigation(device.wgpu_device(), &field.field),
        None => Ok(()),
    }
}

/// Hands finished readbacks to the main world and starts the frame's.
pub fn read_back(
    mut state: ResMut<ThrongRenderState>,
    mut steering: ResMut<SteeringState>,
    steered: Res<SteeringFrame>,
    replicas: Res<ThrongReplicas>,
    device: Res<RenderDevice>,
) {
    let Some(poses) = &steered.poses else {
        return;
    };
    let steering = &mut *steering;
    steering.frames += 1;
    let entities: Vec<Entity> = steered.crowds.iter().map(|c| c.entity).collect();
    poses.retain(&entities);
    let device_ = device.wgpu_device();
    let mut failures = Vec::new();
    steering.pending.retain_mut(|(crowd, tick, parts)| {
        let mut read = Vec::new();
        for p in parts.iter() {
            match p.poll(device_) {
                None => return true,
                Some(Ok(r)) => read.extend(r),
                Some(Err(e)) => {
                    failures.push(format!("reading steered crowd {crowd} back: {e}"));
                    return false;
                }
            }
        }
        poses.set(*crowd, SteeredPoses::new(*tick, read));
        false
    });
    let Some(view) = steering.camera.and_then(|c| state.views.get(&c)) else {
        for f in failures {
            state.warn_once(f);
        }
        return;
    };
    for c in &steered.crowds {
        let every = u64::from(c.steering.readback_every);
        let busy = steering.pending.iter().any(|(e, ..)| *e == c.entity);
        let made = steering.made.get(&c.entity);
        let due = every > 0 && steering.frames.is_multiple_of(every);
        let (Some(made), false, true) = (made, busy, due) else {
            continue;
        };
        let crowd = replicas.crowd_at(made.index);
        let ids: Vec<InstanceId> = crowd.ids().collect();
        let parts: Result<Vec<_>, _> = ids
            .chunks(MAX_READBACK)
            .map(|chunk| view.renderer.read_poses(made.index, crowd, chunk))
            .collect();
        match parts {
            Ok(parts) => steering.pending.push((c.entity, crowd.clock(), parts)),
            Err(e) => failures.push(format!("reading steered crowd {} back: {e}", c.entity)),
        }
    }
    for f in failures {
        state.warn_once(f);
    }
}
