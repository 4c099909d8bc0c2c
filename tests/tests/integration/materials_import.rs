//! glTF's metallic-roughness material reaches the `.throng` whole: every
//! factor, the five texture slots with their samplers' wraps and
//! `KHR_texture_transform` (typed on `textureInfo`, read from the JSON on
//! the normal and occlusion textures), `KHR_materials_emissive_strength`,
//! and a warning for a texture that asks for another UV set. Then through
//! a bake and the file format unchanged; and a glTF material without
//! `pbrMetallicRoughness` takes glTF's defaults (metallic 1, roughness 1).
//! An image that cannot be read, decoded, or is larger than
//! `MAX_IMAGE_SIDE` (read from its header) is dropped with a warning.

use glam::{Vec2, Vec3, Vec4};
use serde_json::json;
use throng_bake::{BakeOptions, bake, import_file};
use throng_core::format::{read_model, write_model};
use throng_core::material::{TextureSlot, TextureWrap, UvTransform};
use throng_tests::gltf_builder::{gltf_bytes, skinned_triangle};

/// The test triangle in a folder of its own with a 2 × 2 PNG beside it and
/// `material` as its one material.
fn with_material(name: &str, material: serde_json::Value) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("throng-materials-import-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    image::RgbaImage::from_pixel(2, 2, image::Rgba([200, 100, 50, 255]))
        .save(dir.join("tex.png"))
        .unwrap();
    let b = skinned_triangle(&[0, 1, 2], [[0; 4]; 3], [[1.0, 0.0, 0.0, 0.0]; 3]);
    let mut doc = b.to_json();
    doc["meshes"][0]["primitives"][0]["material"] = json!(0);
    doc["images"] = json!([{ "uri": "tex.png" }]);
    doc["samplers"] = json!([{ "wrapS": 33071, "wrapT": 33648 }]);
    doc["textures"] = json!([{ "source": 0, "sampler": 0 }]);
    doc["materials"] = json!([material]);
    doc["extensionsUsed"] = json!(["KHR_texture_transform", "KHR_materials_emissive_strength"]);
    let path = dir.join("model.gltf");
    std::fs::write(&path, gltf_bytes(&doc)).unwrap();
    path
}

#[test]
fn every_pbr_field_and_texture_slot_is_imported_baked_and_read_back() {
    let path = with_material(
        "full",
        json!({
            "name": "full",
            "pbrMetallicRoughness": {
                "baseColorFactor": [0.9, 0.8, 0.7, 0.6],
                "baseColorTexture": { "index": 0, "extensions": { "KHR_texture_transform": {
                    "offset": [0.25, 0.5], "rotation": 0.5, "scale": [2.0, 3.0] } } },
                "metallicFactor": 0.3,
                "roughnessFactor": 0.7,
                "metallicRoughnessTexture": { "index": 0 }
            },
            "normalTexture": { "index": 0, "scale": 0.8,
                "extensions": { "KHR_texture_transform": { "offset": [0.1, 0.2] } } },
            "occlusionTexture": { "index": 0, "strength": 0.6 },
            "emissiveTexture": { "index": 0, "texCoord": 1 },
            "emissiveFactor": [1.0, 0.5, 0.25],
            "extensions": { "KHR_materials_emissive_strength": { "emissiveStrength": 4.0 } },
            "alphaMode": "MASK",
            "alphaCutoff": 0.4,
            "doubleSided": true
        }),
    );
    let imported = import_file(&path).unwrap();
    let m = &imported.scene.materials[0];
    assert_eq!(
        imported.scene.images.len(),
        1,
        "one image, shared by every slot"
    );
    assert_eq!(m.base_color_factor, Vec4::new(0.9, 0.8, 0.7, 0.6));
    assert_eq!((m.metallic_factor, m.roughness_factor), (0.3, 0.7));
    assert_eq!((m.normal_scale, m.occlusion_strength), (0.8, 0.6));
    assert_eq!(m.emissive, Vec3::new(4.0, 2.0, 1.0));
    assert!(m.double_sided && m.alpha_cutoff == 0.4);
    for slot in TextureSlot::ALL {
        let t = m
            .texture(slot)
            .unwrap_or_else(|| panic!("{} missing", slot.name()));
        assert_eq!(t.image, 0);
        assert_eq!(
            t.wrap,
            [TextureWrap::ClampToEdge, TextureWrap::MirroredRepeat]
        );
    }
    let base = m.texture(TextureSlot::BaseColor).unwrap().transform;
    assert_eq!(
        base,
        UvTransform {
            offset: Vec2::new(0.25, 0.5),
            rotation: 0.5,
            scale: Vec2::new(2.0, 3.0)
        }
    );
    let normal = m.texture(TextureSlot::Normal).unwrap().transform;
    assert_eq!(
        normal,
        UvTransform {
            offset: Vec2::new(0.1, 0.2),
            ..UvTransform::IDENTITY
        }
    );
    assert_eq!(
        m.texture(TextureSlot::Occlusion).unwrap().transform,
        UvTransform::IDENTITY
    );
    assert!(
        imported
            .warnings
            .iter()
            .any(|w| w.contains("emissiveTexture: uses TEXCOORD_1")),
        "{:?}",
        imported.warnings
    );
    let (model, _) = bake(&imported.scene, &BakeOptions::default(), &|_, _| {}).unwrap();
    assert_eq!(model.materials[0], *m);
    let read = read_model(&write_model(&model).unwrap()).unwrap();
    assert_eq!(read.materials, model.materials);
    assert_eq!(read.images, model.images);
}

#[test]
fn a_material_without_pbr_takes_gltfs_defaults_and_an_unreadable_image_is_dropped() {
    let path = with_material(
        "defaults",
        json!({ "name": "bare", "normalTexture": { "index": 0 } }),
    );
    // The normal map's image is missing: the slot is dropped with a warning.
    std::fs::remove_file(path.with_file_name("tex.png")).unwrap();
    let imported = import_file(&path).unwrap();
    let m = &imported.scene.materials[0];
    assert_eq!((m.metallic_factor, m.roughness_factor), (1.0, 1.0));
    assert_eq!(m.base_color_factor, Vec4::ONE);
    assert_eq!(m.emissive, Vec3::ZERO);
    assert!(TextureSlot::ALL.iter().all(|&s| m.texture(s).is_none()));
    assert!(
        imported
            .warnings
            .iter()
            .any(|w| w.contains("images[0]") && w.contains("drawn without it")),
        "{:?}",
        imported.warnings
    );
}

/// A PNG whose signature is right but whose data is not, and one whose
/// header claims more than `MAX_IMAGE_SIDE` texels a side (its pixels are
/// never decoded: the size is read first), are dropped with a warning that
/// names the image and why; the material keeps its factors.
#[test]
fn a_corrupt_or_oversized_image_is_dropped_with_a_warning() {
    use throng_core::limits::MAX_IMAGE_SIDE;
    // An IHDR of (MAX_IMAGE_SIDE + 1) × 1, then an IDAT of two bytes and
    // the IEND, each with a valid CRC: a header to read, no pixels.
    let huge = {
        let chunk = |kind: &[u8], data: &[u8]| {
            let body = [kind, data].concat();
            let mut c = (data.len() as u32).to_be_bytes().to_vec();
            c.extend(&body);
            c.extend(crc32fast::hash(&body).to_be_bytes());
            c
        };
        let mut ihdr = (MAX_IMAGE_SIDE + 1).to_be_bytes().to_vec();
        ihdr.extend(1u32.to_be_bytes());
        ihdr.extend([8, 6, 0, 0, 0]);
        [
            b"\x89PNG\r\n\x1a\n".to_vec(),
            chunk(b"IHDR", &ihdr),
            chunk(b"IDAT", &[0x78, 0x9c]),
            chunk(b"IEND", &[]),
        ]
        .concat()
    };
    let mut corrupt = b"\x89PNG\r\n\x1a\n".to_vec();
    corrupt.extend((0..200u32).map(|i| (i * 37) as u8));
    for (case, bytes, why) in [
        ("corrupt", corrupt, "cannot be decoded"),
        ("oversized", huge, "outside the 1..=8192 texels a side"),
    ] {
        let path = with_material(
            case,
            json!({ "name": case, "pbrMetallicRoughness": { "baseColorTexture": { "index": 0 }, "baseColorFactor": [0.5, 0.5, 0.5, 1.0] } }),
        );
        std::fs::write(path.with_file_name("tex.png"), bytes).unwrap();
        let imported = import_file(&path).unwrap_or_else(|e| panic!("{case}: {e}"));
        let m = &imported.scene.materials[0];
        assert!(m.texture(TextureSlot::BaseColor).is_none(), "{case}");
        assert_eq!(m.base_color_factor, Vec4::new(0.5, 0.5, 0.5, 1.0), "{case}");
        assert!(imported.scene.images.is_empty(), "{case}");
        println!("{case}: {:?}", imported.warnings);
        assert!(
            imported.warnings.iter().any(|w| w.contains("images[0]")
                && w.contains(why)
                && w.contains("drawn without it")),
            "{case}: {:?}",
            imported.warnings
        );
        // And the model still bakes.
        bake(&imported.scene, &BakeOptions::default(), &|_, _| {}).unwrap();
    }
}
