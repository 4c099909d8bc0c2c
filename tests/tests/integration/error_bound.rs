//! Error-bounded baking. At default settings every bundled model
//! is within `BETWEEN_FRAMES_TOLERANCE × bounding radius` of the CPU
//! reference *between* baked frames — at every interval's midpoint and at
//! seeded random times of every clip — on the CPU mirror of the shader
//! (`throng_core::baked`). The per-clip errors the bake stores are the ones
//! measured, and a clip that cannot meet the bound is reported, not refused.
//!
//! Like `bake_assets.rs`, the comparison is independent of the baker's own
//! measurement: time → frames as the runtime maps it, skinning as the shader
//! does it.

use throng_bake::reference;
use throng_bake::{BakeOptions, bake, import_file};
use throng_core::baked::skin_lod;
use throng_core::gpu::FrameBlend;
use throng_core::layout::frame_time;
use throng_core::limits::DEFAULT_MAX_ERROR;
use throng_core::model::TexelFormat;
use throng_tests::rng::Rng;
use throng_tests::{ALL_MODELS, asset, worst_difference};

/// The acceptance bound: the default `--max-error`, a fraction of the
/// bounding radius.
const BETWEEN_FRAMES_TOLERANCE: f32 = DEFAULT_MAX_ERROR;

/// Random times checked per clip (besides every midpoint).
const RANDOM_TIMES_PER_CLIP: usize = 16;

struct Worst {
    rel: f32,
    what: String,
}

#[test]
fn every_model_is_within_the_bound_between_frames() {
    let mut worst = Worst {
        rel: 0.0,
        what: String::new(),
    };
    let mut failures = Vec::new();
    let mut rng = Rng(0x5EED_0016);
    for name in ALL_MODELS {
        let scene = import_file(&asset(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .scene;
        let (model, report) = bake(&scene, &BakeOptions::default(), &|_, _| {})
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let radius = model.bounding_radius;
        for (c, clip) in model.clips.iter().enumerate() {
            let n = clip.frame_count;
            let summary = &report.clips[c];
            println!(
                "{name}: clip {:?} {:.3} s: {n} frames ({:.1} fps, base {}), error {:.2e} at frames, {:.2e} between",
                clip.name,
                clip.duration,
                summary.fps,
                summary.base_frames,
                clip.error.at_frames,
                clip.error.between_frames
            );
            if n < 2 {
                continue;
            }
            // Midpoints, computed as the baker does, then random times.
            let mut times: Vec<(f32, bool)> = (0..n - 1)
                .map(|k| {
                    let (t0, t1) = (
                        frame_time(k, n, clip.duration),
                        frame_time(k + 1, n, clip.duration),
                    );
                    (t0 + 0.5 * (t1 - t0), true)
                })
                .collect();
            times.extend((0..RANDOM_TIMES_PER_CLIP).map(|_| (rng.unit() * clip.duration, false)));
            let mut worst_mid = 0.0f32;
            for (t, midpoint) in times {
                let expected = reference::sample(&scene, Some(c), t);
                let found = skin_lod(&model, 0, &FrameBlend::single(clip.frames_at(t)));
                let w = worst_difference(&expected, &found);
                let rel = w.dist / radius;
                let what = format!(
                    "{name}: clip {:?} t={t:.5} s ({}): vertex {} of {:?} off by {:.3e} ({rel:.3e} × radius): expected {}, baked {}",
                    clip.name,
                    if midpoint { "midpoint" } else { "random" },
                    w.vertex,
                    w.source,
                    w.dist,
                    w.expected,
                    w.found
                );
                if rel > worst.rel || rel.is_nan() {
                    worst = Worst {
                        rel,
                        what: what.clone(),
                    };
                }
                if rel.is_nan() || rel > BETWEEN_FRAMES_TOLERANCE {
                    failures.push(what);
                }
                if midpoint {
                    worst_mid = worst_mid.max(w.dist);
                }
            }
            // The baker measured every midpoint with the same arithmetic, so
            // what it stored is at least what this test finds there.
            let stored = clip.error.between_frames;
            assert!(
                worst_mid / radius.max(f32::MIN_POSITIVE) <= stored,
                "{name}: clip {:?}: midpoints are off by {:.3e} × radius, the file says {stored:.3e}",
                clip.name,
                worst_mid / radius
            );
            assert_eq!(stored, summary.error_between.rel, "{name}: file vs report");
            assert_eq!(clip.error.max_error, DEFAULT_MAX_ERROR);
        }
    }
    println!("worst: {}", worst.what);
    assert!(
        failures.is_empty(),
        "{} times over {BETWEEN_FRAMES_TOLERANCE:e} × radius (worst: {}):\n{}",
        failures.len(),
        worst.what,
        failures.join("\n")
    );
}

#[test]
fn the_bound_raises_a_fast_clips_rate_and_a_fixed_rate_reports_the_miss() {
    let scene = import_file(&asset("khronos_Fox.glb")).unwrap().scene;
    let run = scene.clips.iter().position(|c| c.name == "Run").unwrap();
    let (adaptive, report) = bake(&scene, &BakeOptions::default(), &|_, _| {}).unwrap();
    let summary = &report.clips[run];
    assert!(
        summary.frames > summary.base_frames,
        "Run keeps {} frames at the base rate",
        summary.frames
    );
    assert!(summary.within_bound, "{summary:?}");
    assert!(
        report.warnings.iter().all(|w| !w.contains("max-error")),
        "{:?}",
        report.warnings
    );

    // --max-fps = --fps: no room to raise the rate; the bake succeeds and
    // says which clip missed the bound and by how much.
    let fixed = BakeOptions {
        max_fps: 30.0,
        ..BakeOptions::default()
    };
    let (model, report) = bake(&scene, &fixed, &|_, _| {}).unwrap();
    let clip = &model.clips[run];
    assert_eq!(clip.frame_count, report.clips[run].base_frames);
    assert!(
        clip.error.between_frames > DEFAULT_MAX_ERROR,
        "{:?}",
        clip.error
    );
    assert!(!report.clips[run].within_bound);
    let warning = report
        .warnings
        .iter()
        .find(|w| w.contains("\"Run\""))
        .unwrap_or_else(|| panic!("no warning for Run: {:?}", report.warnings));
    assert!(
        warning.contains(&format!("{:.2e}", clip.error.between_frames)),
        "{warning}"
    );
    println!("{warning}");
    println!(
        "Run: {} frames at 30 fps, error {:.2e} between; {} frames adaptive, {:.2e}",
        clip.frame_count,
        clip.error.between_frames,
        adaptive.clips[run].frame_count,
        adaptive.clips[run].error.between_frames
    );
}

#[test]
fn half_precision_goes_through_the_same_accounting() {
    let scene = import_file(&asset("khronos_CesiumMan.gltf")).unwrap().scene;
    let half = BakeOptions {
        precision: TexelFormat::F16,
        ..BakeOptions::default()
    };
    let (model, report) = bake(&scene, &half, &|_, _| {}).unwrap();
    let radius = model.bounding_radius;
    for (c, clip) in model.clips.iter().enumerate() {
        let s = &report.clips[c];
        assert_eq!(clip.error.between_frames, s.error_between.rel);
        assert_eq!(clip.error.at_frames, s.error_at_frames.rel);
        assert_eq!(
            s.bytes,
            clip.frame_count as u64 * model.bone_count() as u64 * 3 * 8
        );
        // The stored error at frames is the half-precision texture's: check
        // it at the worst site the report names.
        let t = s.error_at_frames.time;
        let expected = reference::sample(&scene, Some(c), t);
        let found = skin_lod(&model, 0, &FrameBlend::single(clip.frames_at(t)));
        let w = worst_difference(&expected, &found);
        println!(
            "half: clip {:?}: {:.2e} at frames (recomputed {:.2e}), {:.2e} between",
            clip.name,
            clip.error.at_frames,
            w.dist / radius,
            clip.error.between_frames
        );
        assert!(clip.error.at_frames > 0.0, "half precision cannot be exact");
    }
}

/// The bake measures its error with `reference::skin_positions`, the
/// positions-only form of `reference::skin_scene`: both must give the same
/// positions on every bundled model, at the rest pose and mid-clip.
#[test]
fn positions_only_reference_equals_the_full_reference() {
    for name in ALL_MODELS {
        let scene = import_file(&asset(name)).expect(name).scene;
        let eval = throng_bake::sample::PoseEvaluator::new(&scene);
        let (mut joints, mut out) = (Vec::new(), Vec::new());
        let poses = std::iter::once(None).chain((0..scene.clips.len()).map(Some));
        for clip in poses {
            let clip = clip.map(|c| &scene.clips[c]);
            let t = clip.map_or(0.0, |c| 0.37 * c.duration());
            let globals = eval.globals(clip, t);
            let mut weights = Vec::new();
            throng_bake::morph::weights_at(&scene, clip, t, &mut weights);
            let full = reference::skin_scene(&scene, &globals, &weights);
            reference::skin_positions(&scene, &globals, &weights, &mut joints, &mut out);
            assert_eq!(full.len(), out.len(), "{name}: primitive count");
            let radius = full
                .iter()
                .flat_map(|p| &p.positions)
                .map(|p| p.length())
                .fold(1e-6f32, f32::max);
            for (f, o) in full.iter().zip(&out) {
                assert_eq!(f.positions.len(), o.len(), "{name}: vertex count");
                let (v, worst) = f
                    .positions
                    .iter()
                    .zip(o)
                    .map(|(a, b)| (*a - *b).length())
                    .enumerate()
                    .fold((0, 0.0f32), |w, (v, e)| if e > w.1 { (v, e) } else { w });
                assert!(
                    worst <= 1e-6 * radius,
                    "{name}: node {} primitive {} vertex {v}: positions-only reference is off by {worst} (radius {radius})",
                    f.node,
                    f.primitive
                );
            }
        }
    }
}
