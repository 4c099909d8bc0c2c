//! One camera's share of the frame's preparation, for the systems in
//! [`super`]: its renderer fitted to its view (made anew when it no longer
//! fits, lit, its prepass set), the crowds' draws prepared for it, and the
//! crowd cast into its Bevy cascades; the frame's lights as every camera
//! needs them, and what preparing gathers for the frame's report.

use std::collections::HashMap;

use bevy::light::{Cascades, DirectionalLight, GlobalAmbientLight};
use bevy::prelude::*;
use bevy::render::render_resource::TextureFormat;
use bevy::render::renderer::RenderAdapter;
use bevy::render::renderer::RenderQueue;
use throng_crowd::crowd::Crowd;
use throng_render::ShadowOptions;
use throng_render::{
    DepthConvention, GpuModel, LightView, LightViewTarget, Lighting, Renderer, RendererOptions,
};

use super::{ThrongRenderState, ViewRenderer, renderer_options};
use crate::convert::{self, prepass_target};
use crate::crowd::ThrongReceive;
use crate::extract::{FrameCamera, ThrongFrame};
use crate::stats::Frame;

/// Bevy's GPU, as Throng's renderer takes it.
pub(super) struct BevyGpu<'a> {
    pub(super) adapter: &'a RenderAdapter,
    pub(super) device: &'a throng_render::wgpu::Device,
    pub(super) queue: &'a RenderQueue,
}

/// What the frame's directional lights ask of every camera: the brightest
/// light (the crowd's sun), where the crowd takes its shadows from, and
/// the cascades of the lights that cast shadows.
pub(super) struct FrameLights<'a> {
    /// The brightest directional light and where it is.
    pub(super) light: Option<(&'a DirectionalLight, &'a GlobalTransform)>,
    /// Throng's own shadow map, when the crowd receives from it.
    pub(super) shadows: Option<ShadowOptions>,
    /// Bevy's cascades' depth convention, when the crowd receives from
    /// them.
    pub(super) cascades: Option<DepthConvention>,
    /// Every directional light that casts shadows, with its cascades, in
    /// the query's order.
    pub(super) casters: Vec<(Entity, &'a Cascades)>,
}

impl<'a> FrameLights<'a> {
    /// The frame's lights as the extract found them.
    pub(super) fn new(frame: &'a ThrongFrame) -> Self {
        let light = frame
            .lights
            .iter()
            .map(|l| (&l.light, &l.transform))
            .max_by(|a, b| a.0.illuminance.total_cmp(&b.0.illuminance));
        let choice = frame.shadows;
        let shadowed = light.is_some_and(|(l, _)| l.shadow_maps_enabled);
        let shadows = convert::shadows(light, frame.shadow_map.as_ref())
            .filter(|_| choice.receive == ThrongReceive::OwnMap);
        // Bevy's cascades are reverse Z.
        let cascades = (shadowed && choice.receive == ThrongReceive::BevyCascades)
            .then_some(DepthConvention::Reversed);
        let casters = frame
            .lights
            .iter()
            .filter(|l| l.light.shadow_maps_enabled)
            .filter_map(|l| Some((l.entity, l.cascades.as_ref()?)))
            .collect();
        Self {
            light,
            shadows,
            cascades,
            casters,
        }
    }
}

/// What a camera's renderer is made and lit from.
pub(super) struct ViewFit<'a> {
    pub(super) gpu: BevyGpu<'a>,
    pub(super) lights: &'a FrameLights<'a>,
    pub(super) ambient: Option<&'a GlobalAmbientLight>,
    /// The crowds' GPU mirrors, shared by every camera's renderer.
    pub(super) mirrors: &'a throng_render::mirror::SharedMirrors,
}

/// What every camera's renderer draws: the crowds and their GPU models.
pub(super) struct Scene<'a> {
    pub(super) crowds: &'a [&'a Crowd],
    pub(super) models: &'a [&'a GpuModel],
}

/// What preparing the cameras gathers for the frame's end.
#[derive(Default)]
pub(super) struct FrameOutcome {
    /// The figures reported to [`crate::ThrongStats`].
    pub(super) frame: Frame,
    /// The active cameras drawn to (renderers of others are dropped).
    pub(super) seen: Vec<Entity>,
    /// What failed, logged once each at the frame's end.
    pub(super) failures: Vec<String>,
    /// The crowds' mean position, worked out once a frame for every camera
    /// with blended draws.
    pub(super) mean: Option<Vec3>,
}

/// Uploads the models the crowds use that are not on the GPU yet.
pub(super) fn upload(state: &mut ThrongRenderState, gpu: &BevyGpu, crowds: &[&Crowd]) {
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

/// Fits one active camera whose view `target` (format, MSAA samples) is
/// known: its renderer (made anew when it no longer fits), its light and
/// its prepass.
pub(super) fn fit_view(
    views: &mut HashMap<Entity, ViewRenderer>,
    fit: &ViewFit,
    camera: &FrameCamera,
    (format, samples): (TextureFormat, u32),
    out: &mut FrameOutcome,
) {
    let entity = camera.entity;
    let lights = fit.lights;
    let lighting = convert::lighting(
        lights.light,
        fit.ambient,
        camera.exposure.as_ref(),
        camera.fog.as_ref(),
    );
    let fits = views.get(&entity).is_some_and(|v| {
        let o = v.renderer.options();
        v.format == format
            && v.samples == samples
            && o.shadows == lights.shadows
            && o.cascades == lights.cascades
    });
    if !fits {
        match view_renderer(views, fit, format, samples, lighting) {
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
    if let Err(e) = view
        .renderer
        .set_prepass(prepass_target(camera.prepasses, samples))
    {
        out.failures
            .push(format!("the crowd in camera {entity}'s prepass: {e}"));
    }
}

/// A new renderer for a camera's view, sharing the crowds' mirrors and,
/// with a renderer of the same path in `views`, its pose cache.
fn view_renderer(
    views: &HashMap<Entity, ViewRenderer>,
    fit: &ViewFit,
    format: TextureFormat,
    samples: u32,
    lighting: Lighting,
) -> Result<ViewRenderer, throng_render::RenderError> {
    let options = RendererOptions {
        cascades: fit.lights.cascades,
        ..renderer_options(samples, lighting, fit.lights.shadows)
    };
    let gpu = &fit.gpu;
    let mut renderer = Renderer::new(gpu.adapter, gpu.device, gpu.queue, format, options)?;
    // Off the GPU-driven path there is no mirror to share; a renderer of
    // another path or pose-cache setup keeps a cache of its own.
    renderer.share_mirrors(fit.mirrors);
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
pub(super) fn prepare_view_draws(
    view: &mut ViewRenderer,
    camera: &FrameCamera,
    scene: &Scene,
    out: &mut FrameOutcome,
) {
    let entity = camera.entity;
    match view
        .renderer
        .prepare_draws(&camera.view, scene.crowds, scene.models)
    {
        Ok(s) => {
            view.prepared = true;
            view.blend_center = view
                .renderer
                .has_blended()
                .then(|| *out.mean.get_or_insert_with(|| mean_position(scene.crowds)));
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
pub(super) fn cast_into_cascades(
    view: &mut ViewRenderer,
    entity: Entity,
    casters: &[(Entity, &Cascades)],
    scene: &Scene,
    out: &mut FrameOutcome,
) {
    let mut light_views = Vec::new();
    for &(light_entity, cascades) in casters {
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
    let cast = view
        .renderer
        .prepare_light_views(&target, &light_views, scene.crowds, scene.models);
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
