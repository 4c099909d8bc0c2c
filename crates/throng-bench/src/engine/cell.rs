//! One benchmark cell: a fresh grid crowd drawn by one drawer (the baked
//! renderer on one of its paths, or the CPU-skinned baseline), warmed up,
//! then timed frame by frame.

use std::time::{Duration, Instant};

use throng_core::gpu::pack_tint;
use throng_core::math::{Aabb, mat4_to_rows};
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, CrowdError, DrawList, InstanceId, ModelHandle, ModelId};
use throng_render::{
    FrameStats, Gpu, GpuModel, Offscreen, PathChoice, PoseCacheOptions, RenderError, Renderer,
    RendererOptions, Shading, wgpu,
};

use super::report::{Cell, PassSpread, Spread};
use super::{DT, MIN_MEASURED_FRAMES, Mode, Plan};
use crate::demo::{GridOptions, VARIETY_SEED, demo_variety, spawn_grid, wear_outfits};
use crate::{Cast, Character, CpuSkinnedError, CpuSkinnedModel, CpuSkinnedRenderer};
use throng_demo::walkers::Walkers;

/// One measured frame, milliseconds.
#[derive(Clone, Debug)]
struct Sample {
    cpu: f64,
    submit: f64,
    gpu: Option<f64>,
    cull: Option<f64>,
    /// GPU milliseconds per pass (timestamp queries; empty without).
    passes: Vec<(&'static str, f64)>,
    wait: f64,
}

/// The instances changed before every frame: a window of `per_frame` that
/// moves on each frame, each turned in place by a growing angle.
struct Changes {
    ids: Vec<InstanceId>,
    base: Vec<glam::Mat4>,
    per_frame: usize,
    next: usize,
    frame: u32,
}

impl Changes {
    fn new(crowd: &Crowd, percent: f64) -> Result<Self, CellError> {
        let ids: Vec<InstanceId> = crowd.ids().collect();
        let per_frame = ((ids.len() as f64 * percent / 100.0).round() as usize).min(ids.len());
        let base = if per_frame == 0 {
            Vec::new()
        } else {
            ids.iter()
                .map(|&id| crowd.state(id).map(|s| s.world_from_model))
                .collect::<Result<_, _>>()
                .map_err(|e| CellError::Failed(e.to_string()))?
        };
        Ok(Self {
            ids,
            base,
            per_frame,
            next: 0,
            frame: 0,
        })
    }

    fn apply(&mut self, crowd: &mut Crowd) -> Result<(), CellError> {
        if self.per_frame == 0 {
            return Ok(());
        }
        self.frame += 1;
        let turn = glam::Mat4::from_rotation_y(self.frame as f32 * 0.05);
        for _ in 0..self.per_frame {
            let i = self.next;
            crowd
                .set_transform(self.ids[i], self.base[i] * turn)
                .map_err(|e| CellError::Failed(e.to_string()))?;
            self.next = (i + 1) % self.ids.len();
        }
        Ok(())
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The drawer of one cell.
enum Drawer<'a> {
    Baked(Box<Renderer>),
    Cpu {
        renderer: Box<CpuSkinnedRenderer>,
        skin: &'a CpuSkinnedModel,
        ids: Vec<InstanceId>,
        tints: Vec<u32>,
        characters: Vec<Character>,
    },
}

impl Drawer<'_> {
    fn path(&self) -> String {
        match self {
            Drawer::Baked(r) if !r.options().skinning => {
                format!("{} (skinning skipped)", r.path())
            }
            Drawer::Baked(r) => r.path().to_string(),
            Drawer::Cpu { .. } => "per character (CPU palette, storage, dynamic offset)".into(),
        }
    }

    /// One frame: advance, draw, submit, wait. Returns the stats and times.
    #[allow(clippy::too_many_arguments)]
    fn frame(
        &mut self,
        gpu: &Gpu,
        crowd: &mut Crowd,
        target: &Offscreen,
        camera: &Camera,
        model: &GpuModel,
        changes: &mut Changes,
        walkers: &mut Walkers,
    ) -> Result<(FrameStats, Sample), CellError> {
        let start = Instant::now();
        changes.apply(crowd)?;
        walkers
            .step(crowd, DT)
            .map_err(|e| CellError::Failed(e.to_string()))?;
        crowd.update(DT);
        let stats = match self {
            Drawer::Baked(r) => r.render(&target.view, target.size, camera, &[crowd], &[model])?,
            Drawer::Cpu {
                renderer,
                skin,
                ids,
                tints,
                characters,
            } => {
                characters.clear();
                for (id, &tint) in ids.iter().zip(tints.iter()) {
                    let state = crowd
                        .state(*id)
                        .map_err(|e| CellError::Failed(e.to_string()))?;
                    characters.push(Character::from_state(&state, tint));
                }
                let cast = Cast {
                    characters,
                    skin,
                    model,
                };
                renderer.render(&target.view, target.size, camera, cast)?
            }
        };
        let submitted = Instant::now();
        let (timestamp, cull, passes) = match self {
            Drawer::Baked(r) => match r.wait_pass_times() {
                Some(t) => {
                    let cull = t
                        .get("cull")
                        .map(|c| std::time::Duration::from_nanos((c * 1e6) as u64));
                    (t.frame, cull, t.passes)
                }
                None => (None, None, Vec::new()),
            },
            Drawer::Cpu { renderer, .. } => (renderer.wait_gpu_time(), None, Vec::new()),
        };
        gpu.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| CellError::Failed(format!("waiting for the GPU: {e}")))?;
        let done = Instant::now();
        Ok((
            stats,
            Sample {
                cpu: ms(submitted - start),
                submit: stats.submit_ms,
                gpu: timestamp.map(ms),
                cull: cull.map(ms),
                passes,
                wait: ms(done - submitted),
            },
        ))
    }
}

/// Why a cell did not run.
#[derive(Debug)]
pub(crate) enum CellError {
    /// The adapter lacks a feature, or one of its limits is too small.
    Unsupported(String),
    /// Anything else.
    Failed(String),
}

impl From<RenderError> for CellError {
    fn from(e: RenderError) -> Self {
        match e {
            RenderError::Unsupported(_) | RenderError::TooBig { .. } => {
                CellError::Unsupported(e.to_string())
            }
            e => CellError::Failed(e.to_string()),
        }
    }
}

impl From<CpuSkinnedError> for CellError {
    fn from(e: CpuSkinnedError) -> Self {
        match e {
            CpuSkinnedError::Render(e) => e.into(),
            e => CellError::Failed(e.to_string()),
        }
    }
}

/// The `layered` mode's layer on every instance: the clip after its own,
/// at weight 0.5 over every bone (the pre-pass's dearest case for one
/// layer).
fn add_layers(crowd: &mut Crowd, model: throng_crowd::crowd::ModelId) -> Result<(), CrowdError> {
    let clips = crowd.model(model)?.clips.len();
    let ids: Vec<InstanceId> = crowd.ids().collect();
    for id in ids {
        let clip = crowd
            .state(id)?
            .current
            .map_or(0, |(c, _)| (c + 1) % clips.max(1));
        let layer = throng_crowd::crowd::Layer {
            weight: 0.5,
            ..throng_crowd::crowd::Layer::new(clip)
        };
        crowd.set_layers(id, &[layer])?;
    }
    Ok(())
}

/// What every cell shares.
pub(crate) struct Bench<'a> {
    pub(crate) plan: &'a Plan,
    pub(crate) gpu: &'a Gpu,
    pub(crate) handle: &'a ModelHandle,
    pub(crate) gpu_model: &'a GpuModel,
    /// The model dressed in the demo palette, for `varied` cells.
    pub(crate) dressed: Option<(&'a ModelHandle, &'a GpuModel)>,
    /// The model worn as outfits, for the `outfits` cells.
    pub(crate) outfitted: Option<(&'a ModelHandle, &'a GpuModel)>,
    pub(crate) skin: Option<&'a CpuSkinnedModel>,
    pub(crate) target: &'a Offscreen,
}

/// A cell's fresh crowd and what draws it.
struct Grid<'a> {
    /// The grid's instances.
    crowd: Crowd,
    /// The model's id in `crowd`.
    id: ModelId,
    /// The grid's bounds, which the camera frames and the walkers keep to.
    bounds: Aabb,
    /// The GPU model drawn (the dressed one for `varied`).
    gpu_model: &'a GpuModel,
}

/// What a cell's measured frames gave.
struct Measured {
    /// The measured frames' times.
    samples: Vec<Sample>,
    /// The last frame's stats (warm-up or measured).
    last: FrameStats,
    /// The longest pose-cache fill of any frame, milliseconds.
    fill_ms: f64,
}

impl<'a> Bench<'a> {
    /// Runs one (mode, instances) cell on a fresh grid.
    pub(crate) fn run_cell(&self, mode: Mode, n: u32, occlusion: bool) -> Result<Cell, CellError> {
        let Bench {
            plan, gpu, target, ..
        } = *self;
        let Grid {
            mut crowd,
            id,
            bounds,
            gpu_model,
        } = self.grid(mode, n)?;
        let aspect = target.size.0 as f32 / target.size.1 as f32;
        let camera = plan.camera.camera(&bounds, aspect);
        // Shadows off unless asked for: the CPU-skinned baseline has no
        // shadow pass, and the default comparison is of skinning and drawing,
        // not of lighting.
        if plan.shadows && mode == Mode::CpuSkinned {
            return Err(CellError::Unsupported(
                "the CPU-skinned baseline has no shadow pass".into(),
            ));
        }
        let mut drawer = self.drawer(mode, base_options(plan, occlusion), &crowd)?;
        let mut changes = Changes::new(&crowd, plan.changing_percent)?;
        let mut walkers = Walkers::new(&mut crowd, id, &bounds, plan.walking_percent)
            .map_err(|e| CellError::Failed(e.to_string()))?;
        if plan.terrain {
            lay_terrain(&mut crowd, &bounds)?;
        }
        if plan.foot_ik > 0 {
            crowd.foot_ik_nearest(&camera, plan.foot_ik as usize);
        }
        let measured = measure(plan, &mut crowd, |crowd: &mut Crowd| {
            drawer.frame(
                gpu,
                crowd,
                target,
                &camera,
                gpu_model,
                &mut changes,
                &mut walkers,
            )
        })?;
        Ok(measured.cell(mode, n, occlusion, drawer.path()))
    }

    /// A fresh grid of `n` instances; for `varied` the dressed model, each
    /// instance a palette row and size and no tint; for `layered` a layer
    /// over every instance; for the outfits modes the outfitted model,
    /// instance `i` wearing outfit `i` modulo their number.
    fn grid(&self, mode: Mode, n: u32) -> Result<Grid<'a>, CellError> {
        let outfits = matches!(mode, Mode::Outfits | Mode::OutfitsShaded);
        let (handle, gpu_model, variety) = match (mode, self.dressed, self.outfitted) {
            (Mode::Varied, Some((h, g)), _) => (h, g, Some(demo_variety(VARIETY_SEED, Vec::new()))),
            (_, _, Some((h, g))) if outfits => (h, g, None),
            _ => (self.handle, self.gpu_model, None),
        };
        let mut crowd = Crowd::new();
        let id = crowd.add_model(handle);
        let bounds = spawn_grid(
            &mut crowd,
            id,
            &GridOptions {
                count: n,
                tints: variety.is_none(),
                variety,
                ..GridOptions::default()
            },
        )
        .map_err(|e| CellError::Failed(e.to_string()))?;
        if mode == Mode::Layered {
            add_layers(&mut crowd, id).map_err(|e| CellError::Failed(e.to_string()))?;
        }
        if outfits {
            let ids: Vec<InstanceId> = crowd.dense_ids().collect();
            wear_outfits(&mut crowd, &ids, std::slice::from_ref(handle))
                .map_err(|e| CellError::Failed(e.to_string()))?;
        }
        Ok(Grid {
            crowd,
            id,
            bounds,
            gpu_model,
        })
    }

    /// The drawer of `mode`: a renderer on the mode's path with `base` as
    /// the mode changes it, or the CPU-skinned baseline with the crowd's
    /// instances and tints.
    fn drawer(
        &self,
        mode: Mode,
        base: RendererOptions,
        crowd: &Crowd,
    ) -> Result<Drawer<'a>, CellError> {
        let Bench {
            plan, gpu, skin, ..
        } = *self;
        // Each baked mode: the base options with its path and what it
        // changes of them.
        let options = |path, change: &dyn Fn(&mut RendererOptions)| {
            let mut o = RendererOptions {
                path,
                ..base.clone()
            };
            change(&mut o);
            o
        };
        let baked = |options| -> Result<Drawer, CellError> {
            Ok(Drawer::Baked(Box::new(Renderer::headless(gpu, options)?)))
        };
        let budget = plan
            .pose_cache_budget
            .unwrap_or(PoseCacheOptions::DEFAULT_BUDGET);
        Ok(match mode {
            Mode::GpuDriven | Mode::Varied | Mode::Outfits => {
                baked(options(PathChoice::GpuDriven, &|_| {}))?
            }
            Mode::OutfitsShaded => baked(options(PathChoice::GpuDriven, &|o| {
                o.cull_hidden_parts = false
            }))?,
            Mode::Lambert => baked(options(PathChoice::GpuDriven, &|o| {
                o.lighting.shading = Shading::Lambert
            }))?,
            Mode::PoseCache => baked(options(PathChoice::GpuDriven, &|o| {
                o.pose_cache = Some(PoseCacheOptions { budget })
            }))?,
            Mode::Baked => baked(options(PathChoice::Packaged, &|_| {}))?,
            Mode::BakedUnbounded | Mode::Layered => baked(options(PathChoice::Unbounded, &|_| {}))?,
            Mode::Static => baked(options(PathChoice::Packaged, &|o| o.skinning = false))?,
            Mode::StaticGpuDriven => {
                baked(options(PathChoice::GpuDriven, &|o| o.skinning = false))?
            }
            Mode::CpuSkinned => {
                let skin = skin.expect("checked before the run");
                let renderer = CpuSkinnedRenderer::headless(gpu, base)?;
                let ids: Vec<InstanceId> = crowd.ids().collect();
                let tints = crowd_tints(crowd, &ids);
                Drawer::Cpu {
                    renderer: Box::new(renderer),
                    skin,
                    characters: Vec::with_capacity(ids.len()),
                    ids,
                    tints,
                }
            }
        })
    }
}

/// The options every mode of a cell starts from: the plan's MSAA, shadows
/// (if asked for, with its caster LOD scale and light occlusion) and
/// impostor choice, the cell's occlusion, and no pose cache.
fn base_options(plan: &Plan, occlusion: bool) -> RendererOptions {
    RendererOptions {
        sample_count: plan.msaa,
        shadows: plan
            .shadows
            .then(|| RendererOptions::default().shadows)
            .flatten()
            .map(|s| throng_render::ShadowOptions {
                caster_lod_scale: plan.caster_lod_scale,
                occlusion: plan.shadow_occlusion,
                ..s
            }),
        // Only `pose-cache` measures the cache.
        pose_cache: None,
        occlusion,
        impostor_one_view_size: plan.impostor_one_view_size,
        ..RendererOptions::default()
    }
}

/// Draws the plan's warm-up frames, then its measured ones (stopping
/// after `max_seconds` once enough are measured), with `frame`.
fn measure<F>(plan: &Plan, crowd: &mut Crowd, mut frame: F) -> Result<Measured, CellError>
where
    F: FnMut(&mut Crowd) -> Result<(FrameStats, Sample), CellError>,
{
    let mut last = FrameStats::default();
    let mut fill_ms = 0f64;
    for _ in 0..plan.warmup {
        last = frame(crowd)?.0;
        fill_ms = fill_ms.max(last.pose_fill_ms);
    }
    let mut samples = Vec::with_capacity(plan.frames as usize);
    let started = Instant::now();
    for _ in 0..plan.frames {
        let (stats, sample) = frame(crowd)?;
        last = stats;
        fill_ms = fill_ms.max(last.pose_fill_ms);
        samples.push(sample);
        if plan
            .max_seconds
            .is_some_and(|s| started.elapsed().as_secs_f64() > s)
            && samples.len() >= MIN_MEASURED_FRAMES
        {
            break;
        }
    }
    Ok(Measured {
        samples,
        last,
        fill_ms,
    })
}

impl Measured {
    /// The cell's row: the last frame's counts and the spreads of the
    /// measured frames' times (GPU time from timestamps where every frame
    /// has one, else the queue wait).
    fn cell(self, mode: Mode, n: u32, occlusion: bool, path: String) -> Cell {
        let Measured {
            samples,
            last,
            fill_ms,
        } = self;
        let cpu: Vec<f64> = samples.iter().map(|s| s.cpu).collect();
        let submit: Vec<f64> = samples.iter().map(|s| s.submit).collect();
        let prepare: Vec<f64> = samples.iter().map(|s| s.cpu - s.submit).collect();
        let wait: Vec<f64> = samples.iter().map(|s| s.wait).collect();
        let frame: Vec<f64> = samples.iter().map(|s| s.cpu + s.wait).collect();
        let timestamps: Option<Vec<f64>> = samples.iter().map(|s| s.gpu).collect();
        let cull: Option<Vec<f64>> = samples.iter().map(|s| s.cull).collect();
        let pass_gpu_ms = pass_spreads(&samples);
        let (gpu_ms, gpu_source) = match timestamps {
            Some(t) => (Spread::of(&t), "timestamp"),
            None => (Spread::of(&wait), "queue-wall"),
        };
        let frame_ms = Spread::of(&frame);
        Cell {
            mode,
            instances: n,
            occlusion,
            status: "ok",
            reason: None,
            path: Some(path),
            visible: Some(last.visible),
            occluded: Some(last.occluded),
            shadow_casters: Some(last.shadow_casters + last.shadow_occluded),
            shadow_occluded: Some(last.shadow_occluded),
            draws: Some(last.draws),
            packages: Some(last.packages),
            triangles: Some(last.triangles),
            vertices: Some(last.vertices),
            impostors: Some(last.impostors),
            upload_bytes: Some(last.record_bytes),
            frames_measured: Some(samples.len()),
            cpu_ms: Some(Spread::of(&cpu)),
            prepare_ms: Some(Spread::of(&prepare)),
            submit_ms: Some(Spread::of(&submit)),
            gpu_ms: Some(gpu_ms),
            gpu_source: Some(gpu_source),
            cull_gpu_ms: cull.map(|c| Spread::of(&c)),
            pass_gpu_ms,
            queue_wait_ms: Some(Spread::of(&wait)),
            cached_poses: Some(last.cached_poses),
            pose_cache_bytes: Some(last.pose_cache_bytes),
            pose_fill_ms: Some(fill_ms),
            pose_fallback_draws: Some(last.pose_fallback_draws),
            fps: Some(1e3 / frame_ms.median),
            frame_ms: Some(frame_ms),
        }
    }
}

/// Per pass named in the samples, in the order first met: its GPU
/// milliseconds over the frames that timed it (0 in a frame that timed
/// others but not it).
fn pass_spreads(samples: &[Sample]) -> Vec<PassSpread> {
    let mut names: Vec<&'static str> = Vec::new();
    for s in samples {
        for (n, _) in &s.passes {
            if !names.contains(n) {
                names.push(n);
            }
        }
    }
    let timed: Vec<&Sample> = samples.iter().filter(|s| !s.passes.is_empty()).collect();
    names
        .into_iter()
        .map(|name| {
            let ms: Vec<f64> = timed
                .iter()
                .map(|s| s.passes.iter().find(|p| p.0 == name).map_or(0.0, |p| p.1))
                .collect();
            PassSpread {
                pass: name,
                ms: Spread::of(&ms),
            }
        })
        .collect()
}

/// Tints of the crowd's instances, in `ids` order, read from an unculled draw
/// list (single model: records follow instance order). Falls back to white
/// if the records cannot be matched to the ids.
fn crowd_tints(crowd: &Crowd, ids: &[InstanceId]) -> Vec<u32> {
    let mut list = DrawList::default();
    crowd.build_draw_list(None, &mut list);
    let matches = list.records.len() == ids.len()
        && ids.iter().zip(&list.records).all(|(id, r)| {
            crowd.state(*id).is_ok_and(|s| {
                mat4_to_rows(&s.world_from_model).map(|v| v.to_array()) == r.world_from_model
            })
        });
    if matches {
        list.records.iter().map(|r| r.tint).collect()
    } else {
        vec![pack_tint(glam::Vec4::ONE); ids.len()]
    }
}

/// The demo's terrain around the grid of `bounds` as the crowd's ground
/// (the model's length the unit of its heights).
fn lay_terrain(crowd: &mut Crowd, bounds: &throng_core::math::Aabb) -> Result<(), CellError> {
    let body = crowd
        .models()
        .next()
        .map(|m| {
            let b = m.model().bounds;
            (b.max - b.min).max_element()
        })
        .unwrap_or(1.0);
    let centre = bounds.center();
    let half = (bounds.max - bounds.min).max_element() * 0.6 + body;
    let centre = glam::Vec2::new(centre.x, centre.z);
    let align = throng_core::ground::GroundAlign::Upright;
    throng_demo::terrain::lay_demo_ground(crowd, centre, half, body, align)
        .map(|_| ())
        .map_err(|e| CellError::Failed(e.to_string()))
}
