//! [`Scene`] → [`BakedModel`]: palette construction, clip sampling into the
//! bone texture, vertex conversion, bounds, and the bake's own error check
//! against the CPU reference.
//!
//! # Palette (docs/DESIGN.md#palette-matrices)
//! A palette entry is `(node, inverse_bind)`; its matrix at a frame is
//! `G_node · inverse_bind`. Skin joints give entries with their skin's inverse
//! binds; a mesh without a skin gives the entry `(node, G_node(rest)⁻¹)` and
//! its vertices are pre-transformed by `G_node(rest)`, so rigid props under a
//! bone, robot parts and static meshes all become single-bone skinned meshes.
//! Entries are shared only when node and inverse bind are bit-equal.
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
//! [`BakeOptions::max_bake_bytes`] (or over [`MAX_CLIPS`] clips) is refused
//! naming its longest clip: a hostile key time cannot make the baker run for
//! minutes and fill memory. The frames the error bound adds come out of what
//! the budget has left.

use std::collections::HashMap;

use crate::reference::skin_positions;
use crate::sample::PoseEvaluator;
use crate::scene::{Primitive, Scene};
use glam::{Mat4, Vec2, Vec3};
use throng_core::baked::blend_matrix;
use throng_core::layout::{FrameMap, FramePair, TextureLayout, clip_frame_count, frame_time};
use throng_core::limits::{
    DEFAULT_FPS, DEFAULT_MAX_BAKE_BYTES, DEFAULT_MAX_ERROR, MAX_BONES, MAX_CLIPS, MAX_FILE_SIZE,
    MAX_FPS, MAX_INFLUENCES, MAX_LAYER_SIZE, REST_FRAME, TEXELS_PER_MATRIX,
};
use throng_core::math::{
    Aabb, Rows3x4, mat4_to_rows, rows_lerp, rows_transform_normal, rows_transform_point,
};
use throng_core::model::{
    BakedModel, BakedVertex, Bone, BoneTexture, ClipError, ClipEvent, ClipInfo, Lod, RootMotionKey,
    SUBMESH_GENERATED_NORMALS, Submesh, TexelFormat, Texels,
};

use crate::error::BakeError;

/// Weights whose sum differs from 1 by more than this are counted as
/// "renormalised" in the report (all weights are renormalised regardless).
/// 2/255: two steps of an 8-bit normalised weight.
pub const WEIGHT_SUM_TOLERANCE: f32 = 2.0 / 255.0;

/// Options of a bake.
#[derive(Clone, Debug, PartialEq)]
pub struct BakeOptions {
    /// Base (lowest) sampling rate in frames per second, `(0, MAX_FPS]`:
    /// every clip gets at least `max(2, round(D·fps) + 1)` frames.
    pub fps: f32,
    /// Bound on the skinned-vertex error between frames, relative to the
    /// bounding radius, finite and > 0: a clip's rate is raised above `fps`
    /// (up to `max_fps`) until its measured error is within it.
    pub max_error: f32,
    /// Highest rate the error bound may raise a clip to, `[fps, MAX_FPS]`.
    pub max_fps: f32,
    /// Texel precision.
    pub precision: TexelFormat,
    /// Largest layer side, `1..=MAX_LAYER_SIZE`.
    pub max_layer_size: u32,
    /// Clips to bake by name, in the order given (`None` = all, file order).
    pub clips: Option<Vec<String>>,
    /// Bake every clip in place and store its root motion (`None`: off).
    pub root_motion: Option<RootMotionSource>,
    /// Events file for [`crate::bake_file`] (`None`: `MODEL.events.json`
    /// beside the model, if it exists).
    pub events_file: Option<std::path::PathBuf>,
    /// glTF files whose meshes become LODs 1, 2, … ([`crate::bake_file`]).
    pub lod_files: Vec<std::path::PathBuf>,
    /// Generate further LODs by simplifying LOD 0 to these triangle ratios.
    pub lod_ratios: Vec<f32>,
    /// Smallest projected screen-height fraction of each LOD (one per LOD,
    /// non-increasing; `None`: [`crate::lod::default_screen_sizes`]).
    pub lod_screen_sizes: Option<Vec<f32>>,
    /// Bake budget in bytes: a bake whose estimated size (bone texture,
    /// per-frame bounds and root motion, meshes, images), computed before
    /// anything is sampled, exceeds it is refused. Default
    /// [`DEFAULT_MAX_BAKE_BYTES`].
    pub max_bake_bytes: u64,
    /// [`crate::bake_file`]: read buffer and image URIs outside the model's
    /// folder ([`crate::ImportOptions::allow_outside_uris`]). Off by default.
    pub allow_outside_uris: bool,
}

/// Which node's motion becomes root motion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RootMotionSource {
    /// The root joint of the first skin (the joint no other joint of that
    /// skin is an ancestor of).
    SkeletonRoot,
    /// A node by name.
    Node(String),
}

impl Default for BakeOptions {
    fn default() -> Self {
        Self {
            fps: DEFAULT_FPS,
            max_error: DEFAULT_MAX_ERROR,
            max_fps: MAX_FPS,
            precision: TexelFormat::F32,
            max_layer_size: MAX_LAYER_SIZE,
            clips: None,
            root_motion: None,
            events_file: None,
            lod_files: Vec::new(),
            lod_ratios: Vec::new(),
            lod_screen_sizes: None,
            max_bake_bytes: DEFAULT_MAX_BAKE_BYTES,
            allow_outside_uris: false,
        }
    }
}

/// Influence statistics of the vertex conversion.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InfluenceStats {
    /// Vertices that had more than 4 non-zero influences.
    pub vertices_truncated: usize,
    /// Largest single weight dropped (after normalising the source weights).
    pub max_dropped_weight: f32,
    /// Vertices whose weights did not sum to 1 (± [`WEIGHT_SUM_TOLERANCE`]).
    pub vertices_renormalised: usize,
    /// Vertices whose weights summed to 0, bound to their skin's first joint.
    pub vertices_zero_weight: usize,
}

/// Where the largest bake error was measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ErrorSite {
    /// Largest distance between baked and reference positions, model units.
    pub abs: f32,
    /// The same relative to the model's bounding radius.
    pub rel: f32,
    /// Clip name (`None` for the rest pose).
    pub clip: Option<String>,
    /// Clip time in seconds.
    pub time: f32,
    /// Source node, mesh and primitive of the vertex.
    pub source: (u32, u32, u32),
    /// Vertex index in the source primitive.
    pub vertex: usize,
}

/// One baked clip, for the summary.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipSummary {
    /// Name.
    pub name: String,
    /// Duration, seconds.
    pub duration: f32,
    /// Frames baked.
    pub frames: u32,
    /// Frames the base rate (`--fps`) alone would have given.
    pub base_frames: u32,
    /// The clip's rate, `(frames − 1) / duration` (0 for one frame).
    pub fps: f32,
    /// Bytes of bone texture the clip takes.
    pub bytes: u64,
    /// Worst error at the frame times.
    pub error_at_frames: ErrorSite,
    /// Worst error between frames (midpoints and source key times).
    pub error_between: ErrorSite,
    /// Both errors are within `--max-error`.
    pub within_bound: bool,
}

/// What a bake did: the summary table of `throng bake`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BakeReport {
    /// Warnings from import and bake.
    pub warnings: Vec<String>,
    /// Clips baked.
    pub clips: Vec<ClipSummary>,
    /// Palette size.
    pub bones: u32,
    /// Frames in the table (rest frame included).
    pub frames: u32,
    /// Texture layout.
    pub texture: Option<TextureLayout>,
    /// Bytes of texels stored (tight).
    pub texture_bytes: u64,
    /// Vertices baked.
    pub vertices: usize,
    /// Triangles baked.
    pub triangles: usize,
    /// Submeshes.
    pub submeshes: usize,
    /// Influence statistics.
    pub influences: InfluenceStats,
    /// Largest baked-vs-reference error at frame times.
    pub error: ErrorSite,
    /// Largest baked-vs-reference error between frames, over all clips.
    pub error_between: ErrorSite,
    /// The bound the bake aimed for (`--max-error`).
    pub max_error: f32,
    /// Bounding radius of the model.
    pub bounding_radius: f32,
    /// Events baked.
    pub events: usize,
    /// Node whose motion was baked as root motion.
    pub root_motion_node: Option<String>,
    /// Per LOD: (triangles, vertices, smallest screen size).
    pub lods: Vec<(usize, usize, f32)>,
    /// The size estimated before sampling and checked against
    /// [`BakeOptions::max_bake_bytes`]: bone texture, per-frame bounds and
    /// root motion, LOD 0's vertices and indices, images.
    pub estimated_bytes: u64,
}

/// Progress callback: `(done, total)` in frames processed.
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64);

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
    scene.validate()?;
    check_options(opts)?;
    let clip_ids = select_clips(scene, opts)?;
    if clip_ids.len() > MAX_CLIPS as usize {
        return Err(BakeError::TooBig(format!(
            "{}: {} clips, more than the {MAX_CLIPS} a model can hold; bake fewer with --clips",
            scene.name,
            clip_ids.len()
        )));
    }
    let eval = PoseEvaluator::new(scene);
    let rest = eval.globals(None, 0.0);
    let mut report = BakeReport::default();

    // 1. Palette and vertices.
    let mut palette = Palette::default();
    let lod0 = convert_meshes(
        scene,
        &rest,
        &mut |node, ibm| palette.add(node, ibm),
        &mut report,
    )?;
    if lod0.submeshes.is_empty() || lod0.vertices.is_empty() {
        return Err(BakeError::Empty(format!(
            "{}: the default scene draws no triangle mesh; nothing to bake",
            scene.name
        )));
    }
    let bone_count = palette.entries.len() as u32;

    // 2. Frame counts at the base rate; a bake whose texture cannot fit in
    // a loadable .throng file is refused before anything is allocated (a
    // long clip could otherwise ask for terabytes). Texels are staged as f32
    // (16 bytes each) whatever the precision.
    let base_frames: Vec<u32> = clip_ids
        .iter()
        .map(|&c| clip_frame_count(scene.clips[c].duration(), opts.fps))
        .collect();
    let base_total: u64 = 1 + base_frames.iter().map(|&n| n as u64).sum::<u64>();
    let estimate = check_budget(
        scene,
        &clip_ids,
        &base_frames,
        bone_count,
        (lod0.vertices.len(), lod0.indices.len()),
        opts,
    )?;
    report.estimated_bytes = estimate.total();
    let frame_bytes = bone_count as u64 * 3 * TexelFormat::F32.texel_size() as u64;
    let staged_bytes = base_total.saturating_mul(frame_bytes);
    if base_total > u32::MAX as u64 || staged_bytes > MAX_FILE_SIZE {
        return Err(BakeError::TooBig(format!(
            "{base_total} frames × {bone_count} bones need {staged_bytes} bytes of bone texture, more than the {MAX_FILE_SIZE}-byte file limit; lower --fps or bake fewer --clips"
        )));
    }
    // Frames the error-bounded search may add, all clips together, within
    // the file limit and what the bake budget has left.
    let mut spare_frames = ((MAX_FILE_SIZE / frame_bytes.max(1)).min(u32::MAX as u64) - base_total)
        .min(opts.max_bake_bytes.saturating_sub(estimate.total()) / estimate.per_frame.max(1));
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
    let mut search_bounds = rest_bounds;
    for (&c, &n) in clip_ids.iter().zip(&base_frames) {
        let clip = &scene.clips[c];
        let source = crate::rate::ClipSource {
            eval: &eval,
            clip,
            duration: clip.duration(),
            keys: &[],
            entries: &palette.entries,
            root: root_node,
        };
        search_bounds = search_bounds.union(&source.probe_bounds(n, &probes));
    }
    let target = opts.max_error * search_bounds.radius();
    let mut frame_bounds = vec![rest_bounds];
    let mut root_keys = vec![RootMotionKey::default()];
    let mut worst = rest_worst;
    let mut clips = Vec::new();
    let mut sites = Vec::new();
    let mut work_done = 1u64;
    for (i, &c) in clip_ids.iter().enumerate() {
        let clip = &scene.clips[c];
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
        let n_max = clip_frame_count(duration, opts.max_fps)
            .max(n_min)
            .min(n_min.saturating_add(spare_frames.min(u32::MAX as u64) as u32));
        let mut search_target = target;
        let (mut n, mut estimate) = source.choose(n_min, n_max, search_target, &probes);
        let mut refinements = 0;
        let baked = loop {
            let remaining: u64 = base_frames[i + 1..].iter().map(|&n| n as u64).sum();
            let total = work_done + n as u64 + remaining;
            let b = bake_clip(scene, &source, n, &lod0, opts.precision, &mut |d| {
                progress(work_done + d, total)
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
        work_done += n as u64;
        spare_frames -= (n - n_min) as u64;
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
        events: select_events(scene, &clip_ids),
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

/// One clip sampled at a frame count and measured.
struct ClipBake {
    /// Palette rows of every frame (f32, before any quantisation).
    rows: Vec<[f32; 4]>,
    /// Root-motion key of every frame (zero without root motion).
    root_keys: Vec<RootMotionKey>,
    /// Box of the skinned vertices at every frame.
    frame_bounds: Vec<Aabb>,
    /// Worst error at the frame times (`rel` not yet set).
    at_frames: ErrorSite,
    /// Worst error between frames (`rel` not yet set).
    between: ErrorSite,
}

/// The rate of a clip of `n` frames: `(n − 1) / D`, 0 for a single frame.
pub fn clip_rate(n: u32, duration: f32) -> f32 {
    if n > 1 && duration > 0.0 {
        (n - 1) as f32 / duration
    } else {
        0.0
    }
}

/// `x` as the texture will return it.
fn quantise(x: glam::Vec4, precision: TexelFormat) -> glam::Vec4 {
    match precision {
        TexelFormat::F32 => x,
        TexelFormat::F16 => x.to_array().map(|v| half::f16::from_f32(v).to_f32()).into(),
    }
}

/// Node globals of `clip` at time `t`; with a root-motion node, made in
/// place by `extractor` (created at the first call), returning the key.
pub(crate) fn clip_globals(
    eval: &PoseEvaluator,
    clip: &crate::scene::Clip,
    t: f32,
    root: Option<u32>,
    extractor: &mut Option<RootExtractor>,
    locals: &mut Vec<Mat4>,
    globals: &mut Vec<Mat4>,
) -> (RootMotionKey, Mat4) {
    eval.locals(Some(clip), t, locals);
    eval.globals_from_locals(locals, globals);
    let Some(r) = root else {
        return (RootMotionKey::default(), Mat4::IDENTITY);
    };
    let x = extractor.get_or_insert_with(|| RootExtractor::new(&globals[r as usize]));
    let (key, correction) = x.frame(&globals[r as usize]);
    for g in globals.iter_mut() {
        *g = correction * *g;
    }
    (key, correction)
}

/// Samples a clip at `n` frames and measures the result, as the texture will
/// hold it, against the reference at every frame and at every
/// [between-frame sample](crate::rate::between_samples). `progress` hears
/// how many frames' worth of measurements are done.
fn bake_clip(
    scene: &Scene,
    src: &crate::rate::ClipSource,
    n: u32,
    lod: &Lod,
    precision: TexelFormat,
    progress: &mut dyn FnMut(u64),
) -> ClipBake {
    let bones = src.entries.len();
    let between = crate::rate::between_samples(n, src.duration, src.keys);
    let mut rows = Vec::with_capacity(n as usize * bones * 3);
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
            measure_pose(scene, &globals, lod, &palette, Some(name), t)
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
        root_keys,
        frame_bounds,
        at_frames,
        between: worst_between,
    }
}

/// `f(0..count)` spread over the cores, in order; `progress` hears how many
/// are done (from the calling thread).
fn par_map<T: Send>(
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
/// baked `palette` (already interpolated) skins LOD `lod` as the shader does;
/// `globals` give the reference.
fn measure_pose(
    scene: &Scene,
    globals: &[Mat4],
    lod: &Lod,
    palette: &[Rows3x4],
    clip: Option<&str>,
    t: f32,
) -> (Aabb, ErrorSite) {
    thread_local! {
        /// Per thread: joint matrices and skinned positions, reused by every
        /// measurement.
        static SCRATCH: std::cell::RefCell<(Vec<Rows3x4>, Vec<Vec<Vec3>>)> =
            const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
    }
    SCRATCH.with_borrow_mut(|(joints, reference)| {
        skin_positions(scene, globals, joints, reference);
        measure_against(scene, lod, palette, reference, clip, t)
    })
}

/// [`measure_pose`] once the reference positions are known.
fn measure_against(
    scene: &Scene,
    lod: &Lod,
    palette: &[Rows3x4],
    reference: &[Vec<Vec3>],
    clip: Option<&str>,
    t: f32,
) -> (Aabb, ErrorSite) {
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
            let p = rows_transform_point(&m, Vec3::from(vert.position));
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

/// Resolves the root-motion node.
fn root_motion_node(scene: &Scene, src: &RootMotionSource) -> Result<u32, BakeError> {
    match src {
        RootMotionSource::Node(name) => scene
            .nodes
            .iter()
            .position(|n| &n.name == name)
            .map(|i| i as u32)
            .ok_or_else(|| BakeError::RootMotion(format!("no node named {name:?}"))),
        RootMotionSource::SkeletonRoot => {
            let skin = scene.skins.first().ok_or_else(|| {
                BakeError::RootMotion(
                    "the model has no skin, so no skeleton root; name the node: --root-motion NODE"
                        .into(),
                )
            })?;
            skin.joints
                .iter()
                .copied()
                .find(|&j| {
                    // No ancestor of j is a joint of this skin.
                    let mut p = scene.nodes[j as usize].parent;
                    while let Some(a) = p {
                        if skin.joints.contains(&a) {
                            return false;
                        }
                        p = scene.nodes[a as usize].parent;
                    }
                    true
                })
                .ok_or_else(|| BakeError::RootMotion("the first skin has no root joint".into()))
        }
    }
}

/// Extracts root motion clip by clip: the root's horizontal position `p` and
/// its heading (yaw about +y) relative to the clip's first frame.
///
/// Key `k` is `E_k = T(p_k − R_y(θ_k)·p₀) · R_y(θ_k)`, the motion since the
/// first frame pivoting about the root's start; the in-place correction
/// `C_k = T(p₀) · R_y(−θ_k) · T(−p_k)` keeps the root's horizontal position
/// and heading at their first-frame values, so `E_k · C_k = I` and
/// `world · E_k · (C_k · G_k) = world · G_k` reproduces the original motion.
#[derive(Clone, Debug)]
pub(crate) struct RootExtractor {
    p0: Vec3,
    /// Which column of the root's matrix serves as its heading.
    axis: usize,
    heading0: f32,
    last_yaw: f32,
}

impl RootExtractor {
    fn new(g0: &Mat4) -> Self {
        let cols = [g0.x_axis, g0.y_axis, g0.z_axis];
        let flat = |v: glam::Vec4| Vec3::new(v.x, 0.0, v.z).length();
        let axis = (0..3)
            .max_by(|&a, &b| flat(cols[a]).total_cmp(&flat(cols[b])))
            .unwrap_or(2);
        let heading0 = heading(&cols[axis]);
        Self {
            p0: horizontal(g0),
            axis,
            heading0,
            last_yaw: 0.0,
        }
    }

    fn frame(&mut self, g: &Mat4) -> (RootMotionKey, Mat4) {
        let col = [g.x_axis, g.y_axis, g.z_axis][self.axis];
        let mut yaw = if Vec3::new(col.x, 0.0, col.z).length() > 1e-6 {
            heading(&col) - self.heading0
        } else {
            self.last_yaw // the heading axis is vertical: keep the last yaw
        };
        // Continuous: no jump of 2π between frames.
        while yaw - self.last_yaw > std::f32::consts::PI {
            yaw -= std::f32::consts::TAU;
        }
        while yaw - self.last_yaw < -std::f32::consts::PI {
            yaw += std::f32::consts::TAU;
        }
        self.last_yaw = yaw;
        let p = horizontal(g);
        let rot = glam::Quat::from_rotation_y(yaw);
        let key = RootMotionKey {
            translation: (p - rot * self.p0).to_array(),
            yaw,
        };
        let correction = Mat4::from_translation(self.p0)
            * Mat4::from_quat(rot.inverse())
            * Mat4::from_translation(-p);
        (key, correction)
    }
}

fn horizontal(g: &Mat4) -> Vec3 {
    Vec3::new(g.w_axis.x, 0.0, g.w_axis.z)
}

/// Heading of a direction about +y: the angle `θ` with `R_y(θ)·ẑ` along it.
fn heading(v: &glam::Vec4) -> f32 {
    v.x.atan2(v.z)
}

/// Events of the baked clips, renumbered to baked clip order, sorted by clip
/// then time.
fn select_events(scene: &Scene, clip_ids: &[usize]) -> Vec<ClipEvent> {
    let mut out: Vec<ClipEvent> = scene
        .events
        .iter()
        .filter_map(|e| {
            let c = clip_ids.iter().position(|&id| id == e.clip as usize)?;
            Some(ClipEvent {
                clip: c as u32,
                ..e.clone()
            })
        })
        .collect();
    out.sort_by(|a, b| {
        (a.clip, a.time)
            .partial_cmp(&(b.clip, b.time))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    out
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

/// Converts every mesh instance of `scene` to baked vertices: skinned
/// primitives keep their bind-pose vertices with joints mapped through
/// `bind(joint node, inverse bind)`; rigid ones are pre-transformed by their
/// node's rest global and bound to `bind(node, rest⁻¹)`.
pub(crate) fn convert_meshes(
    scene: &Scene,
    rest: &[Mat4],
    bind: &mut dyn FnMut(u32, Mat4) -> Result<u16, BakeError>,
    report: &mut BakeReport,
) -> Result<Lod, BakeError> {
    let mut vertices: Vec<BakedVertex> = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    let mut submeshes: Vec<Submesh> = Vec::new();
    let mut skin_maps: HashMap<u32, Vec<u16>> = HashMap::new();
    for inst in &scene.instances {
        let mesh = &scene.meshes[inst.mesh as usize];
        let binding = match inst.skin {
            Some(s) => {
                let map = match skin_maps.get(&s) {
                    Some(m) => m.clone(),
                    None => {
                        let skin = &scene.skins[s as usize];
                        let mut map = Vec::with_capacity(skin.joints.len());
                        for (&j, ibm) in skin.joints.iter().zip(&skin.inverse_binds) {
                            map.push(bind(j, *ibm)?);
                        }
                        skin_maps.insert(s, map.clone());
                        map
                    }
                };
                Binding::Skinned(map)
            }
            None => {
                let g = rest[inst.node as usize];
                let inv = g.inverse();
                if g.determinant().abs() > f32::MIN_POSITIVE && inv.is_finite() {
                    Binding::Rigid {
                        entry: bind(inst.node, inv)?,
                        model_from_mesh: g,
                    }
                } else {
                    report.warnings.push(format!(
                        "node {} ({}) has a singular rest transform; its mesh is baked in node space",
                        inst.node, scene.nodes[inst.node as usize].name
                    ));
                    Binding::Rigid {
                        entry: bind(inst.node, Mat4::IDENTITY)?,
                        model_from_mesh: Mat4::IDENTITY,
                    }
                }
            }
        };
        for prim in &mesh.primitives {
            let base_vertex = vertices.len() as u32;
            let generated = prim.normals.is_none();
            let normals = prim.normals.clone().unwrap_or_else(|| smooth_normals(prim));
            for v in 0..prim.vertex_count() {
                let uv = prim.uvs.as_ref().map_or(Vec2::ZERO, |u| u[v]);
                let (position, normal, joints, weights) = match &binding {
                    Binding::Skinned(map) => {
                        let (j, w) = convert_influences(prim, v, map, &mut report.influences);
                        (prim.positions[v], normals[v], j, w)
                    }
                    Binding::Rigid {
                        entry,
                        model_from_mesh,
                    } => {
                        let rows = mat4_to_rows(model_from_mesh);
                        (
                            rows_transform_point(&rows, prim.positions[v]),
                            rows_transform_normal(&rows, normals[v]),
                            [*entry, 0, 0, 0],
                            [1.0, 0.0, 0.0, 0.0],
                        )
                    }
                };
                vertices.push(BakedVertex {
                    position: position.into(),
                    normal: normal.into(),
                    uv: uv.into(),
                    joints,
                    weights,
                });
            }
            let first_index = indices.len() as u32;
            indices.extend_from_slice(&prim.indices);
            submeshes.push(Submesh {
                material: prim.material,
                flags: if generated {
                    SUBMESH_GENERATED_NORMALS
                } else {
                    0
                },
                source_node: inst.node,
                source_mesh: inst.mesh,
                source_primitive: prim.index,
                base_vertex,
                vertex_count: prim.vertex_count() as u32,
                first_index,
                index_count: prim.indices.len() as u32,
            });
        }
    }
    Ok(Lod {
        screen_size: 0.0,
        vertices,
        indices,
        submeshes,
    })
}

enum Binding {
    Skinned(Vec<u16>),
    Rigid { entry: u16, model_from_mesh: Mat4 },
}

#[derive(Default)]
struct Palette {
    entries: Vec<(u32, Mat4)>,
    index: HashMap<(u32, [u32; 16]), u16>,
}

impl Palette {
    fn add(&mut self, node: u32, ibm: Mat4) -> Result<u16, BakeError> {
        let key = (node, ibm.to_cols_array().map(f32::to_bits));
        if let Some(&i) = self.index.get(&key) {
            return Ok(i);
        }
        if self.entries.len() >= MAX_BONES as usize {
            return Err(BakeError::TooBig(format!(
                "more than {MAX_BONES} palette entries"
            )));
        }
        let i = self.entries.len() as u16;
        self.entries.push((node, ibm));
        self.index.insert(key, i);
        Ok(i)
    }

    /// Node names, made unique when several entries share a node.
    fn names(&self, scene: &Scene) -> Vec<String> {
        let mut seen: HashMap<u32, usize> = HashMap::new();
        self.entries
            .iter()
            .map(|(node, _)| {
                let n = seen.entry(*node).or_insert(0);
                *n += 1;
                let base = &scene.nodes[*node as usize].name;
                if *n == 1 {
                    base.clone()
                } else {
                    format!("{base}#{n}")
                }
            })
            .collect()
    }

    /// First palette entry of the nearest proper ancestor of `node`.
    fn parent_of(&self, scene: &Scene, node: u32) -> Option<u32> {
        let mut cur = scene.nodes[node as usize].parent;
        while let Some(p) = cur {
            if let Some(i) = self.entries.iter().position(|(n, _)| *n == p) {
                return Some(i as u32);
            }
            cur = scene.nodes[p as usize].parent;
        }
        None
    }
}

/// Estimated bytes of a bake, from its frame counts alone (nothing sampled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BakeEstimate {
    /// Bytes stored per frame: the palette's texels, the frame's bounds and
    /// its root-motion key.
    per_frame: u64,
    /// Frames in the table, rest frame included.
    frames: u64,
    /// Bytes of vertices, indices and images.
    meshes: u64,
}

impl BakeEstimate {
    fn total(&self) -> u64 {
        self.frames
            .saturating_mul(self.per_frame)
            .saturating_add(self.meshes)
    }
}

/// Estimates a bake's size in bytes at the base rate and refuses it if that exceeds
/// `opts.max_bake_bytes`, naming the clip with the most frames
/// (docs/DESIGN.md#frames-and-time) as the largest offender.
fn check_budget(
    scene: &Scene,
    clip_ids: &[usize],
    clip_frames: &[u32],
    bone_count: u32,
    (vertex_count, index_count): (usize, usize),
    opts: &BakeOptions,
) -> Result<BakeEstimate, BakeError> {
    let texels_per_frame = bone_count as u64 * TEXELS_PER_MATRIX as u64;
    let estimate = BakeEstimate {
        per_frame: texels_per_frame * opts.precision.texel_size() as u64
            + size_of::<Aabb>() as u64
            + if opts.root_motion.is_some() {
                size_of::<RootMotionKey>() as u64
            } else {
                0
            },
        frames: 1 + clip_frames.iter().map(|&n| n as u64).sum::<u64>(),
        meshes: (vertex_count * size_of::<BakedVertex>() + index_count * size_of::<u32>()) as u64
            + scene
                .images
                .iter()
                .map(|i| i.bytes.len() as u64)
                .sum::<u64>(),
    };
    let total = estimate.total();
    if total <= opts.max_bake_bytes {
        return Ok(estimate);
    }
    let budget = opts.max_bake_bytes;
    let largest = clip_frames
        .iter()
        .enumerate()
        .max_by_key(|&(_, &n)| n)
        .map(|(i, &n)| {
            let clip = &scene.clips[clip_ids[i]];
            format!(
                "its longest clip, {:?}, lasts {} s: {n} frames at {} fps, {} on its own; ",
                clip.name,
                clip.duration(),
                opts.fps,
                show_bytes(n as u64 * estimate.per_frame)
            )
        })
        .unwrap_or_default();
    Err(BakeError::TooBig(format!(
        "{}: the bake would need about {} ({} frames × {bone_count} bones × {TEXELS_PER_MATRIX} texels, plus {} of meshes and images), more than the {} bake budget; {largest}lower --fps, bake fewer --clips, or raise --max-bake-bytes",
        scene.name,
        show_bytes(total),
        estimate.frames,
        show_bytes(estimate.meshes),
        show_bytes(budget)
    )))
}

/// `n` bytes, with a binary unit for large sizes.
fn show_bytes(n: u64) -> String {
    const KIB: u64 = 1 << 10;
    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    match n {
        n if n >= GIB => format!("{:.2} GiB ({n} bytes)", n as f64 / GIB as f64),
        n if n >= MIB => format!("{:.2} MiB ({n} bytes)", n as f64 / MIB as f64),
        n if n >= KIB => format!("{:.1} KiB ({n} bytes)", n as f64 / KIB as f64),
        n => format!("{n} bytes"),
    }
}

fn check_options(opts: &BakeOptions) -> Result<(), BakeError> {
    if opts.max_bake_bytes == 0 {
        return Err(BakeError::Option(
            "--max-bake-bytes 0 would refuse every bake".into(),
        ));
    }
    if !(opts.fps > 0.0 && opts.fps <= MAX_FPS) {
        return Err(BakeError::Option(format!(
            "--fps {} is outside (0, {MAX_FPS}]",
            opts.fps
        )));
    }
    if !(opts.max_fps >= opts.fps && opts.max_fps <= MAX_FPS) {
        return Err(BakeError::Option(format!(
            "--max-fps {} is outside [--fps {}, {MAX_FPS}]",
            opts.max_fps, opts.fps
        )));
    }
    if !(opts.max_error.is_finite() && opts.max_error > 0.0) {
        return Err(BakeError::Option(format!(
            "--max-error {} is not a finite number > 0 (a fraction of the bounding radius, e.g. 1e-3)",
            opts.max_error
        )));
    }
    if let Some(r) = opts.lod_ratios.iter().find(|r| !(**r > 0.0 && **r < 1.0)) {
        return Err(BakeError::Option(format!(
            "LOD ratio {r} is outside (0, 1)"
        )));
    }
    if let Some(sizes) = &opts.lod_screen_sizes {
        let ok = sizes.iter().all(|s| s.is_finite() && *s >= 0.0)
            && sizes.windows(2).all(|w| w[0] >= w[1]);
        if !ok {
            return Err(BakeError::Option(format!(
                "LOD screen sizes {sizes:?} must be finite, non-negative and non-increasing"
            )));
        }
    }
    if !(1..=MAX_LAYER_SIZE).contains(&opts.max_layer_size) {
        return Err(BakeError::Option(format!(
            "--max-layer-size {} is outside 1..={MAX_LAYER_SIZE}",
            opts.max_layer_size
        )));
    }
    Ok(())
}

fn select_clips(scene: &Scene, opts: &BakeOptions) -> Result<Vec<usize>, BakeError> {
    let Some(names) = &opts.clips else {
        return Ok((0..scene.clips.len()).collect());
    };
    names
        .iter()
        .map(|name| {
            scene
                .clips
                .iter()
                .position(|c| &c.name == name)
                .ok_or_else(|| BakeError::UnknownClip {
                    name: name.clone(),
                    available: scene
                        .clips
                        .iter()
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                })
        })
        .collect()
}

/// Converts a vertex's influences to palette indices: merges repeated joints,
/// keeps the 4 largest, renormalises, binds zero-sum vertices to joint 0.
fn convert_influences(
    prim: &Primitive,
    v: usize,
    map: &[u16],
    stats: &mut InfluenceStats,
) -> ([u16; 4], [f32; 4]) {
    let mut infl: Vec<(u16, f32)> = Vec::with_capacity(4);
    for (j, w) in prim.influences(v) {
        if w <= 0.0 {
            continue;
        }
        let p = map[j as usize];
        match infl.iter_mut().find(|(q, _)| *q == p) {
            Some(slot) => slot.1 += w,
            None => infl.push((p, w)),
        }
    }
    let total: f32 = infl.iter().map(|x| x.1).sum();
    if total <= 0.0 {
        stats.vertices_zero_weight += 1;
        return ([map[0], 0, 0, 0], [1.0, 0.0, 0.0, 0.0]);
    }
    if (total - 1.0).abs() > WEIGHT_SUM_TOLERANCE {
        stats.vertices_renormalised += 1;
    }
    // Stable sort by weight, largest first; ties keep source order.
    infl.sort_by(|a, b| b.1.total_cmp(&a.1));
    if infl.len() > MAX_INFLUENCES {
        stats.vertices_truncated += 1;
        let dropped = infl[MAX_INFLUENCES..]
            .iter()
            .map(|x| x.1)
            .fold(0.0, f32::max)
            / total;
        stats.max_dropped_weight = stats.max_dropped_weight.max(dropped);
        infl.truncate(MAX_INFLUENCES);
    }
    let kept: f32 = infl.iter().map(|x| x.1).sum();
    let mut joints = [0u16; 4];
    let mut weights = [0f32; 4];
    for (k, (j, w)) in infl.iter().enumerate() {
        joints[k] = *j;
        weights[k] = w / kept;
    }
    (joints, weights)
}

/// Area-weighted vertex normals, for primitives that have none.
fn smooth_normals(prim: &Primitive) -> Vec<Vec3> {
    let mut n = vec![Vec3::ZERO; prim.vertex_count()];
    for tri in prim.indices.chunks_exact(3) {
        let [a, b, c] = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
        let p = &prim.positions;
        let face = (p[b] - p[a]).cross(p[c] - p[a]);
        n[a] += face;
        n[b] += face;
        n[c] += face;
    }
    n.into_iter()
        .map(|v| v.try_normalize().unwrap_or(Vec3::Y))
        .collect()
}
