//! Per-model parameters of the draws: the skinning's [`ModelParams`], a
//! (model, LOD)'s [`PoseCacheParams`], an impostor's [`ImpostorParams`]
//! and the width of its frame table.

use bytemuck::{Pod, Zeroable};

/// Per-model constants for the shaders, mirrored by WGSL's `ModelParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct ModelParams {
    /// Palette size.
    pub bone_count: u32,
    /// Frames in the global frame table (frame indices are clamped below it).
    pub frame_count: u32,
    /// Layer side W of the bone texture.
    pub texture_width: u32,
    /// Layers of the bone texture.
    pub texture_layers: u32,
    /// Morph slots (0: the model has no morph targets).
    pub morph_slots: u32,
    /// Texels of one frame's morph weights (`⌈slots / 4⌉`).
    pub morph_frame_texels: u32,
    /// Texel index of the first morph delta in the morph texture.
    pub morph_delta_base: u32,
    /// Morph deltas in the morph texture (vertex ranges are clamped to it).
    pub morph_delta_count: u32,
}

/// Where one (model, LOD)'s pose cache sits, mirrored by WGSL's
/// `PoseCacheParams` (`throng-render/src/pose_cache/pose_cache.wgsl`): pose `f` of the LOD
/// starts at cached vertex `f * vertex_count` ([`crate::pose_cache`]). The
/// fill (`throng-render/src/pose_cache/pose_fill.wgsl`) reads the same parameters.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct PoseCacheParams {
    /// Vertices of the LOD (of each pose).
    pub vertex_count: u32,
    /// Poses cached: the model's global frame count (frame indices are
    /// clamped below it).
    pub frame_count: u32,
    /// Padding.
    pub pad: [u32; 2],
}

/// Texels along a row of an impostor's frame table (see [`ImpostorParams`]).
pub const IMPOSTOR_TABLE_WIDTH: u32 = 1024;

/// Per-model constants of an impostor's draw (32 bytes), mirrored by
/// WGSL's `ImpostorParams` in `throng-render/src/impostor/impostor.wgsl`: the atlas's layout
/// (`crate::impostor::AtlasPlan`) and the size of its frame table.
///
/// The frame table is an `Rgba32Float` texture, [`IMPOSTOR_TABLE_WIDTH`]
/// texels a row, read by index: first one texel per global baked frame,
/// `(clip, capture position, 0, 0)` (the position is in captures: the
/// frame's clip time over the duration, times `frames`, so that the
/// shader interpolates it between an instance's two baked frames like the
/// pose), then one texel per clip, its framing sphere (model space centre
/// and radius), then one per atlas cell, the rectangle its silhouette
/// covers (`crate::impostor::ImpostorAtlas::cell_rects`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ImpostorParams {
    /// Views along each side of the hemi-octahedral lattice.
    pub views: u32,
    /// Captures per clip.
    pub frames: u32,
    /// Texels along a cell's side.
    pub cell: u32,
    /// Texels along a layer's side.
    pub layer_size: u32,
    /// Cells along a layer's row.
    pub cells_per_row: u32,
    /// Cells per layer.
    pub cells_per_layer: u32,
    /// Global baked frames (the table's frame texels; the clips' spheres
    /// follow).
    pub frame_count: u32,
    /// Clips.
    pub clip_count: u32,
    /// The model's metalness, its materials' mean weighted by surface
    /// area: without the surface image the atlas holds colour and normal
    /// only, and the impostor is shaded as one material.
    pub metallic: f32,
    /// Its roughness, likewise.
    pub roughness: f32,
    /// 1: the atlas has the surface image
    /// (`crate::impostor::ImpostorAtlas::surface`), which replaces the
    /// means per texel, and the table's per-material emission follows its
    /// cells (`crate::impostor::surface_emission`); 0: it has not.
    pub surface: u32,
    /// Materials (palette columns) the surface image's codes spread over
    /// (`crate::impostor::surface_id_code`).
    pub materials: u32,
    /// Its emission (factor × strength, linear RGB), likewise: without the
    /// surface image an emissive part glows over the whole impostor at its
    /// share of the surface.
    pub emissive: [f32; 3],
    /// Padding to 16 bytes.
    pub pad1: u32,
}
