//! The crowd in Bevy's directional-light cascades, both ways: cast into
//! them, so that Bevy's meshes (a ground, a wall) show the crowd's shadow
//! in Bevy's own shadow sampling; and received from them, so that Bevy's
//! meshes' shadows (and the crowd's own) fall on the crowd.
//!
//! *Casting.*
//! In the extract ([`crate::prepare`]) each camera's renderer is given the
//! cascades Bevy computed for it (the light's `Cascades`, main world) as
//! Throng light views: the crowd is culled per cascade on the GPU and its
//! casters planned with depth-only pipelines in Bevy's shadow format and
//! reverse Z, unclipped (pancaked), unbiased (Bevy biases when it samples).
//! Here, one [`BinnedRenderPhaseType::NonMesh`] item goes into each cascade
//! view's `Shadow` phase, drawn by [`DrawThrongCaster`] into Bevy's shadow
//! pass for that cascade. A cascade view names its camera
//! (`RetainedViewEntity::auxiliary_entity`), its light (`main_entity`)
//! and its cascade (`subview_index`).
//!
//! *Receiving* ([`receive_cascades`]): a camera whose renderer was made
//! with `RendererOptions::cascades` is handed, each frame after Bevy
//! prepared its lights, Bevy's directional shadow array
//! (`ViewShadowBindings`) and the brightest light's cascades of that camera
//! — each cascade view's `clip_from_world`, its far bound and texel size,
//! its layer (the cascade views of the camera's `ViewLightEntities`, in
//! order, take the array's layers one by one, as Bevy's `prepare_lights`
//! hands them out), the light's biases and overlap and the camera's view
//! depth — which Throng's fragment stage samples as Bevy's `shadows.wesl`
//! does (`throng-render`'s `shadow/shadow_cascades.wgsl`).

use bevy::asset::AssetId;
use bevy::mesh::Mesh;
use bevy::pbr::{
    ExtractedDirectionalLight, LightEntity, Shadow, ShadowBatchSetKey, ShadowBinKey,
    ViewLightEntities, ViewShadowBindings,
};
use bevy::prelude::*;
use bevy::render::mesh::allocator::MeshSlabs;
use bevy::render::render_phase::{
    BinnedRenderPhaseType, DrawFunctions, InputUniformIndex, RenderCommandResult,
    ViewBinnedRenderPhases,
};
use bevy::render::render_resource::CachedRenderPipelineId;
use bevy::render::view::{ExtractedView, RetainedViewEntity};

use throng_render::uniforms::{CascadeUniforms, MAX_SHADOW_CASCADES, ShadowCascade};

use crate::draw::{DrawThrong, ThrongDraw, ViewDraw};
use crate::prepare::ThrongRenderState;

/// The camera's main entity and the renderer's light view that a cascade
/// view is (`None`: the crowd was not cast for it this frame).
fn light_view(state: &ThrongRenderState, view: &RetainedViewEntity) -> Option<(Entity, usize)> {
    let camera = view.auxiliary_entity?.id();
    let v = state.views.get(&camera).filter(|v| v.prepared)?;
    let wanted = (view.main_entity.id(), view.subview_index);
    let index = v.light_views.iter().position(|&l| l == wanted)?;
    Some((camera, index))
}

/// The crowd's casters of a cascade, drawn into Bevy's shadow pass
/// (`Renderer::draw_light_view`).
pub struct CasterDraw;

impl ThrongDraw for CasterDraw {
    const DRAW: ViewDraw = |view, state, pass| match light_view(state, &view.retained_view_entity) {
        Some((camera, index)) => {
            state.views[&camera]
                .renderer
                .draw_light_view(index, pass.wgpu_pass());
            RenderCommandResult::Success
        }
        None => RenderCommandResult::Skip,
    };
}

/// Draws the crowd's casters of a cascade into Bevy's shadow pass.
pub type DrawThrongCaster = DrawThrong<CasterDraw>;

/// Puts the crowd's item into each directional cascade view's `Shadow`
/// phase the crowd was cast for, and takes it out of the others.
pub fn queue_casters(
    draw_functions: Res<DrawFunctions<Shadow>>,
    mut phases: ResMut<ViewBinnedRenderPhases<Shadow>>,
    views: Query<(Entity, &ExtractedView, &LightEntity)>,
    state: Res<ThrongRenderState>,
) {
    let draw = draw_functions.read().id::<DrawThrongCaster>();
    for (view_entity, view, light) in &views {
        if !matches!(light, LightEntity::Directional { .. }) {
            continue;
        }
        let retained = &view.retained_view_entity;
        let (Some(phase), Some(camera)) = (phases.get_mut(retained), retained.auxiliary_entity)
        else {
            continue;
        };
        if light_view(&state, retained).is_none() {
            phase.remove(camera);
            continue;
        }
        phase.add(
            ShadowBatchSetKey {
                pipeline: CachedRenderPipelineId::INVALID,
                draw_function: draw,
                material_bind_group_index: None,
                slabs: MeshSlabs::default(),
            },
            ShadowBinKey {
                asset_id: AssetId::<Mesh>::default().untyped(),
            },
            (view_entity, camera),
            InputUniformIndex::default(),
            BinnedRenderPhaseType::NonMesh,
        );
    }
}

/// Hands each receiving camera's renderer Bevy's shadow array and the
/// brightest directional light's cascades of that camera (see the module
/// docs); no cascades in use where that light casts no shadows.
pub fn receive_cascades(
    cameras: Query<(
        Entity,
        &ExtractedView,
        &ViewShadowBindings,
        &ViewLightEntities,
    )>,
    cascade_views: Query<(&ExtractedView, &LightEntity)>,
    lights: Query<(Entity, &ExtractedDirectionalLight)>,
    mut state: ResMut<ThrongRenderState>,
) {
    // The light Throng shades with: the brightest, as in the extract.
    let light = lights
        .iter()
        .max_by(|a, b| a.1.illuminance.total_cmp(&b.1.illuminance));
    for (view_entity, view, bindings, light_views) in &cameras {
        let camera = view.retained_view_entity.main_entity.id();
        let Some(v) = state.views.get_mut(&camera) else {
            continue;
        };
        if v.renderer.options().cascades.is_none() {
            continue;
        }
        let mut uniforms = CascadeUniforms {
            view_z: view.world_from_view.to_matrix().inverse().row(2).to_array(),
            ..CascadeUniforms::default()
        };
        if let Some((light_entity, light)) = light.filter(|(_, l)| l.shadow_maps_enabled) {
            uniforms.direction_to_light = light.transform.back().extend(0.0).to_array();
            let config = &light.cascade_shadow_config;
            uniforms.params = [
                light.shadow_normal_bias,
                light.shadow_depth_bias,
                config.overlap_proportion,
                0.0,
            ];
            // Extracted cascades are keyed by the camera's render-world view.
            let of_camera = light.cascades.get(&view_entity);
            let directional = light_views.lights.iter().filter_map(|&e| {
                let (cascade_view, kind) = cascade_views.get(e).ok()?;
                match kind {
                    LightEntity::Directional {
                        light_entity,
                        cascade_index,
                    } => Some((cascade_view, *light_entity, *cascade_index)),
                    _ => None,
                }
            });
            let mut count = 0;
            for (layer, (cascade_view, of_light, index)) in directional.enumerate() {
                if of_light != light_entity || index >= MAX_SHADOW_CASCADES {
                    continue;
                }
                let (Some(clip_from_world), Some(far_bound), Some(cascade)) = (
                    cascade_view.clip_from_world,
                    config.bounds.get(index),
                    of_camera.and_then(|c| c.get(index)),
                ) else {
                    continue;
                };
                uniforms.cascades[index] = ShadowCascade {
                    clip_from_world: clip_from_world.to_cols_array_2d(),
                    far_bound: *far_bound,
                    texel_size: cascade.texel_size,
                    layer: layer as u32,
                    pad: 0,
                };
                count = count.max(index + 1);
            }
            uniforms.params[3] = count as f32;
        }
        let maps = &bindings.directional_light_depth_texture_view;
        if let Err(e) = v.renderer.set_cascades(maps, &uniforms) {
            state.warn_once(format!(
                "receiving Bevy's cascades for camera {camera}: {e}"
            ));
        }
    }
}
