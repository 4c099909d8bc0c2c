//! The bake's options and the types every stage shares: [`BakeOptions`]
//! (with its canonical text for provenance), [`RootMotionSource`] and the
//! [`Progress`] callback. Below every stage: it imports none of them, so the
//! stages and the driver (`bake.rs`) import it and the arrows run one way.

use throng_core::limits::{
    DEFAULT_FPS, DEFAULT_MAX_BAKE_BYTES, DEFAULT_MAX_ERROR, MAX_FPS, MAX_LAYER_SIZE,
};
use throng_core::model::TexelFormat;
use throng_core::texture_codec::{DEFAULT_IMAGE_CODEC, TextureCodec};

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
    /// Animation libraries: glTF files whose clips are baked onto the
    /// model too, retargeted by joint name ([`crate::retarget`],
    /// [`crate::bake_file`]).
    pub clips_from: Vec<std::path::PathBuf>,
    /// Library joint names mapped to the model's, for the joints whose
    /// names do not match ([`crate::retarget::BoneMap`]).
    pub bone_map: Option<std::path::PathBuf>,
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
    /// How the materials' images are stored, every mip level
    /// ([`crate::images`]). Default [`DEFAULT_IMAGE_CODEC`] (BC7).
    pub texture_codec: TextureCodec,
    /// Fewest frames of the clips of these names: the error-bounded search
    /// starts there (and may still go higher). Set by a bake of several
    /// bodies with shared clips (`throng_pipeline::Settings::shared_clips`),
    /// so that bodies of one build bake the same frames and share one bone
    /// texture on the GPU. Not in [`Self::canonical`]: it follows from the
    /// other bodies of that bake, whose setting the provenance records;
    /// leaving it out keeps an output up to date when the bake runs again.
    pub min_clip_frames: Vec<(String, u32)>,
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

impl BakeOptions {
    /// The options as canonical text, the same for the same options: what a
    /// bake's [`throng_core::provenance::Provenance`] records (the events,
    /// library and LOD files by name; their contents are hashed as inputs).
    /// The libraries and the bone map are named only when given, so a bake
    /// without them keeps the text it had before they existed.
    pub fn canonical(&self) -> String {
        let mut text = self.canonical_base();
        if !self.clips_from.is_empty() {
            let files: Vec<String> = self
                .clips_from
                .iter()
                .map(|p| format!("{:?}", p.display().to_string()))
                .collect();
            text.push_str(&format!(" clips_from=[{}]", files.join(",")));
        }
        if let Some(map) = &self.bone_map {
            text.push_str(&format!(" bone_map={:?}", map.display().to_string()));
        }
        text
    }

    /// The fewest frames [`Self::min_clip_frames`] asks of clip `name` (0:
    /// none).
    pub fn min_frames_of(&self, name: &str) -> u32 {
        self.min_clip_frames
            .iter()
            .filter(|(n, _)| n == name)
            .map(|&(_, f)| f)
            .max()
            .unwrap_or(0)
    }

    /// [`Self::canonical`] of the options every bake has.
    fn canonical_base(&self) -> String {
        let list = |v: &[f32]| {
            v.iter()
                .map(|x| format!("{x:?}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        let names = |v: &[std::path::PathBuf]| {
            v.iter()
                .map(|p| format!("{:?}", p.display().to_string()))
                .collect::<Vec<_>>()
                .join(",")
        };
        format!(
            "fps={:?} max_error={:?} max_fps={:?} precision={} max_layer_size={} clips={} root_motion={} events={} lod_files=[{}] lod_ratios=[{}] lod_screen_sizes={} max_bake_bytes={} allow_outside_uris={} texture_codec={}",
            self.fps,
            self.max_error,
            self.max_fps,
            match self.precision {
                TexelFormat::F32 => "full",
                TexelFormat::F16 => "half",
            },
            self.max_layer_size,
            match &self.clips {
                None => "all".to_owned(),
                Some(c) => format!("{c:?}"),
            },
            match &self.root_motion {
                None => "none".to_owned(),
                Some(RootMotionSource::SkeletonRoot) => "skeleton-root".to_owned(),
                Some(RootMotionSource::Node(n)) => format!("node:{n:?}"),
            },
            match &self.events_file {
                None => "sidecar".to_owned(),
                Some(p) => format!("{:?}", p.display().to_string()),
            },
            names(&self.lod_files),
            list(&self.lod_ratios),
            match &self.lod_screen_sizes {
                None => "default".to_owned(),
                Some(v) => format!("[{}]", list(v)),
            },
            self.max_bake_bytes,
            self.allow_outside_uris,
            self.texture_codec.name()
        )
    }
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
            clips_from: Vec::new(),
            bone_map: None,
            lod_files: Vec::new(),
            lod_ratios: Vec::new(),
            lod_screen_sizes: None,
            max_bake_bytes: DEFAULT_MAX_BAKE_BYTES,
            min_clip_frames: Vec::new(),
            allow_outside_uris: false,
            texture_codec: DEFAULT_IMAGE_CODEC,
        }
    }
}

/// Progress callback: `(done, total)` in frames processed; called from the
/// threads that bake clips.
pub type Progress<'a> = &'a (dyn Fn(u64, u64) + Sync);
