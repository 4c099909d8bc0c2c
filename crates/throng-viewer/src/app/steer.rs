//! The viewer's steered crowd: on a GPU-driven renderer the walking crowd
//! (`M`) is Throng's built-in steering ([`throng_render::simulation::navigate`]) rather
//! than analytic loops — every instance walks to a goal at a side of the
//! herd's plaza ([`throng_demo::plaza`]) around a fountain and a ring of
//! pillars (drawn by
//! [`throng_demo::pillars`]) and around the others, stands a while and leaves for
//! another, its clip following its speed (idle, walk, run). The GPU is the
//! authority over where they are: standing again reads their poses back
//! first, so each stops where it is. Renderers that build their draw lists
//! on the CPU walk the analytic loops instead (`walk.rs`).

use anyhow::{Context, Result};
use glam::{Mat4, Vec2};
use throng_crowd::crowd::Motion;
use throng_demo::plaza::send_to_goals;
use throng_render::ReadPose;
use throng_render::simulation::gaits::Gaits;
use throng_render::simulation::navigate::navigate_simulation;

use super::gfx::Gfx;
use super::scene::Scene;
use super::steering::Steering;

impl Scene {
    /// Hands every instance to the GPU's steering (the renderer gets the
    /// hook at the next frame).
    pub(super) fn start_steering(&mut self) -> Result<()> {
        let bounds = self.bounds();
        let centre = bounds.center();
        let extent = (bounds.max - bounds.min) * 0.5;
        let body = {
            let b = self.handle.model().bounds;
            (b.max - b.min).max_element().max(1e-3)
        };
        let steering = Steering::around(
            Vec2::new(centre.x, centre.z),
            extent.x.max(extent.z).max(body),
            body,
            self.terrain_ground().map(|g| &**g),
        )?;
        let ids: Vec<_> = self.instances().iter().map(|&(id, _)| id).collect();
        // Simulated instances are the GPU's: none keeps foot IK.
        self.crowd.clear_foot_ik();
        send_to_goals(&mut self.crowd, &ids)?;
        self.status = format!("{} instances steered on the GPU", self.instances().len());
        self.steering = Some(steering);
        Ok(())
    }

    /// Asks for the steered crowd to stand (done at the next frame, once
    /// the GPU has said where everyone is).
    pub(super) fn stop_steering(&mut self) {
        if let Some(s) = &mut self.steering {
            s.stopping = true;
        }
    }

    /// Stands every instance where `poses` say it is.
    fn stand_at(&mut self, poses: &[ReadPose]) {
        for pose in poses {
            let _ = self.crowd.set_motion(pose.id, Motion::Still);
            let _ = self.crowd.set_transform(pose.id, pose.world);
        }
        self.steering = None;
        self.after_walking();
    }
}

/// Brings the renderer in step with the scene's steering: gives it the hook
/// when the crowd starts steering (or after a device loss), and when it
/// stops reads every pose back, takes the hook away and stands everyone
/// there.
pub(super) fn sync(gfx: &mut Gfx, scene: &mut Scene) -> Result<()> {
    let model = scene.model_id();
    let Some(steering) = &mut scene.steering else {
        if gfx.renderer.simulation_mut(0).is_some() {
            gfx.renderer.set_simulation(0, None)?;
            gfx.pillars.set(&gfx.device, &gfx.queue, &[]);
        }
        return Ok(());
    };
    if steering.stopping {
        let ids: Vec<_> = scene.instances().iter().map(|&(id, _)| id).collect();
        let poses = match gfx.renderer.read_poses(0, &scene.crowd, &ids) {
            Ok(readback) => readback.wait(&gfx.device)?,
            // No frame stepped them yet: they stand where they were.
            Err(_) => Vec::new(),
        };
        gfx.renderer.set_simulation(0, None)?;
        gfx.pillars.set(&gfx.device, &gfx.queue, &[]);
        scene.stand_at(&poses);
        return Ok(());
    }
    if !steering.installed {
        // The field from its worker: until it is done the crowd stands.
        if steering.field.is_none()
            && let Some(result) = steering.job.as_mut().and_then(|j| j.try_take())
        {
            steering.job = None;
            steering.field = Some(result.context("the plaza's flow field")?);
        }
        let Some(field) = &steering.field else {
            return Ok(());
        };
        let mut simulation = navigate_simulation(&gfx.device, &steering.params)?;
        simulation.set_navigation(&gfx.device, field)?;
        let gaits = Gaits::by_name(
            &scene.crowd,
            model,
            steering.walk_speed,
            2.6 * steering.walk_speed,
        )?;
        simulation.set_gaits(&scene.crowd, model, Some(&gaits))?;
        gfx.renderer
            .set_simulation(0, Some(simulation))
            .context("steering the crowd on the GPU")?;
        gfx.pillars.set(&gfx.device, &gfx.queue, &steering.pillars);
        steering.installed = true;
    }
    Ok(())
}

/// After a device loss the new renderer has no hook: give it again.
pub(super) fn lost(scene: &mut Scene) {
    if let Some(s) = &mut scene.steering {
        s.installed = false;
    }
}

/// The clip-from-world of the pillars is the crowd's: nothing of its own.
pub(super) fn prepare(gfx: &Gfx, clip_from_world: &Mat4) {
    let options = gfx.renderer.options();
    gfx.pillars
        .prepare(&gfx.queue, clip_from_world, &options.lighting);
}
