//! The render world's Throng state and the frame's CPU work.
//!
//! Throng's `Renderer::prepare_draws` runs in Bevy's `ExtractSchedule`,
//! against the main world's crowds read in place: nothing is copied, the
//! crowd drawn is exactly the one the game's frame ended with, and the
//! renderer uploads only what the crowd's change log says changed, once a
//! frame for all cameras (their renderers share the crowds' GPU mirrors).
//! Each 3D camera gets its own Throng renderer, made for the camera's main
//! texture format (HDR or not) and MSAA, drawing with Bevy's reverse-Z
//! projection into Bevy's depth buffer. When the brightest directional
//! light casts shadows, the renderer receives them as `ThrongShadows`
//! says (Bevy's cascades, handed over later in the frame by
//! [`crate::cascades`], or Throng's own map), and the crowd is cast into
//! the cascades Bevy computed for the camera (Throng light views); a
//! camera with Bevy's prepasses gets the crowd there ([`crate::prepass`]). Models
//! are uploaded once, on Bevy's device. What each camera drew goes to the
//! main world's [`ThrongStats`].

use std::collections::HashMap;

use bevy::camera::{Camera, Camera3d, Exposure, Projection};
use bevy::core_pipeline::prepass::{
    DeferredPrepass, DepthPrepass, MotionVectorPrepass, NormalPrepass,
};
use bevy::ecs::query::ROQueryItem;
use bevy::ecs::system::SystemParam;
use bevy::light::{Cascades, DirectionalLight, DirectionalLightShadowMap, GlobalAmbientLight};
use bevy::pbr::DistanceFog;
use bevy::prelude::*;
use bevy::render::Extract;
use bevy::render::render_resource::TextureFormat;
use bevy::render::renderer::{RenderAdapter, RenderDevice, RenderQueue};
use throng_crowd::crowd::Crowd;
use throng_render::ShadowOptions;
use throng_render::{
    DepthConvention, GpuModel, LightView, LightViewTarget, Lighting, Renderer, RendererOptions,
};

use crate::convert::{self, Prepasses, prepass_target};
use crate::crowd::{ThrongCamera, ThrongCameras, ThrongCrowd, ThrongReceive, ThrongShadows};
use crate::stats::{Frame, ThrongStats};

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
    /// CPU time of the last extract's prepare (every camera), what the
    /// crowd costs the frame on the CPU while Bevy's extract holds the
    /// main world.
    pub prepare_time: std::time::Duration,
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

/// The camera query's data: the camera, where it is and how it sees,
/// whether it is marked for Throng, and which of Bevy's prepasses it has.
type CameraData = (
    Entity,
    &'static Camera,
    &'static GlobalTransform,
    Option<&'static Projection>,
    Option<&'static Exposure>,
    Option<&'static DistanceFog>,
    Has<ThrongCamera>,
    (
        Has<DepthPrepass>,
        Has<NormalPrepass>,
        Has<MotionVectorPrepass>,
        Has<DeferredPrepass>,
    ),
);

/// The directional light query's data: the light, where it is and its
/// cascades.
type LightData = (
    Entity,
    &'static DirectionalLight,
    &'static GlobalTransform,
    Option<&'static Cascades>,
);

/// What [`prepare_crowds`] reads of the main world, in place, during
/// Bevy's extract: the crowds, the 3D cameras, the directional lights, and
/// the resources that say how to light, shadow and report them.
#[derive(SystemParam)]
pub struct MainWorldInputs<'w, 's> {
    crowds: Extract<'w, 's, Query<'static, 'static, &'static ThrongCrowd>>,
    cameras: Extract<'w, 's, Query<'static, 'static, CameraData, With<Camera3d>>>,
    lights: Extract<'w, 's, Query<'static, 'static, LightData>>,
    shadow_choice: Extract<'w, 's, Option<Res<'static, ThrongShadows>>>,
    ambient: Extract<'w, 's, Option<Res<'static, GlobalAmbientLight>>>,
    shadow_map: Extract<'w, 's, Option<Res<'static, DirectionalLightShadowMap>>>,
    which: Extract<'w, 's, Option<Res<'static, ThrongCameras>>>,
    stats: Extract<'w, 's, Option<Res<'static, ThrongStats>>>,
}

/// What [`prepare_crowds`] holds of the render world: Throng's state and
/// Bevy's GPU (absent until Bevy has made its device).
#[derive(SystemParam)]
pub struct RenderWorldInputs<'w> {
    state: ResMut<'w, ThrongRenderState>,
    gpu: Option<(
        Res<'w, RenderAdapter>,
        Res<'w, RenderDevice>,
        Res<'w, RenderQueue>,
    )>,
}

/// Prepares every crowd for every active 3D camera (see the module docs).
pub fn prepare_crowds(main: MainWorldInputs, render: RenderWorldInputs) {
    let RenderWorldInputs { mut state, gpu } = render;
    // Bevy makes its device while the app starts: nothing to draw before.
    let Some((adapter, device, queue)) = gpu else {
        return;
    };
    let start = std::time::Instant::now();
    let state = &mut *state;
    for v in state.views.values_mut() {
        v.prepared = false;
    }
    let crowd_refs: Vec<&Crowd> = main.crowds.iter().map(|c| &c.crowd).collect();
    // No instance anywhere: nothing to prepare or draw (the views' items
    // come out of their phases; a crowd that fills again is synced from
    // its change log then).
    if crowd_refs.iter().all(|c| c.is_empty()) {
        state.prepare_time = start.elapsed();
        if let Some(stats) = main.stats.as_deref() {
            stats.set(Frame {
                prepare_time: state.prepare_time,
                ..Frame::default()
            });
        }
        return;
    }
    let gpu = BevyGpu {
        adapter: &adapter,
        device: device.wgpu_device(),
        queue: &queue,
    };
    upload_models(state, &gpu, &crowd_refs);
    let models: Vec<&GpuModel> = state.models.values().collect();
    let inputs = FrameInputs {
        gpu,
        crowds: &crowd_refs,
        models: &models,
        lights: FrameLights::new(&main),
        ambient: main.ambient.as_deref(),
        mirrors: &state.mirrors,
    };
    let mut out = FrameOutcome::default();
    let marked_only = main.which.as_deref() == Some(&ThrongCameras::Marked);
    for item in &main.cameras {
        let (entity, camera, .., marked, _) = item;
        if !camera.is_active || (marked_only && !marked) {
            continue;
        }
        out.seen.push(entity);
        // Its view's format is known from its first frame on.
        if let Some(&target) = state.targets.get(&entity) {
            prepare_camera(&mut state.views, &inputs, item, target, &mut out);
        }
    }
    finish_frame(state, &crowd_refs, out, start, main.stats.as_deref());
}

/// Bevy's GPU, as Throng's renderer takes it.
struct BevyGpu<'a> {
    adapter: &'a RenderAdapter,
    device: &'a throng_render::wgpu::Device,
    queue: &'a RenderQueue,
}

/// What the frame's directional lights ask of every camera: the brightest
/// light (the crowd's sun), where the crowd takes its shadows from, and
/// the cascades of the lights that cast shadows.
struct FrameLights<'a> {
    /// The brightest directional light and where it is.
    light: Option<(&'a DirectionalLight, &'a GlobalTransform)>,
    /// How the crowd casts and receives shadows (the default when the
    /// app set none).
    choice: ThrongShadows,
    /// Throng's own shadow map, when the crowd receives from it.
    shadows: Option<ShadowOptions>,
    /// Bevy's cascades' depth convention, when the crowd receives from
    /// them.
    cascades: Option<DepthConvention>,
    /// Every directional light that casts shadows, with its cascades, in
    /// the query's order.
    casters: Vec<(Entity, &'a Cascades)>,
}

impl<'a> FrameLights<'a> {
    /// The frame's lights as the main world has them.
    fn new(main: &'a MainWorldInputs) -> Self {
        let light = main
            .lights
            .iter()
            .map(|(_, l, t, _)| (l, t))
            .max_by(|a, b| a.0.illuminance.total_cmp(&b.0.illuminance));
        let choice = main.shadow_choice.as_deref().copied().unwrap_or_default();
        let shadowed = light.is_some_and(|(l, _)| l.shadow_maps_enabled);
        let shadows = convert::shadows(light, main.shadow_map.as_deref())
            .filter(|_| choice.receive == ThrongReceive::OwnMap);
        // Bevy's cascades are reverse Z.
        let cascades = (shadowed && choice.receive == ThrongReceive::BevyCascades)
            .then_some(DepthConvention::Reversed);
        let casters = main
            .lights
            .iter()
            .filter_map(|(e, l, _, c)| c.filter(|_| l.shadow_maps_enabled).map(|c| (e, c)))
            .collect();
        Self {
            light,
            choice,
            shadows,
            cascades,
            casters,
        }
    }
}

/// The frame's inputs every camera's renderer prepares from.
struct FrameInputs<'a> {
    gpu: BevyGpu<'a>,
    crowds: &'a [&'a Crowd],
    models: &'a [&'a GpuModel],
    lights: FrameLights<'a>,
    ambient: Option<&'a GlobalAmbientLight>,
    /// The crowds' GPU mirrors, shared by every camera's renderer.
    mirrors: &'a throng_render::mirror::SharedMirrors,
}

/// What preparing the cameras gathers for the frame's end.
#[derive(Default)]
struct FrameOutcome {
    /// The figures reported to [`ThrongStats`].
    frame: Frame,
    /// The active cameras drawn to (renderers of others are dropped).
    seen: Vec<Entity>,
    /// What failed, logged once each at the frame's end.
    failures: Vec<String>,
    /// The crowds' mean position, worked out once a frame for every camera
    /// with blended draws.
    mean: Option<Vec3>,
}

/// Uploads the models the crowds use that are not on the GPU yet (once
/// each, when a crowd first uses them); a model that fails is logged and
/// tried again next frame.
fn upload_models(state: &mut ThrongRenderState, gpu: &BevyGpu, crowds: &[&Crowd]) {
    for c in crowds {
        for handle in c.models() {
            if state.models.contains_key(&handle.key()) {
                continue;
            }
            match GpuModel::upload(gpu.device, gpu.queue, handle) {
                Ok(m) => {
                    state.models.insert(handle.key(), m);
                }
                Err(e) => state.warn_once(format!("uploading {}: {e}", handle.model().name)),
            }
        }
    }
}

/// Prepares one active camera whose view `target` (format, MSAA samples)
/// is known: its renderer (made anew when it no longer fits), its light
/// and prepass, the crowd's draws, and the crowd cast into its cascades.
fn prepare_camera(
    views: &mut HashMap<Entity, ViewRenderer>,
    inputs: &FrameInputs,
    item: ROQueryItem<'_, '_, CameraData>,
    (format, samples): (TextureFormat, u32),
    out: &mut FrameOutcome,
) {
    let (entity, camera, transform, projection, exposure, fog, _, passes) = item;
    let lights = &inputs.lights;
    let lighting = convert::lighting(lights.light, inputs.ambient, exposure, fog);
    let fits = views.get(&entity).is_some_and(|v| {
        let o = v.renderer.options();
        v.format == format
            && v.samples == samples
            && o.shadows == lights.shadows
            && o.cascades == lights.cascades
    });
    if !fits {
        match view_renderer(views, inputs, format, samples, lighting) {
            Ok(view) => {
                views.insert(entity, view);
            }
            Err(e) => {
                out.failures
                    .push(format!("a renderer for camera {entity}: {e}"));
                views.remove(&entity);
                return;
            }
        }
    }
    let Some(view) = views.get_mut(&entity) else {
        return;
    };
    view.renderer.set_lighting(lighting, wgpu_black());
    let (depth, normal, motion_vectors, deferred) = passes;
    let passes = Prepasses {
        depth,
        normal,
        motion_vectors,
        deferred,
    };
    if let Err(e) = view.renderer.set_prepass(prepass_target(passes, samples)) {
        out.failures
            .push(format!("the crowd in camera {entity}'s prepass: {e}"));
    }
    let cam = convert::camera(camera, transform, projection);
    prepare_draws(view, entity, &cam, inputs, out);
    // The crowd cast into this camera's cascades of every directional
    // light that casts shadows.
    view.light_views.clear();
    if view.prepared && lights.choice.cast_into_bevy {
        cast_into_cascades(view, entity, inputs, out);
    }
}

/// A new renderer for a camera's view, sharing the crowds' mirrors and,
/// with a renderer of the same path in `views`, its pose cache.
fn view_renderer(
    views: &HashMap<Entity, ViewRenderer>,
    inputs: &FrameInputs,
    format: TextureFormat,
    samples: u32,
    lighting: Lighting,
) -> Result<ViewRenderer, throng_render::RenderError> {
    let options = RendererOptions {
        cascades: inputs.lights.cascades,
        ..renderer_options(samples, lighting, inputs.lights.shadows)
    };
    let gpu = &inputs.gpu;
    let mut renderer = Renderer::new(gpu.adapter, gpu.device, gpu.queue, format, options)?;
    // Off the GPU-driven path there is no mirror to share; a renderer of
    // another path or pose-cache setup keeps a cache of its own.
    renderer.share_mirrors(inputs.mirrors);
    if let Some(other) = views
        .values()
        .find(|v| v.renderer.path() == renderer.path())
    {
        renderer.share_pose_cache_with(&other.renderer);
    }
    Ok(ViewRenderer {
        renderer,
        format,
        samples,
        prepared: false,
        blend_center: None,
        light_views: Vec::new(),
    })
}

/// Prepares the crowds' draws for one camera and keeps its figures; a view
/// with alpha-blended draws gets the crowds' mean position, where they
/// sort among Bevy's transparent items.
fn prepare_draws(
    view: &mut ViewRenderer,
    entity: Entity,
    cam: &throng_crowd::camera::Camera,
    inputs: &FrameInputs,
    out: &mut FrameOutcome,
) {
    match view
        .renderer
        .prepare_draws(cam, inputs.crowds, inputs.models)
    {
        Ok(s) => {
            view.prepared = true;
            view.blend_center = view
                .renderer
                .has_blended()
                .then(|| *out.mean.get_or_insert_with(|| mean_position(inputs.crowds)));
            out.frame.cameras.insert(entity, s);
        }
        Err(e) => out
            .failures
            .push(format!("preparing the crowd for camera {entity}: {e}")),
    }
}

/// Casts the crowd into camera `entity`'s Bevy cascades of every light that
/// casts shadows (Throng light views), and notes which cascades they are
/// in `view.light_views` (none when the cast fails).
fn cast_into_cascades(
    view: &mut ViewRenderer,
    entity: Entity,
    inputs: &FrameInputs,
    out: &mut FrameOutcome,
) {
    let mut light_views = Vec::new();
    for &(light_entity, cascades) in &inputs.lights.casters {
        let of_camera = cascades.cascades.get(&entity).into_iter().flatten();
        for (i, c) in of_camera.take(MAX_CASCADES_PER_LIGHT).enumerate() {
            view.light_views.push((light_entity, i as u32));
            light_views.push(LightView {
                clip_from_world: convert::mat4(c.clip_from_world),
            });
        }
    }
    if light_views.is_empty() {
        return;
    }
    let target = LightViewTarget::default();
    let cast =
        view.renderer
            .prepare_light_views(&target, &light_views, inputs.crowds, inputs.models);
    match cast {
        Ok(s) => {
            out.frame.cascades.insert(entity, s);
        }
        Err(e) => {
            view.light_views.clear();
            out.failures.push(format!(
                "casting the crowd into Bevy's cascades for camera {entity}: {e}"
            ));
        }
    }
}

/// Ends the frame: drops the renderers and targets of cameras no longer
/// drawn to and the mirrors of crowds gone, reports the frame's figures
/// (GPU bytes held, each pose cache once, and the prepare's CPU time) and
/// logs its failures, each once.
fn finish_frame(
    state: &mut ThrongRenderState,
    crowds: &[&Crowd],
    out: FrameOutcome,
    start: std::time::Instant,
    stats: Option<&ThrongStats>,
) {
    let FrameOutcome {
        mut frame,
        seen,
        failures,
        ..
    } = out;
    state.views.retain(|e, _| seen.contains(e));
    state.targets.retain(|e, _| seen.contains(e));
    let identities: Vec<u64> = crowds.iter().map(|c| c.identity()).collect();
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
    state.prepare_time = start.elapsed();
    frame.prepare_time = state.prepare_time;
    if let Some(stats) = stats {
        stats.set(frame);
    }
    for f in failures {
        state.warn_once(f);
    }
}

/// The mean position of the crowds' instances (where their transforms put
/// them; the origin for empty crowds).
fn mean_position(crowds: &[&Crowd]) -> Vec3 {
    let (mut sum, mut n) = (bevy::math::DVec3::ZERO, 0usize);
    for c in crowds {
        for t in c.gpu_transforms().iter().take(c.len()) {
            sum += bevy::math::DVec3::new(
                t.rows[0][3] as f64,
                t.rows[1][3] as f64,
                t.rows[2][3] as f64,
            );
            n += 1;
        }
    }
    if n == 0 {
        Vec3::ZERO
    } else {
        (sum / n as f64).as_vec3()
    }
}

/// Bevy's most cascades a directional light has (`bevy_pbr`'s
/// `MAX_CASCADES_PER_LIGHT` off WebGL2).
const MAX_CASCADES_PER_LIGHT: usize = 4;

fn wgpu_black() -> throng_render::wgpu::Color {
    throng_render::wgpu::Color::BLACK
}
