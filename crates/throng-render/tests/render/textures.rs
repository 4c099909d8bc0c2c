//! Baked textures on the GPU (`throng_render::material`, format 8): the
//! mip chains the bake stored, sampled as BC7 blocks where the device has
//! BC textures ([`TextureUpload::Blocks`]) and decoded to RGBA8 at load
//! ([`TextureUpload::Decoded`]), draw the same pictures within the golden
//! tolerances — the Fox near (level 0 and its neighbours) and far (the
//! levels under 4 × 4 texels, whose copies cover a padded block) — and the
//! blocks take a quarter of the decoded bytes. A CPU adapter's default
//! ([`TextureUpload::Auto`]) decodes.

use glam::Vec3;
use throng_core::texture_codec::TextureCodec;
use throng_crowd::crowd::{Crowd, ModelHandle, Spawn};
use throng_render::{Gpu, GpuModel, Renderer, RendererOptions, TextureUpload};
use throng_tests::golden::{self as common, assert_images_match};
use throng_tests::require_gpu;

use super::support::camera_on_bounds;

const SIZE: (u32, u32) = (160, 120);

/// `fox` drawn once, seen from `distance` times three bounding radii.
fn picture(gpu: &Gpu, fox: &ModelHandle, model: &GpuModel, distance: f32) -> image::RgbaImage {
    let from = Vec3::new(0.55, 0.6, 1.0);
    let camera = camera_on_bounds(&fox.model().bounds, from, 3.0, distance, SIZE);
    let mut crowd = Crowd::new();
    let m = crowd.add_model(fox);
    crowd.spawn(m, Spawn::default()).unwrap();
    let mut renderer = Renderer::headless(gpu, RendererOptions::default()).unwrap();
    renderer
        .render_image(gpu, SIZE, &camera, &[&crowd], &[model])
        .unwrap()
        .0
}

#[test]
fn bc7_blocks_and_decoded_levels_draw_the_same_fox_near_and_far() {
    let gpu = require_gpu("textures");
    let (_, fox) = common::baked("khronos_Fox.glb");
    let image = &fox.model().images[0];
    assert_eq!(
        image.codec,
        TextureCodec::Bc7,
        "the default bake stores BC7"
    );
    common::require_bc_textures(&gpu);
    let upload = |how| GpuModel::upload_with(&gpu.device, &gpu.queue, &fox, how).unwrap();
    let (blocks, decoded, auto) = (
        upload(TextureUpload::Blocks),
        upload(TextureUpload::Decoded),
        upload(TextureUpload::Auto),
    );
    // The texture's share of each: every level as stored against every
    // level as RGBA8.
    let stored = image.bytes();
    let rgba = TextureCodec::Rgba8.chain_bytes(image.width, image.height);
    println!(
        "textures: on {}; {}×{} BC7, {stored} bytes stored, {rgba} decoded",
        gpu.adapter_summary(),
        image.width,
        image.height
    );
    assert_eq!(decoded.gpu_bytes - blocks.gpu_bytes, rgba - stored);
    let cpu = gpu.adapter.get_info().device_type == wgpu::DeviceType::Cpu;
    assert_eq!(
        auto.gpu_bytes,
        if cpu {
            decoded.gpu_bytes
        } else {
            blocks.gpu_bytes
        },
        "Auto decodes on a CPU adapter only"
    );
    let dir = std::env::temp_dir().join("throng-textures");
    // Near, the Fox samples level 0 and its neighbours; far, a few pixels
    // tall, the levels of 4 × 4 texels and under.
    for (what, distance, least) in [("near", 0.4, 2000), ("far", 10.0, 4)] {
        let a = picture(&gpu, &fox, &decoded, distance);
        let b = picture(&gpu, &fox, &blocks, distance);
        let covered = a.pixels().filter(|p| p.0 != a.get_pixel(0, 0).0).count();
        println!("{what}: {covered} pixels of Fox");
        assert!(covered >= least, "{what}: the Fox covers {covered} pixels");
        assert_images_match(&format!("fox-{what}-blocks"), &a, &b, &dir);
    }
}
