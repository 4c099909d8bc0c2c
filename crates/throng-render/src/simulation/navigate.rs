//! Throng's built-in steering hook (`navigate.wgsl`): agents walk
//! to goals around a scene's obstacles — following a flow field
//! ([`crate::simulation::navigation`]), anticipating and separating from their
//! neighbours, sliding along walls and never standing inside one — and,
//! with `dwell ≥ 0`, leave for another goal after standing a while. It is
//! composed of the modules a hook of your own imports the same way
//! (`navigation`, `steer_seek`, `steer_avoid`, `goal_exchange`); see
//! docs/design/navigation.md.
//!
//! An agent's goal is in its four user words (`Motion::Simulated`'s
//! `data`, made by [`goal_data`]): its goal layer and point. The agents of
//! a layer hand each other their points on the way when that shortens
//! their walks (`NavigateParams::exchange_goals`, on in
//! [`navigate_params`]), so an agent may end on another point of its
//! layer than the one it was given.

use glam::{Vec2, Vec4};
use throng_core::simulation::NavigateParams;
use wgpu::util::DeviceExt;

use crate::base::error::RenderError;
use crate::base::shader::sources::NAVIGATE;
use crate::simulation::{Simulation, SimulationHook};

/// An agent's user words for the hook: walk to goal layer `layer`, to
/// `point` (world x, z) or, with `None`, to a point the hook chooses in the
/// layer's goal region (with `exchange_goals`, a point of the layer's that
/// another agent of it may take over on the way, handing over its own).
pub fn goal_data(layer: u32, point: Option<Vec2>) -> Vec4 {
    match point {
        Some(p) => Vec4::new(layer as f32, p.x, p.y, 0.0),
        None => Vec4::new(layer as f32, 0.0, 0.0, -1.0),
    }
}

/// Settings for agents of radius `radius` walking at `speed` (world units,
/// per second): accelerating to it in a quarter of a second, turning at
/// 4 rad/s, anticipating 2 s ahead, arrived within two radii, staying
/// (dwell −1), each at its own speed within ±15 %, keeping to lanes in
/// counter-flow, and exchanging goal points within a layer
/// (`exchange_goals`: set it to 0 when each agent's point is its own).
pub fn navigate_params(radius: f32, speed: f32) -> NavigateParams {
    NavigateParams {
        radius,
        speed,
        accel: 4.0 * speed,
        turn_rate: 4.0,
        horizon: 2.0,
        arrive: 2.0 * radius,
        dwell: -1.0,
        speed_spread: 0.15,
        lanes: 1.0,
        exchange_goals: 1,
        pad: [0.0; 2],
    }
}

/// The neighbour-grid cell the hook needs for agents of `radius`: four
/// radii, so that 3 × 3 cells hold every neighbour it looks at.
pub fn navigate_cell_size(params: &NavigateParams) -> f32 {
    4.0 * params.radius
}

/// The built-in hook compiled on `device` with `params` bound; give it a
/// flow field ([`Simulation::set_navigation`]) before its first step, and
/// gaits ([`Simulation::set_gaits`]) if its models have them.
pub fn navigate_simulation(
    device: &wgpu::Device,
    params: &NavigateParams,
) -> Result<Simulation, RenderError> {
    let checks = [
        ("radius", params.radius, params.radius > 0.0),
        ("speed", params.speed, params.speed > 0.0),
        ("accel", params.accel, params.accel > 0.0),
        ("turn_rate", params.turn_rate, params.turn_rate > 0.0),
        ("horizon", params.horizon, params.horizon > 0.0),
        ("arrive", params.arrive, params.arrive >= 0.0),
        ("dwell", params.dwell, true),
        (
            "speed_spread",
            params.speed_spread,
            (0.0..1.0).contains(&params.speed_spread),
        ),
        ("lanes", params.lanes, params.lanes >= 0.0),
    ];
    if let Some((name, value, _)) = checks.iter().find(|(_, v, ok)| !(v.is_finite() && *ok)) {
        return Err(RenderError::Simulation(format!(
            "navigate: {name} = {value} is out of range (finite; radius, speed, accel, turn rate and horizon positive, arrive and lanes ≥ 0, speed spread in [0, 1))"
        )));
    }
    if params.exchange_goals > 1 {
        return Err(RenderError::Simulation(format!(
            "navigate: exchange_goals = {} is out of range (0 off, 1 on)",
            params.exchange_goals
        )));
    }
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("throng navigate"),
        entries: &crate::program::bind_groups::navigate_entries(),
    });
    let mut simulation = Simulation::new(
        device,
        &SimulationHook {
            file: "navigate.wgsl",
            source: NAVIGATE,
            cell_size: navigate_cell_size(params),
            layout: Some(&layout),
        },
    )?;
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("throng navigate params"),
        contents: bytemuck::bytes_of(params),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    simulation.set_bind_group(device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("throng navigate"),
        layout: &layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: buffer.as_entire_binding(),
        }],
    }));
    Ok(simulation)
}
