//! The directional light's shadow map: its pipelines, the light camera
//! fitted to the instances in view each frame, and the bind group through
//! which other pipelines receive the crowd's shadows ([`ShadowReceiver`]).

use throng_core::model::BakedVertex;
use throng_crowd::camera::Camera;
use throng_crowd::crowd::DrawList;

use crate::base::error::RenderError;
use crate::base::options::DEPTH_FORMAT;
use crate::base::options::ShadowOptions;
use crate::base::shader::program::Program;
use crate::base::uniforms::ShadowUniforms;
use crate::draw::items::DrawItem;
use crate::program::bind_groups::entries::bind_group;
use crate::program::bind_groups::{self};
use crate::program::pipeline::{VERTEX_ATTRIBUTES, cast_depth_state, cast_primitive};

/// The shadow map and what the shadow pass draws.
pub(crate) struct Shadow {
    pub(crate) options: ShadowOptions,
    pub(crate) map: wgpu::Texture,
    pub(crate) view: wgpu::TextureView,
    pub(crate) sampler: wgpu::Sampler,
    pub(crate) uniform: wgpu::Buffer,
    /// By [`cast_variant`]: plain, cross-fading, and (storage paths)
    /// palettes from the pre-pass, the pose cache, the pose cache
    /// cross-fading.
    pub(crate) pipelines: Vec<wgpu::RenderPipeline>,
    pub(crate) cast_layout: wgpu::BindGroupLayout,
    pub(crate) cast_group: Option<wgpu::BindGroup>,
    pub(crate) receiver_layout: wgpu::BindGroupLayout,
    pub(crate) receiver_group: wgpu::BindGroup,
    pub(crate) lists: Vec<DrawList>,
    pub(crate) items: Vec<DrawItem>,
    /// The light's `clip_from_world` of the frame last prepared (`None`:
    /// nothing in view; on the GPU-driven path, known once read back).
    pub(crate) light: Option<glam::Mat4>,
}

impl Shadow {
    /// Fits the light to `receivers` (what the camera sees; `None` when it
    /// sees nothing) and writes the light's uniforms; returns the light's
    /// view of the casters: the camera's `view` culled by the light's
    /// volume (not the camera's: an instance out of view still casts into
    /// it).
    pub(crate) fn fit_light(
        &mut self,
        queue: &wgpu::Queue,
        direction: glam::Vec3,
        receivers: &throng_core::math::Aabb,
        view: &throng_crowd::crowd::DrawView,
    ) -> Option<throng_crowd::crowd::DrawView> {
        // Casters up to four receiver radii towards the light still cast
        // (tall things near the crowd); depth range is cheap. The GPU-driven
        // path fits the same light on the GPU (shadow/light_fit.wgsl).
        let light = (!receivers.is_empty()).then(|| {
            let r = receivers.radius();
            Camera::directional_light(direction, receivers, r * 0.02, r * 4.0)
        });
        self.light = light.map(|l| l.clip_from_world());
        let light = light?;
        self.write_uniforms(queue, light.clip_from_world());
        Some(throng_crowd::crowd::DrawView {
            frustum: Some(light.frustum()),
            lod_tints: false,
            lod_scale: self.caster_lod_scale(view.lod_scale),
            ..*view
        })
    }

    /// The LOD scale casters are chosen with, for a camera's `lod_scale`
    /// ([`ShadowOptions::caster_lod_scale`]).
    pub(crate) fn caster_lod_scale(&self, lod_scale: f32) -> f32 {
        lod_scale * self.options.caster_lod_scale
    }

    /// Writes the light's uniforms: its `clip_from_world` and the map's
    /// parameters.
    pub(crate) fn write_uniforms(&self, queue: &wgpu::Queue, light_clip_from_world: glam::Mat4) {
        let uniforms = crate::base::uniforms::ShadowUniforms {
            light_clip_from_world: light_clip_from_world.to_cols_array_2d(),
            params: [
                1.0 / self.options.map_size as f32,
                self.options.bias,
                self.options.strength,
                0.0,
            ],
        };
        queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(&uniforms));
    }

    /// The colour pipelines' shadow bindings of group 3: the light's
    /// uniforms (2), the map (3), its sampler (4).
    pub(crate) fn receive_entries(&self) -> [wgpu::BindGroupEntry<'_>; 3] {
        [
            wgpu::BindGroupEntry {
                binding: 2,
                resource: self.uniform.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 3,
                resource: wgpu::BindingResource::TextureView(&self.view),
            },
            wgpu::BindGroupEntry {
                binding: 4,
                resource: wgpu::BindingResource::Sampler(&self.sampler),
            },
        ]
    }

    /// The cast pipelines' group 3 over `records` (a storage buffer) and
    /// the pre-pass's `palettes`.
    pub(crate) fn cast_group_for(
        &self,
        device: &wgpu::Device,
        records: &wgpu::Buffer,
        palettes: &wgpu::Buffer,
    ) -> wgpu::BindGroup {
        cast_group(device, &self.cast_layout, records, &self.uniform, palettes)
    }

    pub(crate) fn new(
        device: &wgpu::Device,
        packaged: bool,
        options: ShadowOptions,
        skinning: bool,
    ) -> Result<Self, RenderError> {
        let limit = device.limits().max_texture_dimension_2d;
        if options.map_size == 0 || options.map_size > limit {
            return Err(RenderError::Unsupported(format!(
                "shadow map of {0}×{0} (1..={limit} per side)",
                options.map_size
            )));
        }
        let s = options.caster_lod_scale;
        if !(s > 0.0 && s <= 1.0) {
            return Err(RenderError::Unsupported(format!(
                "a shadow caster LOD scale of {s} (in (0, 1])"
            )));
        }
        let map = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("throng shadow map"),
            size: wgpu::Extent3d {
                width: options.map_size,
                height: options.map_size,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = map.create_view(&Default::default());
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            label: Some("throng shadow sampler"),
            address_mode_u: wgpu::AddressMode::ClampToEdge,
            address_mode_v: wgpu::AddressMode::ClampToEdge,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            compare: Some(wgpu::CompareFunction::LessEqual),
            ..Default::default()
        });
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("throng shadow uniforms"),
            size: std::mem::size_of::<ShadowUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let (pipelines, cast_layout) = cast_pipelines(
            device,
            packaged,
            skinning,
            cast_primitive(),
            cast_depth_state(),
        );
        let receiver_layout = bind_groups::shadow_receiver(device);
        let receiver_group = bind_group(
            device,
            "throng shadow receiver",
            &receiver_layout,
            &[
                (0, uniform.as_entire_binding()),
                (1, wgpu::BindingResource::TextureView(&view)),
                (2, wgpu::BindingResource::Sampler(&sampler)),
            ],
        );
        Ok(Self {
            options,
            map,
            view,
            sampler,
            uniform,
            pipelines,
            cast_layout,
            cast_group: None,
            receiver_layout,
            receiver_group,
            lists: Vec::new(),
            items: Vec::new(),
            light: None,
        })
    }
}

/// The cast pipelines' variants, `(cross_fade, palettes, pose_cache)`, in
/// the order of [`Shadow::pipelines`]: the packaged path has the first two.
const CAST_VARIANTS: [(bool, bool, bool); 5] = [
    (false, false, false),
    (true, false, false),
    (false, true, false),
    (false, false, true),
    (true, false, true),
];

/// A cast pipelines' group 3 of `layout` over `records` (a storage
/// buffer), the light's `uniform` (`ShadowUniforms`) and the pre-pass's
/// `palettes`.
pub(crate) fn cast_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    records: &wgpu::Buffer,
    uniform: &wgpu::Buffer,
    palettes: &wgpu::Buffer,
) -> wgpu::BindGroup {
    bind_group(
        device,
        "throng shadow records bind group (GPU-driven)",
        layout,
        &[
            (0, records.as_entire_binding()),
            (2, uniform.as_entire_binding()),
            (5, palettes.as_entire_binding()),
        ],
    )
}

/// The cast pipelines of a record path (`packaged` or a storage path), by
/// [`CAST_VARIANTS`], drawing depth only with `primitive` and `depth` (the
/// renderer's own map, or a light view of the caller's:
/// `shadow/light_views.rs`), and their records group's layout.
pub(crate) fn cast_pipelines(
    device: &wgpu::Device,
    packaged: bool,
    skinning: bool,
    primitive: wgpu::PrimitiveState,
    depth: wgpu::DepthStencilState,
) -> (Vec<wgpu::RenderPipeline>, wgpu::BindGroupLayout) {
    let program = if packaged {
        Program::ShadowPackaged
    } else {
        Program::ShadowUnbounded
    };
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(program.label()),
        source: wgpu::ShaderSource::Wgsl(program.source().into()),
    });
    let cast_layout = bind_groups::records(device, packaged, bind_groups::ShadowBindings::Cast);
    let layout = bind_groups::pipeline_layout(device, program, bind_groups::Receive::None);
    let variants = &CAST_VARIANTS[..if packaged { 2 } else { CAST_VARIANTS.len() }];
    let vertices = wgpu::VertexBufferLayout {
        array_stride: std::mem::size_of::<BakedVertex>() as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &VERTEX_ATTRIBUTES,
    };
    let vertex_buffers = crate::program::pipeline::crowd_buffers(Some(vertices), !packaged);
    let cached_buffers = crate::program::pipeline::crowd_buffers(None, !packaged);
    let pipelines = variants
        .iter()
        .map(|&(cross_fade, palettes, pose_cache)| {
            let mut constants = vec![
                ("SKINNING", if skinning { 1.0 } else { 0.0 }),
                ("CROSS_FADE", if cross_fade { 1.0 } else { 0.0 }),
            ];
            if palettes {
                constants.push(("PALETTES", 1.0));
            }
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(match (cross_fade, palettes, pose_cache) {
                    (true, _, true) => "throng shadow pipeline (pose cache, cross-fade)",
                    (_, _, true) => "throng shadow pipeline (pose cache)",
                    (true, _, _) => "throng shadow pipeline (cross-fade)",
                    (_, true, _) => "throng shadow pipeline (palettes)",
                    _ => "throng shadow pipeline",
                }),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    // Cached poses need no vertex attributes at all.
                    entry_point: Some(if pose_cache {
                        "vs_shadow_cached"
                    } else {
                        "vs_shadow"
                    }),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &constants,
                        ..Default::default()
                    },
                    buffers: if pose_cache {
                        &cached_buffers
                    } else {
                        &vertex_buffers
                    },
                },
                primitive,
                depth_stencil: Some(depth.clone()),
                multisample: Default::default(),
                fragment: None,
                multiview_mask: None,
                cache: None,
            })
        })
        .collect();
    (pipelines, cast_layout)
}

/// The index in [`Shadow::pipelines`] of the cast pipeline for records
/// that cross-fade, read palettes or read the pose cache (a
/// [`crate::PipelineKey`]'s flags).
pub(crate) fn cast_variant(key: crate::program::pipeline::PipelineKey) -> usize {
    let flags = (
        key.cross_fade && !key.palettes,
        key.palettes,
        key.pose_cache && !key.palettes,
    );
    CAST_VARIANTS.iter().position(|&v| v == flags).unwrap_or(0)
}

/// What a pipeline outside the renderer binds to sample the crowd's shadow
/// map: a bind group of layout [`bind_groups::shadow_receiver`] (`ShadowUniforms`
/// at 0, the map at 1, its comparison sampler at 2) for use with
/// `shadow/shadow_filter.wgsl` ([`crate::base::shader::sources::SHADOW_FILTER`]).
pub struct ShadowReceiver<'a> {
    /// The layout, for the pipeline layout.
    pub layout: &'a wgpu::BindGroupLayout,
    /// The bind group.
    pub bind_group: &'a wgpu::BindGroup,
}
