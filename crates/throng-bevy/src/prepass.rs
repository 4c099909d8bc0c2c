//! The crowd in Bevy's prepasses: a camera with `DepthPrepass`,
//! `NormalPrepass` or `MotionVectorPrepass` gets the crowd's depth, world
//! normals and motion vectors there, so SSAO, TAA and motion blur see it.
//!
//! In the extract ([`crate::prepare`]) each camera's renderer is given the
//! camera's prepass attachments ([`crate::convert::prepass_target`])
//! before it prepares:
//! the renderer then keeps the frame before — its camera, the mirrors'
//! transforms and crowd clock — and the cull writes where each drawn
//! instance was one frame before. Here, one
//! [`BinnedRenderPhaseType::NonMesh`] item goes into each such view's
//! `Opaque3dPrepass` phase, drawn by [`DrawThrongPrepass`]
//! (`Renderer::draw_prepass`). The motion vectors follow Bevy's
//! convention (`prepass.wesl`); the crowd is drawn unjittered in both
//! passes, so under TAA its pictures are stable rather than
//! anti-aliased. A camera with `DeferredPrepass` gets no crowd in its
//! prepass (Throng writes no G-buffer; the crowd stays in the forward
//! `Opaque3d` pass).

use bevy::asset::AssetId;
use bevy::core_pipeline::prepass::{
    Opaque3dPrepass, OpaqueNoLightmap3dBatchSetKey, OpaqueNoLightmap3dBinKey,
};
use bevy::mesh::Mesh;
use bevy::prelude::*;
use bevy::render::mesh::allocator::MeshSlabs;
use bevy::render::render_phase::{
    BinnedRenderPhaseType, DrawFunctions, InputUniformIndex, ViewBinnedRenderPhases,
};
use bevy::render::render_resource::CachedRenderPipelineId;
use bevy::render::view::ExtractedView;
use throng_render::Renderer;

use crate::draw::{DrawThrong, ThrongDraw, ViewDraw, draw_view};
use crate::prepare::ThrongRenderState;

/// The crowd's draw into Bevy's prepass of the view's camera
/// ([`Renderer::draw_prepass`]).
pub struct PrepassDraw;

impl ThrongDraw for PrepassDraw {
    const DRAW: ViewDraw = |view, state, pass| draw_view(view, state, pass, Renderer::draw_prepass);
}

/// Draws the crowd into Bevy's prepass of the view's camera.
pub type DrawThrongPrepass = DrawThrong<PrepassDraw>;

/// Puts the crowd's item into the `Opaque3dPrepass` phase of each view
/// whose renderer prepared with a prepass, and takes it out of the others.
pub fn queue_prepass(
    draw_functions: Res<DrawFunctions<Opaque3dPrepass>>,
    mut phases: ResMut<ViewBinnedRenderPhases<Opaque3dPrepass>>,
    views: Query<(Entity, &ExtractedView)>,
    state: Res<ThrongRenderState>,
) {
    let draw = draw_functions.read().id::<DrawThrongPrepass>();
    for (view_entity, view) in &views {
        let Some(phase) = phases.get_mut(&view.retained_view_entity) else {
            continue;
        };
        let main = view.retained_view_entity.main_entity;
        let ready = state
            .views
            .get(&main.id())
            .is_some_and(|v| v.prepared && v.renderer.prepass_target().is_some());
        if !ready {
            phase.remove(main);
            continue;
        }
        phase.add(
            OpaqueNoLightmap3dBatchSetKey {
                pipeline: CachedRenderPipelineId::INVALID,
                draw_function: draw,
                material_bind_group_index: None,
                slabs: MeshSlabs::default(),
            },
            OpaqueNoLightmap3dBinKey {
                asset_id: AssetId::<Mesh>::default().untyped(),
            },
            (view_entity, main),
            InputUniformIndex::default(),
            BinnedRenderPhaseType::NonMesh,
        );
    }
}
