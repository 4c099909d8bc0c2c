//! Measures, for every bundled model, the skinned error between baked frames
//! of two ways to interpolate a bone: the shader's entry-wise matrix lerp
//! (what `.throng` stores: 3 texels per bone) and rotation + translation +
//! scale with normalised-quaternion interpolation (what a 2-texel encoding
//! would need) of the bone matrix `G·IBM` and of the node's global `G`
//! (then times `IBM`), at the same frame counts. docs/BAKE_ERROR.md cites the
//! figures.
//!
//! `cargo run --release -p throng-tests --example interpolation_space [FPS]`

use glam::{Mat4, Quat, Vec3};
use throng_bake::sample::PoseEvaluator;
use throng_bake::scene::Scene;
use throng_bake::{import_file, reference};
use throng_core::layout::{clip_frame_count, frame_time};
use throng_tests::{ALL_MODELS, asset};

/// Per skinned instance: joint matrices `G · IBM`; rigid instances: `G`.
fn joint_matrices(scene: &Scene, globals: &[Mat4]) -> Vec<Vec<Mat4>> {
    scene
        .instances
        .iter()
        .map(|inst| match inst.skin {
            Some(_) => reference::joint_matrices(scene, inst, globals).collect(),
            None => vec![globals[inst.node as usize]],
        })
        .collect()
}

/// Skinned positions of every vertex of every instance.
fn skin(scene: &Scene, joints: &[Vec<Mat4>]) -> Vec<Vec3> {
    let mut out = Vec::new();
    for (inst, mats) in scene.instances.iter().zip(joints) {
        for prim in &scene.meshes[inst.mesh as usize].primitives {
            for v in 0..prim.vertex_count() {
                let p = prim.positions[v];
                if inst.skin.is_none() {
                    out.push(mats[0].transform_point3(p));
                    continue;
                }
                let (mut sum, mut total) = (Vec3::ZERO, 0.0);
                for (j, w) in prim.influences(v) {
                    if w > 0.0 {
                        sum += w * mats[j as usize].transform_point3(p);
                        total += w;
                    }
                }
                out.push(if total > 0.0 {
                    sum / total
                } else {
                    mats[0].transform_point3(p)
                });
            }
        }
    }
    out
}

fn lerp_matrix(a: &Mat4, b: &Mat4, s: f32) -> Mat4 {
    *a * (1.0 - s) + *b * s
}

/// Scale, rotation and translation interpolated separately, the rotation by
/// normalised lerp along the shorter arc.
fn lerp_srt(a: &Mat4, b: &Mat4, s: f32) -> Mat4 {
    let (sa, qa, ta) = a.to_scale_rotation_translation();
    let (sb, qb, tb) = b.to_scale_rotation_translation();
    let qb = if qa.dot(qb) < 0.0 { -qb } else { qb };
    let q = Quat::from_vec4(qa.to_array().into())
        .lerp(qb, s)
        .normalize();
    Mat4::from_scale_rotation_translation(sa.lerp(sb, s), q, ta.lerp(tb, s))
}

fn main() {
    let fps: f32 = std::env::args()
        .nth(1)
        .map_or(30.0, |a| a.parse().expect("FPS"));
    println!("midpoint error between frames at {fps} fps, fraction of the bounding radius");
    println!(
        "{:<40} {:>12} {:>14} {:>14}",
        "model / clip", "matrix lerp", "SRT of G·IBM", "SRT of G, ·IBM"
    );
    for name in ALL_MODELS {
        let scene = import_file(&asset(name)).expect(name).scene;
        let eval = PoseEvaluator::new(&scene);
        let rest = skin(&scene, &joint_matrices(&scene, &eval.globals(None, 0.0)));
        let (lo, hi) = rest.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        let radius = 0.5 * (hi - lo).length();
        for clip in &scene.clips {
            let d = clip.duration();
            let n = clip_frame_count(d, fps);
            if n < 2 {
                continue;
            }
            let (mut worst_m, mut worst_q) = (0.0f32, 0.0f32);
            let (mut worst_g, mut prev_g) = (0.0f32, eval.globals(Some(clip), 0.0));
            let mut prev = joint_matrices(&scene, &prev_g);
            for k in 0..n - 1 {
                let (t0, t1) = (frame_time(k, n, d), frame_time(k + 1, n, d));
                let next_g = eval.globals(Some(clip), t1);
                let next = joint_matrices(&scene, &next_g);
                let exact = skin(
                    &scene,
                    &joint_matrices(&scene, &eval.globals(Some(clip), 0.5 * (t0 + t1))),
                );
                let mix = |f: fn(&Mat4, &Mat4, f32) -> Mat4| -> Vec<Vec<Mat4>> {
                    prev.iter()
                        .zip(&next)
                        .map(|(a, b)| a.iter().zip(b).map(|(a, b)| f(a, b, 0.5)).collect())
                        .collect()
                };
                let err = |p: Vec<Vec3>| {
                    p.iter()
                        .zip(&exact)
                        .map(|(a, b)| (*a - *b).length())
                        .fold(0.0f32, f32::max)
                };
                worst_m = worst_m.max(err(skin(&scene, &mix(lerp_matrix))));
                worst_q = worst_q.max(err(skin(&scene, &mix(lerp_srt))));
                // The same on node globals, then times the inverse bind: the
                // rotation pivots about the joint, as the source animates it.
                let mixed: Vec<Mat4> = prev_g
                    .iter()
                    .zip(&next_g)
                    .map(|(a, b)| lerp_srt(a, b, 0.5))
                    .collect();
                worst_g = worst_g.max(err(skin(&scene, &joint_matrices(&scene, &mixed))));
                prev = next;
                prev_g = next_g;
            }
            let label = format!("{} / {}", name.split('.').next().unwrap_or(name), clip.name);
            println!(
                "{:<40} {:>12.2e} {:>14.2e} {:>14.2e}",
                label,
                worst_m / radius,
                worst_q / radius,
                worst_g / radius
            );
        }
    }
}
