//! A crowd on real ground: the demo's hills and stair
//! ([`throng_demo::terrain`]) as the crowd's ground (Throng places every
//! walker on it, on the CPU and in the GPU's motion pass) and drawn by
//! the application in its own pass ([`throng_demo::terrain_pass`]) in
//! place of the flat ground, shadowed by the crowd.

use std::sync::Arc;

use anyhow::{Context, Result};
use glam::{Mat4, Quat, Vec2, Vec3};
use throng::core::ground::{Ground, GroundAlign};
use throng::crowd::crowd::{Crowd, ModelHandle, Motion, Spawn};
use throng_demo::terrain::{TerrainMesh, demo_ground};
use throng_demo::terrain_pass::{TerrainLook, TerrainPass};

use crate::{AppGpu, SAMPLES, SKY, Scene, ground_size};

/// Vertices a side of the terrain's drawn grid.
const MESH_SIDE: u32 = 129;

/// The terrain an application draws and its look.
pub(crate) struct Terrain {
    pass: TerrainPass,
    look: TerrainLook,
}

impl Terrain {
    pub(crate) fn prepare(
        &self,
        queue: &wgpu::Queue,
        scene: &Scene,
        camera: &throng::crowd::camera::Camera,
    ) {
        self.pass.prepare(
            queue,
            &camera.clip_from_world(),
            camera.eye,
            &scene.renderer.options().lighting,
            &self.look,
        );
    }

    pub(crate) fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        renderer: &throng::render::Renderer,
    ) {
        if let Some(shadows) = renderer.shadow_receiver() {
            self.pass.draw(pass, shadows.bind_group);
        }
    }
}

impl Scene {
    /// Draws `ground` in place of the flat ground and puts the crowd's
    /// moving instances on it, turned as `align` says.
    pub fn set_terrain(
        &mut self,
        device: &wgpu::Device,
        ground: Arc<Ground>,
        align: GroundAlign,
        look: TerrainLook,
    ) -> Result<()> {
        let shadows = self
            .renderer
            .shadow_receiver()
            .context("the terrain needs the crowd's shadows")?;
        let mesh = TerrainMesh::of(&ground, MESH_SIDE);
        let pass = TerrainPass::new(device, self.format, SAMPLES, shadows.layout, &mesh);
        self.crowd.set_ground(Some(ground), align);
        self.terrain = Some(Terrain { pass, look });
        Ok(())
    }

    /// Lays the demo's terrain (hills and a stair sized after `body`, the
    /// model's length) over the square of half side `half` around world
    /// (x, z) `centre` as the crowd's ground and draws it; the standing
    /// instances are set on it.
    pub fn set_demo_terrain(
        &mut self,
        device: &wgpu::Device,
        centre: Vec2,
        half: f32,
        body: f32,
        align: GroundAlign,
    ) -> Result<()> {
        let ground = Arc::new(demo_ground(centre, half, body)?);
        let ids: Vec<_> = self.crowd.ids().collect();
        throng_demo::terrain::settle(&mut self.crowd, &ground, &ids);
        let look = TerrainLook {
            sky: Vec3::new(SKY.r as f32, SKY.g as f32, SKY.b as f32),
            cell: body,
            // From its far edge seen from across it, into the sky.
            fade: (half * 1.5, half * 3.0),
        };
        self.set_terrain(device, ground, align, look)
    }

    /// A `side × side` herd of `handle` walking east over the demo's hills
    /// and up its stair, each on its own phase, turned to the slope.
    pub fn terrain(
        gpu: AppGpu,
        format: wgpu::TextureFormat,
        handle: &ModelHandle,
        side: u32,
    ) -> Result<Self> {
        let m = handle.model();
        let body = (m.bounds.max - m.bounds.min).max_element();
        let mut crowd = Crowd::new();
        let id = crowd.add_model(handle);
        let walk = m.clips.iter().position(|c| c.name == "Walk").unwrap_or(0);
        let step = body * 0.9;
        for i in 0..side * side {
            let (x, z) = ((i % side) as f32, (i / side) as f32);
            let at = Vec3::new(
                x * step - 2.0 * body,
                0.0,
                (z - (side - 1) as f32 * 0.5) * step,
            );
            let spawn = Spawn {
                transform: Mat4::from_rotation_translation(
                    Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
                    at,
                ),
                clip: Some(walk),
                time: m.clips[walk].duration * (i as f32 * 0.37).fract(),
                ..Default::default()
            };
            let instance = crowd.spawn(id, spawn)?;
            let velocity = Vec3::new(0.25 * body, 0.0, 0.0);
            crowd.set_motion(
                instance,
                Motion::Velocity {
                    velocity,
                    yaw_rate: 0.0,
                },
            )?;
        }
        let (half, cell) = ground_size(handle, side);
        let options = throng::render::RendererOptions {
            sample_count: SAMPLES,
            ..Default::default()
        };
        let mut scene = Self::with_crowd(gpu, format, handle, crowd, half, cell, options)?;
        scene.set_demo_terrain(gpu.device, Vec2::ZERO, half, body, GroundAlign::Slope)?;
        scene.camera.target.y = body * 0.6;
        scene.camera.pitch = 0.45;
        Ok(scene)
    }
}
