//! CPU evaluation of baked data: the exact arithmetic of the WGSL vertex
//! shader, on the CPU. It is the oracle for GPU readback tests and what
//! `throng sample --source baked` prints.
//!
//! Per influence i: `Mᵢ = lerp(P(frame0), P(frame1), t)`; during a fade
//! (`fade < 1`) `Mᵢ = mix(lerp(P(prev0), P(prev1), prev_t), Mᵢ, fade)`. Then
//! `M = Σ wᵢ Mᵢ`, position `M · v`, normal `cofactor(M) · n` normalised.
//! A vertex that morph targets move is morphed first, its weights blended
//! as the bones are ([`crate::morph`]). Ready palettes and weights
//! (animation layers, [`skin_lod_with`]) morph and skin as the GPU's
//! palette path does.

use glam::{Mat4, Vec3, Vec4};

use crate::gpu::FrameBlend;
use crate::math::{Rows3x4, rows_lerp, rows_to_mat4, rows_transform_normal, rows_transform_point};
use crate::model::{BakedModel, BakedVertex};
use crate::morph::morph_vertex;

/// Skinned vertices of one source primitive, identified as in glTF.
#[derive(Clone, Debug, PartialEq)]
pub struct SkinnedPrimitive {
    /// Node holding the mesh.
    pub node: u32,
    /// Mesh index.
    pub mesh: u32,
    /// Primitive index in the mesh.
    pub primitive: u32,
    /// Positions in model (scene-root) space, in source vertex order.
    pub positions: Vec<Vec3>,
    /// Normals (empty if the source primitive had none).
    pub normals: Vec<Vec3>,
}

/// Palette matrix rows of `bone` for a frame blend.
#[inline]
pub fn blended_bone_rows(model: &BakedModel, bone: u32, blend: &FrameBlend) -> Rows3x4 {
    let c = &blend.current;
    let cur = rows_lerp(
        &model.palette_rows(bone, c.frame0),
        &model.palette_rows(bone, c.frame1),
        c.t,
    );
    if blend.fade >= 1.0 {
        return cur;
    }
    let p = &blend.previous;
    let prev = rows_lerp(
        &model.palette_rows(bone, p.frame0),
        &model.palette_rows(bone, p.frame1),
        p.t,
    );
    rows_lerp(&prev, &cur, blend.fade)
}

/// `M = Σ wᵢ · bone(jointᵢ)` for one vertex, skipping zero weights, in the
/// shader's order of operations. `bone` supplies a palette matrix (blended
/// or not) for a bone index.
#[inline]
pub fn blend_matrix(v: &BakedVertex, mut bone: impl FnMut(u32) -> Rows3x4) -> Rows3x4 {
    let mut m = [Vec4::ZERO; 3];
    for k in 0..4 {
        let w = v.weights[k];
        if w == 0.0 {
            continue;
        }
        let rows = bone(v.joints[k] as u32);
        for r in 0..3 {
            m[r] += rows[r] * w;
        }
    }
    m
}

/// Skins one baked vertex: returns `(position, normal)` in model space.
#[inline]
pub fn skin_vertex(model: &BakedModel, v: &BakedVertex, blend: &FrameBlend) -> (Vec3, Vec3) {
    let (p, n) = morph_vertex(&model.morphs, v, |s| model.morphs.blended_weight(s, blend));
    let m = blend_matrix(v, |b| blended_bone_rows(model, b, blend));
    (rows_transform_point(&m, p), rows_transform_normal(&m, n))
}

/// Skins every submesh of LOD `lod` and labels each with its source glTF
/// (node, mesh, primitive), in the same shape as the offline CPU reference (`throng_bake::reference::sample`).
pub fn skin_lod(model: &BakedModel, lod: usize, blend: &FrameBlend) -> Vec<SkinnedPrimitive> {
    skin_lod_by(model, lod, |v| skin_vertex(model, v, blend))
}

/// [`skin_lod`] with a ready palette and morph weights (one matrix per
/// bone and one weight per slot: animation layers,
/// `throng_core::layers::layered_palette` and `layered_weights`; a slot
/// past `weights` weighs 0).
pub fn skin_lod_with(
    model: &BakedModel,
    lod: usize,
    palette: &[Rows3x4],
    weights: &[f32],
) -> Vec<SkinnedPrimitive> {
    skin_lod_by(model, lod, |v| {
        let (p, n) = morph_vertex(&model.morphs, v, |s| {
            weights.get(s as usize).copied().unwrap_or(0.0)
        });
        let m = blend_matrix(v, |b| palette[b as usize]);
        (rows_transform_point(&m, p), rows_transform_normal(&m, n))
    })
}

fn skin_lod_by(
    model: &BakedModel,
    lod: usize,
    skin: impl Fn(&BakedVertex) -> (Vec3, Vec3),
) -> Vec<SkinnedPrimitive> {
    let lod = &model.lods[lod];
    lod.submeshes
        .iter()
        .map(|sub| {
            let range = sub.base_vertex as usize..(sub.base_vertex + sub.vertex_count) as usize;
            let (positions, normals) = lod.vertices[range].iter().map(&skin).unzip();
            SkinnedPrimitive {
                node: sub.source_node,
                mesh: sub.source_mesh,
                primitive: sub.source_primitive,
                positions,
                normals,
            }
        })
        .collect()
}

/// World matrix of a bone's *node* for a frame blend: the blended palette
/// matrix times the bone's bind matrix (`G = P · IBM⁻¹`), in model space.
pub fn bone_model_transform(model: &BakedModel, bone: u32, blend: &FrameBlend) -> Mat4 {
    let rows = blended_bone_rows(model, bone, blend);
    rows_to_mat4(&rows) * model.bones[bone as usize].inverse_bind.inverse()
}

/// Box of every vertex of LOD `lod` at each global frame (exact frames, no
/// interpolation): what the baker stores as per-frame bounds.
pub fn frame_bounds(model: &BakedModel, lod: usize) -> Vec<crate::math::Aabb> {
    let verts = &model.lods[lod].vertices;
    (0..model.frame_count())
        .map(|g| {
            let palette: Vec<Rows3x4> = (0..model.bone_count())
                .map(|b| model.palette_rows(b, g))
                .collect();
            let mut b = crate::math::Aabb::EMPTY;
            for v in verts {
                let (p, _) = morph_vertex(&model.morphs, v, |s| model.morphs.weight(g, s));
                let m = blend_matrix(v, |j| palette[j as usize]);
                b.add_point(rows_transform_point(&m, p));
            }
            b
        })
        .collect()
}
