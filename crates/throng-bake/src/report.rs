//! What a bake did: the summary that `throng bake` prints and
//! `throng inspect` shows (per clip: rate, frames, bytes, errors), the
//! influence statistics, where the worst error was measured, and how long
//! each stage took.

use std::time::Duration;

use throng_core::layout::TextureLayout;

/// Influence statistics of the vertex conversion.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InfluenceStats {
    /// Vertices that had more than 4 non-zero influences.
    pub vertices_truncated: usize,
    /// Largest single weight dropped (after normalising the source weights).
    pub max_dropped_weight: f32,
    /// Vertices whose weights did not sum to 1 (± [`WEIGHT_SUM_TOLERANCE`](crate::bake::WEIGHT_SUM_TOLERANCE)).
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
    /// [`crate::options::BakeOptions::max_bake_bytes`]: bone texture, per-frame bounds and
    /// root motion, LOD 0's vertices and indices, images.
    pub estimated_bytes: u64,
    /// Wall-clock time of each stage, in the order they ran (`"import"`
    /// first from [`crate::bake_file`]; `bake.rs` lists the others): where
    /// a bake's time went. The only field that differs between two bakes of
    /// the same input.
    pub stages: Vec<StageTime>,
}

/// How long one stage of a bake took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageTime {
    /// The stage's name, e.g. `"sample and measure"`.
    pub stage: &'static str,
    /// Wall-clock time it took.
    pub time: Duration,
}

/// The rate of a clip of `n` frames: `(n − 1) / D`, 0 for a single frame.
pub fn clip_rate(n: u32, duration: f32) -> f32 {
    if n > 1 && duration > 0.0 {
        (n - 1) as f32 / duration
    } else {
        0.0
    }
}
