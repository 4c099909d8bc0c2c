//! Two-phase occlusion culling (docs/design/occlusion.md) draws the same
//! pictures as the frustum alone, and skips what is hidden.
//!
//! A deep grid of Foxes behind a wall (a Fox six times the size), seen
//! from in front of the wall at half a Fox's height, drawn frame after
//! frame by two GPU-driven renderers, occlusion culling on and off: the
//! camera holds still for a few frames (the visibility bits settle and the
//! grid is found occluded), then rises over the wall and strafes, looking
//! down into the grid (the crowd behind the wall appears: disocclusion),
//! while instances spawn behind the wall, teleport from behind it to in
//! front of it and back, and cross-fade while hidden. Every frame's pictures must be equal within the golden
//! tolerance, and the renderer with occlusion must report instances
//! occluded (its drawn plus occluded instances equal to the other's
//! drawn). The same on a reversed depth buffer and with MSAA (the
//! pyramid's other conventions and its multisampled reduction).

use glam::{Mat4, Vec3};
use throng_crowd::crowd::{Crowd, InstanceId, ModelId, Spawn};
use throng_render::{
    DepthConvention, FrameStats, Gpu, GpuModel, PathChoice, RecordPath, RendererOptions,
};
use throng_tests::golden::assert_images_match;
use throng_tests::require_gpu;
use throng_tests::scenes::{View, draw, renderer};

/// Columns and rows of the grid.
const GRID: (usize, usize) = (8, 24);
/// Between neighbours, across and along the grid (Fox units: the Fox is
/// about 130 long and 80 tall).
const SPACING: (f32, f32) = (100.0, 60.0);
/// Picture size.
const SIZE: (u32, u32) = (256, 144);

/// The grid, and in front of it a Fox six times the size, side-on: a wall
/// that hides the whole grid from the first frames' camera.
fn grid_crowd() -> (Crowd, Vec<InstanceId>) {
    let mut crowd = Crowd::new();
    let handle = super::gpu_driven::fox_with_lods();
    let model = crowd.add_model(&handle);
    let wall = Spawn {
        transform: Mat4::from_translation(Vec3::new(0.0, -290.0, 60.0))
            * Mat4::from_rotation_y(std::f32::consts::FRAC_PI_2)
            * Mat4::from_scale(Vec3::splat(6.0)),
        clip: Some(0),
        ..Spawn::default()
    };
    crowd.spawn(model, wall).unwrap();
    let mut ids = Vec::new();
    for row in 0..GRID.1 {
        for col in 0..GRID.0 {
            let x = (col as f32 - (GRID.0 - 1) as f32 * 0.5) * SPACING.0;
            let z = -(row as f32) * SPACING.1;
            let i = row * GRID.0 + col;
            let spawn = Spawn {
                // Side-on to the camera: each row a wall of Foxes.
                transform: Mat4::from_translation(Vec3::new(x, 0.0, z))
                    * Mat4::from_rotation_y(std::f32::consts::FRAC_PI_2),
                clip: Some(i % 3),
                time: 0.17 * i as f32,
                ..Spawn::default()
            };
            ids.push(crowd.spawn(model, spawn).unwrap());
        }
    }
    crowd.update(0.0);
    (crowd, ids)
}

/// Frame `k`'s camera: still at the front edge at half a Fox's height for
/// the first frames, looking level along the grid, then rising and moving
/// right, looking down into it; with `reversed`, the same view through a
/// reverse-Z projection (infinite far plane).
fn camera(k: usize, reversed: bool) -> throng_crowd::camera::Camera {
    let t = k.saturating_sub(3) as f32;
    let view = View {
        eye: Vec3::new(-60.0 + 40.0 * t, 35.0 + 30.0 * t, 160.0),
        target: Vec3::new(0.0, 35.0 - 20.0 * t, -800.0),
        fov: 50f32.to_radians(),
        depth: (5.0, 4000.0),
    };
    let mut camera = view.camera(SIZE);
    if reversed {
        camera.clip_from_view = glam::camera::rh::proj::directx::perspective_infinite_reverse(
            view.fov,
            SIZE.0 as f32 / SIZE.1 as f32,
            view.depth.0,
        );
    }
    camera
}

/// Changes between frames behind the front rows: a spawn, a teleport to
/// the front and one back, a cross-fade of a hidden instance.
fn change(crowd: &mut Crowd, ids: &[InstanceId], k: usize) {
    crowd.update(0.05);
    let hidden = ids[GRID.0 * (10 + k % 4) + 1 + k % 5];
    crowd.cross_fade(hidden, (k + 1) % 3, 0.4).unwrap();
    // From the back rows to just in front of the first row, and back.
    let from_back = ids[GRID.0 * 20 + k % GRID.0];
    let front = Mat4::from_translation(Vec3::new(-40.0 + 10.0 * k as f32, 0.0, 110.0));
    crowd.set_transform(from_back, front).unwrap();
    let front_one = ids[k % GRID.0];
    let back = Mat4::from_translation(Vec3::new(30.0 * k as f32, 0.0, -1600.0));
    crowd.set_transform(front_one, back).unwrap();
    crowd
        .spawn(
            ModelId(0),
            Spawn {
                transform: Mat4::from_translation(Vec3::new(-200.0 + 50.0 * k as f32, 0.0, -500.0)),
                clip: Some(1),
                ..Spawn::default()
            },
        )
        .unwrap();
}

fn same_pictures_with_and_without(name: &str, options: RendererOptions) {
    let gpu = require_gpu(name);
    let (mut crowd, ids) = grid_crowd();
    let handle = crowd.models().next().unwrap().clone();
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let on = |occlusion| {
        let r = renderer(
            &gpu,
            RendererOptions {
                path: PathChoice::GpuDriven,
                occlusion,
                ..options.clone()
            },
        );
        assert_eq!(
            r.path(),
            RecordPath::GpuDriven,
            "the test adapter runs the GPU-driven path"
        );
        r
    };
    let (mut with, mut without) = (on(true), on(false));
    assert!(
        with.occlusion_culling(),
        "{name}: occlusion culling available"
    );
    assert!(!without.occlusion_culling());
    let dir = std::env::temp_dir().join("throng-occlusion");
    let mut occluded = Vec::new();
    let mut shadow_occluded = Vec::new();
    for k in 0..9 {
        let cam = camera(k, options.depth == DepthConvention::Reversed);
        let (a, sa) = draw(&mut with, &gpu, SIZE, &cam, &[&crowd], &[&model]);
        let (b, sb) = draw(&mut without, &gpu, SIZE, &cam, &[&crowd], &[&model]);
        assert_eq!(
            sb.occluded, 0,
            "{name} frame {k}: nothing occluded without it"
        );
        assert_eq!(
            sa.visible + sa.occluded,
            sb.visible,
            "{name} frame {k}: drawn and occluded are what is in view"
        );
        assert_eq!(
            sa.shadow_casters + sa.shadow_occluded,
            sb.shadow_casters,
            "{name} frame {k}: casters drawn and occluded are those in the light's view"
        );
        assert_images_match(&format!("{name}_{k}"), &b, &a, &dir);
        occluded.push(sa.occluded);
        shadow_occluded.push(sa.shadow_occluded);
        change(&mut crowd, &ids, k);
    }
    eprintln!(
        "{name}: occluded per frame {occluded:?}, from the light {shadow_occluded:?}, of {} instances",
        crowd.len()
    );
    // From the third frame behind the wall, the bits have settled: the grid
    // is hidden. Once the camera has risen over it, most of it is seen.
    assert!(
        occluded[2] * 2 > crowd.len() as u32,
        "{name}: behind the wall, half the crowd or more is occluded: {occluded:?}"
    );
    assert!(
        occluded[8] * 2 < crowd.len() as u32,
        "{name}: over the wall, most of the crowd is seen: {occluded:?}"
    );
}

/// Standard depth, no MSAA, shadows on (the default options).
#[test]
fn occlusion_culling_draws_the_pictures_of_frustum_culling() {
    same_pictures_with_and_without("occlusion", RendererOptions::default());
}

/// A reversed depth buffer and 4× MSAA: the pyramid's other convention and
/// its multisampled reduction (on GL, the early pass drawn single-sampled).
#[test]
fn occlusion_culling_holds_with_reversed_depth_and_msaa() {
    same_pictures_with_and_without(
        "occlusion_reversed_msaa",
        RendererOptions {
            depth: DepthConvention::Reversed,
            sample_count: 4,
            shadows: None,
            ..RendererOptions::default()
        },
    );
}

/// `crowd` drawn through `view` for three frames by a renderer with
/// `options(true)` (occlusion culling) and one with `options(false)`:
/// asserts each frame's pictures equal (on failure written as
/// `{name}_{k}`), then hands both frames' stats, with and without, to
/// `count`, which checks them and returns the frame's figure; returns the
/// figures.
fn three_frames_with_and_without(
    gpu: &Gpu,
    name: &str,
    (crowd, model): (&Crowd, &GpuModel),
    view: &View,
    options: impl Fn(bool) -> RendererOptions,
    count: impl Fn(FrameStats, FrameStats) -> u32,
) -> Vec<u32> {
    let (mut with, mut without) = (renderer(gpu, options(true)), renderer(gpu, options(false)));
    let cam = view.camera(SIZE);
    let dir = std::env::temp_dir().join("throng-occlusion");
    (0..3)
        .map(|k| {
            let (a, sa) = draw(&mut with, gpu, SIZE, &cam, &[crowd], &[model]);
            let (b, sb) = draw(&mut without, gpu, SIZE, &cam, &[crowd], &[model]);
            assert_images_match(&format!("{name}_{k}"), &b, &a, &dir);
            count(sa, sb)
        })
        .collect()
}

/// A Fox scaled to fill the view in front of the camera hides a row of
/// Foxes behind it: after two frames (the visibility bits settle), the
/// row is reported occluded and the pictures are still equal.
#[test]
fn foxes_behind_a_giant_one_are_occluded() {
    let gpu = require_gpu("occlusion_wall");
    let handle = super::gpu_driven::fox_with_lods();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let wall = Spawn {
        transform: Mat4::from_translation(Vec3::new(0.0, -1200.0, -400.0))
            * Mat4::from_rotation_y(std::f32::consts::FRAC_PI_2)
            * Mat4::from_scale(Vec3::splat(25.0)),
        clip: Some(0),
        ..Spawn::default()
    };
    crowd.spawn(m, wall).unwrap();
    for i in 0..5 {
        let behind = Spawn {
            transform: Mat4::from_translation(Vec3::new(-100.0 + 50.0 * i as f32, 0.0, -1500.0)),
            clip: Some(1),
            ..Spawn::default()
        };
        crowd.spawn(m, behind).unwrap();
    }
    crowd.update(0.0);
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let options = |occlusion| RendererOptions {
        path: PathChoice::GpuDriven,
        occlusion,
        ..RendererOptions::default()
    };
    let view = View {
        eye: Vec3::new(0.0, 40.0, 200.0),
        target: Vec3::new(0.0, 40.0, -1500.0),
        fov: 40f32.to_radians(),
        depth: (5.0, 4000.0),
    };
    let occluded = three_frames_with_and_without(
        &gpu,
        "occlusion_wall",
        (&crowd, &model),
        &view,
        options,
        |sa, sb| {
            assert_eq!(sa.visible + sa.occluded, sb.visible);
            sa.occluded
        },
    );
    assert_eq!(
        occluded,
        [0, 0, 5],
        "occluded per frame: the five behind, from the third"
    );
}

/// Occlusion culling from the light ([`ShadowOptions::occlusion`]): a Fox
/// flattened into a canopy many times the size hangs between the light and
/// a row of Foxes on the ground; from the third frame the row is hidden from the light and not
/// drawn into the shadow map, and the pictures (the row in the giant's
/// shadow) equal those without occlusion culling.
#[test]
fn casters_hidden_from_the_light_are_left_out_of_the_shadow_map() {
    use throng_render::ShadowOptions;
    let gpu = require_gpu("occlusion_light");
    let handle = super::gpu_driven::fox_with_lods();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let toward_light = RendererOptions::default().lighting.direction.normalize();
    for i in 0..5 {
        let row = Spawn {
            transform: Mat4::from_translation(Vec3::new(-60.0 + 30.0 * i as f32, 0.0, 0.0)),
            clip: Some(1),
            ..Spawn::default()
        };
        crowd.spawn(m, row).unwrap();
    }
    let giant = Spawn {
        transform: Mat4::from_translation(toward_light * 500.0)
            * Mat4::from_scale(Vec3::new(80.0, 1.0, 120.0)),
        clip: Some(0),
        ..Spawn::default()
    };
    crowd.spawn(m, giant).unwrap();
    crowd.update(0.0);
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let options = |occlusion| RendererOptions {
        path: PathChoice::GpuDriven,
        occlusion,
        shadows: Some(ShadowOptions {
            occlusion,
            ..ShadowOptions::default()
        }),
        ..RendererOptions::default()
    };
    let view = View {
        eye: Vec3::new(0.0, 120.0, 400.0),
        target: Vec3::new(0.0, 30.0, 0.0),
        fov: 50f32.to_radians(),
        depth: (5.0, 4000.0),
    };
    let occluded = three_frames_with_and_without(
        &gpu,
        "occlusion_light",
        (&crowd, &model),
        &view,
        options,
        |sa, sb| {
            assert_eq!(sa.shadow_casters + sa.shadow_occluded, sb.shadow_casters);
            sa.shadow_occluded
        },
    );
    assert_eq!(
        occluded,
        [0, 0, 5],
        "casters hidden from the light per frame: the row, from the third"
    );
}
