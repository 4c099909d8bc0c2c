//! Steering from JavaScript: a rectangle of ground, round obstacles and
//! rectangular goals in world (x, z), handed to Throng's built-in GPU
//! steering (`throng_render::simulation::navigate`) with a flow field to
//! each goal; every instance of one model walks to its goal around the
//! obstacles and the others, stands a while and leaves for another.
//! Obstacles are drawn as pillars. The steered agents' positions come back
//! from the GPU with [`View::read_positions`] (a frame or two late).

use anyhow::{Context, Result, bail};
use glam::{Vec2, Vec3};
use throng_core::simulation::NavigateParams;
use throng_crowd::crowd::{InstanceId, Motion};
use throng_crowd::navigation::{FlowField, Goal, ObstacleGrid};
use throng_examples::AppGpu;
use throng_render::readback::{MAX_READBACK, PoseReadback};
use throng_render::simulation::gaits::Gaits;
use throng_render::simulation::navigate::{goal_data, navigate_params, navigate_simulation};

use super::View;

/// Most cells along a side of a steering field.
pub const MAX_SIDE_CELLS: f32 = 1024.0;

/// What [`View::steer`] lays out.
#[derive(Clone, Copy, Debug)]
pub struct SteerSpec<'a> {
    /// The model whose instances are steered.
    pub model: u32,
    /// The walkable rectangle's corners, world (x, z).
    pub min: Vec2,
    /// Its far corner.
    pub max: Vec2,
    /// Round obstacles: centre x, centre z, radius per obstacle.
    pub obstacles: &'a [f32],
    /// Goal rectangles: min x, min z, max x, max z per goal (at least one).
    pub goals: &'a [f32],
    /// An agent's radius, world units.
    pub agent_radius: f32,
    /// The model's walk, world units a second at playback speed 1.
    pub walk_speed: f32,
}

/// What the view keeps of a steered crowd.
#[derive(Clone, Debug)]
pub struct SteeredCrowd {
    /// An agent's radius, world units.
    pub agent_radius: f32,
    /// The steered instances.
    pub ids: Vec<InstanceId>,
}

impl View {
    /// Hands every instance of `spec.model` to the GPU's steering, the
    /// `i`-th walking to goal `i % goals`. Needs the GPU-driven path.
    pub fn steer(&mut self, gpu: AppGpu, spec: &SteerSpec<'_>) -> Result<()> {
        if self.scene.renderer.path() != throng_render::RecordPath::GpuDriven {
            bail!(
                "steering runs on the GPU-driven path; this adapter draws on the {} path",
                self.scene.renderer.path()
            );
        }
        if !spec.obstacles.len().is_multiple_of(3) {
            bail!(
                "steer: obstacles hold 3 floats each (x, z, radius), not {}",
                spec.obstacles.len()
            );
        }
        if spec.goals.is_empty() || !spec.goals.len().is_multiple_of(4) {
            bail!(
                "steer: goals hold 4 floats each (min x, min z, max x, max z), at least one; got {}",
                spec.goals.len()
            );
        }
        let positive = |v: f32| v.is_finite() && v > 0.0;
        if !positive(spec.agent_radius) || !positive(spec.walk_speed) {
            bail!(
                "steer: the agent radius ({}) and walk speed ({}) must be > 0",
                spec.agent_radius,
                spec.walk_speed
            );
        }
        let (_, model, name) = self.model(spec.model)?;
        let name = name.to_owned();
        let side = (spec.max - spec.min).max_element();
        let cell = (spec.agent_radius * 1.5).max(side / MAX_SIDE_CELLS);
        let mut grid =
            ObstacleGrid::covering(spec.min, spec.max, cell).context("steer: the ground")?;
        let mut pillars = Vec::with_capacity(spec.obstacles.len() / 3);
        for (i, o) in spec.obstacles.chunks_exact(3).enumerate() {
            grid.try_block_circle(Vec2::new(o[0], o[1]), o[2])
                .with_context(|| format!("steer: obstacle {i}"))?;
            pillars.push([o[0], o[1], o[2], 7.0 * spec.agent_radius]);
        }
        let goals: Vec<Goal> = spec
            .goals
            .chunks_exact(4)
            .map(|g| Goal::Rect {
                min: Vec2::new(g[0], g[1]),
                max: Vec2::new(g[2], g[3]),
            })
            .collect();
        let field = FlowField::compute(&grid, &goals).context("steer: the flow field")?;
        let params = NavigateParams {
            dwell: 2.0,
            ..navigate_params(spec.agent_radius, 1.15 * spec.walk_speed)
        };
        let crowd = &mut self.scene.crowd;
        let mut simulation = navigate_simulation(gpu.device, &params)?;
        simulation.set_navigation(gpu.device, &field)?;
        let gaits = Gaits::by_name(crowd, model, spec.walk_speed, 2.6 * spec.walk_speed)
            .with_context(|| format!("steer: {name}'s gaits (idle, walk and run clips by name)"))?;
        simulation.set_gaits(crowd, model, Some(&gaits))?;
        let ids: Vec<_> = crowd
            .ids()
            .filter(|&id| crowd.state(id).is_ok_and(|s| s.model == model))
            .collect();
        let layers = goals.len() as u32;
        for (i, &id) in ids.iter().enumerate() {
            let motion = Motion::Simulated {
                velocity: Vec3::ZERO,
                ground_speed: 0.0,
                data: goal_data(i as u32 % layers, None),
            };
            crowd.set_motion(id, motion)?;
        }
        self.scene.renderer.set_simulation(0, Some(simulation))?;
        self.scene.set_pillars(gpu.device, gpu.queue, &pillars);
        self.steered = Some(SteeredCrowd {
            agent_radius: spec.agent_radius,
            ids,
        });
        Ok(())
    }

    /// The steered agents' radius (`None`: nothing is steered).
    pub fn agent_radius(&self) -> Option<f32> {
        self.steered.as_ref().map(|s| s.agent_radius)
    }

    /// Starts reading back the steered agents' positions as the frame last
    /// drawn left them (at most [`MAX_READBACK`] of them, the first); poll
    /// or wait the readback, then [`positions`].
    pub fn read_positions(&self) -> Result<PoseReadback> {
        let steered = self
            .steered
            .as_ref()
            .context("readPositions: nothing is steered (call steer first)")?;
        let ids = &steered.ids[..steered.ids.len().min(MAX_READBACK)];
        let crowd = &self.scene.crowd;
        Ok(self.scene.renderer.read_poses(0, crowd, ids)?)
    }
}

/// The world positions (x, y, z each) of `poses`.
pub fn positions(poses: &[throng_render::readback::ReadPose]) -> Vec<f32> {
    poses
        .iter()
        .flat_map(|p| p.world.w_axis.truncate().to_array())
        .collect()
}
