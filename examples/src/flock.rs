//! A flock steered on the GPU: the application's side of Throng's
//! simulation hook (`examples/flock.wgsl`, run by
//! [`throng::render::Simulation`]). [`flock_crowd`] hands every Fox to the
//! GPU ([`Motion::Simulated`]) walking at a speed of its own;
//! [`flock_simulation`] compiles the hook with the flock's settings bound
//! in its own `@group(1)`. Throng sets each Fox's walk playback to its
//! speed; the CPU does nothing per frame but advance the clock.

use anyhow::{Context, Result};
use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Quat, Vec3, Vec4};
use throng::crowd::crowd::{Crowd, ModelHandle, Motion, Spawn};
use throng::render::{Simulation, SimulationHook};
use wgpu::util::DeviceExt;

/// The hook.
pub const FLOCK_WGSL: &str = include_str!("../flock.wgsl");

/// The flock's settings, as `FlockParams` in `flock.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct FlockParams {
    /// Radius of the disc the flock stays in, world units.
    pub world_radius: f32,
    /// Cruising speed, world units per second (each agent has its own
    /// factor of it, 0.6 to 1.5).
    pub cruise: f32,
    /// Neighbours within this distance count.
    pub reach: f32,
    /// Fastest turn, radians per second.
    pub turn_rate: f32,
}

/// A flock of `handle` and its settings.
pub struct Flock {
    /// The crowd, every instance simulated.
    pub crowd: Crowd,
    /// The settings.
    pub params: FlockParams,
    /// The walk clip's ground speed at playback speed 1, world units per
    /// second (playback speed is the agent's speed over it).
    pub ground_speed: f32,
}

/// `agents` Foxes scattered over a disc, walking in random directions,
/// handed to the GPU.
pub fn flock_crowd(handle: &ModelHandle, agents: u32) -> Result<Flock> {
    let mut crowd = Crowd::new();
    let m = crowd.add_model(handle);
    let model = handle.model();
    let walk = model
        .clips
        .iter()
        .position(|c| c.name.to_lowercase().contains("walk"))
        .context("the flock's model has no walk clip")?;
    let body = (model.bounds.max - model.bounds.min)
        .max_element()
        .max(1e-3);
    // The bundled Fox's Walk is baked in place: about 0.9 body lengths a
    // second, as throng bench's walkers take it.
    let ground_speed = 0.9 * body;
    let reach = 1.5 * body;
    let params = FlockParams {
        world_radius: reach * (agents.max(1) as f32 / std::f32::consts::PI).sqrt() * 1.2,
        cruise: ground_speed,
        reach,
        turn_rate: 3.0,
    };
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut unit = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 40) as f32 / (1u64 << 24) as f32
    };
    for _ in 0..agents {
        let r = params.world_radius * unit().sqrt();
        let a = std::f32::consts::TAU * unit();
        let yaw = std::f32::consts::TAU * unit();
        let at = Vec3::new(a.cos() * r, 0.0, a.sin() * r);
        let id = crowd.spawn(
            m,
            Spawn {
                transform: Mat4::from_rotation_translation(Quat::from_rotation_y(yaw), at),
                clip: Some(walk),
                time: unit() * model.clips[walk].duration,
                ..Spawn::default()
            },
        )?;
        let velocity = Vec3::new(yaw.sin(), 0.0, yaw.cos()) * params.cruise;
        crowd.set_motion(
            id,
            Motion::Simulated {
                velocity,
                ground_speed,
                data: Vec4::ZERO,
            },
        )?;
    }
    Ok(Flock {
        crowd,
        params,
        ground_speed,
    })
}

/// The flock's hook compiled on `device`, its settings bound.
pub fn flock_simulation(device: &wgpu::Device, params: &FlockParams) -> Result<Simulation> {
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("flock"),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }],
    });
    let mut simulation = Simulation::new(
        device,
        &SimulationHook {
            file: "flock.wgsl",
            source: FLOCK_WGSL,
            cell_size: params.reach,
            layout: Some(&layout),
        },
    )?;
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("flock params"),
        contents: bytemuck::bytes_of(params),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    simulation.set_bind_group(device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("flock"),
        layout: &layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: buffer.as_entire_binding(),
        }],
    }));
    Ok(simulation)
}
