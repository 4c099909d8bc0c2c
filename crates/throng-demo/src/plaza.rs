//! A plaza for a herd to cross, as the viewer, the web page and
//! `examples/plaza` lay it out around [`crate::herd`]'s crowd: a fountain
//! in the middle and a ring of seven pillars as obstacles, and four goals,
//! one at each side of a square a little larger than the herd. With
//! [`Plaza::field`] the GPU's built-in steering (`throng_render::simulation::navigate`)
//! walks agents from goal to goal around the obstacles.

use glam::{Vec2, Vec3};

use throng_crowd::crowd::{Crowd, CrowdError, InstanceId, Motion};
use throng_crowd::navigation::{FlowField, Goal, NavigationError, ObstacleGrid};
use throng_render::simulation::navigate::goal_data;

/// Largest side of the plaza's flow field, cells: bigger herds get bigger
/// cells. The viewer computes it on a worker thread
/// (`throng_crowd::navigation::FieldJob`): at 1024² with four goals it
/// takes a few hundred milliseconds, which no frame waits for.
pub const MAX_SIDE_CELLS: f32 = 1024.0;

/// A plaza's obstacles and goals, sized to a herd and its model.
#[derive(Clone, Debug)]
pub struct Plaza {
    /// The obstacles, rasterised.
    pub grid: ObstacleGrid,
    /// The four goals: east, north, west, south.
    pub goals: Vec<Goal>,
    /// The obstacles as drawn: upright cylinders (centre x, centre z,
    /// radius, height).
    pub pillars: Vec<[f32; 4]>,
    /// An agent's radius: 0.35 body lengths.
    pub agent_radius: f32,
    /// The model's walk at playback speed 1: 0.9 body lengths a second
    /// (the bundled Fox's Walk is baked in place; [`crate::walkers`] takes
    /// it so too).
    pub walk_speed: f32,
    /// Half the side of the square, world units.
    pub half: f32,
}

impl Plaza {
    /// The plaza of a herd of radius `radius` about `centre` (world x, z)
    /// of a model `body` long.
    pub fn around(centre: Vec2, radius: f32, body: f32) -> Result<Self, NavigationError> {
        let body = body.max(1e-3);
        let radius = radius.max(body);
        let agent = 0.35 * body;
        let half = radius * 1.15 + 4.0 * body;
        let cell = (agent * 1.5).max(2.0 * half / MAX_SIDE_CELLS);
        let mut grid =
            ObstacleGrid::covering(centre - Vec2::splat(half), centre + Vec2::splat(half), cell)?;
        let height = 2.5 * body;
        let mut pillars = vec![[centre.x, centre.y, radius * 0.1 + body, height * 0.5]];
        for k in 0..7 {
            let a = k as f32 * std::f32::consts::TAU / 7.0 + 0.3;
            let at = centre + Vec2::new(a.cos(), a.sin()) * radius * 0.55;
            pillars.push([at.x, at.y, radius * 0.03 + 0.4 * body, height]);
        }
        for p in &pillars {
            grid.block_circle(Vec2::new(p[0], p[1]), p[2]);
        }
        let side = half * 0.8;
        let w = half * 0.2;
        let edge = half - 2.0 * agent;
        let goals = [
            (Vec2::new(side, -w), Vec2::new(edge, w)),
            (Vec2::new(-w, side), Vec2::new(w, edge)),
            (Vec2::new(-edge, -w), Vec2::new(-side, w)),
            (Vec2::new(-w, -edge), Vec2::new(w, -side)),
        ]
        .map(|(min, max)| Goal::Rect {
            min: centre + min,
            max: centre + max,
        })
        .to_vec();
        Ok(Self {
            grid,
            goals,
            pillars,
            agent_radius: agent,
            walk_speed: 0.9 * body,
            half,
        })
    }

    /// The flow field to its goals (one layer each).
    pub fn field(&self) -> Result<FlowField, NavigationError> {
        FlowField::compute(&self.grid, &self.goals)
    }
}

/// Hands each of `ids` in `crowd` to the GPU's steering, standing (no
/// velocity yet), the plaza's four goals dealt out in turn: the `i`-th
/// walks to goal layer `i % 4`, to a point the hook chooses there.
pub fn send_to_goals(crowd: &mut Crowd, ids: &[InstanceId]) -> Result<(), CrowdError> {
    for (i, &id) in ids.iter().enumerate() {
        let data = goal_data(i as u32 % 4, None);
        crowd.set_motion(
            id,
            Motion::Simulated {
                velocity: Vec3::ZERO,
                ground_speed: 0.0,
                data,
            },
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plaza_has_obstacles_inside_and_four_reachable_goals() {
        let plaza = Plaza::around(Vec2::new(10.0, -5.0), 40.0, 1.5).unwrap();
        assert_eq!(plaza.goals.len(), 4);
        assert_eq!(plaza.pillars.len(), 8);
        for p in &plaza.pillars {
            assert!(plaza.grid.is_blocked(Vec2::new(p[0], p[1])), "{p:?}");
        }
        let field = plaza.field().unwrap();
        // From a free point near the middle every goal is reachable.
        let start = Vec2::new(10.0 + 20.0, -5.0 + 3.0);
        assert!(!plaza.grid.is_blocked(start));
        for layer in 0..4 {
            let d = field.distance_at(layer, start);
            assert!(d.is_some_and(|d| d > 0.0), "goal {layer}: {d:?}");
        }
    }
}
