//! The viewer's terrain laid and drawn (`T`, on by default): the demo's
//! hills and stair ([`throng_demo::terrain`]) laid around the herd as the
//! crowd's ground — every walking instance placed on it by Throng, every
//! standing one set on it here — and drawn in place of the flat ground by
//! the demo's terrain pass ([`throng_demo::terrain_pass`]) with the
//! crowd's shadows. The steered crowd's flow field leaves out the cells
//! too steep or beyond too high a step to walk (`steering.rs`). `T` again
//! gives the flat plaza. What the scene and the drawing keep of it is in
//! `terrain.rs`.

use std::sync::Arc;

use anyhow::{Context, Result};
use glam::{Vec2, Vec3};
use throng_core::ground::{Ground, GroundAlign, Heightfield};
use throng_crowd::camera::Camera;
use throng_crowd::crowd::InstanceId;
use throng_demo::terrain::{TerrainMesh, demo_ground, demo_ground_on, settle};
use throng_demo::terrain_pass::{TerrainLook, TerrainPass};

use super::gfx::Gfx;
use super::scene::Scene;

/// Vertices a side of the drawn terrain's grid.
const MESH_SIDE: u32 = 257;

/// The terrain's half side, in herd radii (the flat ground's is 10).
const HALF_IN_RADII: f32 = 4.0;

/// Instances nearest the camera whose feet IK plants on the terrain (not
/// while the crowd is steered: the GPU knows where those are).
const FOOT_IK_NEAREST: usize = 64;

/// Frames between two choices of the nearest.
const FOOT_IK_EVERY: u32 = 30;

impl Scene {
    /// Lays the terrain around the herd as spawned (or takes it away when
    /// it is off), and sets the standing instances on it.
    pub(super) fn lay_terrain(&mut self) -> Result<()> {
        self.terrain.generation += 1;
        if !self.terrain.on {
            self.terrain.ground = None;
            self.crowd.set_ground(None, GroundAlign::Upright);
            return Ok(());
        }
        let b = self.handle.model().bounds;
        let extent = b.max - b.min;
        let body = extent.max_element().max(1e-3);
        let centre = self.ground.center;
        let half = self.camera.scene_radius * HALF_IN_RADII;
        let centre = Vec2::new(centre.x, centre.z);
        let ground = Arc::new(match &self.terrain.image {
            Some(image) => {
                let (luma, w, h) = &**image;
                let spacing = 2.0 * half / (w.max(h).saturating_sub(1).max(1)) as f32;
                let origin = centre - Vec2::splat(half);
                let heights = (-body, 2.0 * body);
                let field =
                    Heightfield::from_luma(origin, spacing, *w, *h, luma, 65_535.0, heights)
                        .context("the heightmap")?;
                demo_ground_on(field, centre, body)?
            }
            None => demo_ground(centre, half, body)?,
        });
        // Four legs (longer than tall) turn to the slope; two stay upright.
        let align = if extent.y < extent.x.max(extent.z) {
            GroundAlign::Slope
        } else {
            GroundAlign::Upright
        };
        self.crowd.set_ground(Some(ground.clone()), align);
        let ids: Vec<InstanceId> = self.instances().iter().map(|&(id, _)| id).collect();
        settle(&mut self.crowd, &ground, &ids);
        self.terrain.ground = Some(ground);
        Ok(())
    }

    /// Starts on the terrain (`on`) or the flat plaza, the terrain's
    /// heights from `image` if given (else the demo's hills).
    pub(super) fn set_terrain_source(
        &mut self,
        on: bool,
        image: Option<HeightImage>,
    ) -> Result<()> {
        self.terrain.on = on;
        self.terrain.image = image.map(|i| Arc::new((i.luma, i.width, i.height)));
        if !on {
            let ids: Vec<InstanceId> = self.instances().iter().map(|&(id, _)| id).collect();
            settle(&mut self.crowd, &Ground::default(), &ids);
        }
        self.lay_terrain()
    }

    /// `T`: the terrain or the flat plaza.
    pub(super) fn toggle_terrain(&mut self) {
        self.terrain.on = !self.terrain.on;
        if !self.terrain.on {
            // Standing instances back to the plane.
            let ids: Vec<InstanceId> = self.instances().iter().map(|&(id, _)| id).collect();
            settle(&mut self.crowd, &Ground::default(), &ids);
        }
        self.status = match self.lay_terrain() {
            Ok(()) if self.terrain.on => "terrain: hills and a stair".into(),
            Ok(()) => "flat plaza".into(),
            Err(e) => format!("no terrain: {e:#}"),
        };
    }

    /// Every [`FOOT_IK_EVERY`] frames, gives foot IK to the instances
    /// nearest `camera` in its view on the terrain (none on the flat plaza
    /// or while the crowd is steered).
    pub(super) fn plant_nearest_feet(&mut self, camera: &Camera) {
        self.terrain.frames += 1;
        let wanted = self.terrain.ground.is_some() && self.steering.is_none();
        if wanted && self.terrain.frames % FOOT_IK_EVERY == 1 {
            self.crowd.foot_ik_nearest(camera, FOOT_IK_NEAREST);
        } else if !wanted && self.crowd.foot_ik_count() > 0 {
            self.crowd.clear_foot_ik();
        }
    }

    /// The ground laid, if any.
    pub(super) fn terrain_ground(&self) -> Option<&Arc<Ground>> {
        self.terrain.ground.as_ref()
    }
}

/// Brings the drawn terrain up to the scene's and uploads its uniforms for
/// `camera`, fading into the sky before the far plane `far`.
pub(super) fn prepare(gfx: &mut Gfx, scene: &Scene, camera: &Camera, far: f32) {
    if gfx.terrain.generation != scene.terrain.generation {
        gfx.terrain.generation = scene.terrain.generation;
        let receiver = gfx.renderer.shadow_receiver().map(|r| r.layout.clone());
        gfx.terrain.pass = match (scene.terrain_ground(), receiver) {
            (Some(ground), Some(layout)) => {
                let mesh = TerrainMesh::of(ground, MESH_SIDE);
                let samples = gfx.renderer.options().sample_count;
                Some(TerrainPass::new(
                    &gfx.device,
                    gfx.config.format,
                    samples,
                    &layout,
                    &mesh,
                ))
            }
            _ => None,
        };
    }
    let Some(pass) = &gfx.terrain.pass else {
        return;
    };
    let options = gfx.renderer.options();
    let sky = options.clear_color;
    let look = TerrainLook {
        sky: Vec3::new(sky.r as f32, sky.g as f32, sky.b as f32),
        cell: scene.ground.cell,
        fade: (far * 0.5, far * 0.95),
    };
    pass.prepare(
        &gfx.queue,
        &camera.clip_from_world(),
        camera.eye,
        &options.lighting,
        &look,
    );
}

/// A heightmap image's grey levels (`--heightmap`).
pub(super) struct HeightImage {
    luma: Vec<u16>,
    width: u32,
    height: u32,
}

impl HeightImage {
    /// Reads `path` (any format the `image` crate decodes) as 16-bit grey.
    pub(super) fn read(path: &std::path::Path) -> Result<Self> {
        let image = image::open(path)
            .with_context(|| format!("{}: cannot read the heightmap", path.display()))?
            .to_luma16();
        let (width, height) = image.dimensions();
        Ok(Self {
            luma: image.into_raw(),
            width,
            height,
        })
    }
}
