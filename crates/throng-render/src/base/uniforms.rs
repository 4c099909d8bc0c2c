//! Render-side `#[repr(C)]` uniform structs, mirrored field for field by WGSL
//! structs in `shaders/` (checked by the layout test).

use bytemuck::{Pod, Zeroable};

/// Per-frame constants: WGSL `Frame` in `draw.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct FrameUniforms {
    /// Column-major `clip_from_world`.
    pub clip_from_world: [[f32; 4]; 4],
    /// Eye position (w unused).
    pub eye: [f32; 4],
    /// Unit direction towards the light (w unused).
    pub light_dir: [f32; 4],
    /// Light colour (linear RGB).
    pub light_color: [f32; 4],
    /// Ambient light from the sky (linear RGB).
    pub ambient: [f32; 4],
    /// Ambient light from the ground (linear RGB).
    pub ground: [f32; 4],
    /// Distance fog.
    pub fog: FogUniforms,
    /// [`Shading`](crate::base::options::Shading) as its code.
    pub shading: u32,
    /// Impostors whose projected size is below this sample one view
    /// instead of blending three
    /// ([`RendererOptions::impostor_one_view_size`](crate::RendererOptions::impostor_one_view_size)).
    pub impostor_one_view_size: f32,
    /// Padding to 16 bytes.
    pub pad: [u32; 2],
}

/// Distance fog: WGSL `Fog` in `fog.wgsl` (made by
/// [`FogUniforms::new`](crate::base::fog)).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct FogUniforms {
    /// Colour (linear RGB) and opacity at full density.
    pub color: [f32; 4],
    /// Scattered directional light (RGB) and its exponent.
    pub scatter: [f32; 4],
    /// The falloff's parameters.
    pub params: [f32; 3],
    /// The falloff: 0 none, 1 linear, 2 exponential, 3 exponential
    /// squared, 4 atmospheric.
    pub mode: u32,
    /// Atmospheric in-scattering (RGB; w unused).
    pub inscattering: [f32; 4],
}

/// Per-submesh material constants: WGSL `Material` in `material.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct MaterialUniforms {
    /// Linear base colour factor.
    pub base_color: [f32; 4],
    /// Linear emissive colour (factor × strength).
    pub emissive: [f32; 3],
    /// Metalness factor.
    pub metallic: f32,
    /// Roughness factor.
    pub roughness: f32,
    /// Normal map scale.
    pub normal_scale: f32,
    /// Occlusion strength.
    pub occlusion_strength: f32,
    /// Alpha cutoff for mask mode.
    pub alpha_cutoff: f32,
    /// 0 opaque, 1 mask, 2 blend.
    pub alpha_mode: u32,
    /// Its column of the model's variant palette
    /// (`throng_core::variety::column_of`).
    pub palette_column: u32,
    /// Its submesh's bit of a record's hidden mask (0: never hidden;
    /// `throng_core::variety::submesh_bits`).
    pub submesh_bit: u32,
    /// Bit `i`: texture slot `i` (`throng_core::material::TextureSlot`) has
    /// a texture of the model's own.
    pub textures: u32,
    /// Per slot, its `KHR_texture_transform`: the top two rows of its
    /// matrix on `(u, v, 1)` (`w` unused).
    pub uv_rows: [[f32; 4]; 10],
}

/// Compute readback parameters: WGSL `ComputeParams` in `compute_skin.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct ComputeParams {
    /// First vertex of the range in the LOD's vertex buffer.
    pub first_vertex: u32,
    /// Vertices skinned per instance.
    pub vertex_count: u32,
    /// Instances.
    pub instance_count: u32,
    /// Padding.
    pub _pad: u32,
}

/// Header of one character's slice of the CPU-skinned palette buffer: WGSL
/// `CharacterHeader` in `cpu_skinned.wgsl`. The character's palette
/// (one [`throng_core::math::Rows3x4`] per bone) follows it directly.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct CharacterHeader {
    /// Top three rows of `world_from_model`.
    pub world_from_model: [[f32; 4]; 3],
    /// Packed RGBA8 tint ([`throng_core::gpu::pack_tint`]).
    pub tint: u32,
    /// Padding.
    pub _pad: [u32; 3],
}

/// The light's shadow map parameters: WGSL `ShadowUniforms` in
/// `shadow_common.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct ShadowUniforms {
    /// Column-major orthographic `clip_from_world` of the light.
    pub light_clip_from_world: [[f32; 4]; 4],
    /// x: 1 / map size, y: depth bias, z: strength, w: −1 for a reverse-Z
    /// light view of the caller's (`shadow/light_views.rs`), else 0.
    pub params: [f32; 4],
}

/// Most cascades of a caller's cascaded shadow map the crowd receives
/// (Bevy's `MAX_CASCADES_PER_LIGHT`): WGSL `MAX_SHADOW_CASCADES`, from the
/// prelude.
pub const MAX_SHADOW_CASCADES: usize = 4;

/// One cascade of a caller's cascaded shadow map: WGSL `ShadowCascade` in
/// `shadow_cascades.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ShadowCascade {
    /// Column-major `clip_from_world` of the cascade (depth in `[0, 1]`,
    /// compared with the maps' sampler as the caller drew them).
    pub clip_from_world: [[f32; 4]; 4],
    /// View-space distance from the camera up to which this cascade serves.
    pub far_bound: f32,
    /// The size of one of its texels in world units (the normal bias's
    /// scale).
    pub texel_size: f32,
    /// Its layer in the maps' array texture.
    pub layer: u32,
    /// Padding to 16 bytes.
    pub pad: u32,
}

/// The two cameras a motion-vector prepass compares (128 bytes): WGSL
/// `PrepassUniforms` in `prepass/prepass.wgsl`. Both without a caller's
/// sub-pixel jitter, as Bevy's prepass compares them.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PrepassUniforms {
    /// This frame's `clip_from_world` (column-major).
    pub clip_from_world: [[f32; 4]; 4],
    /// The frame before's `clip_from_world`.
    pub previous_clip_from_world: [[f32; 4]; 4],
}

/// A caller's cascaded shadow map as the crowd's fragment stage receives
/// it (`Renderer::set_cascades`): WGSL `CascadeUniforms` in
/// `shadow_cascades.wgsl`, sampled as Bevy samples its directional
/// cascades.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct CascadeUniforms {
    /// The cascades, nearest first; `params.w` of them in use.
    pub cascades: [ShadowCascade; MAX_SHADOW_CASCADES],
    /// Row z of the camera's `view_from_world`: a point's view-space z
    /// (negative in front of the camera) is its dot product with
    /// `(world, 1)`.
    pub view_z: [f32; 4],
    /// Unit direction towards the light, xyz (w unused).
    pub direction_to_light: [f32; 4],
    /// x: normal bias (in texels, along the surface normal), y: depth bias
    /// (world units towards the light), z: the far part of a cascade
    /// blended into the next (a proportion of its far bound), w: cascades
    /// in use (0: nothing is shadowed).
    pub params: [f32; 4],
}
