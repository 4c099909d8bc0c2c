//! The crowd in Bevy's main pass: one [`BinnedRenderPhaseType::NonMesh`]
//! item in each 3D view's `Opaque3d` phase whose renderer prepared this
//! frame, drawn by [`DrawThrongCrowd`], which hands Bevy's render pass to
//! Throng's `Renderer::draw_opaque` (Throng's own pipelines; Bevy's tracked
//! state is reset by `wgpu_pass`, so Bevy's next item binds afresh); and,
//! when the crowd has alpha-blended materials, one item in the view's
//! `Transparent3d` phase, sorted among Bevy's by the crowd's mean position
//! and drawn by [`DrawThrongBlended`] (`Renderer::draw_blended`).

use std::marker::PhantomData;

use bevy::asset::AssetId;
use bevy::core_pipeline::core_3d::{
    Opaque3d, Opaque3dBatchSetKey, Opaque3dBinKey, Transparent3d, TransparentSortingInfo3d,
};
use bevy::ecs::query::ROQueryItem;
use bevy::ecs::system::SystemParamItem;
use bevy::ecs::system::lifetimeless::{Read, SRes};
use bevy::mesh::Mesh;
use bevy::prelude::*;
use bevy::render::mesh::allocator::MeshSlabs;
use bevy::render::render_phase::{
    BinnedRenderPhaseType, DrawFunctions, InputUniformIndex, PhaseItem, PhaseItemExtraIndex,
    RenderCommand, RenderCommandResult, TrackedRenderPass, ViewBinnedRenderPhases,
    ViewSortedRenderPhases,
};
use bevy::render::render_resource::CachedRenderPipelineId;
use bevy::render::view::{ExtractedView, Msaa, ViewTarget};

use throng_render::Renderer;

use crate::prepare::ThrongRenderState;

/// A Bevy [`RenderCommand`] that hands a view's render pass to one of
/// Throng's draws, `D`: the one command behind [`DrawThrongCrowd`],
/// [`DrawThrongBlended`], [`crate::prepass::DrawThrongPrepass`] and
/// [`crate::cascades::DrawThrongCaster`].
pub struct DrawThrong<D>(PhantomData<fn() -> D>);

/// How a [`DrawThrong`] draws a view: into its pass, with the renderer in
/// the state that serves the view; [`RenderCommandResult::Skip`] where none
/// does this frame.
pub type ViewDraw = for<'w> fn(
    &ExtractedView,
    &'w ThrongRenderState,
    &mut TrackedRenderPass<'w>,
) -> RenderCommandResult;

/// One of Throng's draws into the render pass of a Bevy phase, named by a
/// type so that [`DrawThrong<Self>`] is a render command of its own.
pub trait ThrongDraw: 'static {
    /// What [`DrawThrong<Self>`] does for each view.
    const DRAW: ViewDraw;
}

impl<P: PhaseItem, D: ThrongDraw> RenderCommand<P> for DrawThrong<D> {
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
        (D::DRAW)(view, state.into_inner(), pass)
    }
}

/// The crowds' opaque draws in the camera's main pass
/// ([`Renderer::draw_opaque`]).
pub struct OpaqueDraw;

impl ThrongDraw for OpaqueDraw {
    const DRAW: ViewDraw = |view, state, pass| draw_view(view, state, pass, Renderer::draw_opaque);
}

/// The crowds' alpha-blended draws in the camera's main pass
/// ([`Renderer::draw_blended`]).
pub struct BlendedDraw;

impl ThrongDraw for BlendedDraw {
    const DRAW: ViewDraw = |view, state, pass| draw_view(view, state, pass, Renderer::draw_blended);
}

/// Draws the crowds' opaque draws into the view's pass.
pub type DrawThrongCrowd = DrawThrong<OpaqueDraw>;

/// Draws the crowds' alpha-blended draws into the view's pass.
pub type DrawThrongBlended = DrawThrong<BlendedDraw>;

/// Hands `pass` to `draw` with the renderer of `view`'s camera, if it
/// prepared this frame.
pub(crate) fn draw_view<'w>(
    view: &ExtractedView,
    state: &'w ThrongRenderState,
    pass: &mut TrackedRenderPass<'w>,
    draw: fn(&Renderer, &mut throng_render::wgpu::RenderPass<'_>),
) -> RenderCommandResult {
    let camera = view.retained_view_entity.main_entity.id();
    match state.views.get(&camera) {
        Some(v) if v.prepared => {
            draw(&v.renderer, pass.wgpu_pass());
            RenderCommandResult::Success
        }
        _ => RenderCommandResult::Skip,
    }
}

/// Puts the crowd item into each view's opaque phase, or takes it out of
/// views whose renderer did not prepare (or was made for another format),
/// and records each view's format and MSAA for the next extract.
pub fn queue_crowds(
    draw_functions: Res<DrawFunctions<Opaque3d>>,
    blended_functions: Res<DrawFunctions<Transparent3d>>,
    mut phases: ResMut<ViewBinnedRenderPhases<Opaque3d>>,
    mut transparent: ResMut<ViewSortedRenderPhases<Transparent3d>>,
    views: Query<(Entity, &ExtractedView, &Msaa, &ViewTarget)>,
    mut state: ResMut<ThrongRenderState>,
) {
    let draw = draw_functions.read().id::<DrawThrongCrowd>();
    let draw_blended = blended_functions.read().id::<DrawThrongBlended>();
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
        let blend_center = state.views.get(&main.id()).and_then(|v| v.blend_center);
        if let (Some(center), Some(phase)) = (
            blend_center,
            transparent.get_mut(&view.retained_view_entity),
        ) {
            phase.add_transient(Transparent3d {
                sorting_info: TransparentSortingInfo3d::Sorted {
                    mesh_center: center,
                    depth_bias: 0.0,
                },
                distance: 0.0,
                pipeline: CachedRenderPipelineId::INVALID,
                entity: (view_entity, main),
                draw_function: draw_blended,
                batch_range: 0..1,
                extra_index: PhaseItemExtraIndex::None,
                indexed: false,
            });
        }
    }
}
