//! Material data the renderer honours beyond the base colour factor, on
//! every record path (Vulkan and GL):
//!
//! - `KHR_texture_transform` on the base colour texture: the Fox's texture
//!   squeezed to one texel (scale 0, offset at that texel's centre) draws
//!   as the untextured Fox whose base colour factor is that texel (decoded
//!   from the image on the CPU, sRGB to linear); and an offset alone
//!   changes the picture.

use glam::{Mat4, Vec2, Vec3, Vec4};
use image::RgbaImage;
use throng_core::BakedModel;
use throng_core::material::{TextureSlot, UvTransform};
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, ModelHandle, Spawn};
use throng_render::image_diff::diff;
use throng_render::{Gpu, GpuModel, PathChoice, Renderer, RendererOptions, require_gpu};
use throng_tests::golden::{self as common, assert_images_match};

const SIZE: (u32, u32) = (160, 96);

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

fn picture(gpu: &Gpu, path: PathChoice, handle: &ModelHandle) -> RgbaImage {
    let mut crowd = Crowd::new();
    let model = crowd.add_model(handle);
    for i in 0..3 {
        let spawn = Spawn {
            transform: Mat4::from_translation(Vec3::new(i as f32 * 90.0 - 90.0, 0.0, 0.0)),
            clip: Some(i % 3),
            time: 0.3 * i as f32,
            ..Spawn::default()
        };
        crowd.spawn(model, spawn).unwrap();
    }
    crowd.update(0.0);
    let camera = Camera::look_at(
        Vec3::new(0.0, 80.0, 260.0),
        Vec3::new(0.0, 35.0, 0.0),
        Vec3::Y,
        45f32.to_radians(),
        SIZE.0 as f32 / SIZE.1 as f32,
        1.0,
        5000.0,
    );
    let options = RendererOptions {
        path,
        ..RendererOptions::default()
    };
    let mut renderer = Renderer::headless(gpu, options).unwrap();
    let gpu_model = GpuModel::upload(&gpu.device, &gpu.queue, handle).unwrap();
    renderer
        .render_image(gpu, SIZE, &camera, &[&crowd], &[&gpu_model])
        .unwrap()
        .0
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
    let gpu = require_gpu("materials");
    let (_, fox) = common::baked("khronos_Fox.glb");
    let image = &fox.model().images[0];
    let decoded = image::load_from_memory(&image.bytes).unwrap().to_rgba8();
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
    let dir = std::env::temp_dir().join("throng-materials");
    for path in [
        PathChoice::Packaged,
        PathChoice::Unbounded,
        PathChoice::GpuDriven,
    ] {
        let a = picture(&gpu, path, &squeezed);
        let b = picture(&gpu, path, &flat);
        assert_images_match(&format!("one-texel-{path:?}"), &b, &a, &dir);
        let plain = picture(&gpu, path, &fox);
        let moved = picture(&gpu, path, &shifted);
        let d = diff(&plain, &moved);
        assert!(
            d.differing > 100,
            "{path:?}: an offset of the texture changed only {} pixels",
            d.differing
        );
    }
}
