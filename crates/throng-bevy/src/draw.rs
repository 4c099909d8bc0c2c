//! The crowd in Bevy's main opaque pass: one [`BinnedRenderPhaseType::NonMesh`]
//! item in each 3D view's `Opaque3d` phase whose renderer prepared this
//! frame, drawn by [`DrawThrongCrowd`], which hands Bevy's render pass to
//! Throng's `Renderer::draw` (Throng's own pipelines; Bevy's tracked state
//! is reset by `wgpu_pass`, so Bevy's next item binds afresh).

use bevy::asset::AssetId;
use bevy::core_pipeline::core_3d::{Opaque3d, Opaque3dBatchSetKey, Opaque3dBinKey};
use bevy::ecs::query::ROQueryItem;
use bevy::ecs::system::SystemParamItem;
use bevy::ecs::system::lifetimeless::{Read, SRes};
use bevy::mesh::Mesh;
use bevy::prelude::*;
use bevy::render::mesh::allocator::MeshSlabs;
use bevy::render::render_phase::{
    BinnedRenderPhaseType, DrawFunctions, InputUniformIndex, PhaseItem, RenderCommand,
    RenderCommandResult, TrackedRenderPass, ViewBinnedRenderPhases,
};
use bevy::render::render_resource::CachedRenderPipelineId;
use bevy::render::view::{ExtractedView, Msaa, ViewTarget};

use crate::prepare::ThrongRenderState;

/// Draws the crowds into the view's pass.
pub struct DrawThrongCrowd;

impl<P: PhaseItem> RenderCommand<P> for DrawThrongCrowd {
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
        let camera = view.retained_view_entity.main_entity.id();
        match state.views.get(&camera) {
            Some(v) if v.prepared => {
                v.renderer.draw(pass.wgpu_pass());
                RenderCommandResult::Success
            }
            _ => RenderCommandResult::Skip,
        }
    }
}

/// Puts the crowd item into each view's opaque phase, or takes it out of
/// views whose renderer did not prepare (or was made for another format),
/// and records each view's format and MSAA for the next extract.
pub fn queue_crowds(
    draw_functions: Res<DrawFunctions<Opaque3d>>,
    mut phases: ResMut<ViewBinnedRenderPhases<Opaque3d>>,
    views: Query<(Entity, &ExtractedView, &Msaa, &ViewTarget)>,
    mut state: ResMut<ThrongRenderState>,
) {
    let draw = draw_functions.read().id::<DrawThrongCrowd>();
    for (view_entity, view, msaa, target) in &views {
        let Some(phase) = phases.get_mut(&view.retained_view_entity) else {
            continue;
        };
        let main = view.retained_view_entity.main_entity;
        let wanted = (target.main_texture_format(), msaa.samples());
        state.targets.insert(main.id(), wanted);
        let ready = state
            .views
            .get(&main.id())
            .is_some_and(|v| v.prepared && (v.format, v.samples) == wanted);
        if !ready {
            phase.remove(main);
            continue;
        }
        phase.add(
            Opaque3dBatchSetKey {
                pipeline: CachedRenderPipelineId::INVALID,
                draw_function: draw,
                material_bind_group_index: None,
                slabs: MeshSlabs::default(),
                lightmap_slab: None,
            },
            Opaque3dBinKey {
                asset_id: AssetId::<Mesh>::default().untyped(),
            },
            (view_entity, main),
            InputUniformIndex::default(),
            BinnedRenderPhaseType::NonMesh,
        );
    }
}
