//! The CPU-skinned baseline draws the same crowd as the baked renderer.
//!
//! At a baked frame time the bone texture holds exactly the palette the CPU
//! computes from the source clip (to the bake's error), so a grid of Foxes
//! drawn by `CpuSkinnedRenderer` and by `Renderer` must give the same image
//! within the golden-image tolerances of `common`. A wrong palette order,
//! clip mapping, world matrix or tint changes thousands of pixels. A mid-fade
//! crowd checks the palette cross-fade against the shader's.

use throng_tests::golden as common;

use throng_bench::demo::{GridOptions, framing_camera, grid_crowd};
use throng_bench::{Cast, Character, CpuSkinnedModel, CpuSkinnedRenderer};
use throng_crowd::crowd::{Crowd, InstanceId};
use throng_render::{FrameStats, Gpu, GpuModel, Offscreen, Renderer, RendererOptions};
use throng_tests::require_gpu;

const SIZE: (u32, u32) = (256, 256);
const INSTANCES: u32 = 16;

fn options() -> RendererOptions {
    RendererOptions {
        shadows: None,
        ..RendererOptions::default()
    }
}

/// Draws `crowd` both ways; returns (baked, CPU-skinned) images and stats.
fn draw_both(
    gpu: &Gpu,
    crowd: &Crowd,
    skin: &CpuSkinnedModel,
    model: &GpuModel,
    camera: &throng_crowd::camera::Camera,
) -> [(image::RgbaImage, FrameStats); 2] {
    let target = Offscreen::new(&gpu.device, SIZE).unwrap();
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let (baked_image, baked_stats) = Renderer::headless(gpu, options())
        .unwrap()
        .render_image(gpu, SIZE, camera, &[crowd], &[model])
        .unwrap();

    let mut cpu = CpuSkinnedRenderer::headless(gpu, options()).unwrap();
    let mut list = throng_crowd::crowd::DrawList::default();
    crowd.build_draw_list(None, &mut list);
    let ids: Vec<InstanceId> = crowd.ids().collect();
    assert_eq!(list.records.len(), ids.len());
    let characters: Vec<Character> = ids
        .iter()
        .zip(&list.records)
        .map(|(id, r)| Character::from_state(&crowd.state(*id).unwrap(), r.tint))
        .collect();
    let cast = Cast {
        characters: &characters,
        skin,
        model,
    };
    let cpu_stats = cpu.render(&target.view, SIZE, camera, cast).unwrap();
    let cpu_image = target.read(&gpu.device, &gpu.queue).unwrap();
    assert!(
        pollster::block_on(scope.pop()).is_none(),
        "wgpu validation error"
    );
    [(baked_image, baked_stats), (cpu_image, cpu_stats)]
}

fn assert_same(name: &str, a: &image::RgbaImage, b: &image::RgbaImage) {
    let d = common::diff(a, b);
    let fraction = d.differing as f64 / (SIZE.0 * SIZE.1) as f64;
    if !d.within_tolerance((SIZE.0 * SIZE.1) as usize) {
        let dir = std::env::temp_dir();
        let _ = a.save(dir.join(format!("{name}-baked.png")));
        let _ = b.save(dir.join(format!("{name}-cpu-skinned.png")));
        let _ = d.image.save(dir.join(format!("{name}-difference.png")));
        panic!(
            "{name}: CPU-skinned and baked images differ: {} pixels ({:.3} %) over {} levels, mean {:.3} levels, worst {} at ({}, {}); images in {}",
            d.differing,
            fraction * 100.0,
            common::PIXEL_LEVEL_TOLERANCE,
            d.mean,
            d.worst.2,
            d.worst.0,
            d.worst.1,
            dir.display()
        );
    }
}

#[test]
fn cpu_skinned_matches_baked_at_baked_frames() {
    let gpu = require_gpu("cpu-skinned matches baked");
    let (scene, handle) = common::baked("khronos_Fox.glb");
    let skin = CpuSkinnedModel::new(&handle, scene).unwrap();
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    // Walk at its baked frame 7: the texture holds the exact pose there.
    let walk = &handle.model().clips[1];
    let time = 7.0 * walk.duration / (walk.frame_count - 1) as f32;
    let (mut crowd, _, bounds) = grid_crowd(
        &handle,
        &GridOptions {
            count: INSTANCES,
            clip: Some(1),
            time: Some(time),
            ..GridOptions::default()
        },
    )
    .unwrap();
    let camera = framing_camera(&bounds, SIZE.0 as f32 / SIZE.1 as f32);
    let [(baked, baked_stats), (cpu, cpu_stats)] = draw_both(&gpu, &crowd, &skin, &model, &camera);
    assert_eq!(baked_stats.visible, INSTANCES);
    assert_eq!(cpu_stats.visible, INSTANCES);
    assert_eq!(cpu_stats.draws, INSTANCES, "one draw per character");
    assert_eq!(cpu_stats.triangles, baked_stats.triangles);
    assert_same("cpu-skinned-walk-frame-7", &baked, &cpu);

    // A quarter into a fade from Walk to Run: Run on its baked frame 1, Walk
    // between two baked frames (the shader interpolates matrices there, the
    // CPU samples the clip: a sub-pixel difference at this size).
    let run = &handle.model().clips[2];
    let run_frame = run.duration / (run.frame_count - 1) as f32;
    let ids: Vec<InstanceId> = crowd.ids().collect();
    for &i in &ids {
        crowd.cross_fade(i, 2, 4.0 * run_frame).unwrap();
    }
    crowd.update(run_frame);
    let state = crowd.state(ids[0]).unwrap();
    assert!(
        (state.fade - 0.25).abs() < 1e-4,
        "fade {} (expected a quarter of the way)",
        state.fade
    );
    let [(baked, _), (cpu, _)] = draw_both(&gpu, &crowd, &skin, &model, &camera);
    assert_same("cpu-skinned-walk-run-fade", &baked, &cpu);
}
