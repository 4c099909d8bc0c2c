//! Error-bounded frame counts: how many frames each clip needs so that the
//! shader's linear interpolation between baked matrices stays within
//! `--max-error` of the source animation (docs/BAKE_ERROR.md).
//!
//! The search is cheap: it samples poses, never skins a vertex. For each
//! palette bone it knows the sphere `(c, r)` around the bind-pose vertices the
//! bone influences; the error of the interpolated matrix `E = lerp(P₀, P₁, s)
//! − P(t)` moves any of those vertices by at most `‖E₃ₓ₃‖_F · r + |E·c|`,
//! and a vertex's weights sum to 1, so the largest such value over the bones
//! bounds every vertex's interpolation error at time `t`. That bound is
//! evaluated at the [between-frame samples](between_samples) of a candidate
//! frame count; candidates grow by the ~1/n² law of linear interpolation,
//! and, when the source keys lie on a uniform grid, only frame counts that put
//! a frame on every key are tried (the source is then reproduced exactly at
//! its keys and only the curvature between them is left).
//!
//! The bake then measures the real error on skinned vertices at the same
//! samples (`bake.rs`); this module's estimate only chooses.

use glam::{Mat4, Vec3};
use throng_core::layout::{FrameMap, frame_time};
use throng_core::limits::MAX_KEY_SAMPLES_PER_INTERVAL;
use throng_core::math::{Rows3x4, mat4_to_rows, rows_lerp};
use throng_core::model::BakedVertex;
use throng_core::sample::PoseEvaluator;
use throng_core::scene::Clip;

use crate::bake::RootExtractor;

/// Keys closer than this fraction of a frame interval to a frame time count
/// as lying on the frame (the interpolation error there is the frame error).
const ON_FRAME: f32 = 1e-3;

/// Growth factor over the 1/n² prediction of the next candidate, so that a
/// slightly super-quadratic error still converges in a few steps.
const GROWTH_MARGIN: f32 = 1.1;

/// Most candidate frame counts tried per clip before the best one is taken.
const MAX_CANDIDATES: usize = 12;

/// The sphere around the bind-pose vertices each palette bone influences.
#[derive(Clone, Debug)]
pub(crate) struct BoneReach {
    /// Per bone: centre and radius, `None` for a bone no vertex uses.
    spheres: Vec<Option<(Vec3, f32)>>,
}

impl BoneReach {
    /// Spheres of `bones` palette entries over `vertices` (weights > 0).
    pub(crate) fn of(vertices: &[BakedVertex], bones: usize) -> Self {
        let mut boxes = vec![(Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)); bones];
        for v in vertices {
            let p = Vec3::from(v.position);
            for (j, w) in v.joints.iter().zip(v.weights) {
                if w > 0.0 {
                    let b = &mut boxes[*j as usize];
                    *b = (b.0.min(p), b.1.max(p));
                }
            }
        }
        let centres: Vec<Option<Vec3>> = boxes
            .iter()
            .map(|(lo, hi)| lo.cmple(*hi).all().then(|| (*lo + *hi) * 0.5))
            .collect();
        let mut radii = vec![0.0f32; bones];
        for v in vertices {
            let p = Vec3::from(v.position);
            for (j, w) in v.joints.iter().zip(v.weights) {
                if w > 0.0
                    && let Some(c) = centres[*j as usize]
                {
                    let r = &mut radii[*j as usize];
                    *r = r.max((p - c).length());
                }
            }
        }
        Self {
            spheres: centres
                .into_iter()
                .zip(radii)
                .map(|(c, r)| c.map(|c| (c, r)))
                .collect(),
        }
    }

    /// Largest displacement `E` can give a vertex of any bone, where
    /// `errors[b]` is bone `b`'s matrix error.
    fn bound(&self, errors: impl Iterator<Item = Rows3x4>) -> f32 {
        let mut worst = 0.0f32;
        for (e, sphere) in errors.zip(&self.spheres) {
            let Some((c, r)) = sphere else { continue };
            let frob = e
                .iter()
                .map(|row| row.truncate().length_squared())
                .sum::<f32>()
                .sqrt();
            let at_centre = Vec3::new(
                e[0].truncate().dot(*c) + e[0].w,
                e[1].truncate().dot(*c) + e[1].w,
                e[2].truncate().dot(*c) + e[2].w,
            )
            .length();
            worst = worst.max(frob * r + at_centre);
        }
        worst
    }
}

/// The source's key times of `clip` strictly inside `(0, duration)`, sorted,
/// without repeats.
pub(crate) fn key_times(clip: &Clip, duration: f32) -> Vec<f32> {
    let mut t: Vec<f32> = clip
        .channels
        .iter()
        .flat_map(|c| c.times.iter().copied())
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
        crate::bake::clip_globals(
            self.eval, self.clip, t, self.root, extractor, locals, globals,
        );
        out.clear();
        out.extend(
            self.entries
                .iter()
                .map(|(node, ibm)| mat4_to_rows(&(globals[*node as usize] * *ibm))),
        );
    }

    /// The largest per-bone interpolation bound over the between-frame
    /// samples of a bake with `n` frames, in model units.
    pub(crate) fn estimate(&self, n: u32, reach: &BoneReach) -> f32 {
        let map = FrameMap::new(0, n, self.duration);
        let samples = between_samples(n, self.duration, self.keys);
        let mut scratch = (Vec::new(), Vec::new());
        let (mut p0, mut p1, mut pt) = (Vec::new(), Vec::new(), Vec::new());
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
            let errors = p0.iter().zip(&p1).zip(&pt).map(|((a, b), exact)| {
                let l = rows_lerp(a, b, s);
                [l[0] - exact[0], l[1] - exact[1], l[2] - exact[2]]
            });
            worst = worst.max(reach.bound(errors));
        }
        worst
    }

    /// The smallest frame count in `[n_min, n_max]` whose estimate is within
    /// `target` (model units), or, if none is, the best one tried; with its
    /// estimate.
    pub(crate) fn choose(
        &self,
        n_min: u32,
        n_max: u32,
        target: f32,
        reach: &BoneReach,
    ) -> (u32, f32) {
        if n_min < 2 || n_max <= n_min {
            return (n_min, self.estimate(n_min, reach));
        }
        // Frame counts that put a frame on every source key, if the keys are
        // uniform: n = m·g + 1.
        let grid = key_grid(self.keys, self.duration);
        let snap = |n: u32| -> u32 {
            match grid {
                Some(g) => {
                    let m = (n - 1).div_ceil(g).max(1);
                    let aligned = m.saturating_mul(g).saturating_add(1);
                    if aligned <= n_max { aligned } else { n }
                }
                None => n,
            }
        };
        let mut n = snap(n_min);
        let mut best = (n, f32::INFINITY);
        let mut tried = Vec::with_capacity(MAX_CANDIDATES);
        for _ in 0..MAX_CANDIDATES {
            let e = self.estimate(n, reach);
            tried.push(n);
            if e < best.1 || (e == best.1 && n < best.0) {
                best = (n, e);
            }
            if e <= target || n >= n_max {
                break;
            }
            let scale = if target > 0.0 {
                (e / target).sqrt()
            } else {
                f32::INFINITY
            };
            let predicted = 1.0 + (n - 1) as f32 * scale * GROWTH_MARGIN;
            let grown = if predicted.is_finite() {
                (predicted.ceil() as u32).max(n + 1)
            } else {
                n_max
            };
            let candidate = snap(grown.min(n_max));
            n = if candidate > n {
                candidate
            } else {
                grown.min(n_max)
            };
        }
        if best.1 > target && !tried.contains(&n_max) {
            // Nothing met the target: the highest rate allowed is the best
            // bet when it was not tried.
            let e = self.estimate(n_max, reach);
            if e < best.1 {
                best = (n_max, e);
            }
        }
        best
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
