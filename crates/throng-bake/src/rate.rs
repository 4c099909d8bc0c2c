//! Error-bounded frame counts: how many frames each clip needs so that the
//! shader's linear interpolation between baked matrices stays within
//! `--max-error` of the source animation (docs/BAKE_ERROR.md).
//!
//! The search is cheap: it samples poses and skins only a few probe
//! vertices ([`ErrorProbes`]: each bone's extreme vertices, with their real
//! weights, and each morph slot's most displaced vertices, with their
//! deltas), whose interpolation error — the baked vertex, morphed by the
//! interpolated weights and skinned by the interpolated matrices, against
//! the source's at the same time — stands for the mesh's. That estimate is
//! evaluated at the [between-frame samples](between_samples) of a candidate
//! frame count; candidates grow by the ~1/n² law of linear interpolation,
//! and, when the source keys lie on a uniform grid, only frame counts that put
//! a frame on every key are tried (the source is then reproduced exactly at
//! its keys and only the curvature between them is left).
//!
//! The rate stage ([`ErrorTarget`]) fixes the bound in model units before any
//! clip is baked. The sampling stage (`sampling.rs`) then runs the search for
//! each clip and measures the real error on skinned vertices at the same
//! samples (`measure.rs`); this module's estimate only chooses.

use crate::sample::PoseEvaluator;
use crate::scene::{Clip, Scene};
use glam::{Mat4, Vec3};
use rayon::prelude::*;
use throng_core::baked::blend_matrix;
use throng_core::layout::{FrameMap, frame_time};
use throng_core::limits::MAX_KEY_SAMPLES_PER_INTERVAL;
use throng_core::math::{Aabb, Rows3x4, mat4_to_rows, rows_lerp, rows_transform_point};
use throng_core::model::BakedVertex;
use throng_core::morph::Morphs;

use crate::root_motion::{RootExtractor, clip_globals};

/// Keys closer than this fraction of a frame interval to a frame time count
/// as lying on the frame (the interpolation error there is the frame error).
const ON_FRAME: f32 = 1e-3;

/// Growth factor over the 1/n² prediction of the next candidate, so that a
/// slightly super-quadratic error still converges in a few steps.
const GROWTH_MARGIN: f32 = 1.1;

/// Most candidate frame counts tried per clip before the best one is taken.
const MAX_CANDIDATES: usize = 12;

/// When no frame count meets the target, counts whose error is within this
/// factor of the best one's are as good: the smallest of them is taken.
const NOT_WORTH_IT: f32 = 1.1;

/// Bisection steps between the last frame count over the target and the
/// first within it.
const BISECTION_STEPS: usize = 5;

/// Vertices taken as probes per morph slot: those its delta moves furthest.
const PROBES_PER_MORPH_SLOT: usize = 4;

/// Directions along which each bone's extreme vertices are taken as probes:
/// the axes and the cube's diagonals (each used both ways).
const PROBE_DIRECTIONS: [[f32; 3]; 7] = [
    [1.0, 0.0, 0.0],
    [0.0, 1.0, 0.0],
    [0.0, 0.0, 1.0],
    [1.0, 1.0, 1.0],
    [1.0, 1.0, -1.0],
    [1.0, -1.0, 1.0],
    [-1.0, 1.0, 1.0],
];

/// The vertices whose interpolation error stands for the whole mesh's: for
/// every palette bone, its influenced vertices that lie furthest along ±
/// each of [`PROBE_DIRECTIONS`], with their real weights; and for every
/// morph slot, the [`PROBES_PER_MORPH_SLOT`] vertices its delta moves
/// furthest, with all their deltas.
///
/// The error of a vertex at clip time `t` between frames 0 and 1 is
/// `(M̃ − M)(p̃, 1) + M (p̃ − p, 0)`, where `M = Σ wᵢ Pᵢ(t)` is the source's
/// blended matrix, `M̃` the same blend of `lerp(P₀, P₁, s)`, `p` the vertex
/// morphed by the source's weights at `t` and `p̃` by the weights
/// interpolated between the frames (the shader's arithmetic; without
/// morphs the second term is zero). For one bone, `|E p|` is convex in
/// `p`, so over the bone's vertices it peaks on their convex hull, which
/// the extremes sample; the morph term is largest where the deltas are.
/// Evaluating real vertices with their real weights keeps the cancellation
/// between neighbouring bones that a per-bone worst case ignores (which
/// overestimated the error 3–10× and baked 2× the frames needed). It is an
/// estimate, not a bound: the bake measures every vertex afterwards and
/// searches again if the measurement is over.
#[derive(Clone, Debug)]
pub(crate) struct ErrorProbes {
    vertices: Vec<BakedVertex>,
    /// Per probe: its morph deltas, `(slot, position offset)`.
    deltas: Vec<Vec<(u32, Vec3)>>,
}

impl ErrorProbes {
    /// Probes of `bones` palette entries and of `morphs`' slots over
    /// `vertices`.
    pub(crate) fn of(vertices: &[BakedVertex], bones: usize, morphs: &Morphs) -> Self {
        let slots = PROBE_DIRECTIONS.len() * 2;
        // Per bone and slot: (score, vertex index).
        let mut best = vec![(f32::NEG_INFINITY, usize::MAX); bones * slots];
        // Per morph slot: its most displaced vertices, (|delta|, index).
        let mut moved = vec![Vec::<(f32, usize)>::new(); morphs.slots.len()];
        for (i, v) in vertices.iter().enumerate() {
            let p = Vec3::from(v.position);
            for (j, w) in v.joints.iter().zip(v.weights) {
                if w <= 0.0 || *j as usize >= bones {
                    continue;
                }
                for (d, dir) in PROBE_DIRECTIONS.iter().enumerate() {
                    let along = p.dot(Vec3::from(*dir));
                    for (k, score) in [along, -along].into_iter().enumerate() {
                        let slot = &mut best[*j as usize * slots + d * 2 + k];
                        if score > slot.0 {
                            *slot = (score, i);
                        }
                    }
                }
            }
            for d in morphs.deltas_of(v) {
                let Some(top) = moved.get_mut(d.slot as usize) else {
                    continue;
                };
                let len = Vec3::from(d.position).length();
                top.push((len, i));
                if top.len() > PROBES_PER_MORPH_SLOT {
                    // Keep the largest (ties: the first vertex), in order.
                    top.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                    top.truncate(PROBES_PER_MORPH_SLOT);
                }
            }
        }
        let mut picked: Vec<usize> = best
            .into_iter()
            .filter(|s| s.1 != usize::MAX)
            .map(|s| s.1)
            .chain(moved.into_iter().flatten().map(|m| m.1))
            .collect();
        picked.sort_unstable();
        picked.dedup();
        Self {
            deltas: picked
                .iter()
                .map(|&i| {
                    morphs
                        .deltas_of(&vertices[i])
                        .iter()
                        .map(|d| (d.slot, Vec3::from(d.position)))
                        .collect()
                })
                .collect(),
            vertices: picked.into_iter().map(|i| vertices[i]).collect(),
        }
    }

    /// Probe `i`'s position morphed by `weights` (one per slot).
    fn morphed(&self, i: usize, weights: &[f32]) -> Vec3 {
        self.deltas[i]
            .iter()
            .fold(Vec3::from(self.vertices[i].position), |p, (slot, d)| {
                p + *d * weights.get(*slot as usize).copied().unwrap_or(0.0)
            })
    }

    /// Grows `bounds` by the probes morphed by `weights` and skinned with
    /// `palette` the way the shader skins a vertex ([`blend_matrix`]).
    fn add_to(&self, palette: &[Rows3x4], weights: &[f32], bounds: &mut Aabb) {
        for (i, v) in self.vertices.iter().enumerate() {
            let m = blend_matrix(v, |b| palette[b as usize]);
            bounds.add_point(rows_transform_point(&m, self.morphed(i, weights)));
        }
    }

    /// Largest probe displacement between the baked vertex and the source's
    /// (see the type's formula): `errors[b]` is bone `b`'s matrix error
    /// `lerp(P₀, P₁, s) − P(t)`, `exact` its source matrix, and the weights
    /// the interpolated and the source's.
    fn worst(&self, errors: &[Rows3x4], exact: &[Rows3x4], weights: Weights) -> f32 {
        let mut worst = 0.0f32;
        for (i, v) in self.vertices.iter().enumerate() {
            let m_err = blend_matrix(v, |b| errors[b as usize]);
            let baked = self.morphed(i, weights.interpolated);
            let mut e = rows_transform_point(&m_err, baked);
            if !self.deltas[i].is_empty() {
                let m = blend_matrix(v, |b| exact[b as usize]);
                let moved = baked - self.morphed(i, weights.source);
                e += Vec3::new(
                    m[0].truncate().dot(moved),
                    m[1].truncate().dot(moved),
                    m[2].truncate().dot(moved),
                );
            }
            worst = worst.max(e.length());
        }
        worst
    }
}

/// The morph weights at a between-frame sample: interpolated between the
/// frames (as baked) and the source's at that time.
#[derive(Clone, Copy)]
struct Weights<'a> {
    interpolated: &'a [f32],
    source: &'a [f32],
}

/// The rate stage's output: the bound on the error between frames in model
/// units, and the probes the search estimates it on.
pub(crate) struct ErrorTarget {
    /// Probe vertices of LOD 0.
    pub(crate) probes: ErrorProbes,
    /// `max_error` × the search's bounding radius, model units.
    pub(crate) target: f32,
}

impl ErrorTarget {
    /// The bound for `max_error`, relative to the bounding radius.
    ///
    /// The bound is relative to the final bounding radius, known only once
    /// every clip is measured. The search takes the radius of the rest pose
    /// (`rest_bounds`) and of the probe vertices at every base-rate frame of
    /// `clips` (each with its base frame count): a subset of the final box,
    /// so the bound it gives is never looser than the one reported.
    pub(crate) fn of(
        clips: &[(ClipSource, u32)],
        vertices: &[BakedVertex],
        bones: usize,
        morphs: &Morphs,
        rest_bounds: Aabb,
        max_error: f32,
    ) -> Self {
        let probes = ErrorProbes::of(vertices, bones, morphs);
        let search_bounds = clips
            .par_iter()
            .map(|(source, n)| source.probe_bounds(*n, &probes))
            // Box unions are exact (min and max): any order gives the same box.
            .reduce(|| rest_bounds, |a, b| a.union(&b));
        Self {
            target: max_error * search_bounds.radius(),
            probes,
        }
    }
}

/// The source's key times of `clip` strictly inside `(0, duration)`, sorted,
/// without repeats: its transform channels' and its morph weight channels'
/// (a weight key is where a LINEAR weight curve kinks).
pub(crate) fn key_times(clip: &Clip, duration: f32) -> Vec<f32> {
    let mut t: Vec<f32> = clip
        .channels
        .iter()
        .flat_map(|c| c.times.iter().copied())
        .chain(clip.weights.iter().flat_map(|w| w.times.iter().copied()))
        .filter(|&x| x > 0.0 && x < duration)
        .collect();
    t.sort_by(f32::total_cmp);
    t.dedup();
    t
}

/// If the keys (with 0 and the duration) lie on a uniform grid, its number
/// of intervals.
fn key_grid(keys: &[f32], duration: f32) -> Option<u32> {
    let intervals = keys.len() as u32 + 1;
    let step = duration / intervals as f32;
    keys.iter()
        .enumerate()
        .all(|(i, &t)| (t - (i + 1) as f32 * step).abs() <= ON_FRAME * step)
        .then_some(intervals)
}

/// The times between frames at which a clip of `n` frames is checked: each
/// interval's midpoint, then up to [`MAX_KEY_SAMPLES_PER_INTERVAL`] source
/// key times inside the interval (those nearest its middle), as
/// `(interval, time)` sorted by time.
pub(crate) fn between_samples(n: u32, duration: f32, keys: &[f32]) -> Vec<(u32, f32)> {
    let mut out = Vec::with_capacity(n.saturating_sub(1) as usize);
    for k in 0..n.saturating_sub(1) {
        let (t0, t1) = (frame_time(k, n, duration), frame_time(k + 1, n, duration));
        let h = t1 - t0;
        let mid = t0 + 0.5 * h;
        let lo = keys.partition_point(|&x| x <= t0 + ON_FRAME * h);
        let hi = keys.partition_point(|&x| x < t1 - ON_FRAME * h);
        let mut inside: Vec<f32> = keys[lo..hi.max(lo)].to_vec();
        inside.sort_by(|a, b| (a - mid).abs().total_cmp(&(b - mid).abs()));
        inside.truncate(MAX_KEY_SAMPLES_PER_INTERVAL);
        inside.push(mid);
        inside.sort_by(f32::total_cmp);
        inside.dedup();
        out.extend(inside.into_iter().map(|t| (k, t)));
    }
    out
}

/// What the rate search needs of a clip.
pub(crate) struct ClipSource<'a> {
    /// The scene (its morph weights).
    pub scene: &'a Scene,
    /// Pose evaluator of the scene.
    pub eval: &'a PoseEvaluator,
    /// The clip.
    pub clip: &'a Clip,
    /// Its duration.
    pub duration: f32,
    /// Its key times ([`key_times`]).
    pub keys: &'a [f32],
    /// Palette entries `(node, inverse bind)`.
    pub entries: &'a [(u32, Mat4)],
    /// Root-motion node, when clips are baked in place.
    pub root: Option<u32>,
}

impl ClipSource<'_> {
    /// Palette rows at clip time `t` (in place when root motion is on,
    /// advancing `extractor`).
    fn palette(
        &self,
        t: f32,
        extractor: &mut Option<RootExtractor>,
        scratch: &mut (Vec<Mat4>, Vec<Mat4>),
        out: &mut Vec<Rows3x4>,
    ) {
        let (locals, globals) = scratch;
        clip_globals(
            self.eval, self.clip, t, self.root, extractor, locals, globals,
        );
        out.clear();
        out.extend(
            self.entries
                .iter()
                .map(|(node, ibm)| mat4_to_rows(&(globals[*node as usize] * *ibm))),
        );
    }

    /// The box of the probes over the clip's `n` frames: a subset of the
    /// vertices at a subset of the times, so never larger than the bake's
    /// final bounds (the error bound's radius can be taken from it safely).
    pub(crate) fn probe_bounds(&self, n: u32, probes: &ErrorProbes) -> Aabb {
        let mut bounds = Aabb::EMPTY;
        let mut scratch = (Vec::new(), Vec::new());
        let (mut palette, mut weights) = (Vec::new(), Vec::new());
        let mut extractor = None;
        for k in 0..n {
            let t = frame_time(k, n, self.duration);
            self.palette(t, &mut extractor, &mut scratch, &mut palette);
            self.weights(t, &mut weights);
            probes.add_to(&palette, &weights, &mut bounds);
        }
        bounds
    }

    /// The source's morph weights at clip time `t`, one per slot.
    fn weights(&self, t: f32, out: &mut Vec<f32>) {
        crate::morph::weights_at(self.scene, Some(self.clip), t, out);
    }

    /// The largest probe error over the between-frame samples of a bake
    /// with `n` frames, in model units.
    pub(crate) fn estimate(&self, n: u32, probes: &ErrorProbes) -> f32 {
        let map = FrameMap::new(0, n, self.duration);
        let samples = between_samples(n, self.duration, self.keys);
        let mut scratch = (Vec::new(), Vec::new());
        let (mut p0, mut p1, mut pt, mut errors) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut w0, mut w1, mut wt, mut wl) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let morphing = !probes.deltas.iter().all(Vec::is_empty);
        let mut extractor = None;
        self.palette(0.0, &mut extractor, &mut scratch, &mut p0);
        let mut at = 0u32; // p0 holds frame `at`, `extractor` its state
        let mut next = u32::MAX; // p1 holds frame `next`, `ahead` its state
        let mut ahead = None;
        let mut worst = 0.0f32;
        for (k, t) in samples {
            // Advance frame by frame, as the bake does, so that root-motion
            // yaw stays continuous.
            while at < k {
                at += 1;
                if next == at {
                    std::mem::swap(&mut p0, &mut p1);
                    extractor = ahead.clone();
                } else {
                    let t = frame_time(at, n, self.duration);
                    self.palette(t, &mut extractor, &mut scratch, &mut p0);
                }
            }
            if next != k + 1 {
                ahead = extractor.clone();
                let t = frame_time(k + 1, n, self.duration);
                self.palette(t, &mut ahead, &mut scratch, &mut p1);
                next = k + 1;
            }
            let mut inner = extractor.clone();
            self.palette(t, &mut inner, &mut scratch, &mut pt);
            let s = map.frames_at(t).t;
            errors.clear();
            errors.extend(p0.iter().zip(&p1).zip(&pt).map(|((a, b), exact)| {
                let l = rows_lerp(a, b, s);
                [l[0] - exact[0], l[1] - exact[1], l[2] - exact[2]]
            }));
            if morphing {
                self.weights(frame_time(k, n, self.duration), &mut w0);
                self.weights(frame_time(k + 1, n, self.duration), &mut w1);
                self.weights(t, &mut wt);
                wl.clear();
                wl.extend(w0.iter().zip(&w1).map(|(a, b)| a + (b - a) * s));
            }
            let weights = Weights {
                interpolated: &wl,
                source: &wt,
            };
            worst = worst.max(probes.worst(&errors, &pt, weights));
        }
        worst
    }

    /// The smallest frame count in `[n_min, n_max]` whose estimate is within
    /// `target` (model units), or, if none is, the best one tried; with its
    /// estimate.
    ///
    /// When the source keys lie on a uniform grid of `g` intervals, only
    /// counts `n = m·g + 1` are candidates: they put a frame on every key,
    /// so the bake is exact at the keys, where a LINEAR source has the kinks
    /// that interpolation cuts (a count between two aligned ones measures
    /// worse than the lower one). Candidates grow by the 1/n² law from
    /// `n_min` until one is within the target; bisection then narrows the
    /// gap to the last one that was not.
    pub(crate) fn choose(
        &self,
        n_min: u32,
        n_max: u32,
        target: f32,
        probes: &ErrorProbes,
    ) -> (u32, f32) {
        if n_min < 2 || n_max <= n_min {
            return (n_min, self.estimate(n_min, probes));
        }
        // Candidates are indexed by x: n = x·g + 1 on a key grid, else n = x + 1.
        let step = key_grid(self.keys, self.duration)
            .filter(|&g| (n_min - 1).div_ceil(g).saturating_mul(g) < n_max)
            .unwrap_or(1);
        let count = |x: u32| x.saturating_mul(step).saturating_add(1).min(n_max);
        let (x_min, x_max) = ((n_min - 1).div_ceil(step), (n_max - 1).div_ceil(step));
        // 1. Grow until within the target (or at the top).
        let (mut below, mut x) = (None::<u32>, x_min);
        let mut tried = Vec::with_capacity(MAX_CANDIDATES);
        let mut within = None;
        for _ in 0..MAX_CANDIDATES {
            let n = count(x);
            let e = self.estimate(n, probes);
            tried.push((n, e));
            if e <= target {
                within = Some((x, e));
                break;
            }
            below = Some(x);
            if x >= x_max {
                break;
            }
            let scale = if target > 0.0 {
                (e / target).sqrt()
            } else {
                f32::INFINITY
            };
            let predicted = 1.0 + (n - 1) as f32 * scale * GROWTH_MARGIN;
            x = if predicted.is_finite() {
                ((predicted.ceil() as u32).saturating_sub(1))
                    .div_ceil(step)
                    .clamp(x + 1, x_max)
            } else {
                x_max
            };
        }
        let Some(mut found) = within else {
            // Nothing is within the target: take the smallest count whose
            // error is close to the best one tried. More frames that do not
            // lower the error (a STEP key, a discontinuity) are only bytes.
            let best = tried.iter().map(|t| t.1).fold(f32::INFINITY, f32::min);
            return tried
                .into_iter()
                .filter(|t| t.1 <= best * NOT_WORTH_IT)
                .min_by_key(|t| t.0)
                .unwrap_or((n_min, best));
        };
        // 2. Bisect between the last candidate over the target and the first
        // within it.
        if let Some(mut lo) = below {
            for _ in 0..BISECTION_STEPS {
                if found.0 - lo <= 1 {
                    break;
                }
                let mid = lo + (found.0 - lo) / 2;
                let e = self.estimate(count(mid), probes);
                if e <= target {
                    found = (mid, e);
                } else {
                    lo = mid;
                }
            }
        }
        (count(found.0), found.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn midpoints_and_keys_between_frames_are_sampled() {
        // 3 frames over 2 s: intervals [0,1], [1,2]; keys at 0.25 and 1.0
        // (on a frame, skipped) and 1.9.
        let s = between_samples(3, 2.0, &[0.25, 1.0, 1.9]);
        assert_eq!(s, vec![(0, 0.25), (0, 0.5), (1, 1.5), (1, 1.9)]);
    }

    #[test]
    fn uniform_keys_make_a_grid() {
        assert_eq!(key_grid(&[0.5, 1.0, 1.5], 2.0), Some(4));
        assert_eq!(key_grid(&[0.5, 1.2, 1.5], 2.0), None);
        assert_eq!(key_grid(&[], 2.0), Some(1));
    }
}
