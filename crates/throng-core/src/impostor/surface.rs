//! What an impostor draws from its model: whether it captures the surface
//! image ([`captures_surface`]), the materials' codes in it and their
//! emission, and the runtime's frame table. Functions of a
//! [`BakedModel`], so they sit above the model, which holds the atlas.

use glam::Vec3;

use super::atlas::ImpostorAtlas;
use crate::material::TextureSlot;
use crate::model::BakedModel;

/// Whether an impostor of `model` captures the surface image: where its
/// materials vary over its surface, so that one area-weighted mean (what
/// the impostor is shaded with otherwise) would show a different picture.
/// That is more than one material (a variant palette may colour them
/// apart, and each has its own factors), or a metallic-roughness or
/// emissive texture. (Occlusion travels in the normal image, for every
/// model.)
pub fn captures_surface(model: &BakedModel) -> bool {
    model.materials.len() > 1
        || model.materials.iter().any(|m| {
            m.texture(TextureSlot::MetallicRoughness).is_some()
                || m.texture(TextureSlot::Emissive).is_some()
        })
}

/// The surface image's alpha for material (palette column) `id` of a model
/// with `materials` materials (at least 1): the ids spread over the whole
/// 0–1 range, so that coverage, filtering and block compression, which move
/// a code by a level or two, still round to the right id (exact for up to
/// 256 materials; `impostor.wgsl`'s `surface_material` is the inverse).
pub fn surface_id_code(id: u32, materials: u32) -> f32 {
    let last = materials.max(1) - 1;
    if last == 0 {
        0.0
    } else {
        id.min(last) as f32 / last as f32
    }
}

/// Per material (palette column), the emission the surface image's glow
/// scales, linear RGB (`impostor.wgsl` reads it after the frame table's
/// cells): the factor × strength, times the hue of the emissive texture
/// where there is one (its mean colour, from its last mip level, over its
/// largest channel; the glow carries the texel's brightness). One entry for
/// a model without materials.
pub fn surface_emission(model: &BakedModel) -> Vec<[f32; 4]> {
    if model.materials.is_empty() {
        return vec![[0.0; 4]];
    }
    model
        .materials
        .iter()
        .map(|m| {
            let hue = m
                .texture(TextureSlot::Emissive)
                .and_then(|t| model.images.get(t.image as usize))
                .and_then(|image| image.mean_colour())
                .map(|c| {
                    let top = c.max_element();
                    if top > 0.0 { c / top } else { Vec3::ZERO }
                })
                .unwrap_or(Vec3::ONE);
            (m.emissive * hue).extend(0.0).to_array()
        })
        .collect()
}

/// The impostor's frame table (see [`crate::gpu::ImpostorParams`]): per
/// global baked frame `(clip, capture position, 0, 0)`, then per clip its
/// framing sphere, then per cell its silhouette's rectangle
/// ([`ImpostorAtlas::cell_rects`]). A frame `k` of a clip of `n` frames is at clip time
/// `k / (n − 1)` of the duration, so at capture position
/// `frames · k / (n − 1)` (captures are evenly spaced from time 0, the
/// last frame of a looping clip lands on capture `frames`, which wraps to
/// 0). Frames of no clip (the rest pose) read as clip 0 at position 0.
pub fn frame_table(model: &BakedModel, atlas: &ImpostorAtlas) -> Vec<[f32; 4]> {
    let frames = atlas.plan.frames as f32;
    let mut table = vec![[0.0; 4]; model.frame_count() as usize];
    for (c, clip) in model.clips.iter().enumerate() {
        let last = clip.frame_count.saturating_sub(1).max(1) as f32;
        for k in 0..clip.frame_count {
            if let Some(t) = table.get_mut((clip.first_frame + k) as usize) {
                *t = [c as f32, frames * k as f32 / last, 0.0, 0.0];
            }
        }
    }
    table.extend(atlas.spheres.iter().copied());
    table.extend(atlas.cell_rects());
    table
}
