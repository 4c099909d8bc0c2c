//! [`Scene`] → [`BakedModel`]: the bake's steps in order — options and clip
//! selection, mesh conversion and the palette (`mesh.rs`), the budget
//! (`budget.rs`), root motion (`root_motion.rs`), each clip's frame count
//! (`rate.rs`), sampling and measuring it (`measure.rs`), texel packing,
//! bounds and LODs (`lod.rs`) — and the report they fill (`report.rs`).
//!
//! # Frames
//! Global frame 0 is the rest pose ([`REST_FRAME`]); each selected clip then
//! adds n uniformly spaced frames from 0 to D: at least `max(2, round(D·F) +
//! 1)` for the base rate F, more where the rate search (`rate.rs`) finds that the error
//! between frames would exceed `max_error`, at most what `max_fps` gives.
//! Every clip is measured against the reference on skinned vertices at its
//! frames and between them; the errors are stored per clip.
//!
//! # Budget
//! Before any frame is sampled, the bake's size at the base rate is estimated
//! from the frame counts, the palette and the meshes, and a bake over
//! [`BakeOptions::max_bake_bytes`] (or over [`MAX_CLIPS`](throng_core::limits::MAX_CLIPS) clips) is refused
//! naming its longest clip: a hostile key time cannot make the baker run for
//! minutes and fill memory. The frames the error bound adds come out of what
//! the budget has left.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::sample::PoseEvaluator;
use crate::scene::Scene;
use throng_core::layout::{TextureLayout, clip_frame_count};
use throng_core::limits::REST_FRAME;
use throng_core::math::{Aabb, Rows3x4, mat4_to_rows};
use throng_core::model::{
    BakedModel, Bone, BoneTexture, ClipError, ClipInfo, RootMotionKey, TexelFormat, Texels,
};

use crate::budget::{FramePlan, plan_frames};
use crate::error::BakeError;
use crate::measure::bake_clip;
use crate::measure::measure_pose;
use crate::measure::quantise;
use crate::mesh::Meshes;
use crate::root_motion::root_motion_node;
use crate::selection::Selection;
use crate::validate::validate;

pub use crate::mesh::WEIGHT_SUM_TOLERANCE;
pub use crate::options::{BakeOptions, Progress, RootMotionSource};
pub use crate::report::{BakeReport, ClipSummary, ErrorSite, InfluenceStats};

/// One clip's bake within its frame allowance.
struct ClipRun {
    /// Frames chosen.
    n: u32,
    /// The allowance, not the clip's own `max_fps`, stopped the search.
    held_back: bool,
    /// The frames and their measurements.
    baked: crate::measure::ClipBake,
}

/// Bakes a validated-or-not scene (it is validated first). LOD files are
/// ignored here (see [`bake_with_lods`]); generated LODs are made.
pub fn bake(
    scene: &Scene,
    opts: &BakeOptions,
    progress: Progress,
) -> Result<(BakedModel, BakeReport), BakeError> {
    bake_with_lods(scene, &[], opts, progress)
}

/// [`bake`], with the meshes of `lod_scenes` (name, scene) as LODs 1, 2, …
/// before the generated ones.
pub fn bake_with_lods(
    scene: &Scene,
    lod_scenes: &[(String, Scene)],
    opts: &BakeOptions,
    progress: Progress,
) -> Result<(BakedModel, BakeReport), BakeError> {
    validate(scene, opts)?;
    let selection = Selection::of(scene, opts)?;
    let clip_ids = &selection.clip_ids;
    let eval = PoseEvaluator::new(scene);
    let rest = eval.globals(None, 0.0);
    let mut report = BakeReport::default();

    // 1. Palette and vertices.
    let meshes = Meshes::convert(scene, &rest, &mut report)?;

    // 2. Frame counts at the base rate, checked against the budget and the
    // file limit before anything is allocated (budget.rs).
    let plan = plan_frames(scene, &selection, &meshes, opts)?;
    report.estimated_bytes = plan.estimate.total();
    let Meshes { palette, lod0 } = meshes;
    let bone_count = palette.entries.len() as u32;
    let FramePlan {
        base_frames,
        base_total,
        spare_frames,
        ..
    } = plan;
    let root_node = match &opts.root_motion {
        Some(src) => Some(root_motion_node(scene, src)?),
        None => None,
    };

    // 3. The rest frame, then each clip: choose its frame count (rate.rs),
    // sample it, measure it against the reference at its frames and between
    // them, and raise the count if the measurement exceeds the bound.
    let mut rows: Vec<[f32; 4]> = Vec::with_capacity((base_total * bone_count as u64 * 3) as usize);
    let rest_rows: Vec<Rows3x4> = palette
        .entries
        .iter()
        .map(|(node, ibm)| mat4_to_rows(&(rest[*node as usize] * *ibm)))
        .collect();
    rows.extend(rest_rows.iter().flat_map(|r| r.map(|x| x.to_array())));
    let rest_measured: Vec<Rows3x4> = rest_rows
        .iter()
        .map(|r| r.map(|x| quantise(x, opts.precision)))
        .collect();
    let (rest_bounds, rest_worst) = measure_pose(scene, &rest, &lod0, &rest_measured, None, 0.0);
    // The bound is relative to the final bounding radius, known only once
    // every clip is measured. The search takes the radius of the rest pose
    // and of the probe vertices at every base-rate frame: a subset of the
    // final box, so the bound it gives is never looser than the one reported.
    let probes = crate::rate::ErrorProbes::of(&lod0.vertices, bone_count as usize);
    let search_bounds = clip_ids
        .par_iter()
        .zip(&base_frames)
        .map(|(&c, &n)| {
            let clip = &scene.clips[c];
            let source = crate::rate::ClipSource {
                eval: &eval,
                clip,
                duration: clip.duration(),
                keys: &[],
                entries: &palette.entries,
                root: root_node,
            };
            source.probe_bounds(n, &probes)
        })
        // Box unions are exact (min and max): any order gives the same box.
        .reduce(|| rest_bounds, |a, b| a.union(&b));
    let target = opts.max_error * search_bounds.radius();
    let mut frame_bounds = vec![rest_bounds];
    let mut root_keys = vec![RootMotionKey::default()];
    let mut worst = rest_worst;
    let mut clips = Vec::new();
    let mut sites = Vec::new();

    // Clips run in parallel, each within its share of the spare frames
    // (proportional to its base frames), so memory stays within the budget
    // and the output does not depend on the thread count; then, in clip
    // order, a clip that its share held back is run again with what the
    // others left. Progress counts frames baked.
    let done = AtomicU64::new(1);
    let total = AtomicU64::new(base_total);
    let tell = |frames: u64| {
        let d = done.fetch_add(frames, Ordering::Relaxed) + frames;
        let t = total.load(Ordering::Relaxed);
        progress(d.min(t), t);
    };
    let base_sum: u64 = base_frames.iter().map(|&n| n as u64).sum();
    let shares: Vec<u64> = base_frames
        .iter()
        .map(|&n| (spare_frames as u128 * n as u128 / base_sum.max(1) as u128) as u64)
        .collect();
    let run = |i: usize, cap: u64| {
        let clip = &scene.clips[clip_ids[i]];
        let duration = clip.duration();
        let keys = crate::rate::key_times(clip, duration);
        let source = crate::rate::ClipSource {
            eval: &eval,
            clip,
            duration,
            keys: &keys,
            entries: &palette.entries,
            root: root_node,
        };
        let n_min = base_frames[i];
        let own_max = clip_frame_count(duration, opts.max_fps).max(n_min);
        let n_max = own_max.min(n_min.saturating_add(cap.min(u32::MAX as u64) as u32));
        let mut search_target = target;
        let (mut n, mut estimate) = source.choose(n_min, n_max, search_target, &probes);
        let mut refinements = 0;
        let baked = loop {
            if n > n_min {
                total.fetch_add((n - n_min) as u64, Ordering::Relaxed);
            }
            let mut told = 0;
            let b = bake_clip(scene, &source, n, &lod0, opts.precision, &mut |d| {
                tell(d.saturating_sub(told));
                told = told.max(d);
            });
            refinements += 1;
            // Raise the count only where interpolation is to blame: not when
            // the error at the frames themselves (quantisation, dropped
            // influences) is already a large part of the bound.
            // Nor when the estimate already said no count reaches the bound
            // (a STEP key, a discontinuity): more frames would not help.
            // (False for NaN errors, which more frames do not fix either.)
            let interpolation_over = b.between.abs > target && b.at_frames.abs <= 0.5 * target;
            let estimate_missed = estimate <= search_target;
            if !interpolation_over
                || !estimate_missed
                || n >= n_max
                || refinements > MAX_REFINEMENTS
            {
                break b;
            }
            search_target *= 0.9 * target / b.between.abs;
            (n, estimate) = source.choose(n + 1, n_max, search_target, &probes);
        };
        ClipRun {
            n,
            held_back: n >= n_max && n_max < own_max,
            baked,
        }
    };
    let mut runs: Vec<ClipRun> = (0..clip_ids.len())
        .into_par_iter()
        .map(|i| run(i, shares[i]))
        .collect();
    let extra = |r: &ClipRun, i: usize| (r.n - base_frames[i]) as u64;
    let mut left = spare_frames
        - runs
            .iter()
            .enumerate()
            .map(|(i, r)| extra(r, i))
            .sum::<u64>();
    for (i, slot) in runs.iter_mut().enumerate() {
        if slot.held_back && left > 0 {
            let had = extra(slot, i);
            *slot = run(i, had + left);
            left = left + had - extra(slot, i);
        }
    }
    let mut work_done = 1u64;
    for (&c, ClipRun { n, baked, .. }) in clip_ids.iter().zip(runs) {
        let clip = &scene.clips[c];
        let duration = clip.duration();
        work_done += n as u64;
        let first_frame = frame_bounds.len() as u32;
        rows.extend_from_slice(&baked.rows);
        frame_bounds.extend_from_slice(&baked.frame_bounds);
        root_keys.extend_from_slice(&baked.root_keys);
        if baked.at_frames.abs > worst.abs || !baked.at_frames.abs.is_finite() {
            worst = baked.at_frames.clone();
        }
        clips.push(ClipInfo {
            name: clip.name.clone(),
            duration,
            first_frame,
            frame_count: n,
            bounds: baked
                .frame_bounds
                .iter()
                .fold(Aabb::EMPTY, |a, b| a.union(b)),
            root_motion: root_node.is_some(),
            error: ClipError::default(),
        });
        sites.push((baked.at_frames, baked.between));
    }
    progress(work_done, work_done);
    let total_frames = frame_bounds.len() as u64;
    let texel_count = rows.len() as u64;
    let texels = match opts.precision {
        TexelFormat::F32 => Texels::F32(rows),
        TexelFormat::F16 => {
            let half: Vec<[half::f16; 4]> =
                rows.iter().map(|r| r.map(half::f16::from_f32)).collect();
            if let Some(i) = half.iter().position(|r| r.iter().any(|x| !x.is_finite())) {
                let bone = (i / 3) % bone_count as usize;
                return Err(BakeError::Option(format!(
                    "--precision half: bone {} ({}) has a matrix entry beyond the f16 range ({:?}); use --precision full",
                    bone,
                    palette.names(scene)[bone],
                    rows[i]
                )));
            }
            Texels::F16(half)
        }
    };
    let layout = TextureLayout::for_texels(texel_count, opts.max_layer_size);

    // 4. Assemble; errors become relative to the bounding radius.
    let names = palette.names(scene);
    let bones: Vec<Bone> = palette
        .entries
        .iter()
        .enumerate()
        .map(|(i, (node, ibm))| Bone {
            name: names[i].clone(),
            node: *node,
            parent: palette.parent_of(scene, *node),
            inverse_bind: *ibm,
            rest_global: rest[*node as usize],
        })
        .collect();
    let bounds = frame_bounds.iter().fold(Aabb::EMPTY, |a, b| a.union(b));
    let bounding_radius = bounds.radius();
    let rel = |abs: f32| abs / bounding_radius.max(f32::MIN_POSITIVE);
    worst.rel = rel(worst.abs);
    let mut worst_between = ErrorSite::default();
    for ((clip, (mut at, mut between)), n_min) in clips.iter_mut().zip(sites).zip(&base_frames) {
        at.rel = rel(at.abs);
        between.rel = rel(between.abs);
        clip.error = ClipError {
            at_frames: at.rel,
            between_frames: between.rel,
            max_error: opts.max_error,
        };
        let within = at.rel <= opts.max_error && between.rel <= opts.max_error;
        if !within {
            report.warnings.push(format!(
                "clip {:?}: error {:.2e} × radius between frames ({:.2e} at frames) at {:.1} fps ({} frames) exceeds --max-error {:.1e}{}",
                clip.name,
                between.rel,
                at.rel,
                clip_rate(clip.frame_count, clip.duration),
                clip.frame_count,
                opts.max_error,
                if at.rel > 0.5 * opts.max_error {
                    "; the error at the frames themselves (precision, dropped influences) is the limit"
                } else {
                    "; raise --max-fps"
                }
            ));
        }
        if between.abs > worst_between.abs || !between.abs.is_finite() {
            worst_between = between.clone();
        }
        report.clips.push(ClipSummary {
            name: clip.name.clone(),
            duration: clip.duration,
            frames: clip.frame_count,
            base_frames: *n_min,
            fps: clip_rate(clip.frame_count, clip.duration),
            bytes: clip.frame_count as u64
                * bone_count as u64
                * 3
                * opts.precision.texel_size() as u64,
            error_at_frames: at,
            error_between: between,
            within_bound: within,
        });
    }
    let mut model = BakedModel {
        name: scene.name.clone(),
        source: String::new(),
        fps: opts.fps,
        bake_error: worst.rel,
        bones,
        clips,
        texture: BoneTexture {
            width: layout.width,
            layers: layout.layers,
            texels,
        },
        bounds,
        bounding_radius,
        frame_bounds,
        lods: vec![lod0],
        materials: scene.materials.clone(),
        images: scene.images.clone(),
        root_motion: if root_node.is_some() {
            root_keys
        } else {
            Vec::new()
        },
        events: selection.events(scene),
        impostor: None,
        provenance: None,
    };
    debug_assert_eq!(REST_FRAME, 0);
    add_lods(&mut model, lod_scenes, opts, &mut report)?;
    model.validate()?;

    let lod = &model.lods[0];
    report.bones = bone_count;
    report.frames = total_frames as u32;
    report.texture = Some(layout);
    report.texture_bytes = model.texture.texels.as_bytes().len() as u64;
    report.vertices = lod.vertices.len();
    report.triangles = lod.indices.len() / 3;
    report.submeshes = lod.submeshes.len();
    report.error = worst;
    report.error_between = worst_between;
    report.max_error = opts.max_error;
    report.bounding_radius = model.bounding_radius;
    report.events = model.events.len();
    report.root_motion_node = root_node.map(|r| scene.nodes[r as usize].name.clone());
    Ok((model, report))
}

/// Most times a clip is re-baked at a higher rate after its measured error
/// exceeded the bound the estimate had promised.
const MAX_REFINEMENTS: u32 = 3;

/// The rate of a clip of `n` frames: `(n − 1) / D`, 0 for a single frame.
pub fn clip_rate(n: u32, duration: f32) -> f32 {
    if n > 1 && duration > 0.0 {
        (n - 1) as f32 / duration
    } else {
        0.0
    }
}

/// Appends LODs from files and from simplification, then sets every LOD's
/// screen size.
fn add_lods(
    model: &mut BakedModel,
    lod_scenes: &[(String, Scene)],
    opts: &BakeOptions,
    report: &mut BakeReport,
) -> Result<(), BakeError> {
    for (file, s) in lod_scenes {
        let lod = crate::lod::lod_from_scene(model, s, file, report)?;
        model.lods.push(lod);
    }
    for &ratio in &opts.lod_ratios {
        let (lod, reached) = crate::lod::simplify(&model.lods[0], ratio);
        if reached > ratio * 1.5 {
            report.warnings.push(format!(
                "LOD at ratio {ratio}: simplification stopped at {reached:.2} of the triangles (error bound {})",
                crate::lod::SIMPLIFY_ERROR
            ));
        }
        model.lods.push(lod);
    }
    let n = model.lods.len();
    let sizes = match &opts.lod_screen_sizes {
        Some(s) if s.len() == n => s.clone(),
        Some(s) => {
            return Err(BakeError::Option(format!(
                "--lod-screen-sizes gives {} sizes for {n} LODs",
                s.len()
            )));
        }
        None => crate::lod::default_screen_sizes(n),
    };
    for (lod, size) in model.lods.iter_mut().zip(&sizes) {
        lod.screen_size = *size;
    }
    for w in model.lods.windows(2) {
        if w[1].indices.len() > w[0].indices.len() {
            report.warnings.push(format!(
                "a LOD has more triangles ({}) than the one before it ({})",
                w[1].indices.len() / 3,
                w[0].indices.len() / 3
            ));
        }
    }
    report.lods = model
        .lods
        .iter()
        .map(|l| (l.indices.len() / 3, l.vertices.len(), l.screen_size))
        .collect();
    Ok(())
}
