//! The budget stage: every clip's frame count at the base rate
//! ([`FramePlan`]), the bake's size estimated from those counts, the palette
//! and the meshes before anything is sampled, and refused over
//! [`BakeOptions::max_bake_bytes`] (naming its longest clip) or over the
//! file limit; then how many frames the error bound may add.

use crate::scene::Scene;
use throng_core::layout::clip_frame_count;
use throng_core::limits::{MAX_FILE_SIZE, TEXELS_PER_MATRIX};
use throng_core::math::Aabb;
use throng_core::model::{BakedVertex, RootMotionKey, TexelFormat};

use crate::error::BakeError;
use crate::mesh::Meshes;
use crate::options::BakeOptions;
use crate::selection::Selection;

/// The budget stage's output: the frames a bake starts from and how many
/// the error bound may add.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FramePlan {
    /// Each selected clip's frame count at the base rate (`--fps`).
    pub(crate) base_frames: Vec<u32>,
    /// Frames at the base rate, rest frame included.
    pub(crate) base_total: u64,
    /// The size estimated from them, checked against the budget.
    pub(crate) estimate: BakeEstimate,
    /// Frames the error-bounded search may add, all clips together, within
    /// the file limit and what the bake budget has left.
    pub(crate) spare_frames: u64,
}

/// Plans the frames of a bake of `selection` with `meshes`: a bake whose
/// texture cannot fit in a loadable .throng file is refused before anything
/// is allocated (a long clip could otherwise ask for terabytes), and so is
/// one over the bake budget ([`check_budget`]). Texels are staged as f32
/// (16 bytes each) whatever the precision.
pub(crate) fn plan_frames(
    scene: &Scene,
    selection: &Selection,
    meshes: &Meshes,
    opts: &BakeOptions,
) -> Result<FramePlan, BakeError> {
    let bone_count = meshes.bone_count();
    let base_frames: Vec<u32> = selection
        .clips(scene)
        .map(|clip| clip_frame_count(clip.duration(), opts.fps))
        .collect();
    let base_total: u64 = 1 + base_frames.iter().map(|&n| n as u64).sum::<u64>();
    let lod0 = &meshes.lod0;
    let estimate = check_budget(
        scene,
        &selection.clip_ids,
        &base_frames,
        bone_count,
        (lod0.vertices.len(), lod0.indices.len()),
        &meshes.morphs,
        opts,
    )?;
    let frame_bytes = bone_count as u64 * 3 * TexelFormat::F32.texel_size() as u64;
    let staged_bytes = base_total.saturating_mul(frame_bytes);
    if base_total > u32::MAX as u64 || staged_bytes > MAX_FILE_SIZE {
        return Err(BakeError::TooBig(format!(
            "{base_total} frames × {bone_count} bones need {staged_bytes} bytes of bone texture, more than the {MAX_FILE_SIZE}-byte file limit; lower --fps or bake fewer --clips"
        )));
    }
    let spare_frames = ((MAX_FILE_SIZE / frame_bytes.max(1)).min(u32::MAX as u64) - base_total)
        .min(opts.max_bake_bytes.saturating_sub(estimate.total()) / estimate.per_frame.max(1));
    Ok(FramePlan {
        base_frames,
        base_total,
        estimate,
        spare_frames,
    })
}

/// Estimated bytes of a bake, from its frame counts alone (nothing sampled).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BakeEstimate {
    /// Bytes stored per frame: the palette's texels, the frame's bounds,
    /// its root-motion key and its morph weights.
    pub(crate) per_frame: u64,
    /// Frames in the table, rest frame included.
    pub(crate) frames: u64,
    /// Bytes of vertices, indices, morph deltas and images.
    pub(crate) meshes: u64,
}

impl BakeEstimate {
    pub(crate) fn total(&self) -> u64 {
        self.frames
            .saturating_mul(self.per_frame)
            .saturating_add(self.meshes)
    }
}

/// Estimates a bake's size in bytes at the base rate and refuses it if that exceeds
/// `opts.max_bake_bytes`, naming the clip with the most frames
/// (docs/design/math.md#frames-and-time) as the largest offender.
pub(crate) fn check_budget(
    scene: &Scene,
    clip_ids: &[usize],
    clip_frames: &[u32],
    bone_count: u32,
    (vertex_count, index_count): (usize, usize),
    morphs: &throng_core::morph::Morphs,
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
            }
            + morphs.slots.len() as u64 * size_of::<f32>() as u64,
        frames: 1 + clip_frames.iter().map(|&n| n as u64).sum::<u64>(),
        meshes: (vertex_count * size_of::<BakedVertex>()
            + index_count * size_of::<u32>()
            + size_of_val(morphs.deltas.as_slice())) as u64
            + scene
                .images
                .iter()
                .map(|i| {
                    let codec = opts.texture_codec.for_size(i.width, i.height);
                    codec.chain_bytes(i.width, i.height)
                })
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
pub(crate) fn show_bytes(n: u64) -> String {
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
