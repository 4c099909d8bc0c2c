//! Test fixtures shared by the crowd's unit tests: a one-bone, one-triangle
//! model with two clips, and a spawn at a given x.

use glam::{Mat4, Vec3};

use super::{ModelHandle, Spawn};
use throng_core::math::{Aabb, mat4_to_rows};
use throng_core::model::{
    BakedModel, BakedVertex, Bone, BoneTexture, ClipInfo, Lod, Submesh, Texels,
};

/// One bone, one triangle reaching from the origin to x = `reach`, and
/// two clips: "still" (1 s, identity) and "swing" (2 s, moved by +y).
pub(super) fn test_model(reach: f32) -> ModelHandle {
    let bounds = |lift: f32| lifted_bounds(reach, lift);
    let model = BakedModel {
        name: "test".into(),
        source: String::new(),
        fps: 1.0,
        bake_error: 0.0,
        bones: vec![Bone {
            name: "root".into(),
            node: 0,
            parent: None,
            inverse_bind: Mat4::IDENTITY,
            rest_global: Mat4::IDENTITY,
        }],
        clips: clips(reach),
        texture: bone_texture(),
        bounds: bounds(0.0).union(&bounds(2.0)),
        bounding_radius: bounds(0.0).union(&bounds(2.0)).radius(),
        frame_bounds: vec![
            bounds(0.0),
            bounds(0.0),
            bounds(0.0),
            bounds(0.0),
            bounds(1.0),
            bounds(2.0),
        ],
        lods: vec![triangle_lod(reach)],
        materials: vec![],
        images: vec![],
        root_motion: vec![],
        events: vec![],
        morphs: Default::default(),
        impostor: None,
        provenance: None,
        contacts: Vec::new(),
    };
    ModelHandle::new(model).expect("valid test model")
}

/// The triangle's bounds, raised by `lift` along y (where "swing" moves it).
fn lifted_bounds(reach: f32, lift: f32) -> Aabb {
    Aabb {
        min: Vec3::new(0.0, lift, 0.0),
        max: Vec3::new(reach, 0.5 + lift, 0.0),
    }
}

/// The two clips, "still" (frames 1-2) and "swing" (frames 3-5), with the
/// bounds their frames reach.
fn clips(reach: f32) -> Vec<ClipInfo> {
    let bounds = |lift: f32| lifted_bounds(reach, lift);
    vec![
        ClipInfo {
            name: "still".into(),
            duration: 1.0,
            first_frame: 1,
            frame_count: 2,
            bounds: bounds(0.0),
            root_motion: false,
            error: Default::default(),
        },
        ClipInfo {
            name: "swing".into(),
            duration: 2.0,
            first_frame: 3,
            frame_count: 3,
            bounds: bounds(0.0).union(&bounds(2.0)),
            root_motion: false,
            error: Default::default(),
        },
    ]
}

/// The bone's six frames (rest, "still"'s two, "swing"'s three) as F32
/// texels, 5 wide in one layer.
fn bone_texture() -> BoneTexture {
    let frames: Vec<Mat4> = vec![
        Mat4::IDENTITY, // rest
        Mat4::IDENTITY,
        Mat4::IDENTITY, // still: 2 frames
        Mat4::IDENTITY,
        Mat4::from_translation(Vec3::Y),
        Mat4::from_translation(Vec3::Y * 2.0), // swing: 3 frames
    ];
    let texels = frames
        .iter()
        .flat_map(|m| mat4_to_rows(m).map(|r| r.to_array()))
        .collect::<Vec<_>>();
    BoneTexture {
        width: 5,
        layers: 1,
        texels: Texels::F32(texels),
    }
}

/// The one LOD: the triangle, every vertex bound wholly to the root bone,
/// as one submesh without a material.
fn triangle_lod(reach: f32) -> Lod {
    let tri = [
        Vec3::ZERO,
        Vec3::new(reach, 0.0, 0.0),
        Vec3::new(0.0, 0.5, 0.0),
    ];
    Lod {
        screen_size: 0.0,
        vertices: tri
            .iter()
            .map(|p| BakedVertex {
                position: p.to_array(),
                normal: [0.0, 0.0, 1.0],
                uv: [0.0; 2],
                joints: [0; 4],
                weights: [1.0, 0.0, 0.0, 0.0],
                morph: [0, 0],
                tangent: [0; 4],
            })
            .collect(),
        indices: vec![0, 1, 2],
        submeshes: vec![Submesh {
            material: None,
            flags: 0,
            source_node: 0,
            source_mesh: 0,
            source_primitive: 0,
            base_vertex: 0,
            vertex_count: 3,
            first_index: 0,
            index_count: 3,
        }],
    }
}

pub(super) fn at(x: f32) -> Spawn {
    Spawn {
        transform: Mat4::from_translation(Vec3::new(x, 0.0, 0.0)),
        clip: Some(1),
        ..Spawn::default()
    }
}
