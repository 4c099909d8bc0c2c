//! The viewer's terrain (`T`, on by default), what the scene and the
//! drawing keep of it: whether it is wanted and the ground laid
//! ([`SceneTerrain`]), the terrain pass drawing it ([`TerrainGfx`]).
//! `ground_scene.rs` lays it and brings the drawing up to it.

use std::sync::Arc;

use throng_core::ground::Ground;
use throng_demo::terrain_pass::TerrainPass;

/// The scene's side: whether the terrain is wanted, the ground laid, and
/// a generation the drawing follows.
pub(crate) struct SceneTerrain {
    pub(super) on: bool,
    pub(super) ground: Option<Arc<Ground>>,
    pub(super) generation: u64,
    /// Frames since the terrain was laid (foot IK picks the nearest every
    /// so many).
    pub(super) frames: u32,
    /// The heights' image (`--heightmap`), if any: grey levels 0–65,535,
    /// row-major, and its width and height.
    pub(super) image: Option<Arc<(Vec<u16>, u32, u32)>>,
}

impl Default for SceneTerrain {
    fn default() -> Self {
        Self {
            on: true,
            ground: None,
            generation: 0,
            frames: 0,
            image: None,
        }
    }
}

/// The drawing's side: the terrain pass of the scene's ground, rebuilt
/// when the scene lays another.
#[derive(Default)]
pub(super) struct TerrainGfx {
    pub(super) generation: u64,
    pub(super) pass: Option<TerrainPass>,
}

impl TerrainGfx {
    /// True if a terrain is drawn (the flat ground is not).
    pub(super) fn shown(&self) -> bool {
        self.pass.is_some()
    }

    /// Draws the terrain into the crowd's pass.
    pub(super) fn draw(&self, pass: &mut wgpu::RenderPass<'_>, shadows: &wgpu::BindGroup) {
        if let Some(p) = &self.pass {
            p.draw(pass, shadows);
        }
    }
}
