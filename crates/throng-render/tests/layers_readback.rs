//! The palette pre-pass on the GPU (`shaders/palette.wgsl`) equals its CPU
//! twin (`throng_core::layers::layered_palette`): LOD 0 skinned by the
//! read-back palettes is within `GPU_TOLERANCE × bounding radius` of LOD 0
//! skinned by the CPU's, for instances with 2, 3 and 4 layers (the base
//! pose, cross-faded or not, plus override and additive layers with and
//! without masks, between baked frames), on Fox, CesiumMan and Woman, each
//! instance at its own place in the palette buffer. (The CPU twin is
//! checked against the source glTF in `tests/tests/layers.rs`.)

use throng_tests::golden as common;

use glam::Vec3;
use throng_core::baked::blend_matrix;
use throng_core::gpu::{FrameBlend, GpuLayer, GpuLayerSet};
use throng_core::layers::{BoneMask, LayerMode, LayerPose, Skeleton, layered_palette};
use throng_core::layout::FramePair;
use throng_core::math::{Rows3x4, rows_transform_point};
use throng_core::model::BakedModel;
use throng_render::palette::{PalettePass, PaletteTables};
use throng_render::{GpuModel, require_gpu};

/// Largest GPU-vs-CPU position difference, × bounding radius: f32 in
/// another order of operations, as in `gpu_readback.rs`.
const GPU_TOLERANCE: f32 = 1e-5;

/// Frames `u` of the way through clip `c` (between baked frames).
fn frames(model: &BakedModel, c: usize, u: f32) -> FramePair {
    let clip = &model.clips[c % model.clips.len()];
    clip.frames_at(u * clip.duration)
}

/// Worst distance between LOD 0 skinned by two palettes.
fn worst(model: &BakedModel, a: &[Rows3x4], b: &[Rows3x4]) -> f32 {
    let mut worst = 0.0f32;
    for v in &model.lods[0].vertices {
        let p = Vec3::from(v.position);
        let pa = rows_transform_point(&blend_matrix(v, |j| a[j as usize]), p);
        let pb = rows_transform_point(&blend_matrix(v, |j| b[j as usize]), p);
        worst = worst.max((pa - pb).length());
    }
    worst
}

fn run_model(name: &str) {
    let gpu = require_gpu("layers_readback");
    let (_, handle) = common::baked(name);
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
    let masks = [&upper, &ramp];
    let mask_table: Vec<[f32; 2]> = masks.iter().flat_map(|m| m.gpu_entries()).collect();
    let mask_at = |m: &BoneMask| {
        let i = masks.iter().position(|x| std::ptr::eq(*x, m)).unwrap();
        (i * n) as u32
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
    ];

    // Each instance at its own place, with a gap, so that a wrong offset
    // shows.
    let sets: Vec<GpuLayerSet> = cases
        .iter()
        .enumerate()
        .map(|(i, (_, base, layers))| {
            let gpu_layers: Vec<GpuLayer> = layers
                .iter()
                .map(|l| GpuLayer::new(l, l.mask.map_or(GpuLayer::NO_MASK, mask_at)))
                .collect();
            GpuLayerSet::new(base, &gpu_layers, (i * (n + 3)) as u32)
        })
        .collect();
    let gpu_model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let tables = PaletteTables::new(&gpu.device, &skeleton.gpu_table(), &mask_table);
    let pass = PalettePass::new(&gpu.device);
    let got = pass
        .evaluate(&gpu.device, &gpu.queue, &gpu_model, &tables, &sets)
        .unwrap();

    let mut failures = Vec::new();
    let mut cpu = Vec::new();
    for ((label, base, layers), palette) in cases.iter().zip(&got) {
        layered_palette(model, &skeleton, base, layers, &mut cpu);
        let w = worst(model, &cpu, palette);
        eprintln!(
            "{name} {label}: worst {w:.3e} ({:.2e} × radius)",
            w / radius
        );
        if w > GPU_TOLERANCE * radius {
            failures.push(format!(
                "{label}: worst vertex {w} > {GPU_TOLERANCE} × radius {radius}"
            ));
        }
    }
    assert!(failures.is_empty(), "{name}: {failures:#?}");
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
