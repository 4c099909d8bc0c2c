//! Golden images on a software GPU. Small crowds
//! (≤ 64 instances) at 256×256 with 4× MSAA: a grid of Foxes at different
//! clips and times, CesiumMan with its texture, a cross-fade mid-way (with
//! both end poses beside it), and tinted instances. Tolerances: see
//! `common::PIXEL_LEVEL_TOLERANCE` and friends.

use throng_tests::golden as common;

/// This crate's `tests/golden/`.
fn golden() -> std::path::PathBuf {
    common::golden_dir(env!("CARGO_MANIFEST_DIR"))
}

use glam::{Mat4, Vec3, Vec4};
use throng_bench::demo::{GridOptions, framing_camera, grid_crowd};
use throng_core::math::Aabb;
use throng_crowd::crowd::{Crowd, ModelHandle, Spawn};
use throng_render::{FrameStats, Gpu, GpuModel, Renderer, RendererOptions};
use throng_tests::require_gpu;

const SIZE: (u32, u32) = (256, 256);

fn render(
    gpu: &Gpu,
    crowd: &Crowd,
    handle: &ModelHandle,
    bounds: &Aabb,
) -> (image::RgbaImage, FrameStats) {
    let options = RendererOptions {
        sample_count: 4,
        ..RendererOptions::default()
    };
    let mut renderer = Renderer::headless(gpu, options).unwrap();
    let model = GpuModel::upload(&gpu.device, &gpu.queue, handle).unwrap();
    let camera = framing_camera(bounds, SIZE.0 as f32 / SIZE.1 as f32);
    let (image, stats) = renderer
        .render_image(gpu, SIZE, &camera, &[crowd], &[&model])
        .unwrap();
    (image, stats)
}

#[test]
fn fox_grid_at_different_clips_and_times() {
    let gpu = require_gpu("golden fox grid");
    let (_, handle) = common::baked("khronos_Fox.glb");
    let (crowd, _, bounds) = grid_crowd(
        &handle,
        &GridOptions {
            count: 9,
            tints: false,
            ..GridOptions::default()
        },
    )
    .unwrap();
    let (image, stats) = render(&gpu, &crowd, &handle, &bounds);
    assert_eq!((stats.instances, stats.visible), (9, 9));
    common::check_golden(&golden(), "fox_grid", &image);
}

#[test]
fn cesium_man_with_its_texture() {
    let gpu = require_gpu("golden cesium man");
    let (_, handle) = common::baked("khronos_CesiumMan.gltf");
    assert_eq!(
        handle.model().images.len(),
        1,
        "CesiumMan carries its texture"
    );
    let mut crowd = Crowd::new();
    let id = crowd.add_model(&handle);
    let spawn = Spawn {
        clip: Some(0),
        time: 0.6,
        ..Spawn::default()
    };
    crowd.spawn(id, spawn).unwrap();
    let bounds = handle.model().clips[0].bounds;
    let (image, _) = render(&gpu, &crowd, &handle, &bounds);
    common::check_golden(&golden(), "cesium_man_textured", &image);
}

#[test]
fn cross_fade_mid_way_between_two_clips() {
    let gpu = require_gpu("golden cross-fade");
    let (_, handle) = common::baked("gszauer_Woman.gltf");
    let mut crowd = Crowd::new();
    let id = crowd.add_model(&handle);
    let walk = crowd.clip_index(id, "Walking").unwrap();
    let punch = crowd.clip_index(id, "Punch").unwrap();
    let b = handle.model().bounds;
    let step = (b.max.x - b.min.x) * 1.1;
    let at = |x: f32| Mat4::from_translation(Vec3::new(x * step, 0.0, 0.0));
    // Left: Walking at 0.6 s. Right: Punch at 0.5 s. Middle: fading from the
    // one to the other, half-way: both clips have advanced 0.5 s since the
    // fade began at Walking 0.1 s / Punch 0.0 s.
    let left = crowd
        .spawn(
            id,
            Spawn {
                transform: at(-1.0),
                clip: Some(walk),
                time: 0.1,
                ..Spawn::default()
            },
        )
        .unwrap();
    let mid = crowd
        .spawn(
            id,
            Spawn {
                transform: at(0.0),
                clip: Some(walk),
                time: 0.1,
                ..Spawn::default()
            },
        )
        .unwrap();
    let right = crowd
        .spawn(
            id,
            Spawn {
                transform: at(1.0),
                clip: Some(punch),
                time: 0.0,
                ..Spawn::default()
            },
        )
        .unwrap();
    crowd.cross_fade(mid, punch, 1.0).unwrap();
    crowd.update(0.5);
    let state = crowd.state(mid).unwrap();
    assert!((state.fade - 0.5).abs() < 1e-6, "half-way: {state:?}");
    assert_eq!(state.previous.map(|p| p.0), Some(walk));
    assert!(
        (state.previous.unwrap().1 - 0.6).abs() < 1e-5
            && (state.current.unwrap().1 - 0.5).abs() < 1e-5
    );
    assert_eq!(crowd.state(left).unwrap().current.map(|c| c.0), Some(walk));
    assert_eq!(
        crowd.state(right).unwrap().current.map(|c| c.0),
        Some(punch)
    );
    let bounds = [at(-1.0), at(0.0), at(1.0)]
        .iter()
        .map(|m| handle.model().bounds.transformed(m))
        .fold(Aabb::EMPTY, |a, b| a.union(&b));
    let (image, _) = render(&gpu, &crowd, &handle, &bounds);
    common::check_golden(&golden(), "cross_fade_midway", &image);
}

#[test]
fn tinted_instances() {
    let gpu = require_gpu("golden tints");
    let (_, handle) = common::baked("khronos_Fox.glb");
    let mut crowd = Crowd::new();
    let id = crowd.add_model(&handle);
    let tints = [
        Vec4::ONE,
        Vec4::new(1.0, 0.3, 0.3, 1.0),
        Vec4::new(0.3, 1.0, 0.3, 1.0),
        Vec4::new(0.3, 0.4, 1.0, 1.0),
    ];
    let b = handle.model().clips[0].bounds;
    let step = (b.max.x - b.min.x) * 1.2;
    let mut bounds = Aabb::EMPTY;
    for (i, tint) in tints.iter().enumerate() {
        let transform = Mat4::from_translation(Vec3::new((i as f32 - 1.5) * step, 0.0, 0.0));
        crowd
            .spawn(
                id,
                Spawn {
                    transform,
                    clip: Some(0),
                    time: 1.0,
                    tint: *tint,
                    ..Spawn::default()
                },
            )
            .unwrap();
        bounds = bounds.union(&b.transformed(&transform));
    }
    let (image, _) = render(&gpu, &crowd, &handle, &bounds);
    common::check_golden(&golden(), "tinted_instances", &image);
}
