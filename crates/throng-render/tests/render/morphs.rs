//! Morph targets on the GPU, on the models of `throng_tests::morph_models`
//! (`morph_bar`, built with the glTF builder, and the bundled SimpleSkin
//! with a target added).
//!
//! - The compute readback, which runs the vertex stage's own `skin()` (and
//!   so its `morph()`), equals the CPU mirror of the shader
//!   (`throng_core::baked`) within `GPU_TOLERANCE × radius` at frame times,
//!   between frames and mid-cross-fade, and the glTF reference
//!   (`throng_bake::reference`) within the bake's error bound at seeded
//!   random times.
//! - The picture: three morphing bars drawn by every record path (packaged
//!   and per-vertex skinning, unbounded and GPU-driven through the pose
//!   cache, GPU-driven skinning per vertex), with shadows, match one golden
//!   (`morph_bars.png`); the same bars with their morph targets stripped
//!   differ from it, so the golden shows the morphs.

use glam::{Mat4, Vec3};
use throng_bake::reference::{self, SkinnedPrimitive};
use throng_bake::{BakeOptions, bake, import_slice};
use throng_core::BakedModel;
use throng_core::baked::skin_lod;
use throng_core::gpu::{FrameBlend, InstanceRecord};
use throng_core::layout::FramePair;
use throng_core::limits::DEFAULT_MAX_ERROR;
use throng_crowd::crowd::{Crowd, ModelHandle, Spawn};
use throng_render::image_diff::diff;
use throng_render::{PathChoice, RendererOptions, SkinnedVertex};
use throng_tests::golden as common;
use throng_tests::morph_models::{morph_bar, simple_skin_with_morph};
use throng_tests::readback::skin_on_gpu;
use throng_tests::require_gpu;
use throng_tests::rng::Rng;
use throng_tests::scenes::{self, Row, View};

/// GPU against the CPU mirror, × bounding radius: f32 rounding in another
/// order only (as `gpu_readback.rs`).
const GPU_TOLERANCE: f32 = 1e-5;

/// GPU normals against the mirror's (unit vectors).
const NORMAL_TOLERANCE: f32 = 1e-4;

fn baked(bytes: &[u8], name: &str) -> (throng_bake::Scene, ModelHandle) {
    let scene = import_slice(bytes, None, name)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .scene;
    let (model, _) =
        bake(&scene, &BakeOptions::default(), &|_, _| {}).unwrap_or_else(|e| panic!("{name}: {e}"));
    (
        scene,
        ModelHandle::new(model).expect("a fresh bake validates"),
    )
}

fn flatten(p: &[SkinnedPrimitive]) -> (Vec<Vec3>, Vec<Vec3>) {
    (
        p.iter().flat_map(|s| s.positions.iter().copied()).collect(),
        p.iter().flat_map(|s| s.normals.iter().copied()).collect(),
    )
}

/// Frame blends to read back: every frame of every clip, the midpoints,
/// and a cross-fade from the next clip at two fades.
fn mirror_cases(model: &BakedModel) -> Vec<(String, FrameBlend)> {
    let mut cases = Vec::new();
    let n_clips = model.clips.len();
    for (c, clip) in model.clips.iter().enumerate() {
        let n = clip.frame_count;
        for k in (0..n).step_by((n as usize / 12).max(1)) {
            let f = clip.first_frame + k;
            cases.push((
                format!("{} frame {k}", clip.name),
                FrameBlend::single(FramePair::single(f)),
            ));
            if k + 1 < n {
                let half = FramePair {
                    frame0: f,
                    frame1: f + 1,
                    t: 0.5,
                };
                cases.push((
                    format!("{} frame {k}.5", clip.name),
                    FrameBlend::single(half),
                ));
            }
        }
        let prev = &model.clips[(c + 1) % n_clips];
        for fade in [0.25f32, 0.5] {
            cases.push((
                format!("{} from {} fade {fade}", clip.name, prev.name),
                FrameBlend {
                    current: clip.frames_at(0.37 * clip.duration),
                    previous: prev.frames_at(0.61 * prev.duration),
                    fade,
                },
            ));
        }
    }
    cases
}

/// LOD 0 of `handle`'s model skinned by the GPU at each of `blends`.
fn skinned(handle: &ModelHandle, blends: &[FrameBlend]) -> Vec<Vec<SkinnedVertex>> {
    let records: Vec<InstanceRecord> = blends
        .iter()
        .map(|b| InstanceRecord::new(&Mat4::IDENTITY, b, u32::MAX))
        .collect();
    skin_on_gpu(&require_gpu("morphs"), handle, &records)
}

fn gpu_equals_mirror_and_reference(bytes: &[u8], name: &str) {
    let (scene, handle) = baked(bytes, name);
    let model = handle.model();
    let radius = model.bounding_radius;
    assert!(!model.morphs.is_empty());
    // Against the CPU mirror.
    let cases = mirror_cases(model);
    let blends: Vec<FrameBlend> = cases.iter().map(|c| c.1).collect();
    let out = skinned(&handle, &blends);
    let (mut worst, mut worst_at, mut worst_normal) = (0.0f32, String::new(), 0.0f32);
    for ((label, blend), gpu_verts) in cases.iter().zip(&out) {
        let (pos, normals) = flatten(&skin_lod(model, 0, blend));
        assert_eq!(pos.len(), gpu_verts.len());
        for (v, ((p, n), g)) in pos.iter().zip(&normals).zip(gpu_verts).enumerate() {
            let d = (*p - g.position).length() / radius;
            if d > worst {
                (worst, worst_at) = (
                    d,
                    format!("{label} vertex {v}: CPU {p}, GPU {}", g.position),
                );
            }
            worst_normal = worst_normal.max((*n - g.normal).length());
        }
    }
    // Against the reference at random times, within the bake's bound.
    let mut rng = Rng(25);
    let mut times = Vec::new();
    for (c, clip) in model.clips.iter().enumerate() {
        if clip.error.between_frames > DEFAULT_MAX_ERROR {
            continue; // a step ("snap"): the bake reports it over the bound
        }
        times.extend((0..6).map(|_| (c, rng.unit() * clip.duration)));
    }
    let blends: Vec<FrameBlend> = times
        .iter()
        .map(|&(c, t)| FrameBlend::single(model.clips[c].frames_at(t)))
        .collect();
    let out = skinned(&handle, &blends);
    let mut worst_ref = (0.0f32, String::new());
    for (&(c, t), gpu_verts) in times.iter().zip(&out) {
        let (pos, _) = flatten(&reference::sample(&scene, Some(c), t));
        for (v, (p, g)) in pos.iter().zip(gpu_verts).enumerate() {
            let d = (*p - g.position).length() / radius;
            if d > worst_ref.0 {
                worst_ref = (d, format!("{} t={t:.4} vertex {v}", model.clips[c].name));
            }
        }
    }
    println!(
        "{name}: {} blends against the mirror, worst {worst:.2e} × radius ({worst_at}), normal {worst_normal:.2e}; {} times against the reference, worst {:.2e} × radius ({})",
        cases.len(),
        times.len(),
        worst_ref.0,
        worst_ref.1
    );
    assert!(
        worst <= GPU_TOLERANCE,
        "{name}: {worst:.3e} × radius: {worst_at}"
    );
    assert!(
        worst_normal <= NORMAL_TOLERANCE,
        "{name}: normal off by {worst_normal:.3e}"
    );
    assert!(
        worst_ref.0 <= DEFAULT_MAX_ERROR,
        "{name}: {:.3e} × radius at {}",
        worst_ref.0,
        worst_ref.1
    );
}

#[test]
fn morph_bar_gpu_equals_cpu() {
    gpu_equals_mirror_and_reference(&morph_bar(), "morph_bar");
}

#[test]
fn simple_skin_with_a_morph_gpu_equals_cpu() {
    gpu_equals_mirror_and_reference(&simple_skin_with_morph(), "simple_skin_morph");
}

const SIZE: (u32, u32) = (160, 96);

/// Where the bars stand, 1.6 apart (their clips and times are their own).
const BARS: Row = Row {
    first: Vec3::new(-1.6, 0.0, 0.0),
    step: Vec3::new(1.6, 0.0, 0.0),
    clips: 1,
    time_step: 0.0,
};

/// The bars from the front, a little to the right and above.
const VIEW: View = View {
    eye: Vec3::new(0.6, 1.6, 4.2),
    target: Vec3::new(0.3, 1.0, 0.0),
    fov: 45f32.to_radians(),
    depth: (0.1, 100.0),
};

/// Three bars, held still: "talk" at 0.3 s (bulge near 1), at 0.7 s (lift
/// near 1) and "blink" at 0.4 s.
fn bars(handle: &ModelHandle) -> Crowd {
    let m = handle.model();
    let talk = m.clip_index("talk").unwrap();
    let blink = m.clip_index("blink").unwrap();
    let poses = [(talk, 0.3), (talk, 0.7), (blink, 0.4)];
    scenes::crowd_of(poses.into_iter().enumerate().map(|(i, (clip, time))| {
        let spawn = Spawn {
            clip: Some(clip),
            time,
            speed: 0.0,
            ..BARS.spawn(i)
        };
        (handle, spawn)
    }))
}

/// `model` with its morph targets removed: what the pictures would be if
/// a path ignored them.
fn stripped(model: &BakedModel) -> ModelHandle {
    let mut m = model.clone();
    m.morphs = Default::default();
    for lod in &mut m.lods {
        for v in &mut lod.vertices {
            v.morph = [0, 0];
        }
    }
    ModelHandle::new(m).unwrap()
}

#[test]
fn morphing_bars_match_their_golden_on_every_path() {
    let gpu = require_gpu("morphs");
    let (_, handle) = baked(&morph_bar(), "morph_bar");
    let plain = stripped(handle.model());
    let golden = common::golden_dir(env!("CARGO_MANIFEST_DIR"));
    let paths = [
        ("packaged", PathChoice::Packaged, true),
        ("unbounded, pose cache", PathChoice::Unbounded, true),
        ("gpu-driven, pose cache", PathChoice::GpuDriven, true),
        ("gpu-driven, per vertex", PathChoice::GpuDriven, false),
    ];
    for (label, path, cache) in paths {
        let options = RendererOptions {
            path,
            pose_cache: if cache {
                RendererOptions::default().pose_cache
            } else {
                None
            },
            ..RendererOptions::default()
        };
        println!("{label}:");
        let mut renderer = scenes::renderer(&gpu, options);
        let mut draw = |h: &ModelHandle| {
            let model = &scenes::upload(&gpu, &[h])[0];
            let camera = VIEW.camera(SIZE);
            scenes::draw(&mut renderer, &gpu, SIZE, &camera, &[&bars(h)], &[model]).0
        };
        let image = draw(&handle);
        let without = draw(&plain);
        common::check_golden(&golden, "morph_bars", &image);
        let d = diff(&image, &without);
        assert!(
            d.differing > 150,
            "{label}: the morphs changed only {} pixels",
            d.differing
        );
    }
}
