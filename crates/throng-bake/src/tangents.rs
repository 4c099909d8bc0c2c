//! Tangents for normal maps: the file's (glTF `TANGENT`), else MikkTSpace
//! tangents generated at bake (`bevy_mikktspace`, the convention glTF
//! names and normal-map bakers use), for primitives whose material has a
//! normal texture and that have texture coordinates. A tangent of zero
//! length, from the file or where MikkTSpace gives none (a degenerate
//! face), is baked as "none": the shader falls back to the frame it derives
//! from screen-space derivatives at those vertices.

use glam::{Vec3, Vec4};

use crate::scene::{Primitive, Scene};

/// Whether `prim` needs tangents: its material has a normal texture and it
/// has texture coordinates to orient them.
pub fn needed(scene: &Scene, prim: &Primitive) -> bool {
    let normal_mapped = prim
        .material
        .and_then(|m| scene.materials.get(m as usize))
        .is_some_and(|m| {
            m.texture(throng_core::material::TextureSlot::Normal)
                .is_some()
        });
    normal_mapped && prim.uvs.is_some()
}

/// MikkTSpace tangents of `prim` with `normals` (one per vertex; zero
/// where the algorithm gives none). A vertex shared by faces whose tangent
/// spaces differ keeps the last face's.
pub fn generate(prim: &Primitive, normals: &[Vec3]) -> Vec<Vec4> {
    let mut geometry = Geometry {
        prim,
        normals,
        out: vec![Vec4::ZERO; prim.vertex_count()],
    };
    // The error type has no variant: generation cannot fail.
    let _ = bevy_mikktspace::generate_tangents(&mut geometry);
    geometry.out
}

struct Geometry<'a> {
    prim: &'a Primitive,
    normals: &'a [Vec3],
    out: Vec<Vec4>,
}

impl Geometry<'_> {
    fn vertex(&self, face: usize, vert: usize) -> usize {
        self.prim.indices[face * 3 + vert] as usize
    }
}

impl bevy_mikktspace::Geometry for Geometry<'_> {
    fn num_faces(&self) -> usize {
        self.prim.indices.len() / 3
    }

    fn num_vertices_of_face(&self, _face: usize) -> usize {
        3
    }

    fn position(&self, face: usize, vert: usize) -> [f32; 3] {
        self.prim.positions[self.vertex(face, vert)].to_array()
    }

    fn normal(&self, face: usize, vert: usize) -> [f32; 3] {
        self.normals[self.vertex(face, vert)].to_array()
    }

    fn tex_coord(&self, face: usize, vert: usize) -> [f32; 2] {
        self.prim
            .uvs
            .as_ref()
            .map_or([0.0; 2], |uv| uv[self.vertex(face, vert)].to_array())
    }

    fn set_tangent(
        &mut self,
        tangent_space: Option<bevy_mikktspace::TangentSpace>,
        face: usize,
        vert: usize,
    ) {
        let v = self.vertex(face, vert);
        // MikkTSpace's sign is for texture v growing up the image; glTF's
        // grows down it (bitangent = cross(n, t) · w must point up the
        // image, where a normal map's +y points), so the sign flips, as
        // three.js's computeMikkTSpaceTangents does for glTF.
        self.out[v] = tangent_space.map_or(Vec4::ZERO, |t| {
            let [x, y, z, w] = t.tangent_encoded();
            Vec4::new(x, y, z, -w)
        });
    }
}

/// How many of `tangents` are too short to orient a normal map: those the
/// baked vertex stores as "none" ([`throng_core::model::pack_tangent`]).
pub fn zero_length(tangents: &[Vec4]) -> usize {
    tangents
        .iter()
        .filter(|&&t| throng_core::model::pack_tangent(t) == [0; 4])
        .count()
}
