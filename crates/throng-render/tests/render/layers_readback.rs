//! The palette pre-pass on the GPU (`throng-render/src/passes/palette.wgsl`) equals its CPU
//! twin (`throng_core::layers::layered_palette` and `layered_weights`):
//! LOD 0 morphed and skinned by the read-back palettes and weights is
//! within `GPU_TOLERANCE × bounding radius` of LOD 0 by the CPU's, and each
//! weight within `WEIGHT_TOLERANCE`, for instances with 2, 3 and 4 layers
//! (the base pose, cross-faded or not, plus override and additive layers
//! with and without masks, between baked frames, and a weights layer of a
//! morph preset), on Fox, CesiumMan and
//! Woman, and on the two morph models (`throng_tests::morph_models`), whose
//! layers move morph weights too — each instance at its own place in the
//! palette buffer. (The CPU twin is checked against the source glTF in
//! `tests/tests/integration/layers/`.)

use throng_tests::golden as common;

use throng_core::baked::skin_lod_with;
use throng_core::gpu::{FrameBlend, GpuLayer, GpuLayerSet};
use throng_core::layers::{
    BoneMask, LayerMode, LayerPose, Skeleton, layered_palette, layered_weights, palette_entries,
};
use throng_core::layout::FramePair;
use throng_core::math::Rows3x4;
use throng_core::model::BakedModel;
use throng_crowd::crowd::ModelHandle;
use throng_render::GpuModel;
use throng_render::palette::{PalettePass, PaletteTables};
use throng_tests::require_gpu;

/// Largest GPU-vs-CPU position difference, × bounding radius: f32 in
/// another order of operations, as in `gpu_readback.rs`.
const GPU_TOLERANCE: f32 = 1e-5;

/// Largest GPU-vs-CPU morph weight difference: the same few f32
/// operations in the same order, rounded alike.
const WEIGHT_TOLERANCE: f32 = 1e-6;

/// Frames `u` of the way through clip `c` (between baked frames).
fn frames(model: &BakedModel, c: usize, u: f32) -> FramePair {
    let clip = &model.clips[c % model.clips.len()];
    clip.frames_at(u * clip.duration)
}

/// Worst distance between LOD 0 morphed and skinned by two poses.
fn worst(model: &BakedModel, a: (&[Rows3x4], &[f32]), b: (&[Rows3x4], &[f32])) -> f32 {
    let skinned = |(palette, weights)| skin_lod_with(model, 0, palette, weights);
    let mut worst = 0.0f32;
    for (pa, pb) in skinned(a).iter().zip(&skinned(b)) {
        for (x, y) in pa.positions.iter().zip(&pb.positions) {
            worst = worst.max((*x - *y).length());
        }
    }
    worst
}

fn run_model(name: &str) {
    let (_, handle) = common::baked(name);
    run_handle(name, &handle);
}

fn run_handle(name: &str, handle: &ModelHandle) {
    let gpu = require_gpu("layers_readback");
    let model = handle.model();
    let radius = model.bounding_radius;
    let skeleton = Skeleton::new(model);
    let order = skeleton.order();
    let n = skeleton.bone_count();
    // An "upper body" (the subtree a third of the way down the hierarchy),
    // and a partial mask: a weight ramp over every bone.
    let root = order[n / 3];
    let upper = BoneMask::subtrees(&skeleton, &[model.bones[root as usize].name.as_str()]).unwrap();
    let ramp =
        BoneMask::from_weights(&skeleton, (0..n).map(|b| (b % 5) as f32 / 4.0).collect()).unwrap();
    // A morph preset (its first slot to 0.8, the last to −0.3; none on a
    // model without targets), for a weights layer.
    let slot_count = model.morphs.slot_count();
    let set: Vec<(u32, f32)> = match slot_count {
        0 => Vec::new(),
        n => vec![(0, 0.8), (n - 1, -0.3)],
    };
    let preset = BoneMask::morph_preset(&skeleton, &set).unwrap();
    let masks = [&upper, &ramp, &preset];
    let mask_table: Vec<[f32; 2]> = masks
        .iter()
        .flat_map(|m| m.gpu_entries(&skeleton))
        .collect();
    let slots = model.morphs.slot_count() as usize;
    let mask_at = |m: &BoneMask| {
        let i = masks.iter().position(|x| std::ptr::eq(*x, m)).unwrap();
        (i * (n + slots)) as u32
    };

    let cross_fade = FrameBlend {
        current: frames(model, 0, 0.37),
        previous: frames(model, 1, 0.81),
        fade: 0.4,
    };
    let plain = FrameBlend::single(frames(model, 1, 0.123));
    let cases: Vec<(&str, FrameBlend, Vec<LayerPose>)> = vec![
        (
            "2 layers: masked override",
            plain,
            vec![LayerPose {
                frames: frames(model, 2, 0.55),
                weight: 1.0,
                mode: LayerMode::Override,
                mask: Some(&upper),
            }],
        ),
        (
            "3 layers: cross-faded base, weighted override, masked additive",
            cross_fade,
            vec![
                LayerPose {
                    frames: frames(model, 2, 0.2),
                    weight: 0.6,
                    mode: LayerMode::Override,
                    mask: None,
                },
                LayerPose {
                    frames: frames(model, 1, 0.66),
                    weight: 0.8,
                    mode: LayerMode::Additive {
                        reference: frames(model, 1, 0.0),
                    },
                    mask: Some(&upper),
                },
            ],
        ),
        (
            "4 layers: additive, masked override, ramp-masked override",
            plain,
            vec![
                LayerPose {
                    frames: frames(model, 0, 0.9),
                    weight: 0.5,
                    mode: LayerMode::Additive {
                        reference: frames(model, 0, 0.45),
                    },
                    mask: None,
                },
                LayerPose {
                    frames: frames(model, 2, 0.31),
                    weight: 0.7,
                    mode: LayerMode::Override,
                    mask: Some(&upper),
                },
                LayerPose {
                    frames: frames(model, 1, 0.77),
                    weight: 1.0,
                    mode: LayerMode::Override,
                    mask: Some(&ramp),
                },
            ],
        ),
        ("1 layer: the base alone", cross_fade, Vec::new()),
        (
            "3 layers: override, then a morph preset's weights",
            cross_fade,
            vec![
                LayerPose {
                    frames: frames(model, 2, 0.4),
                    weight: 0.6,
                    mode: LayerMode::Override,
                    mask: None,
                },
                LayerPose {
                    frames: frames(model, 0, 0.0),
                    weight: 0.7,
                    mode: LayerMode::Weights,
                    mask: Some(&preset),
                },
            ],
        ),
    ];

    // Each instance at its own place (its bones' matrices, then its
    // weights), with a gap, so that a wrong offset shows.
    let entries = palette_entries(model);
    let sets: Vec<GpuLayerSet> = cases
        .iter()
        .enumerate()
        .map(|(i, (_, base, layers))| {
            let gpu_layers: Vec<GpuLayer> = layers
                .iter()
                .map(|l| GpuLayer::new(l, l.mask.map_or(GpuLayer::NO_MASK, mask_at)))
                .collect();
            GpuLayerSet::new(base, &gpu_layers, (i as u64 * (entries + 3)) as u32)
        })
        .collect();
    let gpu_model = GpuModel::upload(&gpu.device, &gpu.queue, handle).unwrap();
    let tables = PaletteTables::new(&gpu.device, &skeleton, &mask_table);
    let pass = PalettePass::new(&gpu.device);
    let got = pass
        .evaluate(&gpu.device, &gpu.queue, &gpu_model, &tables, &sets)
        .unwrap();

    let mut failures = Vec::new();
    let (mut cpu, mut cpu_weights, mut unlayered) = (Vec::new(), Vec::new(), Vec::new());
    // How far the layers moved a weight from the base pose's, in any case:
    // the comparison is not of weights no layer touched.
    let mut moved = 0.0f32;
    for ((label, base, layers), pose) in cases.iter().zip(&got) {
        layered_palette(model, &skeleton, base, layers, &mut cpu);
        layered_weights(model, &skeleton, base, layers, &mut cpu_weights);
        layered_weights(model, &skeleton, base, &[], &mut unlayered);
        moved = cpu_weights
            .iter()
            .zip(&unlayered)
            .fold(moved, |m, (a, b)| m.max((a - b).abs()));
        let w = worst(model, (&cpu, &cpu_weights), (&pose.palette, &pose.weights));
        let worst_weight = cpu_weights
            .iter()
            .zip(&pose.weights)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        eprintln!(
            "{name} {label}: worst {w:.3e} ({:.2e} × radius); {} weights, worst {worst_weight:.1e}",
            w / radius,
            cpu_weights.len()
        );
        if w > GPU_TOLERANCE * radius {
            failures.push(format!(
                "{label}: worst vertex {w} > {GPU_TOLERANCE} × radius {radius}"
            ));
        }
        if pose.weights.len() != cpu_weights.len() || worst_weight > WEIGHT_TOLERANCE {
            failures.push(format!(
                "{label}: {} GPU weights against {} CPU, worst difference {worst_weight}",
                pose.weights.len(),
                cpu_weights.len()
            ));
        }
    }
    assert!(failures.is_empty(), "{name}: {failures:#?}");
    if slots > 0 {
        eprintln!("{name}: the layers moved a weight by up to {moved:.3}");
        assert!(
            moved > 0.05,
            "{name}: no layer moved a morph weight ({moved})"
        );
    }
}

#[test]
fn fox_layers_on_the_gpu_equal_the_cpu() {
    run_model("khronos_Fox.glb");
}

#[test]
fn cesium_man_layers_on_the_gpu_equal_the_cpu() {
    run_model("khronos_CesiumMan.gltf");
}

#[test]
fn woman_layers_on_the_gpu_equal_the_cpu() {
    run_model("gszauer_Woman.gltf");
}

/// A morph model baked as `throng bake` would, its weights layered too.
fn morph_model(bytes: &[u8], name: &str) -> ModelHandle {
    let model = throng_tests::morph_models::baked(bytes, name);
    assert!(model.morphs.slot_count() > 0, "{name} has morph targets");
    ModelHandle::new(model).unwrap()
}

#[test]
fn morph_bar_layers_move_weights_on_the_gpu_as_on_the_cpu() {
    let bar = morph_model(&throng_tests::morph_models::morph_bar(), "morph_bar");
    run_handle("morph_bar", &bar);
}

#[test]
fn simple_skin_morph_layers_move_weights_on_the_gpu_as_on_the_cpu() {
    let skin = morph_model(
        &throng_tests::morph_models::simple_skin_with_morph(),
        "simple_skin_with_morph",
    );
    run_handle("simple_skin_with_morph", &skin);
}
