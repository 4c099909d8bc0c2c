//! The prop the viewer puts on heads (`P`): a little cone hat, built as a
//! [`Scene`] in code and baked like any model, attached to each instance's
//! head bone with `Crowd::attach`.

use anyhow::{Context, Result};
use glam::{Mat4, Vec3, Vec4};
use throng_bake::scene::{
    LocalTransform, Material, Mesh, MeshInstance, Primitive, Scene, SceneNode,
};
use throng_core::BakedModel;
use throng_core::math::Trs;
use throng_crowd::crowd::ModelHandle;

/// Segments around the cone.
const SEGMENTS: u32 = 16;

/// A unit cone (radius 1 at y = 0, apex at y = 2), baked: a static model.
pub fn hat() -> Result<ModelHandle> {
    let mut positions = vec![Vec3::new(0.0, 2.0, 0.0), Vec3::ZERO];
    let mut indices = Vec::new();
    for i in 0..SEGMENTS {
        let a = i as f32 / SEGMENTS as f32 * std::f32::consts::TAU;
        positions.push(Vec3::new(a.cos(), 0.0, -a.sin()));
    }
    for i in 0..SEGMENTS {
        let (a, b) = (2 + i, 2 + (i + 1) % SEGMENTS);
        indices.extend([0, a, b]); // side
        indices.extend([1, b, a]); // base
    }
    let scene = Scene {
        name: "hat".into(),
        nodes: vec![SceneNode {
            name: "hat".into(),
            parent: None,
            rest: LocalTransform::Trs(Trs::IDENTITY),
            weights: None,
        }],
        meshes: vec![Mesh {
            name: "cone".into(),
            primitives: vec![Primitive {
                index: 0,
                positions,
                normals: None, // flat-shaded by the renderer
                tangents: None,
                uvs: None,
                influence_sets: 0,
                joints: Vec::new(),
                weights: Vec::new(),
                indices,
                material: Some(0),
                targets: Vec::new(),
            }],
            target_names: Vec::new(),
            weights: Vec::new(),
        }],
        instances: vec![MeshInstance {
            node: 0,
            mesh: 0,
            skin: None,
        }],
        materials: vec![Material {
            name: "hat".into(),
            base_color_factor: Vec4::new(0.15, 0.35, 0.9, 1.0),
            ..Material::default()
        }],
        ..Scene::default()
    };
    let (model, _) = throng_bake::bake(&scene, &Default::default(), &|_, _| {})
        .context("baking the hat prop")?;
    Ok(ModelHandle::new(model)?)
}

/// The bone a hat goes on: the first whose name contains "head", else the
/// highest bone in the rest pose.
pub fn head_bone(model: &BakedModel) -> usize {
    let by_name = model
        .bones
        .iter()
        .position(|b| b.name.to_ascii_lowercase().contains("head"));
    by_name.unwrap_or_else(|| {
        (0..model.bones.len())
            .max_by(|&a, &b| {
                model.bones[a]
                    .rest_global
                    .w_axis
                    .y
                    .total_cmp(&model.bones[b].rest_global.w_axis.y)
            })
            .unwrap_or(0)
    })
}

/// The hat's offset in the head bone's space: upright in the rest pose, on
/// top of the head, sized to the model.
pub fn hat_offset(model: &BakedModel, bone: usize) -> Mat4 {
    let rest = model.bones[bone].rest_global;
    let height = (model.frame_bounds[0].max.y - model.frame_bounds[0].min.y).max(1e-3);
    let top = rest.w_axis.truncate() + Vec3::Y * height * 0.1;
    let size = height * 0.12;
    rest.inverse()
        * Mat4::from_scale_rotation_translation(Vec3::splat(size), glam::Quat::IDENTITY, top)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hat_bakes_and_finds_a_head() {
        let hat = hat().unwrap();
        assert_eq!(hat.model().lods[0].indices.len() as u32, SEGMENTS * 6);
        let fox = crate::test_model::fox();
        let head = head_bone(fox.model());
        assert!(
            fox.model().bones[head].name.contains("Head"),
            "{}",
            fox.model().bones[head].name
        );
        let offset = hat_offset(fox.model(), head);
        // In the rest pose the hat's base sits above the head bone.
        let base = (fox.model().bones[head].rest_global * offset).w_axis;
        assert!(base.y > fox.model().bones[head].rest_global.w_axis.y);
    }
}
