//! Physically based shading on every record path, Vulkan and GL, on a
//! material test model built here: a UV sphere (glTF builder, one joint)
//! with a procedural normal map, imported and baked, then dressed in a
//! grid of materials:
//!
//! - row 0: dielectric, roughness 0.1, 0.4, 0.7, 1.0;
//! - row 1: metal (gold), the same roughness sweep;
//! - row 2: emissive, normal-mapped, alpha mask (a striped base colour
//!   texture's alpha against the cutoff; single-sided, so the holes show
//!   the background), alpha blend (half opacity).
//!
//! Golden `pbr_spheres.png` (within the golden tolerances on each path);
//! and checks that do not lean on the golden: the normal map changes the
//! shading of its sphere; roughness spreads the highlight (the smoothest
//! dielectric's brightest pixel is brighter than the roughest one's);
//! emission brightens its sphere; the mask cuts holes (background shows
//! through inside the sphere's silhouette); Lambert shading differs.
//!
//! And `KHR_texture_transform` on the base colour texture: the Fox's
//! texture squeezed to one texel (scale 0, offset at that texel's centre)
//! draws as the untextured Fox whose base colour factor is that texel
//! (decoded from the image on the CPU, sRGB to linear); an offset alone
//! changes the picture.

use glam::{Mat4, Vec2, Vec3, Vec4};
use image::RgbaImage;
use throng_core::BakedModel;
use throng_core::material::{TextureSlot, UvTransform};
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{ModelHandle, Spawn};
use throng_render::image_diff::diff;
use throng_render::{Gpu, Lighting, PathChoice, RendererOptions, Shading};
use throng_tests::golden::{self as common, assert_images_match};
use throng_tests::material_models::{baked_sphere, models};
use throng_tests::require_gpu;
use throng_tests::scenes::{self, EVERY_PATH, FOX_ROW, FOX_ROW_VIEW, View};

const SIZE: (u32, u32) = (256, 192);
const COLUMNS: usize = 4;
const SPACING: f32 = 2.4;

/// Where sphere `i` stands.
fn place(i: usize) -> Vec3 {
    let (c, r) = ((i % COLUMNS) as f32, (i / COLUMNS) as f32);
    Vec3::new((c - 1.5) * SPACING, (1.0 - r) * SPACING, 0.0)
}

/// The grid from the front.
const GRID_VIEW: View = View {
    eye: Vec3::new(0.0, 0.0, 11.0),
    target: Vec3::ZERO,
    fov: 45f32.to_radians(),
    depth: (0.1, 100.0),
};

fn camera() -> Camera {
    GRID_VIEW.camera(SIZE)
}

/// The grid on `path` under `lighting`.
fn picture(gpu: &Gpu, path: PathChoice, handles: &[ModelHandle], lighting: Lighting) -> RgbaImage {
    let at = |i| Spawn {
        transform: Mat4::from_translation(place(i)),
        ..Spawn::default()
    };
    let crowd = scenes::crowd_of(handles.iter().enumerate().map(|(i, h)| (h, at(i))));
    let options = RendererOptions {
        path,
        sample_count: 4,
        lighting,
        ..RendererOptions::default()
    };
    let handles: Vec<&ModelHandle> = handles.iter().collect();
    scenes::picture(gpu, options, SIZE, &camera(), &[&crowd], &handles).0
}

/// Half the side of the square that holds a sphere on screen (its radius
/// is about 21 pixels; neighbours are 50 apart).
const HALF: i32 = 24;

/// Sphere `i`'s centre on screen.
fn centre(i: usize) -> (i32, i32) {
    let clip = camera().clip_from_world() * place(i).extend(1.0);
    let ndc = clip.truncate() / clip.w;
    (
        ((ndc.x * 0.5 + 0.5) * SIZE.0 as f32) as i32,
        ((0.5 - ndc.y * 0.5) * SIZE.1 as f32) as i32,
    )
}

/// The pixels of the middle of sphere `i` on screen (a 32-pixel square
/// inside its silhouette).
fn cell(image: &RgbaImage, i: usize) -> Vec<[u8; 4]> {
    let (cx, cy) = centre(i);
    let half = 14;
    let mut out = Vec::new();
    for y in cy - half..cy + half {
        for x in cx - half..cx + half {
            if (0..SIZE.0 as i32).contains(&x) && (0..SIZE.1 as i32).contains(&y) {
                out.push(image.get_pixel(x as u32, y as u32).0);
            }
        }
    }
    out
}

fn brightest(pixels: &[[u8; 4]]) -> u32 {
    pixels
        .iter()
        .map(|p| p[0] as u32 + p[1] as u32 + p[2] as u32)
        .max()
        .unwrap()
}

fn mean(pixels: &[[u8; 4]]) -> f32 {
    pixels
        .iter()
        .map(|p| (p[0] as u32 + p[1] as u32 + p[2] as u32) as f32)
        .sum::<f32>()
        / pixels.len() as f32
}

#[test]
fn material_spheres_match_their_golden_and_each_map_does_its_job() {
    let gpu = require_gpu("pbr");
    let sphere = baked_sphere();
    let handles = models(&sphere);
    let golden = common::golden_dir(env!("CARGO_MANIFEST_DIR"));
    for path in [
        PathChoice::GpuDriven,
        PathChoice::Unbounded,
        PathChoice::Packaged,
    ] {
        let image = picture(&gpu, path, &handles, Lighting::default());
        println!("{path:?}:");
        // The clear colour as the target holds it: a corner is background.
        let background: [u8; 3] = image.get_pixel(0, 0).0[..3].try_into().unwrap();
        common::check_golden(&golden, "pbr_spheres", &image);

        // Roughness spreads the highlight.
        let (smooth, rough) = (brightest(&cell(&image, 0)), brightest(&cell(&image, 3)));
        assert!(
            smooth > rough + 30,
            "{path:?}: highlight {smooth} (roughness 0.1) vs {rough} (1.0)"
        );
        // Emission brightens.
        let (glow, plain) = (mean(&cell(&image, 8)), mean(&cell(&image, 1)));
        assert!(
            glow > plain + 60.0,
            "{path:?}: emissive mean {glow} vs plain {plain}"
        );
        // The mask cuts holes: background inside the silhouette.
        let clear = background;
        let holes = cell(&image, 10)
            .iter()
            .filter(|p| p[..3].iter().zip(clear).all(|(&a, b)| a.abs_diff(b) <= 2))
            .count();
        assert!(
            holes > 60,
            "{path:?}: {holes} background pixels inside the masked sphere"
        );

        // The normal map changes its sphere's shading.
        let mut unmapped = handles.clone();
        let mut m = handles[9].model().clone();
        m.materials[0].textures[TextureSlot::Normal as usize] = None;
        unmapped[9] = ModelHandle::new(m).unwrap();
        let flat = picture(&gpu, path, &unmapped, Lighting::default());
        let changed = cell(&image, 9)
            .iter()
            .zip(cell(&flat, 9))
            .filter(|(a, b)| a.iter().zip(b).any(|(x, y)| x.abs_diff(*y) > 8))
            .count();
        assert!(
            changed > 150,
            "{path:?}: the normal map changed {changed} pixels"
        );
        let (cx, cy) = centre(9);
        let outside = image
            .enumerate_pixels()
            .zip(flat.pixels())
            .filter(|((x, y, a), b)| {
                let far = (*x as i32 - cx).abs() > HALF || (*y as i32 - cy).abs() > HALF;
                far && a.0.iter().zip(b.0).any(|(p, q)| p.abs_diff(q) > 3)
            })
            .count();
        assert_eq!(
            outside, 0,
            "{path:?}: pixels outside the mapped sphere changed"
        );

        // Lambert is another picture.
        let lambert = picture(
            &gpu,
            path,
            &handles,
            Lighting {
                shading: Shading::Lambert,
                ..Lighting::default()
            },
        );
        assert!(
            diff(&image, &lambert).differing > 1000,
            "{path:?}: Lambert looks like PBR"
        );
    }
}

/// The texture-transform test's picture size.
const ROW_SIZE: (u32, u32) = (160, 96);

/// The Fox with its base colour texture's transform set to `transform`,
/// or (`None`) without the texture and with base colour factor `factor`.
fn fox_with(fox: &ModelHandle, transform: Option<UvTransform>, factor: Vec4) -> ModelHandle {
    let mut m: BakedModel = fox.model().clone();
    let material = &mut m.materials[0];
    let slot = &mut material.textures[TextureSlot::BaseColor as usize];
    match transform {
        Some(t) => slot.as_mut().expect("the Fox is textured").transform = t,
        None => *slot = None,
    }
    material.base_color_factor = factor;
    ModelHandle::new(m).unwrap()
}

/// Three of `handle`'s Fox in a row on `path`.
fn fox_row(gpu: &Gpu, path: PathChoice, handle: &ModelHandle) -> RgbaImage {
    let crowd = scenes::crowd_of(FOX_ROW.of(handle, 3));
    let options = RendererOptions {
        path,
        ..RendererOptions::default()
    };
    let camera = FOX_ROW_VIEW.camera(ROW_SIZE);
    scenes::picture(gpu, options, ROW_SIZE, &camera, &[&crowd], &[handle]).0
}

fn srgb_to_linear(c: u8) -> f32 {
    let c = c as f32 / 255.0;
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

#[test]
fn the_base_colour_texture_transform_is_applied() {
    let gpu = require_gpu("pbr");
    let (_, fox) = common::baked("khronos_Fox.glb");
    let image = &fox.model().images[0];
    // Level 0 as stored (BC7 blocks decoded: the texels the GPU samples).
    let decoded =
        image::RgbaImage::from_raw(image.width, image.height, image.decoded_level(0).unwrap())
            .unwrap();
    // A texel of the fur, well inside the texture.
    let (i, j) = (decoded.width() / 3, decoded.height() / 2);
    let texel = decoded.get_pixel(i, j).0;
    let centre = Vec2::new(
        (i as f32 + 0.5) / decoded.width() as f32,
        (j as f32 + 0.5) / decoded.height() as f32,
    );
    let one_texel = UvTransform {
        offset: centre,
        rotation: 0.0,
        scale: Vec2::ZERO,
    };
    let factor = Vec4::new(
        srgb_to_linear(texel[0]),
        srgb_to_linear(texel[1]),
        srgb_to_linear(texel[2]),
        texel[3] as f32 / 255.0,
    );
    let squeezed = fox_with(&fox, Some(one_texel), Vec4::ONE);
    let flat = fox_with(&fox, None, factor);
    let shifted = fox_with(
        &fox,
        Some(UvTransform {
            offset: Vec2::new(0.37, 0.21),
            ..UvTransform::IDENTITY
        }),
        Vec4::ONE,
    );
    let dir = std::env::temp_dir().join("throng-pbr");
    for path in EVERY_PATH {
        let a = fox_row(&gpu, path, &squeezed);
        let b = fox_row(&gpu, path, &flat);
        assert_images_match(&format!("one-texel-{path:?}"), &b, &a, &dir);
        let plain = fox_row(&gpu, path, &fox);
        let moved = fox_row(&gpu, path, &shifted);
        let d = diff(&plain, &moved);
        assert!(
            d.differing > 100,
            "{path:?}: an offset of the texture changed only {} pixels",
            d.differing
        );
    }
}
