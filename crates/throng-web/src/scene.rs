//! The crowd the page draws, built the same way in the browser and natively
//! (the browser test compares the two pictures): the viewer's seeded herd
//! ([`throng_demo::herd`]) of one model, or mixed of several that share
//! their clips (each optionally worn as outfits), on a checkered ground, with
//! shadows, drawn through the embedding example's [`Scene`] — the page is
//! an application of its own that draws Throng's crowd in its own pass.
//! It walks the analytic waypoint loops ([`throng_demo::walkers`]); with
//! `?walk=steer` on the GPU-driven path (WebGPU) it is steered by Throng's
//! built-in steering across its plaza instead ([`throng_examples::plaza`]),
//! as the viewer's is — not the default yet (docs/WEB.md: it no longer
//! loses the device on SwiftShader, but its overlap is not yet checked on
//! the page). A fixed `?time=` (the
//! browser test's picture, which must match the native one) always walks
//! the loops.

use anyhow::{Context, Result};
use glam::Vec3;
use throng_crowd::crowd::{Crowd, ModelHandle};
use throng_demo::herd::spawn_mixed_crowd;
use throng_demo::outfits::{outfitted, wear_outfits};
use throng_demo::walkers::Walkers;
use throng_examples::{AppGpu, OrbitCamera, SAMPLES, Scene};
use throng_render::RendererOptions;

use crate::query::PageQuery;

/// A model's file as the page fetched it: its URL, its bytes, and the
/// bytes of the frames file it refers to, if it does (a body baked with
/// `--shared-clips`: `throng_core::format::frames`).
#[derive(Clone, Debug)]
pub struct ModelFile {
    /// Where it came from.
    pub url: String,
    /// The `.throng` file's bytes.
    pub bytes: Vec<u8>,
    /// Its frames file's bytes, fetched from beside it.
    pub frames: Option<Vec<u8>>,
}

impl ModelFile {
    /// The URL of the file `name` beside the one at `url` (same folder,
    /// without `url`'s query or fragment).
    pub fn beside(url: &str, name: &str) -> String {
        let path = url.split(['?', '#']).next().unwrap_or(url);
        match path.rsplit_once('/') {
            Some((folder, _)) => format!("{folder}/{name}"),
            None => name.to_owned(),
        }
    }
}

/// A fetched model file as a model the crowd can play; the error names the
/// URL and what is wrong with the file (or with its frames file).
pub fn load_model(file: &ModelFile) -> Result<ModelHandle> {
    let ModelFile { url, bytes, frames } = file;
    let model = match frames {
        Some(frames) => throng_core::format::read_model_with_frames(bytes, frames),
        None => throng_core::format::read_model(bytes),
    }
    .with_context(|| {
        format!(
            "{url} ({} bytes) is not a .throng file this page reads",
            bytes.len()
        )
    })?;
    ModelHandle::new(model).with_context(|| format!("{url} holds a model that does not validate"))
}

/// The page's scene and its walkers.
pub struct PageScene {
    /// What is drawn: the crowd, its renderer, the ground and the camera.
    pub scene: Scene,
    /// The walking crowd's re-targeting (`None`: it stands or is steered).
    pub walkers: Option<Walkers>,
    /// The crowd is steered on the GPU.
    pub steered: bool,
}

impl PageScene {
    /// Advances the crowd by `dt` seconds (re-targeting walkers).
    pub fn advance(&mut self, dt: f32) -> Result<()> {
        if let Some(w) = &mut self.walkers {
            w.step(&mut self.scene.crowd, dt)?;
        }
        self.scene.crowd.update(dt);
        Ok(())
    }
}

/// The page's models from their files' bytes (`files`: URL and bytes, in
/// the query's order): loaded, checked to share the first one's clips,
/// and worn as outfits with `query.outfits`.
pub fn load_models(files: &[ModelFile], query: &PageQuery) -> Result<Vec<ModelHandle>> {
    let handles = files.iter().map(load_model).collect::<Result<Vec<_>>>()?;
    let named: Vec<(String, &ModelHandle)> =
        files.iter().map(|f| f.url.clone()).zip(&handles).collect();
    throng_demo::mixed::check_shared_clips(&named).map_err(anyhow::Error::msg)?;
    if !query.outfits {
        return Ok(handles);
    }
    handles
        .iter()
        .zip(files)
        .map(|(h, f)| {
            outfitted(h).with_context(|| {
                format!("?outfits: {} has too many submeshes to wear outfits", f.url)
            })
        })
        .collect()
}

/// The page's scene: `query.instances` of `handles` (instance `i` of
/// model `i` modulo their number; with `query.outfits`, wearing outfit
/// `i`) in the viewer's herd (seed `query.seed`), walking unless
/// `query.walk` is off, at `query.time` when it is fixed, drawn into views
/// of `format` with Throng's default path choice, shadows on and MSAA. The
/// walkers' motions are analytic, so a fixed time gives the same picture
/// wherever it is drawn.
pub fn build(
    gpu: AppGpu,
    format: wgpu::TextureFormat,
    handles: &[ModelHandle],
    query: &PageQuery,
) -> Result<PageScene> {
    let handle = handles.first().context("the page needs a model")?;
    let mut crowd = Crowd::new();
    let ids: Vec<_> = handles.iter().map(|h| crowd.add_model(h)).collect();
    let id = ids[0];
    let herd = spawn_mixed_crowd(&mut crowd, &ids, query.instances, query.seed)
        .context("placing the herd")?;
    if query.outfits {
        wear_outfits(&mut crowd, &herd.ids, handles).context("wearing the outfits")?;
    }
    let model = handle.model().bounds;
    let cell = (model.max - model.min).max_element().max(1e-3);
    let (center, radius) = if herd.bounds.is_empty() {
        (model.center(), cell)
    } else {
        let size = herd.bounds.max - herd.bounds.min;
        (herd.bounds.center(), 0.5 * size.x.max(size.z))
    };
    let half = radius * 1.6 + cell * 6.0;
    let options = RendererOptions {
        sample_count: SAMPLES,
        ..Default::default()
    };
    let mut scene = Scene::with_mixed_crowd(gpu, format, handles, crowd, half, cell, options)?;
    scene.camera = start_camera(center, radius, cell);
    if query.terrain {
        let centre = glam::Vec2::new(center.x, center.z);
        let align = throng_core::ground::GroundAlign::Slope;
        scene
            .set_demo_terrain(gpu.device, centre, half, cell, align)
            .context("laying the terrain")?;
    }
    let steer = query.steer
        && query.time.is_none()
        && scene.renderer.path() == throng_render::RecordPath::GpuDriven;
    let mut walkers = None;
    if steer {
        let steered = throng_examples::plaza::steer_crowd(&mut scene.crowd, id, &herd.bounds)
            .context("steering the crowd")?;
        let simulation =
            throng_examples::plaza::plaza_simulation(gpu.device, &scene.crowd, &steered)?;
        scene.renderer.set_simulation(0, Some(simulation))?;
        scene.set_pillars(gpu.device, gpu.queue, &steered.plaza.pillars);
    } else if query.walk {
        walkers = Some(
            Walkers::new(&mut scene.crowd, id, &herd.bounds, 100.0)
                .context("making the crowd walk")?,
        );
    }
    if let Some(time) = query.time {
        scene.crowd.update(time);
    }
    Ok(PageScene {
        scene,
        walkers,
        steered: steer,
    })
}

/// Where the camera starts: looking down at the herd's middle from far
/// enough to see all of a small herd, and the near part of a large one.
pub fn start_camera(center: Vec3, radius: f32, cell: f32) -> OrbitCamera {
    OrbitCamera {
        target: Vec3::new(center.x, cell * 0.35, center.z),
        distance: (radius * 2.4).min(cell * 60.0) + cell * 2.5,
        yaw: 0.6,
        pitch: 0.5,
    }
}
