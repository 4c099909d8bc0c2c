//! The crowd cast into Bevy's directional-light cascades, so that Bevy's
//! meshes (a ground, a wall) show the crowd's shadow in Bevy's own
//! shadow sampling.
//!
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

use bevy::asset::AssetId;
use bevy::ecs::query::ROQueryItem;
use bevy::ecs::system::SystemParamItem;
use bevy::ecs::system::lifetimeless::{Read, SRes};
use bevy::mesh::Mesh;
use bevy::pbr::{LightEntity, Shadow, ShadowBatchSetKey, ShadowBinKey};
use bevy::prelude::*;
use bevy::render::mesh::allocator::MeshSlabs;
use bevy::render::render_phase::{
    BinnedRenderPhaseType, DrawFunctions, InputUniformIndex, PhaseItem, RenderCommand,
    RenderCommandResult, TrackedRenderPass, ViewBinnedRenderPhases,
};
use bevy::render::render_resource::CachedRenderPipelineId;
use bevy::render::view::{ExtractedView, RetainedViewEntity};

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

/// Draws the crowd's casters of a cascade into Bevy's shadow pass.
pub struct DrawThrongCaster;

impl<P: PhaseItem> RenderCommand<P> for DrawThrongCaster {
    type Param = SRes<ThrongRenderState>;
    type ViewQuery = Read<ExtractedView>;
    type ItemQuery = ();

    fn render<'w>(
        _: &P,
        view: ROQueryItem<'w, '_, Self::ViewQuery>,
        _: Option<ROQueryItem<'w, '_, Self::ItemQuery>>,
        state: SystemParamItem<'w, '_, Self::Param>,
        pass: &mut TrackedRenderPass<'w>,
    ) -> RenderCommandResult {
        let state = state.into_inner();
        match light_view(state, &view.retained_view_entity) {
            Some((camera, index)) => {
                state.views[&camera]
                    .renderer
                    .draw_light_view(index, pass.wgpu_pass());
                RenderCommandResult::Success
            }
            None => RenderCommandResult::Skip,
        }
    }
}

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
