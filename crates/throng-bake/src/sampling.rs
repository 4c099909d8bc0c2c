//! The sample-and-measure stages: the rest frame, then each clip at the frame
//! count the rate search chooses (`rate.rs`), sampled and measured against
//! the reference at its frames and between them (`measure.rs`), its count
//! raised where the measurement exceeds the bound; and the frame table that
//! the rest frame and the clips make together ([`FrameTable`]).
//!
//! Clips run in parallel on rayon, each within its share of the spare frames
//! (proportional to its base frames), so memory stays within the budget and
//! the output does not depend on the thread count; then, in clip order, a
//! clip that its share held back is run again with what the others left.

use std::sync::atomic::{AtomicU64, Ordering};

use glam::Mat4;
use rayon::prelude::*;
use throng_core::layout::clip_frame_count;
use throng_core::math::{Aabb, Rows3x4, mat4_to_rows};
use throng_core::model::{ClipError, ClipInfo, RootMotionKey, TexelFormat};

use crate::budget::FramePlan;
use crate::measure::{BakedMesh, ClipBake, PoseOf, bake_clip, measure_pose, quantise};
use crate::mesh::Meshes;
use crate::options::{BakeOptions, Progress};
use crate::rate::{ClipSource, ErrorTarget, key_times};
use crate::report::ErrorSite;
use crate::sample::PoseEvaluator;
use crate::scene::{Clip, Scene};
use crate::selection::Selection;

/// Most times a clip is re-baked at a higher rate after its measured error
/// exceeded the bound the estimate had promised.
const MAX_REFINEMENTS: u32 = 3;

/// What the sampling stages read of the earlier ones.
pub(crate) struct Sampler<'a> {
    /// The source scene.
    pub(crate) scene: &'a Scene,
    /// Its pose evaluator.
    pub(crate) eval: &'a PoseEvaluator,
    /// Palette and LOD 0 (the meshes stage).
    pub(crate) meshes: &'a Meshes,
    /// The clips baked (the clips stage).
    pub(crate) selection: &'a Selection,
    /// Base frame counts and spare frames (the budget stage).
    pub(crate) plan: &'a FramePlan,
    /// Root-motion node, when clips are baked in place.
    pub(crate) root: Option<u32>,
}

/// The rest frame (global frame 0), sampled and measured.
pub(crate) struct RestFrame {
    /// Its palette, one 3×4 matrix per bone (f32).
    pub(crate) rows: Vec<Rows3x4>,
    /// Its morph weights (the default weights), one per slot.
    pub(crate) weights: Vec<f32>,
    /// Box of the skinned vertices.
    pub(crate) bounds: Aabb,
    /// Worst error against the reference (`rel` not yet set).
    pub(crate) worst: ErrorSite,
}

/// The sample-and-measure stage's output: every frame, rest frame first,
/// then each clip's in baked order.
pub(crate) struct FrameTable {
    /// Palette rows of every frame (f32, before any quantisation).
    pub(crate) rows: Vec<[f32; 4]>,
    /// Morph weights of every frame, one per slot.
    pub(crate) weights: Vec<f32>,
    /// Box of the skinned vertices at every frame.
    pub(crate) frame_bounds: Vec<Aabb>,
    /// Root-motion key of every frame (zero without root motion).
    pub(crate) root_keys: Vec<RootMotionKey>,
    /// Worst error at frame times over all frames (`rel` not yet set).
    pub(crate) worst: ErrorSite,
    /// The baked clips (errors not yet set).
    pub(crate) clips: Vec<ClipInfo>,
    /// Per clip: worst error at its frames and between them (`rel` not yet
    /// set).
    pub(crate) sites: Vec<(ErrorSite, ErrorSite)>,
}

/// One clip's bake within its frame allowance.
struct ClipRun {
    /// Frames chosen.
    n: u32,
    /// The allowance, not the clip's own `max_fps`, stopped the search.
    held_back: bool,
    /// The frames and their measurements.
    baked: ClipBake,
}

impl Sampler<'_> {
    /// What the rate search needs of `clip`, with its key times `keys`.
    fn source<'s>(&'s self, clip: &'s Clip, keys: &'s [f32]) -> ClipSource<'s> {
        ClipSource {
            scene: self.scene,
            eval: self.eval,
            clip,
            duration: clip.duration(),
            keys,
            entries: &self.meshes.palette.entries,
            root: self.root,
        }
    }

    /// LOD 0 and its morph deltas, as measured.
    fn mesh(&self) -> BakedMesh<'_> {
        BakedMesh {
            lod: &self.meshes.lod0,
            morphs: &self.meshes.morphs,
        }
    }

    /// Samples the rest pose (`rest`: its node globals) and measures it as
    /// the texture will hold it at `precision`.
    pub(crate) fn rest_frame(&self, rest: &[Mat4], precision: TexelFormat) -> RestFrame {
        let rows: Vec<Rows3x4> = self
            .meshes
            .palette
            .entries
            .iter()
            .map(|(node, ibm)| mat4_to_rows(&(rest[*node as usize] * *ibm)))
            .collect();
        let measured: Vec<Rows3x4> = rows
            .iter()
            .map(|r| r.map(|x| quantise(x, precision)))
            .collect();
        let mut weights = Vec::new();
        crate::morph::weights_at(self.scene, None, 0.0, &mut weights);
        let (bounds, worst) = measure_pose(
            self.scene,
            self.mesh(),
            PoseOf {
                matrices: rest,
                weights: &weights,
            },
            PoseOf {
                matrices: &measured,
                weights: &weights,
            },
            None,
            0.0,
        );
        RestFrame {
            rows,
            weights,
            bounds,
            worst,
        }
    }

    /// The rate stage: the error target for `max_error` from the rest
    /// frame's box and the probes at every clip's base-rate frames
    /// ([`ErrorTarget::of`]).
    pub(crate) fn error_target(&self, rest: &RestFrame, max_error: f32) -> ErrorTarget {
        let clips: Vec<(ClipSource, u32)> = self
            .selection
            .clips(self.scene)
            .map(|clip| self.source(clip, &[]))
            .zip(self.plan.base_frames.iter().copied())
            .collect();
        ErrorTarget::of(
            &clips,
            &self.meshes.lod0.vertices,
            self.meshes.bone_count() as usize,
            &self.meshes.morphs,
            rest.bounds,
            max_error,
        )
    }

    /// The sample-and-measure stage: every clip baked within the bound
    /// (clips in parallel, output independent of the thread count), then the
    /// frame table of `rest` and the clips. Progress counts frames baked,
    /// the rest frame included.
    pub(crate) fn sample_and_measure(
        &self,
        rest: RestFrame,
        target: &ErrorTarget,
        opts: &BakeOptions,
        progress: Progress,
    ) -> FrameTable {
        let runs = self.run_clips(target, opts, progress);
        let work_done = 1 + runs.iter().map(|r| r.n as u64).sum::<u64>();
        let table = self.gather(rest, runs);
        progress(work_done, work_done);
        table
    }

    /// Each clip's frame count and bake: in parallel within its share of the
    /// spare frames, then, in clip order, a held-back clip again with what
    /// the others left.
    fn run_clips(
        &self,
        target: &ErrorTarget,
        opts: &BakeOptions,
        progress: Progress,
    ) -> Vec<ClipRun> {
        let base_frames = &self.plan.base_frames;
        let spare_frames = self.plan.spare_frames;
        let (probes, target) = (&target.probes, target.target);
        let done = AtomicU64::new(1);
        let total = AtomicU64::new(self.plan.base_total);
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
            let clip = &self.scene.clips[self.selection.clip_ids[i]];
            let duration = clip.duration();
            let keys = key_times(clip, duration);
            let source = self.source(clip, &keys);
            let base = base_frames[i];
            let own_max = clip_frame_count(duration, opts.max_fps).max(base);
            let n_max = own_max.min(base.saturating_add(cap.min(u32::MAX as u64) as u32));
            // A floor asked for (shared clips) within what the clip may take.
            let n_min = opts.min_frames_of(&clip.name).clamp(base, n_max);
            let mut search_target = target;
            let (mut n, mut estimate) = source.choose(n_min, n_max, search_target, probes);
            let mut refinements = 0;
            let baked = loop {
                if n > base {
                    total.fetch_add((n - base) as u64, Ordering::Relaxed);
                }
                let mut told = 0;
                let b = bake_clip(
                    self.scene,
                    &source,
                    n,
                    self.mesh(),
                    opts.precision,
                    &mut |d| {
                        tell(d.saturating_sub(told));
                        told = told.max(d);
                    },
                );
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
                (n, estimate) = source.choose(n + 1, n_max, search_target, probes);
            };
            ClipRun {
                n,
                held_back: n >= n_max && n_max < own_max,
                baked,
            }
        };
        let mut runs: Vec<ClipRun> = (0..self.selection.clip_ids.len())
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
        runs
    }

    /// The frame table: the rest frame, then each clip's frames in baked
    /// order.
    fn gather(&self, rest: RestFrame, runs: Vec<ClipRun>) -> FrameTable {
        let bone_count = self.meshes.bone_count();
        let mut rows: Vec<[f32; 4]> =
            Vec::with_capacity((self.plan.base_total * bone_count as u64 * 3) as usize);
        rows.extend(rest.rows.iter().flat_map(|r| r.map(|x| x.to_array())));
        let mut weights = rest.weights;
        let mut frame_bounds = vec![rest.bounds];
        let mut root_keys = vec![RootMotionKey::default()];
        let mut worst = rest.worst;
        let mut clips = Vec::new();
        let mut sites = Vec::new();
        for (clip, ClipRun { n, baked, .. }) in self.selection.clips(self.scene).zip(runs) {
            let duration = clip.duration();
            let first_frame = frame_bounds.len() as u32;
            rows.extend_from_slice(&baked.rows);
            weights.extend_from_slice(&baked.weights);
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
                root_motion: self.root.is_some(),
                error: ClipError::default(),
            });
            sites.push((baked.at_frames, baked.between));
        }
        FrameTable {
            rows,
            weights,
            frame_bounds,
            root_keys,
            worst,
            clips,
            sites,
        }
    }
}
