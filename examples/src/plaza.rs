//! A plaza crossed on the GPU: the application's side of Throng's built-in
//! steering ([`throng::render::simulation::navigate`]). [`steer_crowd`] lays a plaza
//! ([`throng_demo::plaza`]: a fountain, a ring of pillars, four goals at
//! its sides) around a crowd and hands every instance to the GPU with a
//! goal; [`plaza_simulation`] compiles the built-in hook and gives it the
//! flow field and the model's gaits. The agents walk to a goal around the
//! obstacles and each other, stand a while and leave for another; the CPU
//! does nothing per frame but advance the clock.

use anyhow::Result;
use glam::Vec2;
use throng::core::math::Aabb;
use throng::core::simulation::NavigateParams;
use throng::crowd::crowd::{Crowd, ModelHandle, ModelId};
use throng::crowd::navigation::FlowField;
use throng::render::Simulation;
use throng::render::simulation::gaits::Gaits;
use throng::render::simulation::navigate::{navigate_params, navigate_simulation};
use throng_demo::herd::spawn_crowd;
use throng_demo::plaza::{Plaza, send_to_goals};

/// A crowd on its plaza, handed to the GPU.
pub struct Steered {
    /// The plaza: obstacles, goals, sizes.
    pub plaza: Plaza,
    /// Its flow field.
    pub field: FlowField,
    /// The steering's settings.
    pub params: NavigateParams,
    /// The crowd's model.
    pub model: ModelId,
}

/// Hands every instance of `model` in `crowd` (standing within `bounds`) to
/// the GPU, each with one of the plaza's four goals.
pub fn steer_crowd(crowd: &mut Crowd, model: ModelId, bounds: &Aabb) -> Result<Steered> {
    let body = {
        let b = crowd.model(model)?.bounds;
        (b.max - b.min).max_element()
    };
    let (c, e) = (bounds.center(), (bounds.max - bounds.min) * 0.5);
    let plaza = Plaza::around(Vec2::new(c.x, c.z), e.x.max(e.z), body)?;
    let field = plaza.field()?;
    let params = NavigateParams {
        dwell: 2.0,
        ..navigate_params(plaza.agent_radius, 1.15 * plaza.walk_speed)
    };
    let ids: Vec<_> = crowd.ids().collect();
    send_to_goals(crowd, &ids)?;
    Ok(Steered {
        plaza,
        field,
        params,
        model,
    })
}

/// `agents` Foxes in the viewer's herd (seed 1), steered on their plaza.
pub fn plaza_crowd(handle: &ModelHandle, agents: u32) -> Result<(Crowd, Steered)> {
    let mut crowd = Crowd::new();
    let model = crowd.add_model(handle);
    let herd = spawn_crowd(&mut crowd, model, agents, 1)?;
    let steered = steer_crowd(&mut crowd, model, &herd.bounds)?;
    Ok((crowd, steered))
}

/// The built-in hook compiled on `device` for `steered`: the flow field
/// uploaded and the model's gaits (idle, walk, run by name) set.
pub fn plaza_simulation(
    device: &wgpu::Device,
    crowd: &Crowd,
    steered: &Steered,
) -> Result<Simulation> {
    let mut simulation = navigate_simulation(device, &steered.params)?;
    simulation.set_navigation(device, &steered.field)?;
    let walk = steered.plaza.walk_speed;
    let gaits = Gaits::by_name(crowd, steered.model, walk, 2.6 * walk)?;
    simulation.set_gaits(crowd, steered.model, Some(&gaits))?;
    Ok(simulation)
}
