//! Light views the caller owns: an engine's shadow cascades (Bevy's
//! directional-light cascades, say), into whose depth passes the crowd
//! casts. Each view is a light's `clip_from_world` in the caller's depth
//! convention; the crowd is culled per view on the GPU (the camera's LOD
//! choice, scaled like the renderer's own casters') and drawn by
//! depth-only pipelines made for the caller's depth format and test.
//!
//! A directional light's casters nearer the light than a view's near plane
//! still cast where `pancake` is asked: the view is not culled by its near
//! plane, and depth is unclipped (`Features::DEPTH_CLIP_CONTROL`), so those
//! casters land on the near plane — what Bevy's own directional casters do.
//! No bias is applied: engines such as Bevy bias when they sample.

use throng_crowd::camera::Frustum;

use crate::base::options::DepthConvention;
use crate::base::uniforms::ShadowUniforms;
use crate::draw::items::DrawItem;
use crate::passes::cull::CullList;
use crate::program::pipeline::cast_primitive;
use crate::shadow::map::{cast_pipelines, cast_variant};

/// The depth target of the caller's light views: what the cast pipelines
/// are made for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LightViewTarget {
    /// The depth format of the caller's shadow maps.
    pub format: wgpu::TextureFormat,
    /// Their depth convention (Bevy's: [`DepthConvention::Reversed`]).
    pub depth: DepthConvention,
    /// Casters between the light and a view's near plane are flattened
    /// onto it rather than clipped (directional lights' orthographic
    /// cascades). Needs `Features::DEPTH_CLIP_CONTROL` for the depth; on a
    /// device without it those casters are clipped.
    pub pancake: bool,
    /// Casters choose their LOD as if their projected size were this much
    /// of the camera's ([`crate::base::options::ShadowOptions::caster_lod_scale`]).
    pub caster_lod_scale: f32,
}

impl Default for LightViewTarget {
    /// Bevy's directional cascades: `Depth32Float`, reverse Z, pancaked.
    fn default() -> Self {
        Self {
            format: wgpu::TextureFormat::Depth32Float,
            depth: DepthConvention::Reversed,
            pancake: true,
            caster_lod_scale: crate::base::options::ShadowOptions::DEFAULT_CASTER_LOD_SCALE,
        }
    }
}

/// One light view of the caller's: the light's `clip_from_world`, depth
/// in `[0, 1]` in the target's convention.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LightView {
    /// The view's `clip_from_world`.
    pub clip_from_world: glam::Mat4,
}

/// What a frame's light views drew.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LightViewStats {
    /// Views prepared.
    pub views: u32,
    /// Indirect draws, all views.
    pub draws: u32,
    /// Casters drawn, all views, in the newest frame whose counts have
    /// come back (a frame or two late).
    pub casters: u32,
}

/// The renderer's light views: the pipelines for their target and each
/// view's state.
pub(crate) struct LightViews {
    pub(crate) target: LightViewTarget,
    /// By the cast variants of `shadow/map.rs`.
    pub(crate) pipelines: Vec<wgpu::RenderPipeline>,
    pub(crate) cast_layout: wgpu::BindGroupLayout,
    /// The impostor caster's, made when a view first draws one.
    pub(crate) impostor: Option<wgpu::RenderPipeline>,
    pub(crate) views: Vec<LightViewState>,
}

/// One view's uniforms, culls (one per crowd) and draws.
pub(crate) struct LightViewState {
    pub(crate) uniform: wgpu::Buffer,
    pub(crate) culls: Vec<CullList>,
    pub(crate) items: Vec<DrawItem>,
}

impl LightViews {
    pub(crate) fn new(device: &wgpu::Device, target: LightViewTarget, skinning: bool) -> Self {
        let (pipelines, cast_layout) = cast_pipelines(
            device,
            false,
            skinning,
            primitive(device, &target),
            depth(&target),
        );
        Self {
            target,
            pipelines,
            cast_layout,
            impostor: None,
            views: Vec::new(),
        }
    }

    /// Makes room for `count` views, writing each one's uniforms.
    pub(crate) fn set_views(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        views: &[LightView],
    ) {
        self.views.truncate(views.len());
        while self.views.len() < views.len() {
            self.views.push(LightViewState {
                uniform: device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("throng light view uniforms"),
                    size: std::mem::size_of::<ShadowUniforms>() as u64,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                }),
                culls: Vec::new(),
                items: Vec::new(),
            });
        }
        let reversed = self.target.depth == DepthConvention::Reversed;
        for (state, view) in self.views.iter().zip(views) {
            let uniforms = ShadowUniforms {
                light_clip_from_world: view.clip_from_world.to_cols_array_2d(),
                params: [0.0, 0.0, 0.0, if reversed { -1.0 } else { 0.0 }],
            };
            queue.write_buffer(&state.uniform, 0, bytemuck::bytes_of(&uniforms));
        }
    }

    /// The frustum casters are culled by in `view`: its own, less its near
    /// plane where casters are pancaked.
    pub(crate) fn frustum(&self, view: &LightView) -> Frustum {
        let mut frustum = Frustum::from_clip_from_world(&view.clip_from_world);
        if self.target.pancake {
            // Left, right, bottom, top, z ≥ 0, z ≤ w: the near plane is the
            // fifth in the standard convention, the sixth in reverse Z. A
            // zero plane keeps everything.
            let near = match self.target.depth {
                DepthConvention::Standard => 4,
                DepthConvention::Reversed => 5,
            };
            frustum.planes[near] = glam::Vec4::ZERO;
        }
        frustum
    }

    /// The impostor caster's pipeline for this target.
    pub(crate) fn primitive_and_depth(
        &self,
        device: &wgpu::Device,
    ) -> (wgpu::PrimitiveState, wgpu::DepthStencilState) {
        (primitive(device, &self.target), depth(&self.target))
    }

    /// Draws view `index`'s casters into `pass` (a depth pass of the
    /// target's format).
    pub(crate) fn draw(&self, index: usize, pass: &mut wgpu::RenderPass<'_>) {
        let Some(view) = self.views.get(index) else {
            return;
        };
        let mut bound = None;
        for item in &view.items {
            let which = (!item.impostor).then(|| cast_variant(item.key));
            if bound != Some(which) {
                match which {
                    None => match &self.impostor {
                        Some(p) => pass.set_pipeline(p),
                        None => continue,
                    },
                    Some(v) => pass.set_pipeline(&self.pipelines[v]),
                }
                bound = Some(which);
            }
            item.bind_geometry(pass);
            if let Some(material) = &item.material_bind_group {
                pass.set_bind_group(2, material, &[]);
            }
            item.issue(pass, None);
        }
    }
}

/// Triangles, both faces, depth unclipped where pancaked and the device can.
fn primitive(device: &wgpu::Device, target: &LightViewTarget) -> wgpu::PrimitiveState {
    wgpu::PrimitiveState {
        unclipped_depth: target.pancake
            && device
                .features()
                .contains(wgpu::Features::DEPTH_CLIP_CONTROL),
        ..cast_primitive()
    }
}

/// Written, nearer-or-equal passes in the target's convention, no bias.
fn depth(target: &LightViewTarget) -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: target.format,
        depth_write_enabled: Some(true),
        depth_compare: Some(match target.depth {
            DepthConvention::Standard => wgpu::CompareFunction::LessEqual,
            DepthConvention::Reversed => wgpu::CompareFunction::GreaterEqual,
        }),
        stencil: Default::default(),
        bias: Default::default(),
    }
}
