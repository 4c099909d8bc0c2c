//! Sampling a clip and measuring it: every frame's palette, and the
//! skinned-vertex error against the CPU reference at the frames and between
//! them (docs/BAKE_ERROR.md), spread over the cores.

use crate::reference::skin_positions;
use crate::scene::Scene;
use glam::{Mat4, Vec3};
use throng_core::baked::blend_matrix;
use throng_core::layout::{FrameMap, FramePair, frame_time};
use throng_core::math::{Aabb, Rows3x4, mat4_to_rows, rows_lerp, rows_transform_point};
use throng_core::model::{Lod, RootMotionKey, TexelFormat};
use throng_core::morph::{Morphs, morph_vertex};

use crate::report::ErrorSite;
use crate::root_motion::clip_globals;

/// The baked mesh a pose is measured on: LOD 0 and its morph deltas.
#[derive(Clone, Copy)]
pub(crate) struct BakedMesh<'a> {
    /// The vertices measured.
    pub(crate) lod: &'a Lod,
    /// Their morph deltas (the slots' weights come with each pose).
    pub(crate) morphs: &'a Morphs,
}

/// A pose: the reference's (node globals, slot weights) or the baked one's
/// (palette rows, already interpolated, and slot weights, likewise).
#[derive(Clone, Copy)]
pub(crate) struct PoseOf<'a, M> {
    /// Node globals (reference) or palette rows (baked).
    pub(crate) matrices: &'a [M],
    /// Morph weights, one per slot.
    pub(crate) weights: &'a [f32],
}

/// One clip sampled at a frame count and measured.
pub(crate) struct ClipBake {
    /// Palette rows of every frame (f32, before any quantisation).
    pub(crate) rows: Vec<[f32; 4]>,
    /// Morph weights of every frame, one per slot (f32, as stored).
    pub(crate) weights: Vec<f32>,
    /// Root-motion key of every frame (zero without root motion).
    pub(crate) root_keys: Vec<RootMotionKey>,
    /// Box of the skinned vertices at every frame.
    pub(crate) frame_bounds: Vec<Aabb>,
    /// Worst error at the frame times (`rel` not yet set).
    pub(crate) at_frames: ErrorSite,
    /// Worst error between frames (`rel` not yet set).
    pub(crate) between: ErrorSite,
}

/// `x` as the texture will return it.
pub(crate) fn quantise(x: glam::Vec4, precision: TexelFormat) -> glam::Vec4 {
    match precision {
        TexelFormat::F32 => x,
        TexelFormat::F16 => x.to_array().map(|v| half::f16::from_f32(v).to_f32()).into(),
    }
}

/// Samples a clip at `n` frames and measures the result, as the texture will
/// hold it, against the reference at every frame and at every
/// [between-frame sample](crate::rate::between_samples). `progress` hears
/// how many frames' worth of measurements are done.
pub(crate) fn bake_clip(
    scene: &Scene,
    src: &crate::rate::ClipSource,
    n: u32,
    mesh: BakedMesh,
    precision: TexelFormat,
    progress: &mut dyn FnMut(u64),
) -> ClipBake {
    let slots = mesh.morphs.slots.len();
    let sampled = sample_frames(scene, src, n, slots);
    let stored = StoredFrames::new(&sampled, src.entries.len(), slots, precision);
    let jobs = &sampled.jobs;
    // Progress in frames: the measurements are spread over the clip's frames.
    let per_frame = (jobs.len() as u64).div_ceil(n as u64).max(1);
    let results = par_map(
        jobs.len(),
        &|j| measure_job(scene, src, mesh, &stored, jobs[j]),
        &mut |d| progress(d / per_frame),
    );
    let (frame_bounds, at_frames, between) = worst_sites(jobs, results, n);
    ClipBake {
        rows: sampled.rows,
        weights: sampled.weights,
        root_keys: sampled.root_keys,
        frame_bounds,
        at_frames,
        between,
    }
}

/// One measurement of a clip: the baked pose at `pair` against the
/// reference at clip time `t`.
#[derive(Clone, Copy)]
struct Measurement {
    /// Clip time.
    t: f32,
    /// In-place correction applied to the reference (identity without
    /// root motion).
    correction: Mat4,
    /// The baked frames and the weight between them.
    pair: FramePair,
}

/// A clip's frames as sampled, and the measurements to make of them.
struct SampledFrames {
    /// Palette rows of every frame (f32, before any quantisation).
    rows: Vec<[f32; 4]>,
    /// Morph weights of every frame, one per slot.
    weights: Vec<f32>,
    /// Root-motion key of every frame (zero without root motion).
    root_keys: Vec<RootMotionKey>,
    /// Every frame's measurement, each followed by those between it and
    /// the next frame.
    jobs: Vec<Measurement>,
}

/// Samples `src`'s clip at `n` frames (palette rows, `slots` morph weights
/// and the root-motion key of each) and lists the measurements: one per
/// frame and one per [between-frame sample](crate::rate::between_samples),
/// whose in-place correction continues root motion from the frame before.
fn sample_frames(
    scene: &Scene,
    src: &crate::rate::ClipSource,
    n: u32,
    slots: usize,
) -> SampledFrames {
    let bones = src.entries.len();
    let between = crate::rate::between_samples(n, src.duration, src.keys);
    let mut rows = Vec::with_capacity(n as usize * bones * 3);
    let mut weights = Vec::with_capacity(n as usize * slots);
    let mut frame_weights = Vec::with_capacity(slots);
    let mut root_keys = Vec::with_capacity(n as usize);
    let mut jobs = Vec::with_capacity(n as usize + between.len());
    let (mut locals, mut globals) = (Vec::new(), Vec::new());
    let mut extractor = None;
    let mut next = between.iter().peekable();
    let map = FrameMap::new(0, n, src.duration);
    for k in 0..n {
        let t = frame_time(k, n, src.duration);
        let (key, correction) = clip_globals(
            src.eval,
            src.clip,
            t,
            src.root,
            &mut extractor,
            &mut locals,
            &mut globals,
        );
        root_keys.push(key);
        crate::morph::weights_at(scene, Some(src.clip), t, &mut frame_weights);
        weights.extend_from_slice(&frame_weights);
        for (node, ibm) in src.entries {
            let m = globals[*node as usize] * *ibm;
            rows.extend(mat4_to_rows(&m).map(|r| r.to_array()));
        }
        jobs.push(Measurement {
            t,
            correction,
            pair: FramePair::single(k),
        });
        // Between k and k + 1, root motion continues from frame k.
        while let Some(&(_, t)) = next.next_if(|(i, _)| *i == k) {
            let mut inner = extractor.clone();
            let (_, correction) = clip_globals(
                src.eval,
                src.clip,
                t,
                src.root,
                &mut inner,
                &mut locals,
                &mut globals,
            );
            jobs.push(Measurement {
                t,
                correction,
                pair: map.frames_at(t),
            });
        }
    }
    SampledFrames {
        rows,
        weights,
        root_keys,
        jobs,
    }
}

/// The sampled frames as the texture will return them (rows quantised to
/// its precision, weights as stored), read back as the shader blends them.
struct StoredFrames<'a> {
    /// Palette rows of every frame, quantised.
    rows: std::borrow::Cow<'a, [[f32; 4]]>,
    /// Morph weights of every frame, one per slot.
    weights: &'a [f32],
    /// Palette entries per frame.
    bones: usize,
    /// Morph slots per frame.
    slots: usize,
}

impl<'a> StoredFrames<'a> {
    /// `sampled`'s frames, of `bones` palette entries and `slots` morph
    /// slots each, as a texture of `precision` holds them.
    fn new(sampled: &'a SampledFrames, bones: usize, slots: usize, precision: TexelFormat) -> Self {
        let rows = match precision {
            TexelFormat::F32 => std::borrow::Cow::Borrowed(sampled.rows.as_slice()),
            TexelFormat::F16 => std::borrow::Cow::Owned(
                sampled
                    .rows
                    .iter()
                    .map(|r| quantise((*r).into(), precision).to_array())
                    .collect(),
            ),
        };
        Self {
            rows,
            weights: &sampled.weights,
            bones,
            slots,
        }
    }

    /// Palette entry `b`'s rows at frame `f`.
    fn row(&self, f: u32, b: usize) -> Rows3x4 {
        let i = (f as usize * self.bones + b) * 3;
        [
            self.rows[i].into(),
            self.rows[i + 1].into(),
            self.rows[i + 2].into(),
        ]
    }

    /// The palette at `pair`: each entry's rows blended between its frames.
    fn palette(&self, pair: FramePair) -> Vec<Rows3x4> {
        (0..self.bones)
            .map(|b| rows_lerp(&self.row(pair.frame0, b), &self.row(pair.frame1, b), pair.t))
            .collect()
    }

    /// The morph weights at `pair`: each slot's blended between its frames.
    fn weights(&self, pair: FramePair) -> Vec<f32> {
        let (w0, w1) = (
            pair.frame0 as usize * self.slots,
            pair.frame1 as usize * self.slots,
        );
        (0..self.slots)
            .map(|s| {
                let a = self.weights[w0 + s];
                a + (self.weights[w1 + s] - a) * pair.t
            })
            .collect()
    }
}

/// Bounds and worst error of one measurement ([`measure_pose`]): the
/// reference posed at `job.t` (corrected in place like the baked clip)
/// against the `stored` frames blended at `job.pair`.
fn measure_job(
    scene: &Scene,
    src: &crate::rate::ClipSource,
    mesh: BakedMesh,
    stored: &StoredFrames,
    job: Measurement,
) -> (Aabb, ErrorSite) {
    let Measurement {
        t,
        correction,
        pair,
    } = job;
    let mut globals = src.eval.globals(Some(src.clip), t);
    if correction != Mat4::IDENTITY {
        // In-place clips: the reference is corrected the same way.
        for g in globals.iter_mut() {
            *g = correction * *g;
        }
    }
    let palette = stored.palette(pair);
    let mut reference_weights = Vec::with_capacity(stored.slots);
    crate::morph::weights_at(scene, Some(src.clip), t, &mut reference_weights);
    let baked_weights = stored.weights(pair);
    measure_pose(
        scene,
        mesh,
        PoseOf {
            matrices: &globals,
            weights: &reference_weights,
        },
        PoseOf {
            matrices: &palette,
            weights: &baked_weights,
        },
        Some(src.clip.name.as_str()),
        t,
    )
}

/// From the measurements of `n` frames, `jobs`, and their `results` in the
/// same order: the bounds of every frame, the worst error at the frames
/// and the worst between them.
fn worst_sites(
    jobs: &[Measurement],
    results: Vec<(Aabb, ErrorSite)>,
    n: u32,
) -> (Vec<Aabb>, ErrorSite, ErrorSite) {
    let mut frame_bounds = Vec::with_capacity(n as usize);
    let (mut at_frames, mut worst_between) = (ErrorSite::default(), ErrorSite::default());
    for (job, (bounds, site)) in jobs.iter().zip(results) {
        let worst = if job.pair.frame0 == job.pair.frame1 {
            frame_bounds.push(bounds);
            &mut at_frames
        } else {
            &mut worst_between
        };
        if site.abs > worst.abs || !site.abs.is_finite() {
            *worst = site;
        }
    }
    (frame_bounds, at_frames, worst_between)
}

/// `f(0..count)` spread over the cores, in order; `progress` hears how many
/// are done (from the calling thread).
pub(crate) fn par_map<T: Send>(
    count: usize,
    f: &(dyn Fn(usize) -> T + Sync),
    progress: &mut dyn FnMut(u64),
) -> Vec<T> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(count)
        .max(1);
    let chunk = count.div_ceil(threads).max(1);
    let done = std::sync::atomic::AtomicU64::new(0);
    let run = |range: std::ops::Range<usize>, tick: &mut dyn FnMut(u64)| -> Vec<T> {
        range
            .map(|i| {
                let out = f(i);
                let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                tick(d);
                out
            })
            .collect()
    };
    std::thread::scope(|s| {
        let workers: Vec<_> = (1..threads)
            .map(|i| {
                let range = (i * chunk).min(count)..((i + 1) * chunk).min(count);
                s.spawn(move || run(range, &mut |_| {}))
            })
            .collect();
        let mut all = run(0..chunk.min(count), progress);
        for w in workers {
            all.extend(w.join().expect("a bake worker panicked"));
        }
        all
    })
}

/// Bounds of one pose and its largest error against the reference: the
/// `baked` pose morphs and skins `mesh` as the shader does; `reference`
/// gives the reference.
pub(crate) fn measure_pose(
    scene: &Scene,
    mesh: BakedMesh,
    reference: PoseOf<Mat4>,
    baked: PoseOf<Rows3x4>,
    clip: Option<&str>,
    t: f32,
) -> (Aabb, ErrorSite) {
    thread_local! {
        /// Per thread: joint matrices and skinned positions, reused by every
        /// measurement.
        static SCRATCH: std::cell::RefCell<(Vec<Rows3x4>, Vec<Vec<Vec3>>)> =
            const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
    }
    SCRATCH.with_borrow_mut(|(joints, expected)| {
        skin_positions(
            scene,
            reference.matrices,
            reference.weights,
            joints,
            expected,
        );
        measure_against(scene, mesh, baked, expected, clip, t)
    })
}

/// [`measure_pose`] once the reference positions are known.
pub(crate) fn measure_against(
    scene: &Scene,
    mesh: BakedMesh,
    baked: PoseOf<Rows3x4>,
    reference: &[Vec<Vec3>],
    clip: Option<&str>,
    t: f32,
) -> (Aabb, ErrorSite) {
    let (lod, palette) = (mesh.lod, baked.matrices);
    let mut bounds = Aabb::EMPTY;
    let mut worst = ErrorSite::default();
    let sources = scene.instances.iter().flat_map(|inst| {
        let mesh = &scene.meshes[inst.mesh as usize];
        mesh.primitives
            .iter()
            .map(move |p| (inst.node, inst.mesh, p.index))
    });
    for ((sub, r), source) in lod.submeshes.iter().zip(reference).zip(sources) {
        let verts =
            &lod.vertices[sub.base_vertex as usize..(sub.base_vertex + sub.vertex_count) as usize];
        for (v, (vert, expected)) in verts.iter().zip(r).enumerate() {
            let m = blend_matrix(vert, |b| palette[b as usize]);
            let (p, _) = morph_vertex(mesh.morphs, vert, |s| baked.weights[s as usize]);
            let p = rows_transform_point(&m, p);
            bounds.add_point(p);
            let err = (p - *expected).length();
            if err > worst.abs || !err.is_finite() {
                worst = ErrorSite {
                    abs: err,
                    rel: 0.0,
                    clip: clip.map(str::to_owned),
                    time: t,
                    source,
                    vertex: v,
                };
            }
        }
    }
    (bounds, worst)
}
