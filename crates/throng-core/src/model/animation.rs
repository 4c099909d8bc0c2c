//! The skeleton and its baked animation: the palette's [`Bone`]s, each
//! clip's frame range, bounds and measured error ([`ClipInfo`],
//! [`ClipError`]), root motion and events per clip, and the bone-matrix
//! texture ([`BoneTexture`], its [`Texels`] in a [`TexelFormat`]).

use glam::{Mat4, Vec4};

use crate::layout::{FrameMap, FramePair, TextureLayout};
use crate::math::Aabb;

/// One palette entry ("bone"): a node and its inverse bind matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Bone {
    /// Name of the node.
    pub name: String,
    /// Index of the node in the source glTF.
    pub node: u32,
    /// Palette index of the nearest ancestor node that is also a palette
    /// entry (for skeleton drawing and bone queries).
    pub parent: Option<u32>,
    /// `bind_from_model`: maps bind-pose model space into the node's space.
    pub inverse_bind: Mat4,
    /// The node's global matrix in the rest pose.
    pub rest_global: Mat4,
}

/// One baked clip.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipInfo {
    /// Clip name.
    pub name: String,
    /// Duration in seconds (0 for a single-pose clip).
    pub duration: f32,
    /// First global frame.
    pub first_frame: u32,
    /// Number of frames.
    pub frame_count: u32,
    /// Box of all skinned vertices over all frames of the clip.
    pub bounds: Aabb,
    /// The clip was baked in place: its root's horizontal motion and yaw were
    /// removed from the pose and stored in
    /// [`BakedModel::root_motion`](super::BakedModel::root_motion).
    pub root_motion: bool,
    /// Skinned-vertex error of the bake measured for this clip.
    pub error: ClipError,
}

/// The error of one baked clip against the CPU reference, measured by the
/// baker on skinned vertex positions (docs/BAKE_ERROR.md). All values are
/// relative to [`BakedModel::bounding_radius`](super::BakedModel::bounding_radius).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClipError {
    /// Worst error at the baked frame times.
    pub at_frames: f32,
    /// Worst error between baked frames (frame interpolation as the shader
    /// does it), measured at every interval's midpoint and at the source's
    /// key times that fall between frames.
    pub between_frames: f32,
    /// The bound the clip was baked for (`--max-error`); 0 if unknown.
    pub max_error: f32,
}

/// Root motion of one frame: where the root has moved since the clip's first
/// frame, in the clip-start frame of model space. The transform is
/// `T(translation) · R_y(yaw)`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RootMotionKey {
    /// Horizontal displacement since frame 0 of the clip (y is 0).
    pub translation: [f32; 3],
    /// Rotation about +y since frame 0 of the clip, radians, continuous
    /// (not wrapped to ±π).
    pub yaw: f32,
}

/// A named event at a time of a clip.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipEvent {
    /// Clip index.
    pub clip: u32,
    /// Clip time in seconds, in `[0, duration]`.
    pub time: f32,
    /// Event name.
    pub name: String,
    /// Free-form payload (JSON text, empty when none).
    pub data: String,
}

impl ClipInfo {
    /// Baked frames and weight at clip time `time` (clamped to the clip).
    pub fn frames_at(&self, time: f32) -> FramePair {
        self.frame_map().frames_at(time)
    }

    /// The precomputed time-to-frame mapping.
    pub fn frame_map(&self) -> FrameMap {
        FrameMap::new(self.first_frame, self.frame_count, self.duration)
    }
}

/// Texel storage precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexelFormat {
    /// `Rgba32Float`, 16 bytes a texel.
    F32 = 0,
    /// `Rgba16Float`, 8 bytes a texel.
    F16 = 1,
}

impl TexelFormat {
    /// Bytes per texel.
    pub fn texel_size(self) -> usize {
        match self {
            Self::F32 => 16,
            Self::F16 => 8,
        }
    }

    /// From the file's code.
    pub fn from_code(code: u32) -> Option<Self> {
        match code {
            0 => Some(Self::F32),
            1 => Some(Self::F16),
            _ => None,
        }
    }
}

/// Texels of the bone texture, tightly packed in linear order.
#[derive(Clone, Debug, PartialEq)]
pub enum Texels {
    /// 32-bit float RGBA.
    F32(Vec<[f32; 4]>),
    /// 16-bit float RGBA.
    F16(Vec<[half::f16; 4]>),
}

impl Texels {
    /// Number of texels.
    pub fn len(&self) -> usize {
        match self {
            Self::F32(v) => v.len(),
            Self::F16(v) => v.len(),
        }
    }

    /// True if there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Storage format.
    pub fn format(&self) -> TexelFormat {
        match self {
            Self::F32(_) => TexelFormat::F32,
            Self::F16(_) => TexelFormat::F16,
        }
    }

    /// Texel `i` as f32.
    #[inline]
    pub fn get(&self, i: usize) -> Vec4 {
        match self {
            Self::F32(v) => Vec4::from_array(v[i]),
            Self::F16(v) => Vec4::from_array(v[i].map(half::f16::to_f32)),
        }
    }

    /// Raw bytes, in file and GPU upload order.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Self::F32(v) => bytemuck::cast_slice(v),
            Self::F16(v) => bytemuck::cast_slice(v),
        }
    }
}

/// The bone-matrix texture: a `texture_2d_array` of `width²` layers.
#[derive(Clone, Debug, PartialEq)]
pub struct BoneTexture {
    /// Layer side `W`.
    pub width: u32,
    /// Number of layers.
    pub layers: u32,
    /// The texels, `frames × bones × 3` of them.
    pub texels: Texels,
}

impl BoneTexture {
    /// Layout (W and layers).
    pub fn layout(&self) -> TextureLayout {
        TextureLayout {
            width: self.width,
            layers: self.layers,
        }
    }

    /// Bytes the texels take on the GPU, counting the unused tail of the last
    /// layer.
    pub fn gpu_bytes(&self) -> u64 {
        self.layout().capacity() * self.texels.format().texel_size() as u64
    }
}
