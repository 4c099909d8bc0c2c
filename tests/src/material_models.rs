//! The material test model: a UV sphere (glTF builder, one joint) with a
//! procedural normal map and a striped alpha texture, imported and baked,
//! and the grid of materials the PBR and impostor tests dress it in:
//!
//! - dielectric, roughness 0.1, 0.4, 0.7, 1.0;
//! - metal (gold), the same roughness sweep;
//! - emissive, normal-mapped, alpha mask (the stripes' alpha against the
//!   cutoff), alpha blend (half opacity).

use glam::{Mat4, Quat, Vec3, Vec4};
use image::{Rgba, RgbaImage};
use throng_bake::images::bake_image;
use throng_bake::scene::SourceImage;
use throng_bake::{BakeOptions, Scene, bake, import_slice};
use throng_core::BakedModel;
use throng_core::material::{AlphaMode, ImageContent, Material, TextureRef, TextureSlot};
use throng_crowd::crowd::ModelHandle;

use crate::gltf_builder::{Channel, GltfBuilder, Interpolation, Node, Primitive, gltf_bytes};

/// A UV sphere of radius 1: `rings` × `segments` quads, seams duplicated.
pub fn sphere(rings: u32, segments: u32) -> Primitive {
    let (mut p, mut n, mut uv) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..=rings {
        let v = r as f32 / rings as f32;
        let theta = v * std::f32::consts::PI;
        for s in 0..=segments {
            let u = s as f32 / segments as f32;
            let phi = u * std::f32::consts::TAU;
            let d = [
                theta.sin() * phi.cos(),
                theta.cos(),
                -theta.sin() * phi.sin(),
            ];
            p.push(d);
            n.push(d);
            uv.push([u, v]);
        }
    }
    let mut idx = Vec::new();
    let row = segments + 1;
    for r in 0..rings {
        for s in 0..segments {
            let (a, b) = (r * row + s, (r + 1) * row + s);
            idx.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    let count = p.len();
    Primitive::new(&p)
        .normals(&n)
        .uvs(&uv)
        .skin_set(&vec![[0; 4]; count], &vec![[1.0, 0.0, 0.0, 0.0]; count])
        .indices(&idx)
}

/// PNG bytes of `image`.
pub fn png(image: &RgbaImage) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    image.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// `image` as a scene's image, named `name`.
pub fn source(name: &str, image: &RgbaImage) -> SourceImage {
    SourceImage {
        name: name.into(),
        width: image.width(),
        height: image.height(),
        rgba: image.as_raw().clone(),
    }
}

/// A tangent-space normal map of ridges along u.
pub fn ridges() -> RgbaImage {
    RgbaImage::from_fn(64, 64, |x, _| {
        let slope = (x as f32 / 64.0 * std::f32::consts::TAU * 6.0).sin() * 0.8;
        let n = Vec3::new(slope, 0.0, 1.0).normalize();
        let c = (n * 0.5 + Vec3::splat(0.5)) * 255.0;
        Rgba([c.x as u8, c.y as u8, c.z as u8, 255])
    })
}

/// White with alpha stripes across v: opaque, clear, opaque, …
pub fn stripes() -> RgbaImage {
    RgbaImage::from_fn(16, 64, |_, y| {
        Rgba([255, 255, 255, if (y / 8) % 2 == 0 { 255 } else { 0 }])
    })
}

/// The sphere, imported and baked through the glTF path: LOD 0 only, with
/// the images and one default material.
pub fn baked_sphere() -> BakedModel {
    let mut model = spinning_sphere(&BakeOptions::default());
    model.lods.truncate(1);
    model.impostor = None;
    model
}

/// The sphere baked with `opts` and a clip, "spin" (a turn about +y in
/// 4 s), its images and one default material (dress it with [`models`]).
pub fn spinning_sphere(opts: &BakeOptions) -> BakedModel {
    let (mut model, _) = bake(&sphere_scene(), opts, &|_, _| {}).unwrap();
    model.images = vec![
        bake_image(
            &source("ridges", &ridges()),
            ImageContent::Normal,
            opts.texture_codec,
        ),
        bake_image(
            &source("stripes", &stripes()),
            ImageContent::Colour,
            opts.texture_codec,
        ),
    ];
    model.materials = vec![Default::default()];
    model.lods[0].submeshes[0].material = Some(0);
    model
}

/// The grid's materials, row after row.
pub fn materials() -> Vec<Material> {
    let plain = Material {
        name: "plain".into(),
        base_color_factor: Vec4::new(0.7, 0.15, 0.1, 1.0),
        metallic_factor: 0.0,
        roughness_factor: 0.5,
        ..Default::default()
    };
    let gold = Vec4::new(1.0, 0.77, 0.34, 1.0);
    let mut out = Vec::new();
    for metal in [false, true] {
        for roughness in [0.1, 0.4, 0.7, 1.0] {
            out.push(Material {
                base_color_factor: if metal { gold } else { plain.base_color_factor },
                metallic_factor: metal as u32 as f32,
                roughness_factor: roughness,
                ..plain.clone()
            });
        }
    }
    let mut textures = [None; 5];
    out.push(Material {
        emissive: Vec3::new(1.2, 0.5, 0.1),
        ..plain.clone()
    });
    textures[TextureSlot::Normal as usize] = Some(TextureRef::new(0));
    out.push(Material {
        textures,
        roughness_factor: 0.35,
        ..plain.clone()
    });
    let mut textures = [None; 5];
    textures[TextureSlot::BaseColor as usize] = Some(TextureRef::new(1));
    out.push(Material {
        textures,
        alpha_mode: AlphaMode::Mask,
        ..plain.clone()
    });
    out.push(Material {
        alpha_mode: AlphaMode::Blend,
        base_color_factor: plain.base_color_factor.truncate().extend(0.5),
        ..plain
    });
    out
}

/// The sphere as imported: one joint, the "spin" clip, no material.
pub fn sphere_scene() -> Scene {
    let mut b = GltfBuilder::new();
    let joint = b.node(Node::new("joint"));
    let mesh = b.mesh("sphere", vec![sphere(16, 24)]);
    let skin = b.skin("skin", &[joint], Some(&[Mat4::IDENTITY]));
    b.node(Node::new("sphere").mesh(mesh).skin(skin));
    let turn = |a: f32| Quat::from_rotation_y(a).to_array();
    let quarter = std::f32::consts::FRAC_PI_2;
    b.animation(
        "spin",
        vec![Channel::rotation(
            joint,
            Interpolation::Linear,
            &[0.0, 1.0, 2.0, 3.0, 4.0],
            &[
                turn(0.0),
                turn(quarter),
                turn(2.0 * quarter),
                turn(3.0 * quarter),
                turn(0.0),
            ],
        )],
    );
    import_slice(&gltf_bytes(&b.to_json()), None, "sphere")
        .expect("the sphere imports")
        .scene
}

/// The sphere with one material whose normal texture is `map` (so the bake
/// generates MikkTSpace tangents for it).
pub fn normal_mapped_sphere(map: &RgbaImage) -> Scene {
    let mut scene = sphere_scene();
    let mut textures = [None; 5];
    textures[TextureSlot::Normal as usize] = Some(TextureRef::new(0));
    scene.materials = vec![Material {
        name: "bumps".into(),
        base_color_factor: Vec4::new(0.7, 0.15, 0.1, 1.0),
        roughness_factor: 0.35,
        textures,
        ..Default::default()
    }];
    scene.images = vec![source("bumps", map)];
    scene.meshes[0].primitives[0].material = Some(0);
    scene
}

/// A tangent-space normal map of bumps that lean along both x and y.
pub fn bumps() -> RgbaImage {
    RgbaImage::from_fn(64, 64, |x, y| {
        let (u, v) = (x as f32 / 64.0, y as f32 / 64.0);
        let k = std::f32::consts::TAU * 4.0;
        let n = Vec3::new((u * k).sin() * 0.6, (v * k).cos() * 0.6, 1.0).normalize();
        let c = (n * 0.5 + Vec3::splat(0.5)) * 255.0;
        Rgba([c.x as u8, c.y as u8, c.z as u8, 255])
    })
}

/// One model per material.
pub fn models(sphere: &BakedModel) -> Vec<ModelHandle> {
    materials()
        .into_iter()
        .map(|m| {
            let mut model = sphere.clone();
            model.materials = vec![m];
            ModelHandle::new(model).unwrap()
        })
        .collect()
}
