//! The render world's Throng state and the frame's preparation, in
//! Bevy's `Render` schedule, on the render thread when rendering is
//! pipelined: the main world has moved on to the next frame.
//!
//! It draws from what [`crate::extract`] copied: the crowds' replicas
//! (kept equal to the main world's crowds by their change logs) and the
//! frame's cameras, lights and settings. Systems of one concern each, in
//! this order:
//! - [`upload_models`] (`PrepareAssets`): models new to the crowds, once
//!   each, on Bevy's device;
//! - [`fit_views`] (`PrepareViews`, as the next two): each 3D camera's
//!   Throng renderer, made for the camera's main texture format (HDR or
//!   not) and MSAA, drawing with Bevy's reverse-Z projection into Bevy's
//!   depth buffer, lit by the brightest directional light and receiving
//!   its shadows as `ThrongShadows` says (Bevy's cascades, handed over in
//!   `Queue` by [`crate::cascades`], or Throng's own map), with the
//!   camera's prepass ([`crate::prepass`]);
//! - [`prepare_draws`]: the crowds' draws for each camera; the renderer
//!   uploads only what the replicas' change logs say changed, once a frame
//!   for all cameras (their renderers share the crowds' GPU mirrors);
//! - [`cast_cascades`]: the crowd cast into the cascades Bevy computed for
//!   each camera (Throng light views);
//! - [`report_frame`] (`Prepare`): renderers of cameras gone dropped, and
//!   what each camera drew sent to the main world's [`crate::ThrongStats`].
//!
//! Each system's per-camera work is in `camera.rs`.
//!
//! Bevy 0.20 queues phase items (`Queue`) before its `Prepare` set, and
//! Throng's items depend on what the frame prepared; so the crowd is
//! prepared in `PrepareAssets` and `PrepareViews`, after Bevy's views and
//! light cascades exist and before anything is queued.

use std::collections::HashMap;

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use bevy::render::renderer::{RenderAdapter, RenderDevice, RenderQueue};
use throng_crowd::crowd::Crowd;
use throng_render::ShadowOptions;
use throng_render::{DepthConvention, GpuModel, Lighting, Renderer, RendererOptions};

use crate::extract::{ThrongFrame, ThrongReplicas};
use crate::stats::Frame;

mod camera;

use camera::{
    BevyGpu, FrameLights, FrameOutcome, Scene, ViewFit, cast_into_cascades, fit_view,
    prepare_view_draws, upload,
};

/// One camera's renderer and what it was made for.
pub struct ViewRenderer {
    /// The renderer.
    pub renderer: Renderer,
    /// The colour format it draws into.
    pub format: TextureFormat,
    /// Its MSAA samples.
    pub samples: u32,
    /// It prepared draws this frame.
    pub prepared: bool,
    /// Where the crowds' alpha-blended draws sort among Bevy's transparent
    /// items this frame (`None`: the frame has none): the mean position of
    /// the crowds' instances.
    pub blend_center: Option<Vec3>,
    /// The Bevy cascades the crowd was cast for this frame, by light view
    /// of the renderer: the light's main entity and the cascade's index
    /// ([`crate::cascades`]).
    pub light_views: Vec<(Entity, u32)>,
}

/// The options of a camera's renderer: Bevy's depth convention (reverse
/// Z), the view's MSAA, and the mapped light and shadows.
pub fn renderer_options(
    samples: u32,
    lighting: Lighting,
    shadows: Option<ShadowOptions>,
) -> RendererOptions {
    RendererOptions {
        sample_count: samples,
        shadows,
        depth: DepthConvention::Reversed,
        lighting,
        ..RendererOptions::default()
    }
}

/// Throng's render-world state.
#[derive(Resource, Default)]
pub struct ThrongRenderState {
    /// Renderers by main-world camera.
    pub views: HashMap<Entity, ViewRenderer>,
    /// GPU models by [`throng_crowd::crowd::ModelHandle::key`].
    pub models: HashMap<u64, GpuModel>,
    /// The crowds' GPU mirrors, shared by every camera's renderer: a crowd
    /// is uploaded once a frame, by the first camera to prepare, and held
    /// once, however many cameras draw it.
    pub mirrors: throng_render::mirror::SharedMirrors,
    /// What each camera's view was last frame in the render world: its
    /// main texture format and MSAA samples.
    pub targets: HashMap<Entity, (TextureFormat, u32)>,
    /// CPU time of the last frame's preparation (every camera), in the
    /// render world's `Render` schedule ([`crate::extract`]'s part, while
    /// the extract holds the main world, is [`Frame::extract_time`]).
    pub prepare_time: std::time::Duration,
    /// Crowds only one camera draws, by crowd entity: a steered crowd,
    /// drawn by the camera whose renderer simulates it (set by
    /// [`crate::steer::gpu`]).
    pub exclusive: HashMap<Entity, Entity>,
    /// Per steered crowd, the generation of the flow field its simulation
    /// steers by (set by [`crate::steer::gpu`]).
    pub steered_fields: HashMap<Entity, u64>,
    /// Errors already logged (each once).
    logged: std::collections::HashSet<String>,
}

impl ThrongRenderState {
    pub(crate) fn warn_once(&mut self, what: String) {
        if self.logged.insert(what.clone()) {
            eprintln!("throng-bevy: {what}");
        }
    }
}

/// Bevy's GPU, as the render world holds it.
#[derive(SystemParam)]
pub struct Gpu<'w> {
    adapter: Res<'w, RenderAdapter>,
    device: Res<'w, RenderDevice>,
    queue: Res<'w, RenderQueue>,
}

impl Gpu<'_> {
    fn get(&self) -> BevyGpu<'_> {
        BevyGpu {
            adapter: &self.adapter,
            device: self.device.wgpu_device(),
            queue: &self.queue,
        }
    }
}

/// What the frame's prepare systems gather, from [`upload_models`] to
/// [`report_frame`].
#[derive(Resource, Default)]
pub struct PreparedFrame {
    /// The figures and failures so far.
    out: FrameOutcome,
    /// CPU time so far.
    time: std::time::Duration,
    /// No crowd holds an instance: nothing is prepared or drawn (the
    /// views' items come out of their phases; a crowd that fills again is
    /// synced from its change log then).
    empty: bool,
}

/// Starts the frame: no view has prepared yet; uploads the models the
/// crowds use that are not on the GPU yet (once each, when a crowd first
/// uses them; a model that fails is logged and tried again next frame).
pub fn upload_models(
    mut state: ResMut<ThrongRenderState>,
    mut prepared: ResMut<PreparedFrame>,
    replicas: Res<ThrongReplicas>,
    gpu: Gpu,
) {
    let start = std::time::Instant::now();
    for v in state.views.values_mut() {
        v.prepared = false;
    }
    *prepared = PreparedFrame {
        empty: replicas.all_empty(),
        ..PreparedFrame::default()
    };
    if !prepared.empty {
        let crowds: Vec<&Crowd> = replicas.crowds().collect();
        upload(&mut state, &gpu.get(), &crowds);
    }
    prepared.time += start.elapsed();
}

/// Each camera's renderer, made anew when it no longer fits the view's
/// format, MSAA or shadows, with its light and prepass set.
pub fn fit_views(
    mut state: ResMut<ThrongRenderState>,
    mut prepared: ResMut<PreparedFrame>,
    frame: Res<ThrongFrame>,
    gpu: Gpu,
) {
    if prepared.empty {
        return;
    }
    let start = std::time::Instant::now();
    let state = &mut *state;
    let lights = FrameLights::new(&frame);
    let fit = ViewFit {
        gpu: gpu.get(),
        lights: &lights,
        ambient: frame.ambient.as_ref(),
        mirrors: &state.mirrors,
    };
    let out = &mut prepared.out;
    for camera in &frame.cameras {
        out.seen.push(camera.entity);
        // Its view's format is known from its first frame on.
        if let Some(&target) = state.targets.get(&camera.entity) {
            fit_view(&mut state.views, &fit, camera, target, out);
        }
    }
    prepared.time += start.elapsed();
}

/// The crowds' draws prepared for each camera's renderer
/// (`Renderer::prepare_draws`: the mirrors' uploads, once a frame for all
/// cameras, the culls' set-up, the pose cache).
pub fn prepare_draws(
    mut state: ResMut<ThrongRenderState>,
    mut prepared: ResMut<PreparedFrame>,
    frame: Res<ThrongFrame>,
    replicas: Res<ThrongReplicas>,
) {
    if prepared.empty {
        return;
    }
    let start = std::time::Instant::now();
    let state = &mut *state;
    let models: Vec<&GpuModel> = state.models.values().collect();
    for camera in &frame.cameras {
        if let Some(view) = state.views.get_mut(&camera.entity) {
            let crowds = drawn_by(&state.exclusive, camera.entity, &replicas);
            let scene = Scene {
                crowds: &crowds,
                models: &models,
            };
            prepare_view_draws(view, camera, &scene, &mut prepared.out);
        }
    }
    prepared.time += start.elapsed();
}

/// The crowds camera `camera` draws, in the replicas' order: every crowd
/// but those another camera draws alone (`exclusive`: a steered crowd,
/// drawn by the camera whose renderer simulates it).
fn drawn_by<'r>(
    exclusive: &HashMap<Entity, Entity>,
    camera: Entity,
    replicas: &'r ThrongReplicas,
) -> Vec<&'r Crowd> {
    replicas
        .entities()
        .zip(replicas.crowds())
        .filter(|&(e, _)| exclusive.get(&e).is_none_or(|&c| c == camera))
        .map(|(_, c)| c)
        .collect()
}

/// The crowd cast into each camera's cascades of every directional light
/// that casts shadows, where [`crate::ThrongShadows::cast_into_bevy`] asks.
pub fn cast_cascades(
    mut state: ResMut<ThrongRenderState>,
    mut prepared: ResMut<PreparedFrame>,
    frame: Res<ThrongFrame>,
    replicas: Res<ThrongReplicas>,
) {
    let start = std::time::Instant::now();
    let state = &mut *state;
    for v in state.views.values_mut() {
        v.light_views.clear();
    }
    if prepared.empty || !frame.shadows.cast_into_bevy {
        return;
    }
    let models: Vec<&GpuModel> = state.models.values().collect();
    let casters = FrameLights::new(&frame).casters;
    for camera in &frame.cameras {
        if let Some(view) = state.views.get_mut(&camera.entity).filter(|v| v.prepared) {
            let crowds = drawn_by(&state.exclusive, camera.entity, &replicas);
            let scene = Scene {
                crowds: &crowds,
                models: &models,
            };
            cast_into_cascades(view, camera.entity, &casters, &scene, &mut prepared.out);
        }
    }
    prepared.time += start.elapsed();
}

/// Ends the frame: drops the renderers and targets of cameras no longer
/// drawn to and the mirrors of crowds gone, reports the frame's figures
/// (GPU bytes held, each pose cache once, the extract's and the prepare's
/// CPU time) and logs its failures, each once.
pub fn report_frame(
    mut state: ResMut<ThrongRenderState>,
    mut prepared: ResMut<PreparedFrame>,
    replicas: Res<ThrongReplicas>,
    frame: Res<ThrongFrame>,
) {
    let start = std::time::Instant::now();
    let state = &mut *state;
    let PreparedFrame { out, time, empty } = std::mem::take(&mut *prepared);
    let extract_time = replicas.time + frame.time;
    let stats = frame.stats.as_ref();
    if empty {
        state.prepare_time = time + start.elapsed();
        if let Some(stats) = stats {
            stats.set(Frame {
                prepare_time: state.prepare_time,
                extract_time,
                extracted_instances: replicas.copied,
                ..Frame::default()
            });
        }
        return;
    }
    let FrameOutcome {
        mut frame,
        seen,
        failures,
        ..
    } = out;
    state.views.retain(|e, _| seen.contains(e));
    state.targets.retain(|e, _| seen.contains(e));
    let identities: Vec<u64> = replicas.crowds().map(Crowd::identity).collect();
    state.mirrors.retain(&identities);
    frame.mirror_bytes = state.mirrors.gpu_bytes()
        + state
            .views
            .values()
            .map(|v| v.renderer.mirror_gpu_bytes())
            .sum::<u64>();
    // Each pose cache once, however many renderers share it.
    let mut caches = HashMap::new();
    for (e, v) in &state.views {
        if let Some(s) = frame.cameras.get(e) {
            caches.insert(v.renderer.pose_cache_key(), s.pose_cache_bytes);
        }
    }
    frame.pose_cache_bytes = caches.values().sum();
    state.prepare_time = time + start.elapsed();
    frame.prepare_time = state.prepare_time;
    frame.extract_time = extract_time;
    frame.extracted_instances = replicas.copied;
    frame.steered_fields = state.steered_fields.clone();
    if let Some(stats) = stats {
        stats.set(frame);
    }
    for f in failures {
        state.warn_once(f);
    }
}
