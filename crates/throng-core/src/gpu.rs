//! `#[repr(C)]` structs shared with WGSL. Each mirrors a WGSL struct field for
//! field; a CPU-only test in `throng-render` checks offsets and sizes against
//! naga's layout of the shaders.

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec4};

use crate::layout::FramePair;
use crate::limits::INSTANCE_RECORD_SIZE;

/// Which baked frames an instance shows: the current clip's two frames and
/// weight, and, during a cross-fade, the previous clip's and the fade weight.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameBlend {
    /// Current clip frames.
    pub current: FramePair,
    /// Previous clip frames (ignored when `fade >= 1`).
    pub previous: FramePair,
    /// Weight of the current clip, in `[0, 1]`; 1 means no fade.
    pub fade: f32,
}

impl FrameBlend {
    /// Shows `current` alone.
    pub fn single(current: FramePair) -> Self {
        Self {
            current,
            previous: current,
            fade: 1.0,
        }
    }
}

/// One visible instance for one frame: 80 bytes, mirrored by WGSL's
/// `InstanceRecord` in `shaders/skinning.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct InstanceRecord {
    /// Top three rows of `world_from_model` (3x4 affine).
    pub world_from_model: [[f32; 4]; 3],
    /// Current clip: earlier global frame.
    pub frame0: u32,
    /// Current clip: later global frame.
    pub frame1: u32,
    /// Current clip: weight of `frame1`.
    pub t: f32,
    /// Previous clip: earlier global frame.
    pub prev0: u32,
    /// Previous clip: later global frame.
    pub prev1: u32,
    /// Previous clip: weight of `prev1`.
    pub prev_t: f32,
    /// Weight of the current clip; `>= 1` disables the previous-clip path.
    pub fade: f32,
    /// Tint, RGBA8 packed little-endian (`r | g << 8 | b << 16 | a << 24`),
    /// multiplied into the base colour.
    pub tint: u32,
}

const _: () = assert!(std::mem::size_of::<InstanceRecord>() == INSTANCE_RECORD_SIZE);

impl InstanceRecord {
    /// Builds a record from a world matrix, frame blend and RGBA8 tint.
    #[inline]
    pub fn new(world_from_model: &Mat4, blend: &FrameBlend, tint: u32) -> Self {
        let t = world_from_model.transpose();
        Self::from_rows(&[t.x_axis, t.y_axis, t.z_axis], blend, tint)
    }

    /// Builds a record from the top three rows of a world matrix.
    #[inline]
    pub fn from_rows(rows: &[Vec4; 3], blend: &FrameBlend, tint: u32) -> Self {
        Self {
            world_from_model: [rows[0].to_array(), rows[1].to_array(), rows[2].to_array()],
            frame0: blend.current.frame0,
            frame1: blend.current.frame1,
            t: blend.current.t,
            prev0: blend.previous.frame0,
            prev1: blend.previous.frame1,
            prev_t: blend.previous.t,
            fade: blend.fade,
            tint,
        }
    }

    /// The frame blend this record encodes.
    pub fn blend(&self) -> FrameBlend {
        FrameBlend {
            current: FramePair {
                frame0: self.frame0,
                frame1: self.frame1,
                t: self.t,
            },
            previous: FramePair {
                frame0: self.prev0,
                frame1: self.prev1,
                t: self.prev_t,
            },
            fade: self.fade,
        }
    }

    /// The world matrix.
    pub fn world_from_model(&self) -> Mat4 {
        let r = &self.world_from_model;
        Mat4::from_cols(
            Vec4::from(r[0]),
            Vec4::from(r[1]),
            Vec4::from(r[2]),
            Vec4::W,
        )
        .transpose()
    }
}

/// Packs linear RGBA in `[0, 1]` into the record's RGBA8 tint.
pub fn pack_tint(rgba: Vec4) -> u32 {
    let c = (rgba.clamp(Vec4::ZERO, Vec4::ONE) * 255.0).round();
    (c.x as u32) | (c.y as u32) << 8 | (c.z as u32) << 16 | (c.w as u32) << 24
}

/// Per-model constants for the shaders, mirrored by WGSL's `ModelParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub struct ModelParams {
    /// Palette size.
    pub bone_count: u32,
    /// Frames in the global frame table (frame indices are clamped below it).
    pub frame_count: u32,
    /// Layer side W of the bone texture.
    pub texture_width: u32,
    /// Layers of the bone texture.
    pub texture_layers: u32,
}
