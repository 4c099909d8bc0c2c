//! Animation layers drawn: the renderer's palette pre-pass and the vertex
//! stages reading ready matrices (`records_storage.wgsl`), with shadows on
//! (the cast pass reads them too).
//!
//! * A full-weight, unmasked override layer draws as its clip alone would:
//!   the picture equals that of an instance playing the layer's clip at the
//!   layer's time on the plain path, within the golden tolerances.
//! * A layer of weight 0 draws as the base pose.
//! * A masked layer (the Fox's upper body surveying while it walks) is a
//!   golden image, which must differ from both clips drawn alone.
//! * On the unbounded and the GPU-driven paths (where the cull pass leaves
//!   layered instances to the CPU's lists).
//! * The packaged (downlevel) path shows the base pose.
//! * Morph weights are layered too (`morph_bar`, whose clip "blink" moves
//!   weights only): a full override layer playing "blink" over "talk" draws
//!   as "blink" alone, a weightless one as "talk" — on the unbounded and
//!   GPU-driven paths, where the vertex stage morphs with the palette's
//!   weights.

use throng_tests::golden as common;

use glam::Mat4;
use throng_crowd::crowd::{Crowd, Layer, ModelHandle, Spawn};
use throng_render::ShadowOptions;
use throng_render::{Gpu, GpuModel, PathChoice, RecordPath, Renderer, RendererOptions};
use throng_tests::require_gpu;

const SIZE: (u32, u32) = (256, 256);

/// The time the pictures are taken at, in both clips.
const WALK_TIME: f32 = 0.3;
const SURVEY_TIME: f32 = 1.7;

fn golden() -> std::path::PathBuf {
    common::golden_dir(env!("CARGO_MANIFEST_DIR"))
}

/// One Fox seen from the side, playing `clip` at `time`, with `layers`.
fn render(
    gpu: &Gpu,
    handle: &ModelHandle,
    path: PathChoice,
    clip: &str,
    time: f32,
    layers: &[Layer],
    mask: bool,
) -> (image::RgbaImage, RecordPath) {
    let model = handle.model();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(handle);
    let id = crowd
        .spawn(
            m,
            Spawn {
                transform: Mat4::from_rotation_y(1.2),
                clip: Some(model.clip_index(clip).unwrap()),
                time,
                ..Spawn::default()
            },
        )
        .unwrap();
    let mut layers = layers.to_vec();
    if mask {
        let upper = crowd.mask_subtrees(m, &["b_Spine01_02"]).unwrap();
        for l in &mut layers {
            l.mask = Some(upper);
        }
    }
    crowd.set_layers(id, &layers).unwrap();
    let options = RendererOptions {
        sample_count: 4,
        path,
        shadows: Some(ShadowOptions::default()),
        ..RendererOptions::default()
    };
    let mut renderer = Renderer::headless(gpu, options).unwrap();
    let gpu_model = GpuModel::upload(&gpu.device, &gpu.queue, handle).unwrap();
    let bounds = model
        .clips
        .iter()
        .fold(model.clips[0].bounds, |b, c| b.union(&c.bounds));
    let camera = throng_bench::demo::framing_camera(&bounds, SIZE.0 as f32 / SIZE.1 as f32);
    let (image, _) = renderer
        .render_image(gpu, SIZE, &camera, &[&crowd], &[&gpu_model])
        .unwrap();
    (image, renderer.path())
}

fn survey_layer(handle: &ModelHandle, weight: f32) -> Layer {
    Layer {
        time: SURVEY_TIME,
        speed: 0.0,
        weight,
        ..Layer::new(handle.model().clip_index("Survey").unwrap())
    }
}

fn layers_draw_as_their_clips_and_a_masked_layer_as_its_golden(
    path: PathChoice,
    expected: RecordPath,
) {
    let gpu = require_gpu("layers_draw");
    let (_, handle) = common::baked("khronos_Fox.glb");
    let dir = golden();
    let (walk, drawn_on) = render(&gpu, &handle, path, "Walk", WALK_TIME, &[], false);
    assert_eq!(drawn_on, expected, "this adapter lacks the path");
    let (survey, _) = render(&gpu, &handle, path, "Survey", SURVEY_TIME, &[], false);

    let full = [survey_layer(&handle, 1.0)];
    let (layered, _) = render(&gpu, &handle, path, "Walk", WALK_TIME, &full, false);
    common::assert_images_match("layers_full_override", &survey, &layered, &dir);

    let none = [survey_layer(&handle, 0.0)];
    let (weightless, _) = render(&gpu, &handle, path, "Walk", WALK_TIME, &none, false);
    common::assert_images_match("layers_weightless", &walk, &weightless, &dir);

    let (masked, _) = render(&gpu, &handle, path, "Walk", WALK_TIME, &full, true);
    common::check_golden(&dir, "layers_upper_body", &masked);
    // The mask did something: the picture is neither clip's.
    for (name, other) in [("walk", &walk), ("survey", &survey)] {
        let (d, fraction) = common::compare(&format!("upper body vs {name}"), other, &masked);
        assert!(
            fraction > 0.002 && d.mean > 0.05,
            "the masked layer draws like {name} alone ({fraction} of pixels differ)"
        );
    }
}

#[test]
fn on_the_unbounded_path() {
    layers_draw_as_their_clips_and_a_masked_layer_as_its_golden(
        PathChoice::Unbounded,
        RecordPath::Unbounded,
    );
}

/// The cull pass leaves layered instances to the CPU's lists.
#[test]
fn on_the_gpu_driven_path() {
    layers_draw_as_their_clips_and_a_masked_layer_as_its_golden(
        PathChoice::GpuDriven,
        RecordPath::GpuDriven,
    );
}

fn morph_layers_draw_as_their_clips(path: PathChoice) {
    let gpu = require_gpu("layers_draw morphs");
    let model = throng_tests::morph_models::baked(&throng_tests::morph_models::morph_bar(), "bar");
    let handle = ModelHandle::new(model).unwrap();
    let dir = golden();
    let (talk_t, blink_t) = (0.35, 0.6);
    let (talk, _) = render(&gpu, &handle, path, "talk", talk_t, &[], false);
    let (blink, _) = render(&gpu, &handle, path, "blink", blink_t, &[], false);
    // The two clips look apart, so the equalities below say something.
    let (d, fraction) = common::compare("talk vs blink", &talk, &blink);
    assert!(
        fraction > 0.002 && d.mean > 0.05,
        "talk and blink draw alike ({fraction} of pixels differ)"
    );
    let layer = |weight| Layer {
        time: blink_t,
        speed: 0.0,
        weight,
        ..Layer::new(handle.model().clip_index("blink").unwrap())
    };
    let (full, _) = render(&gpu, &handle, path, "talk", talk_t, &[layer(1.0)], false);
    common::assert_images_match("layers_morph_full_override", &blink, &full, &dir);
    let (none, _) = render(&gpu, &handle, path, "talk", talk_t, &[layer(0.0)], false);
    common::assert_images_match("layers_morph_weightless", &talk, &none, &dir);
}

#[test]
fn morph_layers_on_the_unbounded_path() {
    morph_layers_draw_as_their_clips(PathChoice::Unbounded);
}

#[test]
fn morph_layers_on_the_gpu_driven_path() {
    morph_layers_draw_as_their_clips(PathChoice::GpuDriven);
}

#[test]
fn the_packaged_path_draws_the_base_pose() {
    let gpu = require_gpu("layers_draw packaged");
    let (_, handle) = common::baked("khronos_Fox.glb");
    let path = PathChoice::Packaged;
    let (walk, _) = render(&gpu, &handle, path, "Walk", WALK_TIME, &[], false);
    let full = [survey_layer(&handle, 1.0)];
    let (layered, _) = render(&gpu, &handle, path, "Walk", WALK_TIME, &full, false);
    common::assert_images_match("layers_packaged_base", &walk, &layered, &golden());
}
