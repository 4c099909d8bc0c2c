//! The steered crowds' flow fields, from the scene's obstacle and goal
//! entities: [`build_fields`] rasterises every [`ThrongObstacle`] into
//! each steered crowd's grid (its [`crate::steer::ThrongSteering`]'s area
//! and cell size) and computes the field to every [`ThrongGoal`] layer
//! (`throng_crowd::navigation::FlowField`), in `PostUpdate` after Bevy
//! has propagated transforms, in the frame an obstacle or goal is added,
//! moved, changed or removed (or the steering's ground changed). The field
//! goes on the crowd's entity as [`ThrongNavigation`]; the render world
//! swaps it into the crowd's simulation that frame. A field of more than
//! [`FIELD_ON_WORKER_CELLS`] cells (all layers) is computed on a worker
//! thread instead (`throng_crowd::navigation::FieldJob`: a 1024² field of
//! four goals takes a few hundred milliseconds) and set the frame it is
//! done, the agents following the last field until then; a change while it
//! works starts it again. A scene that cannot
//! make a field (a goal layer missing, a goal inside an obstacle, no goal
//! at all) keeps the last field it made, and says why once.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use throng_crowd::navigation::{
    FieldJob, FieldOptions, FlowField, Goal, NavigationError, ObstacleGrid,
};

use super::ThrongSteering;

/// Cells (every goal layer together) above which a field is computed on a
/// worker thread rather than in the frame: 512² cells and four goals, some
/// 40 ms on two cores.
pub const FIELD_ON_WORKER_CELLS: u64 = 4 * 512 * 512;

/// An obstacle steered agents walk around, in the entity's ground plane
/// (its local x and z), placed by its `GlobalTransform` (position, turn
/// about y and scale). Blocks the cells whose centres it covers.
#[derive(Component, Clone, Debug, PartialEq)]
#[require(Transform)]
pub enum ThrongObstacle {
    /// A disc (an upright cylinder: a pillar, a tree, a fountain).
    Circle {
        /// Radius, local units (scaled by the larger of x and z).
        radius: f32,
    },
    /// A box about the entity's origin.
    Box {
        /// Half its sides along local x and z.
        half_size: Vec2,
    },
    /// A polygon (at least three corners, local x and z, either winding).
    Polygon(Vec<Vec2>),
}

/// A goal of the steered crowds: agents walking to goal layer `layer`
/// walk here. One goal per layer, layers numbered from 0 without gaps.
#[derive(Component, Clone, Debug, PartialEq)]
#[require(Transform)]
pub struct ThrongGoal {
    /// The goal layer it is (what [`crate::steer::walk_to`] names).
    pub layer: u32,
    /// Its region about the entity's origin.
    pub shape: ThrongGoalShape,
}

/// A goal's region in the entity's ground plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ThrongGoalShape {
    /// A disc of this radius (0: a point).
    Circle(f32),
    /// A box of these half sides (a turned box stands for the world box
    /// around it).
    Box(Vec2),
}

/// A steered crowd's flow field as last built ([`build_fields`]).
#[derive(Component, Clone)]
pub struct ThrongNavigation {
    /// The field: per goal layer, travel distance and direction; the
    /// clearance to the nearest obstacle (`FlowField::distance_at` and the
    /// rest answer game code too).
    pub field: Arc<FlowField>,
    /// Bumped with every field built (what the render world swaps on).
    pub generation: u64,
}

/// The obstacle query's data.
type ObstacleData = (
    Entity,
    Ref<'static, ThrongObstacle>,
    Ref<'static, GlobalTransform>,
);

/// The goal query's data.
type GoalData = (
    Entity,
    Ref<'static, ThrongGoal>,
    Ref<'static, GlobalTransform>,
);

/// The scene's obstacles and goals, and those removed this frame.
#[derive(SystemParam)]
pub struct SteeringScene<'w, 's> {
    obstacles: Query<'w, 's, ObstacleData>,
    goals: Query<'w, 's, GoalData>,
    removed_obstacles: RemovedComponents<'w, 's, ThrongObstacle>,
    removed_goals: RemovedComponents<'w, 's, ThrongGoal>,
}

impl SteeringScene<'_, '_> {
    /// An obstacle or goal came, went, moved or changed this frame.
    fn changed(&mut self) -> bool {
        let removed = self.removed_obstacles.read().count() + self.removed_goals.read().count();
        removed > 0
            || self
                .obstacles
                .iter()
                .any(|(_, o, t)| o.is_changed() || t.is_changed())
            || self
                .goals
                .iter()
                .any(|(_, g, t)| g.is_changed() || t.is_changed())
    }
}

/// Builds the fields of the steered crowds whose scene changed (see the
/// module docs), and sets those their workers finished.
pub fn build_fields(
    crowds: Query<(Entity, Ref<ThrongSteering>)>,
    mut scene: SteeringScene,
    mut commands: Commands,
    (mut generation, mut working): (Local<u64>, Local<HashMap<Entity, FieldJob>>),
    mut said: Local<HashSet<String>>,
) {
    let scene_changed = scene.changed();
    let mut say = |entity: Entity, e: String| {
        let what = format!("the flow field of steered crowd {entity}: {e}");
        if said.insert(what.clone()) {
            eprintln!("throng-bevy: {what}");
        }
    };
    let mut set = |entity: Entity, field: FlowField| {
        *generation += 1;
        commands.entity(entity).insert(ThrongNavigation {
            field: Arc::new(field),
            generation: *generation,
        });
    };
    for (entity, steering) in &crowds {
        if scene_changed || steering.is_changed() {
            // A new scene: a field still being made for the old one is dropped.
            working.remove(&entity);
            match ground_of(&steering, &scene.obstacles, &scene.goals) {
                Ok((grid, goals)) if cells(&grid, &goals) > FIELD_ON_WORKER_CELLS => {
                    working.insert(
                        entity,
                        FieldJob::spawn(grid, goals, FieldOptions::default()),
                    );
                }
                Ok((grid, goals)) => match FlowField::compute(&grid, &goals) {
                    Ok(field) => set(entity, field),
                    Err(e) => say(entity, e.to_string()),
                },
                Err(e) => say(entity, e),
            }
        }
        if let Some(result) = working.get_mut(&entity).and_then(FieldJob::try_take) {
            working.remove(&entity);
            match result {
                Ok(field) => set(entity, field),
                Err(e) => say(entity, e.to_string()),
            }
        }
    }
    // Crowds no longer steered.
    working.retain(|e, _| crowds.contains(*e));
}

/// Cells of a field of `goals` over `grid`, every layer.
fn cells(grid: &ObstacleGrid, goals: &[Goal]) -> u64 {
    u64::from(grid.width()) * u64::from(grid.height()) * goals.len() as u64
}

/// A crowd's ground: its steering's area with every obstacle blocked, and
/// the goal layers.
fn ground_of(
    steering: &ThrongSteering,
    obstacles: &Query<ObstacleData>,
    goals: &Query<GoalData>,
) -> Result<(ObstacleGrid, Vec<Goal>), String> {
    let (min, max) = steering.area;
    let mut grid = ObstacleGrid::covering(ground(min), ground(max), steering.cell_size)
        .map_err(|e| e.to_string())?;
    for (entity, obstacle, at) in obstacles {
        block(&mut grid, &obstacle, &at).map_err(|e| format!("obstacle {entity}: {e}"))?;
    }
    Ok((grid, goal_layers(goals)?))
}

/// Blocks `obstacle`, placed at `at`, in `grid`.
fn block(
    grid: &mut ObstacleGrid,
    obstacle: &ThrongObstacle,
    at: &GlobalTransform,
) -> Result<(), NavigationError> {
    match obstacle {
        ThrongObstacle::Circle { radius } => {
            let (scale, _, _) = at.to_scale_rotation_translation();
            let r = radius * scale.x.abs().max(scale.z.abs());
            grid.try_block_circle(placed(at, Vec2::ZERO), r)
        }
        ThrongObstacle::Box { half_size } => {
            let h = *half_size;
            let corners = [
                Vec2::new(-h.x, -h.y),
                Vec2::new(h.x, -h.y),
                Vec2::new(h.x, h.y),
                Vec2::new(-h.x, h.y),
            ];
            grid.block_polygon(&corners.map(|c| placed(at, c)))
        }
        ThrongObstacle::Polygon(points) => {
            let points: Vec<_> = points.iter().map(|&p| placed(at, p)).collect();
            grid.block_polygon(&points)
        }
    }
}

/// The goals in layer order: one per layer, from 0 without gaps.
fn goal_layers(goals: &Query<GoalData>) -> Result<Vec<Goal>, String> {
    let mut by_layer: Vec<(u32, Entity, Goal)> = goals
        .iter()
        .map(|(e, g, at)| (g.layer, e, goal(&g, &at)))
        .collect();
    by_layer.sort_by_key(|&(layer, e, _)| (layer, e));
    if by_layer.is_empty() {
        return Err("no ThrongGoal: agents have nowhere to walk".into());
    }
    for (i, w) in by_layer.iter().enumerate() {
        if w.0 != i as u32 {
            return Err(if w.0 < i as u32 {
                format!("goal layer {} has two ThrongGoals (entity {})", w.0, w.1)
            } else {
                format!("goal layer {i} has no ThrongGoal (layers go from 0 without gaps)")
            });
        }
    }
    Ok(by_layer.into_iter().map(|(_, _, g)| g).collect())
}

/// A goal entity's region in the world.
fn goal(goal: &ThrongGoal, at: &GlobalTransform) -> Goal {
    match goal.shape {
        ThrongGoalShape::Circle(radius) => {
            let (scale, _, _) = at.to_scale_rotation_translation();
            Goal::Circle {
                centre: placed(at, Vec2::ZERO),
                radius: radius.max(0.0) * scale.x.abs().max(scale.z.abs()),
            }
        }
        ThrongGoalShape::Box(h) => {
            let corners = [
                Vec2::new(-h.x, -h.y),
                Vec2::new(h.x, -h.y),
                Vec2::new(h.x, h.y),
                Vec2::new(-h.x, h.y),
            ]
            .map(|c| placed(at, c));
            let min = corners
                .iter()
                .copied()
                .reduce(glam::Vec2::min)
                .unwrap_or_default();
            let max = corners
                .iter()
                .copied()
                .reduce(glam::Vec2::max)
                .unwrap_or_default();
            Goal::Rect { min, max }
        }
    }
}

/// Where local ground point `p` (x, z) of an entity at `at` is, world (x, z).
fn placed(at: &GlobalTransform, p: Vec2) -> glam::Vec2 {
    let w = at.transform_point(Vec3::new(p.x, 0.0, p.y));
    glam::Vec2::new(w.x, w.z)
}

/// A Bevy ground point as Throng's.
fn ground(p: Vec2) -> glam::Vec2 {
    glam::Vec2::new(p.x, p.y)
}
