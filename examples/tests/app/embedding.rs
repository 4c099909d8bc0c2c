//! The embedding examples' code path, headless (GPU tests): the
//! application's own pass, depth buffer, camera and ground with Throng's
//! crowd drawn into it ([`Scene::render`], what `embed` and
//! `custom_shading` run each frame) must give the image Throng's own
//! [`Renderer`] gives of the same crowd and camera, within the golden-image
//! tolerances; a fragment shader of the user's own that calls Throng's
//! `shade()` as Throng does must give Throng's image (the composition
//! works), and another one a clearly different image (it is the one used).
//!
//! On failure the images and their difference are written to
//! `CARGO_TARGET_TMPDIR` and the worst pixel is printed.

use std::sync::OnceLock;

use image::RgbaImage;
use throng::crowd::crowd::ModelHandle;
use throng::render::{
    CustomFragment, Gpu, OFFSCREEN_FORMAT, Offscreen, PathChoice, Renderer, RendererOptions,
};
use throng_examples::{Ground, SAMPLES, SKY, Scene, bake_fox, ground_size};
use throng_tests::golden::{MAX_MEAN_LEVEL_DIFFERENCE, assert_images_match, compare};
use throng_tests::require_gpu;

const SIZE: (u32, u32) = (256, 256);
/// A 3 × 3 grid of Foxes.
const SIDE: u32 = 3;

fn fox() -> &'static ModelHandle {
    static FOX: OnceLock<ModelHandle> = OnceLock::new();
    FOX.get_or_init(|| bake_fox().expect("the Fox bakes"))
}

/// Runs `f` and fails on any wgpu validation error it raised.
fn validated<T>(gpu: &Gpu, f: impl FnOnce() -> T) -> T {
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let out = f();
    if let Some(e) = pollster::block_on(scope.pop()) {
        panic!("wgpu validation error: {e}");
    }
    out
}

fn scene(gpu: &Gpu, fragment: Option<CustomFragment>) -> Scene {
    Scene::new(
        throng_examples::AppGpu {
            adapter: &gpu.adapter,
            device: &gpu.device,
            queue: &gpu.queue,
        },
        OFFSCREEN_FORMAT,
        fox(),
        SIDE,
        fragment,
    )
    .expect("the scene builds")
}

/// The application's frame ([`Scene::render`]) into an offscreen target.
fn embedded(gpu: &Gpu, scene: &mut Scene) -> RgbaImage {
    let target = Offscreen::new(&gpu.device, SIZE).unwrap();
    let mut stats = validated(gpu, || {
        scene
            .render(&gpu.device, &gpu.queue, &target.view, SIZE)
            .unwrap()
    });
    scene.wait_stats(&mut stats).unwrap();
    assert_eq!(stats.visible, SIDE * SIDE, "every Fox is in view");
    target.read(&gpu.device, &gpu.queue).unwrap()
}

/// Throng's own frame of the scene's crowd and camera, by a renderer of
/// `options` (at the scene's clear colour and sample count): with the same
/// ground drawn through `encode_with`'s extra draws, or by
/// [`Renderer::render`] alone.
fn reference(gpu: &Gpu, scene: &Scene, options: RendererOptions, ground: bool) -> RgbaImage {
    let options = RendererOptions {
        sample_count: SAMPLES,
        clear_color: SKY,
        ..options
    };
    let (device, queue) = (&gpu.device, &gpu.queue);
    let mut renderer =
        Renderer::new(&gpu.adapter, device, queue, OFFSCREEN_FORMAT, options).unwrap();
    let target = Offscreen::new(device, SIZE).unwrap();
    let camera = scene.frame_camera(SIZE);
    let (crowds, models) = ([&scene.crowd], [scene.model()]);
    validated(gpu, || {
        if !ground {
            renderer
                .render(&target.view, SIZE, &camera, &crowds, &models)
                .unwrap();
            return;
        }
        let (half, cell) = ground_size(fox(), SIDE);
        let ground = Ground::new(device, &renderer, OFFSCREEN_FORMAT, half, cell).unwrap();
        renderer.prepare(SIZE, &camera, &crowds, &models).unwrap();
        ground.prepare(queue, &camera);
        let mut encoder = device.create_command_encoder(&Default::default());
        renderer.encode_with(&mut encoder, &target.view, |pass| {
            ground.draw(pass, &renderer)
        });
        queue.submit([encoder.finish()]);
        renderer.after_submit();
    });
    target.read(device, queue).unwrap()
}

/// `actual` equals `expected` within the golden-image tolerances (failures
/// leave their images in the test's temporary folder).
fn assert_same(name: &str, expected: &RgbaImage, actual: &RgbaImage) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    assert_images_match(name, expected, actual, dir);
}

#[test]
fn the_applications_pass_gives_throngs_image() {
    let gpu = require_gpu("embedding");
    let mut scene = scene(&gpu, None);
    let with_ground = embedded(&gpu, &mut scene);
    let expected = reference(&gpu, &scene, RendererOptions::default(), true);
    assert_same("embed_with_ground", &expected, &with_ground);

    scene.show_ground = false;
    let crowd_only = embedded(&gpu, &mut scene);
    let expected = reference(&gpu, &scene, RendererOptions::default(), false);
    assert_same("embed_crowd_only", &expected, &crowd_only);

    // Not a trivial match: the crowd covers a good part of the frame.
    let fraction = crowd_pixels(&crowd_only) as f64 / (SIZE.0 * SIZE.1) as f64;
    assert!(
        fraction > 0.05,
        "the crowd covers {:.1} %",
        fraction * 100.0
    );
}

/// Pixels of an image without the ground that are not the sky.
fn crowd_pixels(image: &RgbaImage) -> usize {
    let sky = *image.get_pixel(0, 0);
    let covered = image.pixels().filter(|p| **p != sky).count();
    println!(
        "the crowd covers {covered} pixels ({:.1} % of the frame)",
        covered as f64 / (SIZE.0 * SIZE.1) as f64 * 100.0
    );
    covered
}

/// Throng's `fs_main`, as a user would copy it.
const AS_FS_MAIN: &str = "// #import draw
@fragment
fn fs_user(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    return shade(in, front_facing, 1.0);
}
";

/// Throng's `fs_shadowed`, as a user would copy it.
const AS_FS_SHADOWED: &str = "// #import draw
// #import shadow_receive
@fragment
fn fs_user(in: VertexOut, @builtin(front_facing) front_facing: bool) -> @location(0) vec4<f32> {
    return shade(in, front_facing, shadow_filter(shadow_map, shadow_sampler, shadow, in.world_position));
}
";

fn user(file: &str, source: &str, entry: &str) -> CustomFragment {
    CustomFragment {
        file: file.into(),
        source: source.into(),
        entry: entry.into(),
    }
}

#[test]
fn a_user_fragment_is_composed_with_throngs_modules_and_used() {
    let gpu = require_gpu("custom shading");
    let mut plain = scene(&gpu, None);
    plain.show_ground = false;

    // The user's copy of Throng's shading gives Throng's image, on both
    // record paths (the composition follows the renderer's) and with
    // shadows on and off.
    let shadows = RendererOptions::default().shadows;
    for (name, source, path, shadows) in [
        ("as_fs_main", AS_FS_MAIN, PathChoice::Auto, None),
        (
            "as_fs_main_packaged",
            AS_FS_MAIN,
            PathChoice::Packaged,
            None,
        ),
        ("as_fs_shadowed", AS_FS_SHADOWED, PathChoice::Auto, shadows),
        (
            "as_fs_shadowed_packaged",
            AS_FS_SHADOWED,
            PathChoice::Packaged,
            shadows,
        ),
    ] {
        let options = RendererOptions {
            path,
            shadows,
            ..RendererOptions::default()
        };
        let expected = reference(&gpu, &plain, options.clone(), false);
        let fragment = Some(user(&format!("{name}.wgsl"), source, "fs_user"));
        let actual = reference(
            &gpu,
            &plain,
            RendererOptions {
                fragment,
                ..options
            },
            false,
        );
        assert_same(name, &expected, &actual);
    }

    // The custom_shading example's own shader, through the application's
    // pass, changes the image clearly.
    let toon = user(
        "custom_shading.wgsl",
        include_str!("../../custom_shading.wgsl"),
        "fs_toon",
    );
    let mut toon = scene(&gpu, Some(toon));
    toon.show_ground = false;
    let expected = embedded(&gpu, &mut plain);
    let (d, fraction) = compare("custom_shading", &expected, &embedded(&gpu, &mut toon));
    let covered = crowd_pixels(&expected);
    assert!(
        d.differing >= covered / 2 && d.mean > MAX_MEAN_LEVEL_DIFFERENCE,
        "the user's shader changes too little to tell it is used: {} pixels ({:.2} %) of the crowd's {covered}, mean {:.3} levels",
        d.differing,
        fraction * 100.0,
        d.mean
    );
}
