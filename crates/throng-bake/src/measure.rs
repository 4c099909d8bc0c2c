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
    let bones = src.entries.len();
    let slots = mesh.morphs.slots.len();
    let between = crate::rate::between_samples(n, src.duration, src.keys);
    let mut rows = Vec::with_capacity(n as usize * bones * 3);
    let mut weights = Vec::with_capacity(n as usize * slots);
    let mut frame_weights = Vec::with_capacity(slots);
    let mut root_keys = Vec::with_capacity(n as usize);
    // (time, in-place correction, frames and weight) of every measurement.
    let mut jobs: Vec<(f32, Mat4, FramePair)> = Vec::with_capacity(n as usize + between.len());
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
        jobs.push((t, correction, FramePair::single(k)));
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
            jobs.push((t, correction, map.frames_at(t)));
        }
    }
    let measured: std::borrow::Cow<[[f32; 4]]> = match precision {
        TexelFormat::F32 => std::borrow::Cow::Borrowed(&rows),
        TexelFormat::F16 => std::borrow::Cow::Owned(
            rows.iter()
                .map(|r| quantise((*r).into(), precision).to_array())
                .collect(),
        ),
    };
    let row = |f: u32, b: usize| -> Rows3x4 {
        let i = (f as usize * bones + b) * 3;
        [
            measured[i].into(),
            measured[i + 1].into(),
            measured[i + 2].into(),
        ]
    };
    let name = src.clip.name.as_str();
    // Progress in frames: the measurements are spread over the clip's frames.
    let per_frame = (jobs.len() as u64).div_ceil(n as u64).max(1);
    let results = par_map(
        jobs.len(),
        &|j| {
            let (t, correction, pair) = jobs[j];
            let mut globals = src.eval.globals(Some(src.clip), t);
            if correction != Mat4::IDENTITY {
                // In-place clips: the reference is corrected the same way.
                for g in globals.iter_mut() {
                    *g = correction * *g;
                }
            }
            let palette: Vec<Rows3x4> = (0..bones)
                .map(|b| rows_lerp(&row(pair.frame0, b), &row(pair.frame1, b), pair.t))
                .collect();
            let mut reference_weights = Vec::with_capacity(slots);
            crate::morph::weights_at(scene, Some(src.clip), t, &mut reference_weights);
            let (w0, w1) = (pair.frame0 as usize * slots, pair.frame1 as usize * slots);
            let baked_weights: Vec<f32> = (0..slots)
                .map(|s| {
                    let a = weights[w0 + s];
                    a + (weights[w1 + s] - a) * pair.t
                })
                .collect();
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
                Some(name),
                t,
            )
        },
        &mut |d| progress(d / per_frame),
    );
    let mut frame_bounds = Vec::with_capacity(n as usize);
    let (mut at_frames, mut worst_between) = (ErrorSite::default(), ErrorSite::default());
    for ((_, _, pair), (bounds, site)) in jobs.iter().zip(results) {
        let worst = if pair.frame0 == pair.frame1 {
            frame_bounds.push(bounds);
            &mut at_frames
        } else {
            &mut worst_between
        };
        if site.abs > worst.abs || !site.abs.is_finite() {
            *worst = site;
        }
    }
    ClipBake {
        rows,
        weights,
        root_keys,
        frame_bounds,
        at_frames,
        between: worst_between,
    }
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
