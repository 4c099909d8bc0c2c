//! The shaders at the worst values a valid model and the Crowd API permit
//! (docs/DESIGN.md, "Bounds on the GPU"), on every record path (packaged,
//! unbounded, GPU-driven), compared with a reference that does not go
//! through the records' indices:
//!
//! * The last clip at and past its end, from a clock some 31,700 years on
//!   and from the clock saturated at `u64::MAX` ticks (`update(f32::MAX)`):
//!   played once, looped backwards, ping-ponged fast, set to exactly its
//!   duration, cross-faded from it at its end, cross-faded into it, and the
//!   rest pose. The Fox's skin reaches its last bone. Each path's picture
//!   equals the CPU-skinned baseline's (`throng_bench::CpuSkinnedRenderer`,
//!   palettes from the source glTF at the crowd's clip times) within the
//!   golden-image tolerances.
//! * Animation layers at their maximum count (`MAX_EXTRA_LAYERS`), the lower
//!   ones masked by the last registered mask (the last bone's subtree) and
//!   the top one a full-weight override of the last clip at its end: the
//!   picture equals the last clip at its end without layers, on each path
//!   (the packaged path shows the base pose, which is that clip too).
//! * The last mesh LOD (a distant crowd, every instance in it): the paths
//!   draw the same picture.
//!
//! A failure prints every instance's state and writes the images to
//! `$TMPDIR/throng-worst-values`. The impostor's last cell is checked in
//! `throng-impostor`'s tests (this crate cannot capture one).

use glam::{Mat4, Vec3};
use throng_bench::demo::{GridOptions, framing_camera, grid_crowd};
use throng_bench::{Cast, Character, CpuSkinnedModel, CpuSkinnedRenderer};
use throng_core::layers::MAX_EXTRA_LAYERS;
use throng_crowd::crowd::{Crowd, DrawList, DrawView, InstanceId, Layer, ModelHandle, WrapMode};
use throng_render::{Gpu, GpuModel, Offscreen, PathChoice, RecordPath, Renderer, RendererOptions};
use throng_tests::golden as common;
use throng_tests::require_gpu;

const SIZE: (u32, u32) = (192, 192);
const PATHS: [(PathChoice, RecordPath); 3] = [
    (PathChoice::Packaged, RecordPath::Packaged),
    (PathChoice::Unbounded, RecordPath::Unbounded),
    (PathChoice::GpuDriven, RecordPath::GpuDriven),
];

fn dir() -> std::path::PathBuf {
    std::env::temp_dir().join("throng-worst-values")
}

fn options(path: PathChoice) -> RendererOptions {
    RendererOptions {
        path,
        shadows: None,
        ..RendererOptions::default()
    }
}

/// `crowd` drawn by a fresh renderer on `path`, checked to run on it.
fn draw(
    gpu: &Gpu,
    (choice, path): (PathChoice, RecordPath),
    crowd: &Crowd,
    model: &GpuModel,
    camera: &throng_crowd::camera::Camera,
) -> image::RgbaImage {
    let mut renderer = Renderer::headless(gpu, options(choice)).unwrap();
    assert_eq!(renderer.path(), path, "the test adapter runs {path:?}");
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let (image, stats) = renderer
        .render_image(gpu, SIZE, camera, &[crowd], &[model])
        .unwrap();
    assert!(
        pollster::block_on(scope.pop()).is_none(),
        "{path:?}: wgpu validation error"
    );
    assert_eq!(stats.visible, crowd.len() as u32, "{path:?}: all visible");
    image
}

/// What each instance shows, one line each: printed before the comparisons
/// so that a failure names the states.
fn print_states(what: &str, crowd: &Crowd) {
    println!("{what}:");
    for (i, id) in crowd.ids().enumerate() {
        let s = crowd.state(id).unwrap();
        let blend = crowd.frame_blend(id).unwrap();
        println!(
            "  instance {i}: current {:?}, previous {:?}, fade {}, frames {blend:?}",
            s.current, s.previous, s.fade
        );
    }
}

/// Nine Foxes on the last clip at its worst: `jump` seconds pass between
/// the first four's start and the others' (`f32::MAX` saturates the clock).
fn worst_crowd(handle: &ModelHandle, jump: f32) -> (Crowd, throng_core::math::Aabb) {
    let last = handle.model().clips.len() - 1;
    let duration = handle.model().clips[last].duration;
    let (mut crowd, _, bounds) = grid_crowd(
        handle,
        &GridOptions {
            count: 9,
            clip: Some(last),
            time: Some(0.0),
            // One tint: the baseline's characters take theirs from the
            // draw list, whose groups do not keep the crowd's order.
            tints: false,
            ..GridOptions::default()
        },
    )
    .unwrap();
    let ids: Vec<InstanceId> = crowd.ids().collect();
    // Running through the jump: once, backwards, ping-pong fast, looping.
    crowd.set_wrap(ids[0], WrapMode::Once).unwrap();
    crowd.set_speed(ids[1], -1.0).unwrap();
    crowd.set_wrap(ids[2], WrapMode::PingPong).unwrap();
    crowd.set_speed(ids[2], 3.7).unwrap();
    crowd.set_speed(ids[3], 1000.0).unwrap();
    crowd.update(jump);
    // After it: exactly at the end, once and looping; a cross-fade from the
    // last clip at its end; one into the last clip; the rest pose.
    for (&id, wrap) in ids[4..7]
        .iter()
        .zip([WrapMode::Once, WrapMode::Loop, WrapMode::Once])
    {
        crowd.set_wrap(id, wrap).unwrap();
        crowd.set_time(id, duration).unwrap();
    }
    crowd.cross_fade(ids[6], 0, 2.0).unwrap();
    crowd.play(ids[7], 0).unwrap();
    crowd.cross_fade(ids[7], last, 1.0).unwrap();
    crowd.play_rest(ids[8]).unwrap();
    crowd.update(0.5);
    (crowd, bounds)
}

/// The CPU-skinned baseline's picture of `crowd`.
fn cpu_skinned(
    gpu: &Gpu,
    crowd: &Crowd,
    skin: &CpuSkinnedModel,
    model: &GpuModel,
    camera: &throng_crowd::camera::Camera,
) -> image::RgbaImage {
    let target = Offscreen::new(&gpu.device, SIZE).unwrap();
    let mut cpu = CpuSkinnedRenderer::headless(gpu, options(PathChoice::Auto)).unwrap();
    let mut list = DrawList::default();
    crowd.build_draw_list(None, &mut list);
    let characters: Vec<Character> = crowd
        .ids()
        .zip(&list.records)
        .map(|(id, r)| Character::from_state(&crowd.state(id).unwrap(), r.tint))
        .collect();
    let cast = Cast {
        characters: &characters,
        skin,
        model,
    };
    cpu.render(&target.view, SIZE, camera, cast).unwrap();
    target.read(&gpu.device, &gpu.queue).unwrap()
}

#[test]
fn the_last_clip_at_its_worst_draws_as_the_cpu_reference_on_every_path() {
    let gpu = require_gpu("worst values: clip times");
    let (scene, handle) = common::baked("khronos_Fox.glb");
    let bones = handle.model().bone_count() as u16;
    assert!(
        handle.model().lods[0].vertices.iter().any(|v| v
            .joints
            .iter()
            .zip(v.weights)
            .any(|(&j, w)| j == bones - 1 && w > 0.0)),
        "the Fox's skin reaches its last bone"
    );
    let skin = CpuSkinnedModel::new(&handle, scene).unwrap();
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    for (name, jump) in [("31,700 years", 1.0e12), ("saturated clock", f32::MAX)] {
        let (crowd, bounds) = worst_crowd(&handle, jump);
        let camera = framing_camera(&bounds, SIZE.0 as f32 / SIZE.1 as f32);
        print_states(name, &crowd);
        let reference = cpu_skinned(&gpu, &crowd, &skin, &model, &camera);
        for path in PATHS {
            let image = draw(&gpu, path, &crowd, &model, &camera);
            let case = format!("{}-{:?}", name.replace([' ', ','], "_"), path.1);
            common::assert_images_match(&case, &reference, &image, &dir());
        }
    }
}

#[test]
fn layers_at_their_maximum_with_the_last_mask_draw_as_their_top_clip_on_every_path() {
    let gpu = require_gpu("worst values: layers");
    let (_, handle) = common::baked("khronos_Fox.glb");
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let m = handle.model();
    let last = m.clips.len() - 1;
    let duration = m.clips[last].duration;
    let last_bone = m.bones.last().unwrap().name.clone();
    let transform = Mat4::from_scale(Vec3::splat(0.02));
    let spawn = |crowd: &mut Crowd| {
        let id = crowd
            .spawn(
                throng_crowd::crowd::ModelId(0),
                throng_crowd::crowd::Spawn {
                    transform,
                    clip: Some(last),
                    wrap: WrapMode::Once,
                    ..Default::default()
                },
            )
            .unwrap();
        crowd.set_time(id, duration).unwrap();
        id
    };
    let mut plain = Crowd::new();
    plain.add_model(&handle);
    spawn(&mut plain);
    let mut layered = Crowd::new();
    let fox = layered.add_model(&handle);
    let upper = layered.mask_subtrees(fox, &["b_Spine01_02"]).unwrap();
    let tip = layered.mask_subtrees(fox, &[&last_bone]).unwrap();
    let id = spawn(&mut layered);
    let end_of = |clip: usize| Layer {
        time: m.clips[clip].duration,
        wrap: WrapMode::Once,
        ..Layer::new(clip)
    };
    let mut layers = vec![
        Layer {
            mask: Some(upper),
            weight: 0.6,
            ..end_of(0)
        };
        MAX_EXTRA_LAYERS - 1
    ];
    layers[0].mask = Some(tip);
    layers.push(end_of(last));
    layered.set_layers(id, &layers).unwrap();
    assert!(
        layered
            .set_layers(id, &[end_of(0); MAX_EXTRA_LAYERS + 1])
            .is_err(),
        "{MAX_EXTRA_LAYERS} layers is the most the API allows"
    );
    layered.update(0.25);
    plain.update(0.25);
    print_states("layered", &layered);
    let bounds = m.bounds.transformed(&transform);
    let camera = framing_camera(&bounds, SIZE.0 as f32 / SIZE.1 as f32);
    for path in PATHS {
        let expected = draw(&gpu, path, &plain, &model, &camera);
        let image = draw(&gpu, path, &layered, &model, &camera);
        common::assert_images_match(&format!("layers-{:?}", path.1), &expected, &image, &dir());
    }
}

#[test]
fn the_last_lod_draws_alike_on_every_path() {
    let gpu = require_gpu("worst values: last LOD");
    let scene = throng_bake::import_file(&common::asset("khronos_Fox.glb"))
        .unwrap()
        .scene;
    let opts = throng_bake::BakeOptions {
        lod_ratios: vec![0.5, 0.2],
        ..throng_bake::BakeOptions::default()
    };
    let (mut baked, _) = throng_bake::bake(&scene, &opts, &|_, _| {}).unwrap();
    // Thresholds no instance on screen reaches, but the last LOD's (0):
    // a valid file may say so, and every instance draws the last LOD.
    let lods = baked.lods.len();
    assert_eq!(lods, 3);
    for (l, lod) in baked.lods.iter_mut().enumerate() {
        lod.screen_size = if l + 1 == lods { 0.0 } else { 1.0e6 };
    }
    let handle = ModelHandle::new(baked).unwrap();
    let lods = lods as u32;
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let (crowd, bounds) = worst_crowd(&handle, 1.0e12);
    let camera = framing_camera(&bounds, SIZE.0 as f32 / SIZE.1 as f32);
    let mut list = DrawList::default();
    crowd.build_draw_list(DrawView::from_camera(&camera, true), &mut list);
    assert!(
        list.groups.iter().all(|g| g.lod == lods - 1) && list.records.len() == crowd.len(),
        "every instance at the last LOD: {:?}",
        list.groups
            .iter()
            .map(|g| (g.lod, g.count))
            .collect::<Vec<_>>()
    );
    print_states("last LOD", &crowd);
    let reference = draw(&gpu, PATHS[1], &crowd, &model, &camera);
    for path in [PATHS[0], PATHS[2]] {
        let image = draw(&gpu, path, &crowd, &model, &camera);
        common::assert_images_match(
            &format!("last-lod-{:?}", path.1),
            &reference,
            &image,
            &dir(),
        );
    }
}
