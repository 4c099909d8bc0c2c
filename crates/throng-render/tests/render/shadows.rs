//! Shadows. The shadow pass uses the same full skinning as
//! the crowd pass (UAI's used one bone): every vertex of the skinned pose, as
//! the CPU computes it, lies on or behind what the shadow map recorded at its
//! spot. Casters are culled against the light, not the camera: an instance
//! out of view still casts.

use throng_tests::golden as common;

use glam::{Mat4, Vec3};
use throng_core::baked::skin_lod;
use throng_crowd::crowd::{Crowd, Spawn};
use throng_render::ShadowOptions;
use throng_render::{GpuModel, Offscreen, Renderer, RendererOptions};
use throng_tests::require_gpu;

const MAP: u32 = 512;

/// How far (in the map's [0, 1] depth) a vertex may sit in front of the
/// recorded depth: the pass's bias (2 units + 2 × slope) and the 3×3
/// neighbourhood used to absorb rasterization at silhouettes.
const DEPTH_TOLERANCE: f32 = 0.01;

fn read_depth(gpu: &throng_render::Gpu, texture: &wgpu::Texture) -> Vec<f32> {
    throng_render::offscreen::read_depth(&gpu.device, &gpu.queue, texture).unwrap()
}

#[test]
fn the_shadow_map_holds_the_fully_skinned_pose_and_off_screen_casters() {
    let gpu = require_gpu("shadows");
    let (_, woman) = common::baked("gszauer_Woman.gltf");
    let model = woman.model();
    let options = RendererOptions {
        shadows: Some(ShadowOptions {
            map_size: MAP,
            ..ShadowOptions::default()
        }),
        ..RendererOptions::default()
    };
    let mut renderer = Renderer::headless(&gpu, options).unwrap();
    let gpu_model = GpuModel::upload(&gpu.device, &gpu.queue, &woman).unwrap();
    let mut crowd = Crowd::new();
    let id = crowd.add_model(&woman);
    let punch = crowd.clip_index(id, "Punch").unwrap();
    // Mid-punch, with a fade still running: both clips skin the shadow.
    let a = crowd
        .spawn(
            id,
            Spawn {
                clip: Some(punch),
                time: 0.2,
                ..Spawn::default()
            },
        )
        .unwrap();
    crowd
        .cross_fade(a, crowd.clip_index(id, "Walking").unwrap(), 1.0)
        .unwrap();
    crowd.update(0.25);
    // A second instance high above, towards the light and out of the camera's view.
    let light = renderer.options().lighting.direction.normalize();
    let above = Mat4::from_translation(light * model.bounding_radius * 2.5);
    crowd
        .spawn(
            id,
            Spawn {
                transform: above,
                clip: Some(punch),
                time: 0.5,
                ..Spawn::default()
            },
        )
        .unwrap();

    let clip_bounds = model.clips[punch].bounds;
    let camera =
        throng_crowd::camera::Camera::framing(&clip_bounds, Vec3::new(0.0, 0.2, 1.0), 0.6, 1.0);
    let target = Offscreen::new(&gpu.device, (128, 128)).unwrap();
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let mut stats = renderer
        .render(&target.view, (128, 128), &camera, &[&crowd], &[&gpu_model])
        .unwrap();
    // Exact counts on every path (the GPU-driven one reads them back).
    renderer.wait_gpu_stats(&mut stats).unwrap();
    let (texture, light_camera) = renderer.shadow_map().unwrap();
    let depth = read_depth(&gpu, texture);
    assert!(
        pollster::block_on(scope.pop()).is_none(),
        "wgpu validation error"
    );
    assert_eq!(stats.visible, 1, "the instance above is out of view");
    assert_eq!(stats.shadow_casters, 2, "…but it still casts");

    let clip_from_world = light_camera.expect("a light when something is visible");
    let blend = crowd.frame_blend(a).unwrap();
    let skinned = skin_lod(model, 0, &blend);
    let at = |x: i64, y: i64| {
        depth[(y.clamp(0, MAP as i64 - 1) * MAP as i64 + x.clamp(0, MAP as i64 - 1)) as usize]
    };
    let (mut checked, mut bad, mut worst) = (0usize, 0usize, 0.0f32);
    for p in skinned.iter().flat_map(|s| &s.positions) {
        let c = clip_from_world * p.extend(1.0);
        let ndc = c.truncate() / c.w;
        let (u, v) = (ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
        assert!(
            (0.0..=1.0).contains(&u) && (0.0..=1.0).contains(&v),
            "vertex {p} outside the light's map"
        );
        let (x, y) = ((u * MAP as f32) as i64, (v * MAP as f32) as i64);
        let nearest = (-1..=1)
            .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
            .map(|(dx, dy)| at(x + dx, y + dy))
            .fold(f32::INFINITY, f32::min);
        let excess = nearest - ndc.z;
        worst = worst.max(excess);
        checked += 1;
        if excess > DEPTH_TOLERANCE {
            bad += 1;
        }
    }
    let covered = depth.iter().filter(|d| **d < 1.0).count();
    println!(
        "{checked} skinned vertices vs the {MAP}² shadow map on {}: {bad} uncovered, worst excess {worst:.4}; {covered} texels covered",
        gpu.adapter_summary()
    );
    assert!(covered > 500, "the map holds the casters");
    assert_eq!(
        bad, 0,
        "vertices of the skinned pose not in the shadow map (worst {worst})"
    );
}
