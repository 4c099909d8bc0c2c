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
use bevy::light::{Cascades, DirectionalLight, DirectionalLightShadowMap, GlobalAmbientLight};
use bevy::pbr::DistanceFog;
use bevy::prelude::*;
use bevy::render::Extract;
use bevy::render::render_resource::TextureFormat;
use bevy::render::renderer::{RenderAdapter, RenderDevice, RenderQueue};
use throng_render::renderer::ShadowOptions;
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

/// Prepares every crowd for every active 3D camera (see the module docs).
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn prepare_crowds(
    crowds: Extract<Query<&ThrongCrowd>>,
    cameras: Extract<
        Query<
            (
                Entity,
                &Camera,
                &GlobalTransform,
                Option<&Projection>,
                Option<&Exposure>,
                Option<&DistanceFog>,
                Has<ThrongCamera>,
                (
                    Has<DepthPrepass>,
                    Has<NormalPrepass>,
                    Has<MotionVectorPrepass>,
                    Has<DeferredPrepass>,
                ),
            ),
            With<Camera3d>,
        >,
    >,
    lights: Extract<
        Query<(
            Entity,
            &DirectionalLight,
            &GlobalTransform,
            Option<&Cascades>,
        )>,
    >,
    shadow_choice: Extract<Option<Res<ThrongShadows>>>,
    ambient: Extract<Option<Res<GlobalAmbientLight>>>,
    shadow_map: Extract<Option<Res<DirectionalLightShadowMap>>>,
    which: Extract<Option<Res<ThrongCameras>>>,
    stats: Extract<Option<Res<ThrongStats>>>,
    mut state: ResMut<ThrongRenderState>,
    gpu: Option<(Res<RenderAdapter>, Res<RenderDevice>, Res<RenderQueue>)>,
) {
    // Bevy makes its device while the app starts: nothing to draw before.
    let Some((adapter, device, queue)) = gpu else {
        return;
    };
    let start = std::time::Instant::now();
    let state = &mut *state;
    for v in state.views.values_mut() {
        v.prepared = false;
    }
    let crowd_refs: Vec<&throng_crowd::crowd::Crowd> = crowds.iter().map(|c| &c.crowd).collect();
    // No instance anywhere: nothing to prepare or draw (the views' items
    // come out of their phases; a crowd that fills again is synced from
    // its change log then).
    if crowd_refs.iter().all(|c| c.is_empty()) {
        state.prepare_time = start.elapsed();
        if let Some(stats) = stats.as_deref() {
            stats.set(Frame {
                prepare_time: state.prepare_time,
                ..Frame::default()
            });
        }
        return;
    }
    let device = device.wgpu_device();
    // Models: uploaded once, when a crowd first uses them.
    for c in &crowd_refs {
        for handle in c.models() {
            if state.models.contains_key(&handle.key()) {
                continue;
            }
            match GpuModel::upload(device, &queue, handle) {
                Ok(m) => {
                    state.models.insert(handle.key(), m);
                }
                Err(e) => state.warn_once(format!("uploading {}: {e}", handle.model().name)),
            }
        }
    }
    let models: Vec<&GpuModel> = state.models.values().collect();
    let light = lights
        .iter()
        .map(|(_, l, t, _)| (l, t))
        .max_by(|a, b| a.0.illuminance.total_cmp(&b.0.illuminance));
    let choice = shadow_choice.as_deref().copied().unwrap_or_default();
    let shadowed = light.is_some_and(|(l, _)| l.shadow_maps_enabled);
    let shadows = convert::shadows(light, shadow_map.as_deref())
        .filter(|_| choice.receive == ThrongReceive::OwnMap);
    // Bevy's cascades are reverse Z.
    let cascades = (shadowed && choice.receive == ThrongReceive::BevyCascades)
        .then_some(DepthConvention::Reversed);
    let mut frame = Frame::default();
    let mut seen = Vec::new();
    let mut failures = Vec::new();
    let marked_only = which.as_deref() == Some(&ThrongCameras::Marked);
    // The crowds' mean position, worked out once a frame for every camera
    // with blended draws.
    let mut mean = None;
    for (entity, camera, transform, projection, exposure, fog, marked, passes) in &cameras {
        if !camera.is_active || (marked_only && !marked) {
            continue;
        }
        seen.push(entity);
        let Some(&(format, samples)) = state.targets.get(&entity) else {
            continue; // its view's format is known from its first frame on
        };
        let lighting = convert::lighting(light, ambient.as_deref(), exposure, fog);
        let fits = state.views.get(&entity).is_some_and(|v| {
            let o = v.renderer.options();
            v.format == format
                && v.samples == samples
                && o.shadows == shadows
                && o.cascades == cascades
        });
        if !fits {
            let options = RendererOptions {
                cascades,
                ..renderer_options(samples, lighting, shadows)
            };
            match Renderer::new(&adapter, device, &queue, format, options) {
                Ok(mut renderer) => {
                    // Off the GPU-driven path there is no mirror to share;
                    // a renderer of another path or pose-cache setup keeps
                    // a cache of its own.
                    renderer.share_mirrors(&state.mirrors);
                    if let Some(other) = state
                        .views
                        .values()
                        .find(|v| v.renderer.path() == renderer.path())
                    {
                        renderer.share_pose_cache_with(&other.renderer);
                    }
                    state.views.insert(
                        entity,
                        ViewRenderer {
                            renderer,
                            format,
                            samples,
                            prepared: false,
                            blend_center: None,
                            light_views: Vec::new(),
                        },
                    );
                }
                Err(e) => {
                    failures.push(format!("a renderer for camera {entity}: {e}"));
                    state.views.remove(&entity);
                    continue;
                }
            }
        }
        let Some(view) = state.views.get_mut(&entity) else {
            continue;
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
            failures.push(format!("the crowd in camera {entity}'s prepass: {e}"));
        }
        let cam = convert::camera(camera, transform, projection);
        match view.renderer.prepare_draws(&cam, &crowd_refs, &models) {
            Ok(s) => {
                view.prepared = true;
                view.blend_center = view
                    .renderer
                    .has_blended()
                    .then(|| *mean.get_or_insert_with(|| mean_position(&crowd_refs)));
                frame.cameras.insert(entity, s);
            }
            Err(e) => failures.push(format!("preparing the crowd for camera {entity}: {e}")),
        }
        // The crowd cast into this camera's cascades of every directional
        // light that casts shadows.
        view.light_views.clear();
        if view.prepared && choice.cast_into_bevy {
            let mut light_views = Vec::new();
            for (light_entity, l, _, cascades) in &lights {
                let Some(cascades) = cascades.filter(|_| l.shadow_maps_enabled) else {
                    continue;
                };
                let of_camera = cascades.cascades.get(&entity).into_iter().flatten();
                for (i, c) in of_camera.take(MAX_CASCADES_PER_LIGHT).enumerate() {
                    view.light_views.push((light_entity, i as u32));
                    light_views.push(LightView {
                        clip_from_world: convert::mat4(c.clip_from_world),
                    });
                }
            }
            if !light_views.is_empty() {
                let target = LightViewTarget::default();
                let cast =
                    view.renderer
                        .prepare_light_views(&target, &light_views, &crowd_refs, &models);
                match cast {
                    Ok(s) => {
                        frame.cascades.insert(entity, s);
                    }
                    Err(e) => {
                        view.light_views.clear();
                        failures.push(format!(
                            "casting the crowd into Bevy's cascades for camera {entity}: {e}"
                        ));
                    }
                }
            }
        }
    }
    state.views.retain(|e, _| seen.contains(e));
    state.targets.retain(|e, _| seen.contains(e));
    let identities: Vec<u64> = crowd_refs.iter().map(|c| c.identity()).collect();
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
    if let Some(stats) = stats.as_deref() {
        stats.set(frame);
    }
    for f in failures {
        state.warn_once(f);
    }
}

/// The mean position of the crowds' instances (where their transforms put
/// them; the origin for empty crowds).
fn mean_position(crowds: &[&throng_crowd::crowd::Crowd]) -> Vec3 {
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
