//! The viewer's steered crowd's scene ([`Steering`]): the plaza laid out
//! around the herd ([`throng_demo::plaza`]), its flow field (computed on a
//! worker thread, [`FieldJob`]), the
//! steering's settings and the obstacles as drawn, and where handing it to
//! the renderer stands. `steer.rs` starts, syncs and stops it.

use anyhow::Result;
use glam::Vec2;
use throng_core::ground::Ground;
use throng_core::simulation::NavigateParams;
use throng_crowd::navigation::{FieldJob, FieldOptions, FlowField, Walkable};
use throng_demo::plaza::Plaza;
use throng_render::simulation::navigate::navigate_params;

use throng_demo::pillars::Pillar;

/// The steered crowd's scene: obstacles, goals, the field and settings.
pub(super) struct Steering {
    /// The flow field, once its worker is done (until then the crowd
    /// stands; no frame waits for it).
    pub(super) field: Option<FlowField>,
    /// The worker computing it.
    pub(super) job: Option<FieldJob>,
    pub(super) params: NavigateParams,
    /// The obstacles as drawn.
    pub(super) pillars: Vec<Pillar>,
    /// The model's walk ground speed at playback speed 1.
    pub(super) walk_speed: f32,
    /// The renderer steps the hook (set once it has been given it).
    pub(super) installed: bool,
    /// Standing was asked for: the poses come back first.
    pub(super) stopping: bool,
}

impl Steering {
    /// The plaza around a herd of radius `radius` about `centre` of a
    /// model `body` long.
    pub(super) fn around(
        centre: Vec2,
        radius: f32,
        body: f32,
        ground: Option<&Ground>,
    ) -> Result<Self> {
        let mut plaza = Plaza::around(centre, radius, body)?;
        if let Some(ground) = ground {
            // The terrain's slopes over 30° and jumps over a sixth of a
            // body (its stair's risers are a tenth) are walls.
            let walkable = Walkable {
                max_slope_degrees: 30.0,
                step_height: body / 6.0,
            };
            plaza.grid.block_unwalkable(ground, walkable)?;
        }
        let job = FieldJob::spawn(
            plaza.grid.clone(),
            plaza.goals.clone(),
            FieldOptions::default(),
        );
        Ok(Self {
            field: None,
            job: Some(job),
            params: NavigateParams {
                dwell: 2.0,
                ..navigate_params(plaza.agent_radius, 1.15 * plaza.walk_speed)
            },
            pillars: plaza.pillars,
            walk_speed: plaza.walk_speed,
            installed: false,
            stopping: false,
        })
    }
}
