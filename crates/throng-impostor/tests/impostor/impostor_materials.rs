//! Near and far on the material test model (`throng_tests::material_models`:
//! a spinning UV sphere dressed in each of the PBR test's materials): for
//! each opaque material, a grid of spheres drawn as LOD 0 against the same
//! grid drawn as the impostor captured from it, at the distance where the
//! default chain switches, on every record path. The bounds are the Fox's
//! (`impostor_draw.rs`): pixels covered by one picture only, and the mean
//! colour difference where both cover. A control, the gold sphere's
//! impostor against the rough dielectric's mesh, must fail them.
//!
//! Each sphere wears one material, so its impostor has no surface image
//! and is shaded with the material's own metalness, roughness and
//! emission; the alpha-blended material is left out: an impostor is drawn
//! opaque (its half-transparent sphere would be a different picture by
//! design). `two_material_spheres_far_match_near` dresses the halves of
//! one sphere apart, with a variant palette, where the surface image
//! (per-texel metalness, roughness, glow and material) must carry the
//! difference; `an_occluded_sphere_far_matches_near` gives one an
//! occlusion map, which the normal image carries (docs/CHARACTERS.md).

use crate::common::{
    CELL, COVERAGE_BOUND, MAD_BOUND, compare, draw, paths, switch_distance, variant, view_from,
};
use glam::{Mat4, Quat, Vec3, Vec4};
use throng_bake::BakeOptions;
use throng_core::BakedModel;
use throng_core::impostor::{AtlasPlan, TextureCodec, captures_surface, surface_id_code};
use throng_core::material::{AlphaMode, Material, TextureRef, TextureSlot};
use throng_core::model::Submesh;
use throng_core::variety::{Look, Palette};
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, ModelHandle, Spawn};
use throng_impostor::{capture_from, capture_lod};
use throng_render::{Gpu, GpuModel, PathChoice};
use throng_tests::material_models::{materials, spinning_sphere};
use throng_tests::require_gpu;

/// The alpha-masked sphere's coverage is judged by how many pixels each
/// picture covers (their difference over the mesh's), not pixel by pixel:
/// its eight stripes are 2–3 pixels wide at the switch distance, and the
/// impostor's filtered silhouette places each edge within a pixel of the
/// mesh's, which the pixel-by-pixel count adds up to 0.26 of the covered
/// pixels (0.29 with 64² cells at their switch distance: it is not the
/// cell's resolution). Measured 0.035 on lavapipe; the masked sphere's
/// impostor against the unmasked sphere's mesh (the control) measures
/// about 0.5.
const MASK_COUNT_BOUND: f64 = 0.08;

const SIDE: usize = 4;

fn dressed(sphere: &BakedModel, m: Material, gpu: &Gpu) -> BakedModel {
    let mut model = sphere.clone();
    model.materials = vec![m];
    with_atlas(model, gpu)
}

/// `model` with its impostor captured as `throng bake` would (the surface
/// image where its materials call for it).
fn with_atlas(model: BakedModel, gpu: &Gpu) -> BakedModel {
    let plan = AtlasPlan::layout(12, 8, CELL, model.clips.len() as u32)
        .with_codec(TextureCodec::default())
        .with_surface(captures_surface(&model));
    let atlas = capture_from(gpu, &model, capture_lod(&model, &plan), &plan).unwrap();
    BakedModel {
        impostor: Some(atlas),
        ..model
    }
}

/// A grid of spinning spheres at varied times and headings, wearing their
/// palette's rows in turn.
fn grid(handle: &ModelHandle) -> Crowd {
    let rows = handle.palette().map_or(1, |p| p.rows());
    let mut crowd = Crowd::new();
    let id = crowd.add_model(handle);
    let r = handle.model().bounding_radius;
    let half = (SIDE - 1) as f32 * 0.5;
    for i in 0..SIDE * SIDE {
        let (x, z) = ((i % SIDE) as f32 - half, (i / SIDE) as f32 - half);
        let spawn = Spawn {
            transform: Mat4::from_rotation_translation(
                Quat::from_rotation_y(i as f32 * 2.39),
                Vec3::new(x, 0.0, z) * r * 2.5,
            ),
            clip: Some(0),
            time: i as f32 * 0.37,
            speed: 0.0,
            look: Look {
                variant: (i % rows) as u32,
                hidden: 0,
            },
            ..Spawn::default()
        };
        crowd.spawn(id, spawn).unwrap();
    }
    crowd
}

fn render(gpu: &Gpu, path: PathChoice, camera: &Camera, handle: &ModelHandle) -> image::RgbaImage {
    let model = GpuModel::upload(&gpu.device, &gpu.queue, handle).unwrap();
    let (image, stats) = draw(gpu, path, (320, 240), camera, &grid(handle), &model);
    let expect_impostors = handle.model().impostor.is_some();
    assert_eq!(stats.impostors > 0, expect_impostors, "{path:?}: {stats:?}");
    image
}

/// The camera at the default chain's switch distance for `sphere`.
fn switch_camera(sphere: &BakedModel) -> Camera {
    let r = sphere.bounding_radius;
    let dir = Vec3::new(0.0, 0.5, 0.866);
    view_from(dir, switch_distance(r, 240), r).camera((320, 240))
}

#[test]
fn material_spheres_far_match_near() {
    let gpu = require_gpu("material impostors");
    let sphere = spinning_sphere(&BakeOptions {
        lod_ratios: vec![],
        ..BakeOptions::default()
    });
    let camera = switch_camera(&sphere);
    let all = materials();
    let opaque: Vec<_> = all
        .iter()
        .filter(|m| m.alpha_mode != AlphaMode::Blend)
        .cloned()
        .collect();
    let dressed: Vec<BakedModel> = opaque
        .iter()
        .map(|m| dressed(&sphere, m.clone(), &gpu))
        .collect();
    let mut failures = Vec::new();
    for path in paths(&gpu) {
        for (i, model) in dressed.iter().enumerate() {
            let near = render(&gpu, path, &camera, &variant(model, None));
            let far = render(&gpu, path, &camera, &variant(model, Some(1.0)));
            let c = compare(&near, &far);
            let m = &opaque[i];
            let masked = m.alpha_mode == AlphaMode::Mask;
            println!(
                "{} material {i} (metallic {}, roughness {}, emissive {}, mask {masked}): {} pixels; coverage mismatch {:.3} (bound {COVERAGE_BOUND}), count {:.3}, MAD {:.1} (bound {MAD_BOUND})",
                path.name(),
                m.metallic_factor,
                m.roughness_factor,
                m.emissive,
                c.covered,
                c.coverage_mismatch,
                c.count,
                c.mad
            );
            assert!(
                c.covered > 500,
                "{path:?} material {i}: only {} pixels",
                c.covered
            );
            let coverage_ok = if masked {
                c.count <= MASK_COUNT_BOUND
            } else {
                c.coverage_mismatch <= COVERAGE_BOUND
            };
            if !coverage_ok || c.mad > MAD_BOUND {
                failures.push(format!(
                    "{} material {i}: coverage mismatch {:.3}, count {:.3}, MAD {:.1}",
                    path.name(),
                    c.coverage_mismatch,
                    c.count,
                    c.mad
                ));
            }
        }
    }
    // The control: the gold sphere far against the rough dielectric near.
    let gold = opaque
        .iter()
        .position(|m| m.metallic_factor == 1.0)
        .unwrap();
    let rough = opaque
        .iter()
        .position(|m| m.metallic_factor == 0.0 && m.roughness_factor == 1.0)
        .unwrap();
    let near = render(
        &gpu,
        PathChoice::Packaged,
        &camera,
        &variant(&dressed[rough], None),
    );
    let far = render(
        &gpu,
        PathChoice::Packaged,
        &camera,
        &variant(&dressed[gold], Some(1.0)),
    );
    let c = compare(&near, &far);
    println!(
        "control (gold far, rough dielectric near): coverage {:.3}, MAD {:.1}",
        c.coverage_mismatch, c.mad
    );
    assert!(
        !c.within_bounds(),
        "the comparison cannot tell gold from a rough dielectric: {:.3}, {:.1}",
        c.coverage_mismatch,
        c.mad
    );
    // And the masked sphere's impostor against the unmasked sphere's mesh.
    let masked = opaque
        .iter()
        .position(|m| m.alpha_mode == AlphaMode::Mask)
        .unwrap();
    let plain = opaque
        .iter()
        .position(|m| m.metallic_factor == 0.0 && m.roughness_factor == 0.4)
        .unwrap();
    let near = render(
        &gpu,
        PathChoice::Packaged,
        &camera,
        &variant(&dressed[plain], None),
    );
    let far = render(
        &gpu,
        PathChoice::Packaged,
        &camera,
        &variant(&dressed[masked], Some(1.0)),
    );
    let c = compare(&near, &far);
    println!("control (masked far, unmasked near): count {:.3}", c.count);
    assert!(
        c.count > MASK_COUNT_BOUND,
        "the count cannot tell the mask's holes: {:.3}",
        c.count
    );
    assert!(failures.is_empty(), "{}", failures.join("; "));
}

/// `sphere` with its upper half (triangles whose centroid is above the
/// equator) in material 0 and its lower half in material 1, two submeshes
/// of the one primitive.
fn halves(sphere: &BakedModel, upper: Material, lower: Material) -> BakedModel {
    let mut model = sphere.clone();
    let lod = &mut model.lods[0];
    let sub = lod.submeshes[0].clone();
    let at = |i: u32| lod.vertices[(sub.base_vertex + i) as usize].position[1];
    let tris = &lod.indices[sub.first_index as usize..][..sub.index_count as usize];
    let (mut top, mut bottom) = (Vec::new(), Vec::new());
    for t in tris.chunks(3) {
        let y: f32 = t.iter().map(|&i| at(i)).sum();
        if y > 0.0 { &mut top } else { &mut bottom }.extend_from_slice(t);
    }
    assert!(!top.is_empty() && !bottom.is_empty());
    let first = sub.first_index;
    lod.indices.splice(
        first as usize..(first + sub.index_count) as usize,
        top.iter().chain(&bottom).copied(),
    );
    lod.submeshes = vec![
        Submesh {
            material: Some(0),
            index_count: top.len() as u32,
            ..sub
        },
        Submesh {
            material: Some(1),
            first_index: first + top.len() as u32,
            index_count: bottom.len() as u32,
            ..sub
        },
    ];
    model.materials = vec![upper, lower];
    model
}

/// A sphere whose halves differ in every channel the surface image holds
/// (metalness, roughness, emission, and a palette colour per material for
/// the instances of row 1), near against far with the single-material
/// bounds, on every record path. The control, the same atlas without its
/// surface image (one material of the area-weighted means, and each row's
/// mean colour: what format 8 drew), must fail them.
#[test]
fn two_material_spheres_far_match_near() {
    let gpu = require_gpu("two-material impostors");
    let sphere = spinning_sphere(&BakeOptions {
        lod_ratios: vec![],
        ..BakeOptions::default()
    });
    let camera = switch_camera(&sphere);
    let upper = Material {
        name: "metal".into(),
        base_color_factor: Vec4::new(0.9, 0.85, 0.8, 1.0),
        metallic_factor: 1.0,
        roughness_factor: 0.3,
        ..Default::default()
    };
    let lower = Material {
        name: "glow".into(),
        base_color_factor: Vec4::new(0.3, 0.6, 0.3, 1.0),
        metallic_factor: 0.0,
        roughness_factor: 0.9,
        emissive: Vec3::new(0.8, 0.3, 0.0),
        ..Default::default()
    };
    let model = with_atlas(halves(&sphere, upper, lower), &gpu);
    let atlas = model.impostor.as_ref().unwrap();
    assert!(
        atlas.plan.surface,
        "two materials capture the surface image"
    );
    // Where a texel is fully covered, its material code (the surface
    // image's alpha, as capture.wgsl writes it and BC3 stores it) is near
    // one material's `surface_id_code`, but where the texel straddles the
    // two halves (its samples average the codes): both materials are seen,
    // and off their codes by more than a quarter step are at most
    // STRADDLING of the texels.
    const STRADDLING: f64 = 0.05;
    let (colour, surface) = (atlas.colour_rgba8(), atlas.surface_rgba8());
    let (mut seen, mut off) = ([0usize; 2], 0usize);
    for (c, t) in colour.chunks(4).zip(surface.chunks(4)) {
        if c[3] == 255 {
            let code = t[3] as f32 / 255.0;
            let id = (code.round() as u32).min(1);
            seen[id as usize] += 1;
            off += ((code - surface_id_code(id, 2)).abs() > 0.25) as usize;
        }
    }
    let share = off as f64 / (seen[0] + seen[1]) as f64;
    println!(
        "material codes: texels per material {seen:?}, {share:.4} off their codes (bound {STRADDLING})"
    );
    assert!(
        seen.iter().all(|&n| n > 100),
        "texels per material {seen:?}"
    );
    assert!(
        share <= STRADDLING,
        "{share} of the texels are off their material's code"
    );
    let palette = Palette::new(
        2,
        &[
            Vec4::ONE,
            Vec4::ONE,
            Vec4::new(1.0, 0.35, 0.3, 1.0),
            Vec4::new(0.3, 0.5, 1.0, 1.0),
        ],
    )
    .unwrap();
    let dress =
        |m: &BakedModel, impostor| variant(m, impostor).with_palette(palette.clone()).unwrap();
    let mut without = model.clone();
    {
        let a = without.impostor.as_mut().unwrap();
        a.plan.surface = false;
        a.surface.clear();
    }
    let mut failures = Vec::new();
    let mut control = Vec::new();
    for path in paths(&gpu) {
        let near = render(&gpu, path, &camera, &dress(&model, None));
        let far = render(&gpu, path, &camera, &dress(&model, Some(1.0)));
        let means = render(&gpu, path, &camera, &dress(&without, Some(1.0)));
        let (c, m) = (compare(&near, &far), compare(&near, &means));
        println!(
            "{}: {} pixels; surface image: coverage mismatch {:.3} (bound {COVERAGE_BOUND}), MAD {:.1} (bound {MAD_BOUND}); means only: MAD {:.1}",
            path.name(),
            c.covered,
            c.coverage_mismatch,
            c.mad,
            m.mad
        );
        assert!(c.covered > 500, "{path:?}: only {} pixels", c.covered);
        failures.extend(c.failure(path.name()));
        control.push((path, m.mad));
    }
    for (path, mad) in control {
        assert!(
            mad > MAD_BOUND,
            "{}: the comparison cannot tell the means from the surface image: MAD {mad:.1}",
            path.name()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("; "));
}

/// A sphere whose occlusion map darkens bands of its ambient light
/// (occlusion 0.1 in every other band of 8 texels, strength 1), near
/// against far with the single-material bounds, on every record path. Its
/// impostor carries the occlusion in the normal image; the control, the
/// impostor of the same sphere without the map (what format 8 drew: no
/// occlusion in the atlas), must be farther from the mesh.
#[test]
fn an_occluded_sphere_far_matches_near() {
    let gpu = require_gpu("occluded impostors");
    let mut sphere = spinning_sphere(&BakeOptions {
        lod_ratios: vec![],
        ..BakeOptions::default()
    });
    let camera = switch_camera(&sphere);
    let bands = image::RgbaImage::from_fn(16, 64, |_, y| {
        let ao = if (y / 8) % 2 == 0 { 255 } else { 26 };
        image::Rgba([ao, ao, ao, 255])
    });
    sphere.images.push(throng_bake::images::bake_image(
        &throng_tests::material_models::source("bands", &bands),
        throng_core::material::ImageContent::Data,
        TextureCodec::default(),
    ));
    let plain = Material {
        name: "occluded".into(),
        base_color_factor: Vec4::new(0.7, 0.6, 0.5, 1.0),
        roughness_factor: 0.8,
        ..Default::default()
    };
    let mut textures = [None; 5];
    textures[TextureSlot::Occlusion as usize] =
        Some(TextureRef::new(sphere.images.len() as u32 - 1));
    let occluded = dressed(
        &sphere,
        Material {
            textures,
            occlusion_strength: 1.0,
            ..plain.clone()
        },
        &gpu,
    );
    let unoccluded = dressed(&sphere, plain, &gpu);
    let mut failures = Vec::new();
    for path in paths(&gpu) {
        let near = render(&gpu, path, &camera, &variant(&occluded, None));
        let far = render(&gpu, path, &camera, &variant(&occluded, Some(1.0)));
        let without = render(&gpu, path, &camera, &variant(&unoccluded, Some(1.0)));
        let (c, w) = (compare(&near, &far), compare(&near, &without));
        println!(
            "{}: {} pixels; coverage mismatch {:.3} (bound {COVERAGE_BOUND}), MAD {:.1} (bound {MAD_BOUND}); impostor without occlusion: MAD {:.1}",
            path.name(),
            c.covered,
            c.coverage_mismatch,
            c.mad,
            w.mad
        );
        assert!(c.covered > 500, "{path:?}: only {} pixels", c.covered);
        failures.extend(c.failure(path.name()));
        if c.mad >= w.mad {
            failures.push(format!(
                "{}: MAD {:.1} is no nearer than without occlusion's {:.1}",
                path.name(),
                c.mad,
                w.mad
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("; "));
}
