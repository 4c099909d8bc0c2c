//! The crowd the page draws, built the same way in the browser and natively
//! (the browser test compares the two pictures): the viewer's seeded herd
//! ([`throng_demo::herd`]) of one model, or mixed of several that share
//! their clips (each optionally worn as outfits), on the demo's terrain or
//! a checkered ground, with shadows, laid into a [`View`] — the JavaScript
//! API's view. Where the path is GPU-driven (WebGPU) it is steered by
//! Throng's built-in steering across the viewer's plaza (`throng_demo::plaza`,
//! laid out through [`View::steer`]), as the viewer's is; elsewhere, with
//! `?walk=1`, and at a fixed `?time=` (the browser test's pictures, which
//! must match the native ones) it walks the analytic waypoint loops
//! ([`throng_demo::walkers`]).

use anyhow::{Context, Result};
use glam::Vec3;
use throng_crowd::crowd::ModelHandle;
use throng_demo::herd::spawn_mixed_crowd;
use throng_demo::outfits::{outfitted, wear_outfits};
use throng_demo::walkers::Walkers;
use throng_examples::{AppGpu, OrbitCamera};

use crate::query::{PageCamera, PageQuery};
use crate::view::steer::SteerSpec;
use crate::view::{View, ViewOptions};
use throng_crowd::navigation::Goal;
use throng_demo::plaza::Plaza;

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

/// What the page adds to its view: the walkers and whether it is steered.
pub struct PageScene {
    /// The walking crowd's re-targeting (`None`: it stands or is steered).
    pub walkers: Option<Walkers>,
    /// The crowd is steered on the GPU.
    pub steered: bool,
}

impl PageScene {
    /// Advances `view`'s crowd by `dt` seconds (re-targeting walkers).
    pub fn advance(&mut self, view: &mut View, dt: f32) -> Result<()> {
        if let Some(w) = &mut self.walkers {
            w.step(&mut view.scene.crowd, dt)?;
        }
        view.advance(dt)
    }
}

/// The options of the page's view for `query`.
pub fn view_options(query: &PageQuery) -> ViewOptions {
    ViewOptions {
        occlusion: query.occlusion,
        ..ViewOptions::default()
    }
}

/// The page's models from their files' bytes (`files`: URL and bytes, in
/// the query's order): loaded, checked to share the first one's clips,
/// and worn as outfits with `query.outfits`.
pub fn load_models(files: &[ModelFile], query: &PageQuery) -> Result<Vec<(String, ModelHandle)>> {
    let handles = files.iter().map(load_model).collect::<Result<Vec<_>>>()?;
    let named: Vec<(String, &ModelHandle)> =
        files.iter().map(|f| f.url.clone()).zip(&handles).collect();
    throng_demo::mixed::check_shared_clips(&named).map_err(anyhow::Error::msg)?;
    handles
        .into_iter()
        .zip(files)
        .map(|(h, f)| {
            let h = if query.outfits {
                outfitted(&h).with_context(|| {
                    format!("?outfits: {} has too many submeshes to wear outfits", f.url)
                })?
            } else {
                h
            };
            Ok((f.url.clone(), h))
        })
        .collect()
}

/// The page's scene in `view` (made with [`view_options`]), of `handles`
/// (with their URLs):
/// `query.instances` of them (instance `i` of model `i` modulo their
/// number; with `query.outfits`, wearing outfit `i`) in the viewer's herd
/// (seed `query.seed`), walking unless `query.walk` is off, at
/// `query.time` when it is fixed. The walkers' motions are analytic, so a
/// fixed time gives the same picture wherever it is drawn.
pub fn build(
    gpu: AppGpu,
    view: &mut View,
    handles: &[(String, ModelHandle)],
    query: &PageQuery,
) -> Result<PageScene> {
    let (_, handle) = handles.first().context("the page needs a model")?;
    for (url, h) in handles {
        view.add_model(gpu, h.clone(), url)?;
    }
    let ids = view.model_ids();
    let id = ids[0];
    let herd = spawn_mixed_crowd(&mut view.scene.crowd, &ids, query.instances, query.seed)
        .context("placing the herd")?;
    if query.outfits {
        let bodies = view.handles();
        wear_outfits(&mut view.scene.crowd, &herd.ids, &bodies).context("wearing the outfits")?;
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
    view.scene.set_ground(gpu.device, half, cell)?;
    view.scene.show_ground = true;
    if query.terrain {
        let centre = glam::Vec2::new(center.x, center.z);
        let align = throng_core::ground::GroundAlign::Slope;
        view.scene
            .set_demo_terrain(gpu.device, centre, half, cell, align)
            .context("laying the terrain")?;
    }
    let ground = view.scene.crowd.ground().cloned();
    view.scene.camera = match query.camera {
        PageCamera::Orbit => start_camera(center, radius, cell),
        PageCamera::Eye => eye_camera(&herd.bounds, cell, ground.as_deref()),
    };
    let steer = query.steer
        && query.time.is_none()
        && view.scene.renderer.path() == throng_render::RecordPath::GpuDriven;
    let mut walkers = None;
    if steer {
        steer_on_plaza(gpu, view, &herd.bounds, cell)?;
    } else if query.walk {
        walkers = Some(
            Walkers::new(&mut view.scene.crowd, id, &herd.bounds, 100.0)
                .context("making the crowd walk")?,
        );
    }
    if let Some(time) = query.time {
        view.scene.crowd.update(time);
    }
    Ok(PageScene {
        walkers,
        steered: steer,
    })
}

/// Steers `view`'s first model across the viewer's plaza around a herd
/// standing in `bounds`, of a model `cell` long (`throng_demo::plaza`:
/// its fountain and pillars, four goals), through the API's steering.
fn steer_on_plaza(
    gpu: AppGpu,
    view: &mut View,
    bounds: &throng_core::math::Aabb,
    cell: f32,
) -> Result<()> {
    let (c, e) = (bounds.center(), (bounds.max - bounds.min) * 0.5);
    let centre = glam::Vec2::new(c.x, c.z);
    let plaza = Plaza::around(centre, e.x.max(e.z), cell).context("laying the plaza")?;
    let obstacles: Vec<f32> = plaza
        .pillars
        .iter()
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    let goals: Vec<f32> = plaza
        .goals
        .iter()
        .filter_map(|g| match *g {
            Goal::Rect { min, max } => Some([min.x, min.y, max.x, max.y]),
            _ => None,
        })
        .flatten()
        .collect();
    let spec = SteerSpec {
        model: 0,
        min: centre - plaza.half,
        max: centre + plaza.half,
        obstacles: &obstacles,
        goals: &goals,
        agent_radius: plaza.agent_radius,
        walk_speed: plaza.walk_speed,
    };
    view.steer(gpu, &spec).context("steering the crowd")
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

/// The eye camera: 0.3 body lengths over the ground (`ground`; none: y = 0)
/// at the herd's front edge, looking along it to its far edge — the game camera in a street of
/// animals, where most of the herd is hidden behind its front rows.
pub fn eye_camera(
    bounds: &throng_core::math::Aabb,
    cell: f32,
    ground: Option<&throng_core::ground::Ground>,
) -> OrbitCamera {
    let center = bounds.center();
    let height = |x: f32, z: f32| ground.map_or(0.0, |g| g.height_at(glam::Vec2::new(x, z)));
    let (ez, tz) = (bounds.max.z + cell, bounds.min.z);
    let eye = Vec3::new(center.x, height(center.x, ez) + 0.3 * cell, ez);
    let target = Vec3::new(center.x, height(center.x, tz) + 0.25 * cell, tz);
    let d = eye - target;
    OrbitCamera {
        target,
        distance: d.length(),
        yaw: d.x.atan2(d.z),
        pitch: (d.y / d.length()).asin(),
    }
}
