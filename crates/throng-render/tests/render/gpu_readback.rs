//! GPU compute readback of skinned positions equals
//! the CPU within `GPU_TOLERANCE × bounding radius` for Fox, CesiumMan and
//! Woman — at baked frame times and mid-cross-fade against the glTF reference
//! (`throng_bake::reference`), and halfway between frames against the CPU
//! mirror of the shader (`throng_core::baked`), which is the only CPU
//! definition of "between frames". The bake's error bound: at seeded random times between
//! frames the readback is within the bake's error bound
//! (`BETWEEN_FRAMES_TOLERANCE`, the default `--max-error`) of the reference.
//!
//! The GPU runs the same `skin()` WGSL function as the vertex shader.

use throng_tests::golden as common;

use glam::{Mat4, Vec3};
use throng_bake::reference::{self, SkinnedPrimitive};
use throng_core::baked::skin_lod;
use throng_core::gpu::{FrameBlend, InstanceRecord};
use throng_core::layout::{FramePair, frame_time};
use throng_render::SkinnedVertex;
use throng_tests::readback::skin_on_gpu;
use throng_tests::require_gpu;

/// Largest GPU-vs-CPU position difference, as a fraction of the model's
/// bounding radius. f32 arithmetic in a different order (GPU dot products vs
/// glam) differs by ~1e-7 relative; 1e-5 leaves room for that and nothing else.
const GPU_TOLERANCE: f32 = 1e-5;

/// Largest GPU-vs-CPU normal difference (unit vectors). Normalisation
/// (`inverseSqrt` vs `1/sqrt`) and the cofactor's cross products add a few ulps.
const NORMAL_TOLERANCE: f32 = 1e-4;

/// Largest GPU-vs-reference position difference at random times between
/// baked frames, as a fraction of the bounding radius: the bound the default
/// bake promises (docs/BAKE_ERROR.md).
const BETWEEN_FRAMES_TOLERANCE: f32 = throng_core::limits::DEFAULT_MAX_ERROR;

/// Random times per clip checked against the reference between frames.
const RANDOM_TIMES_PER_CLIP: u32 = 4;

struct Case {
    label: String,
    blend: FrameBlend,
    /// Largest position difference allowed, × bounding radius.
    tolerance: f32,
    /// Expected positions (and normals, if the reference has them).
    expected: Vec<SkinnedPrimitive>,
}

fn flatten(p: &[SkinnedPrimitive]) -> (Vec<Vec3>, Vec<Vec3>) {
    (
        p.iter().flat_map(|s| s.positions.iter().copied()).collect(),
        p.iter().flat_map(|s| s.normals.iter().copied()).collect(),
    )
}

fn run_model(name: &str) {
    let gpu = require_gpu("gpu_readback");
    let (scene, handle) = common::baked(name);
    let model = handle.model();
    let radius = model.bounding_radius;
    let mut cases = Vec::new();
    let n_clips = model.clips.len();
    for (c, clip) in model.clips.iter().enumerate() {
        let n = clip.frame_count;
        let mut ks = vec![0, 1, n / 2, n.saturating_sub(2), n - 1];
        ks.sort();
        ks.dedup();
        for &k in &ks {
            let t = frame_time(k, n, clip.duration);
            cases.push(Case {
                label: format!("{:?} frame {k} (t={t:.4})", clip.name),
                blend: FrameBlend::single(clip.frames_at(t)),
                tolerance: GPU_TOLERANCE,
                expected: reference::sample(&scene, Some(c), t),
            });
        }
        for k in [0, n / 3, n.saturating_sub(2)] {
            if k + 1 >= n {
                continue;
            }
            let blend = FrameBlend::single(FramePair {
                frame0: clip.first_frame + k,
                frame1: clip.first_frame + k + 1,
                t: 0.5,
            });
            cases.push(Case {
                label: format!("{:?} halfway between frames {k} and {}", clip.name, k + 1),
                blend,
                tolerance: GPU_TOLERANCE,
                expected: skin_lod(model, 0, &blend),
            });
        }
        // Seeded times anywhere in the clip, against the reference: the
        // bake's error bound, measured on the GPU.
        for i in 0..RANDOM_TIMES_PER_CLIP {
            let u = ((c as u32 * 7919 + i * 104_729) % 1000) as f32 / 1000.0 + 0.000_37;
            let t = u * clip.duration;
            cases.push(Case {
                label: format!("{:?} random t={t:.5}", clip.name),
                blend: FrameBlend::single(clip.frames_at(t)),
                tolerance: BETWEEN_FRAMES_TOLERANCE,
                expected: reference::sample(&scene, Some(c), t),
            });
        }
        // Mid-cross-fade from another clip (or another time of the same clip).
        let p = (c + 1) % n_clips;
        let prev = &model.clips[p];
        let (kp, kc) = (prev.frame_count / 3, n * 2 / 3);
        let (tp, tc) = (
            frame_time(kp, prev.frame_count, prev.duration),
            frame_time(kc, n, clip.duration),
        );
        for fade in [0.5f32, 0.25] {
            let blend = FrameBlend {
                current: clip.frames_at(tc),
                previous: prev.frames_at(tp),
                fade,
            };
            let prev_pose = reference::Pose::of(&scene, Some(p), tp);
            let cur_pose = reference::Pose::of(&scene, Some(c), tc);
            cases.push(Case {
                label: format!(
                    "fade {fade} from {:?} t={tp:.3} to {:?} t={tc:.3}",
                    prev.name,
                    clip.name,
                    tc = tc
                ),
                blend,
                tolerance: GPU_TOLERANCE,
                expected: reference::sample_cross_fade(&scene, &prev_pose, &cur_pose, fade),
            });
        }
    }
    let records: Vec<InstanceRecord> = cases
        .iter()
        .map(|c| InstanceRecord::new(&Mat4::IDENTITY, &c.blend, u32::MAX))
        .collect();
    let out: Vec<Vec<SkinnedVertex>> = skin_on_gpu(&gpu, &handle, &records);
    assert_eq!(out.len(), cases.len());

    let mut failures = Vec::new();
    let mut worst = (0.0f32, String::new());
    let mut worst_normal = 0.0f32;
    for (case, gpu_verts) in cases.iter().zip(&out) {
        let (pos, _) = flatten(&case.expected);
        // Normals are compared against the CPU mirror (the glTF reference
        // has none for Fox, and between frames only the mirror is defined).
        let (_, mirror_normals) = flatten(&skin_lod(model, 0, &case.blend));
        assert_eq!(
            pos.len(),
            gpu_verts.len(),
            "{name} {}: vertex count",
            case.label
        );

        for (v, (e, g)) in pos.iter().zip(gpu_verts).enumerate() {
            let d = (*e - g.position).length() / radius;
            if d > worst.0 {
                worst = (
                    d,
                    format!(
                        "{} vertex {v}: expected {e}, GPU {}",
                        case.label, g.position
                    ),
                );
            }
            if d > case.tolerance {
                failures.push(format!(
                    "{name} {} vertex {v}: {d:.3e} × radius (expected {e}, GPU {})",
                    case.label, g.position
                ));
            }
            let dn = (mirror_normals[v] - g.normal).length();
            worst_normal = worst_normal.max(dn);
            if dn > NORMAL_TOLERANCE {
                failures.push(format!(
                    "{name} {} vertex {v}: normal off by {dn:.3e}",
                    case.label
                ));
            }
        }
    }
    println!(
        "{name}: {} cases × {} vertices on {}; worst position {:.3e} × radius ({}), worst normal {:.3e}",
        cases.len(),
        out[0].len(),
        gpu.adapter_summary(),
        worst.0,
        worst.1,
        worst_normal
    );
    assert!(
        failures.is_empty(),
        "{} over tolerance, first 20:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

#[test]
fn fox_gpu_skinning_equals_cpu() {
    run_model("khronos_Fox.glb");
}

#[test]
fn cesium_man_gpu_skinning_equals_cpu() {
    run_model("khronos_CesiumMan.gltf");
}

#[test]
fn woman_gpu_skinning_equals_cpu() {
    run_model("gszauer_Woman.gltf");
}

/// Matrices that straddle texture rows and layers: Fox baked into 7×7
/// layers (7 is not a multiple of 3, so rows split matrices, and 240 layers
/// hold the frames). GPU readback must still equal the CPU mirror within
/// `GPU_TOLERANCE`; a wrong carry would fetch a wrong texel and miss by far.
#[test]
fn matrices_straddling_rows_and_layers_read_back_within_tolerance() {
    let gpu = require_gpu("gpu_readback layers");
    let scene = throng_bake::import_file(&common::asset("khronos_Fox.glb"))
        .unwrap()
        .scene;
    let opts = throng_bake::BakeOptions {
        max_layer_size: 7,
        ..Default::default()
    };
    let (model, _) = throng_bake::bake(&scene, &opts, &|_, _| {}).unwrap();
    assert_eq!(model.texture.width, 7);
    let layers = model.texture.layers;
    if layers > gpu.device.limits().max_texture_array_layers {
        panic!(
            "{layers} layers exceed this device's {}",
            gpu.device.limits().max_texture_array_layers
        );
    }
    let handle = throng_crowd::crowd::ModelHandle::new(model).unwrap();
    let model = handle.model();
    let frames = model.frame_count();
    // A spread of frames, including the last (it ends in the last layer).
    let records: Vec<InstanceRecord> = [0, 1, 2, frames / 3, frames / 2, frames - 2, frames - 1]
        .iter()
        .map(|&f| {
            InstanceRecord::new(
                &Mat4::IDENTITY,
                &FrameBlend::single(FramePair::single(f)),
                u32::MAX,
            )
        })
        .collect();
    let out = skin_on_gpu(&gpu, &handle, &records);
    let mut worst = 0.0f32;
    for (r, verts) in records.iter().zip(&out) {
        let (cpu, _) = flatten(&skin_lod(model, 0, &r.blend()));
        for (c, g) in cpu.iter().zip(verts) {
            worst = worst.max((*c - g.position).length());
        }
    }
    println!("{layers} layers of 7×7: worst GPU vs CPU {worst:e}");
    assert!(
        worst <= GPU_TOLERANCE * model.bounding_radius,
        "worst {worst}"
    );
}
