//! The baked model: what `throng bake` produces and the runtime consumes.
//!
//! A [`BakedModel`] is built only by the baker or by the `.throng` reader and
//! is checked by [`BakedModel::validate`] before either hands it out, so the
//! runtime can index it without further checks: a bone index beyond the
//! palette, a frame beyond the table or a texel beyond the texture is a load
//! error, never a GPU read.
//!
//! # Validity rules
//! 1. At least one bone, at most [`MAX_BONES`]; every bone's parent is another
//!    bone and parents form no cycle; every matrix is finite.
//! 2. At least one frame (frame [`REST_FRAME`] is the rest pose). Every clip's
//!    frames lie inside the frame table; a clip of duration D > 0 has ≥ 2
//!    frames, a clip of duration 0 exactly 1; durations are finite and
//!    `(frames − 1) / duration` too (the time-to-frame rate); its
//!    measured errors are finite and non-negative.
//! 3. The texture holds exactly `frames × bones × 3` texels, at most
//!    `u32::MAX` (the shader's linear texel index is a `u32`), its layout is
//!    tight ([`TextureLayout::is_tight_for`]) with `W ≤ MAX_LAYER_SIZE`, and
//!    every texel is finite.
//! 4. One frame bound per frame; every bound finite and non-empty.
//! 5. At least one LOD; each has at least one submesh. Every submesh's vertex
//!    and index ranges lie inside its LOD, its index count is a multiple of 3,
//!    each index is below its vertex count, and its material exists.
//! 6. Every vertex's bone indices are below the bone count; positions,
//!    normals, uvs and weights are finite and weights non-negative.
//! 7. Every material's image exists; every image has its full mip chain,
//!    each level the size its codec needs ([`Image::check`]).
//! 8. An impostor belongs to the model: at least one clip, the model's clip
//!    count, its plan's layout and image sizes ([`ImpostorAtlas::check`]).
//! 9. Contacts, when stored: one per clip, the same distinct feet in every
//!    clip, finite grounds and lifts ≥ 0, each foot's phases ordered,
//!    apart and within the clip (`feet.rs`).
//!
//! [`ImpostorAtlas::check`]: crate::impostor::ImpostorAtlas::check
//! [`MAX_BONES`]: crate::limits::MAX_BONES
//! [`REST_FRAME`]: crate::limits::REST_FRAME
//! [`TextureLayout::is_tight_for`]: crate::layout::TextureLayout::is_tight_for

use glam::Vec3;

use crate::impostor::atlas::ImpostorAtlas;
use crate::layout::{TexelAddress, texel_address, texel_index};
use crate::limits::TEXELS_PER_MATRIX;
use crate::material::{Image, Material};
use crate::math::{Aabb, Rows3x4};
use crate::morph::Morphs;
use crate::provenance::Provenance;

mod animation;
mod feet;
pub(crate) mod mesh;
mod validate;

pub use animation::{
    Bone, BoneTexture, ClipError, ClipEvent, ClipInfo, RootMotionKey, TexelFormat, Texels,
};
pub use feet::{ClipContacts, FootContacts};
pub use mesh::{
    BakedVertex, Lod, SUBMESH_GENERATED_NORMALS, Submesh, pack_tangent, unpack_tangent,
};

/// A baked model, ready for upload. See the module docs for its validity rules.
#[derive(Clone, Debug, PartialEq)]
pub struct BakedModel {
    /// Model name.
    pub name: String,
    /// Source file name.
    pub source: String,
    /// Frames per second the clips were baked at.
    pub fps: f32,
    /// Largest skinned-vertex error of the baked texture vs the CPU reference,
    /// relative to [`Self::bounding_radius`], measured at bake time.
    pub bake_error: f32,
    /// Palette.
    pub bones: Vec<Bone>,
    /// Clips in source file order.
    pub clips: Vec<ClipInfo>,
    /// Bone matrices of every frame.
    pub texture: BoneTexture,
    /// Box of every vertex over every frame (rest pose included).
    pub bounds: Aabb,
    /// Half the diagonal of [`Self::bounds`]; the unit of error tolerances.
    pub bounding_radius: f32,
    /// Per-frame boxes, one per global frame.
    pub frame_bounds: Vec<Aabb>,
    /// LODs, finest first.
    pub lods: Vec<Lod>,
    /// Materials.
    pub materials: Vec<Material>,
    /// Images referenced by materials, mip chains in their codecs.
    pub images: Vec<Image>,
    /// Root motion per global frame (empty when no clip has root motion;
    /// zero for frames of clips without it).
    pub root_motion: Vec<RootMotionKey>,
    /// Events, sorted by clip then time.
    pub events: Vec<ClipEvent>,
    /// Morph targets: slots, weights per frame, sparse deltas (empty for a
    /// model without).
    pub morphs: Morphs,
    /// The animated impostor at the far end of the LOD chain, if baked.
    pub impostor: Option<ImpostorAtlas>,
    /// Where the bake came from (inputs, options, baker), if recorded.
    pub provenance: Option<Provenance>,
    /// Per clip, its feet's contacts with the ground as the bake measured
    /// them (empty: not measured, as for a hand-built model;
    /// `crate::contacts::clip_contacts` then measures them).
    pub contacts: Vec<ClipContacts>,
}

impl BakedModel {
    /// Palette size.
    pub fn bone_count(&self) -> u32 {
        self.bones.len() as u32
    }

    /// Surface area of the finest LOD in the bind pose per material, and
    /// last that of the submeshes without one (`materials.len() + 1`
    /// entries).
    pub fn area_by_material(&self) -> Vec<f32> {
        let lod = &self.lods[0];
        let mut areas = vec![0.0f32; self.materials.len() + 1];
        for s in &lod.submeshes {
            let at = s.material.map_or(self.materials.len(), |m| m as usize);
            let indices = &lod.indices[s.first_index as usize..][..s.index_count as usize];
            for tri in indices.chunks_exact(3) {
                let p = |i: u32| Vec3::from(lod.vertices[(s.base_vertex + i) as usize].position);
                let (a, b, c) = (p(tri[0]), p(tri[1]), p(tri[2]));
                areas[at.min(self.materials.len())] += 0.5 * (b - a).cross(c - a).length();
            }
        }
        areas
    }

    /// The level of the LOD chain the impostor is at (after every mesh
    /// LOD), if the model has one that is ever drawn (a positive
    /// `screen_size`).
    pub fn impostor_lod(&self) -> Option<usize> {
        self.impostor
            .as_ref()
            .filter(|i| i.screen_size > 0.0)
            .map(|_| self.lods.len())
    }

    /// The whole LOD chain's thresholds, finest first: per level the
    /// smallest projected size at which it is drawn (fraction of the screen
    /// height). The mesh LODs' [`Lod::screen_size`]s, then, with an
    /// impostor ([`Self::impostor_lod`]), 0 for it, every mesh threshold
    /// raised to at least the impostor's (so the chain stays
    /// non-increasing and the last mesh LOD ends where the impostor
    /// begins).
    pub fn lod_sizes(&self) -> Vec<f32> {
        let floor = match self.impostor_lod() {
            Some(_) => self.impostor.as_ref().map_or(0.0, |i| i.screen_size),
            None => 0.0,
        };
        let mut sizes: Vec<f32> = self.lods.iter().map(|l| l.screen_size.max(floor)).collect();
        if self.impostor_lod().is_some() {
            sizes.push(0.0);
        }
        sizes
    }

    /// Frames in the global frame table.
    pub fn frame_count(&self) -> u32 {
        let per_frame = self.bones.len() * TEXELS_PER_MATRIX as usize;
        self.texture
            .texels
            .len()
            .checked_div(per_frame)
            .unwrap_or(0) as u32
    }

    /// Clip index by exact name.
    pub fn clip_index(&self, name: &str) -> Option<usize> {
        self.clips.iter().position(|c| c.name == name)
    }

    /// Baked 3x4 matrix of `bone` at global `frame`.
    ///
    /// # Panics
    /// If `bone` or `frame` is out of range.
    #[inline]
    pub fn palette_rows(&self, bone: u32, frame: u32) -> Rows3x4 {
        let base = texel_index(frame, bone, 0, self.bone_count()) as usize;
        [
            self.texture.texels.get(base),
            self.texture.texels.get(base + 1),
            self.texture.texels.get(base + 2),
        ]
    }

    /// Location of a bone-matrix row in the texture (for diagnostics).
    pub fn texel_location(&self, bone: u32, frame: u32, row: u32) -> TexelAddress {
        texel_address(
            texel_index(frame, bone, row, self.bone_count()),
            self.texture.width,
        )
    }
}

/// Model-space box of `points` (empty if none).
pub fn aabb_of(points: impl IntoIterator<Item = Vec3>) -> Aabb {
    let mut b = Aabb::EMPTY;
    for p in points {
        b.add_point(p);
    }
    b
}
