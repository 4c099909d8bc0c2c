//! What the record paths draw from: [`InstanceRecord`], one visible
//! instance of one frame (96 bytes), the [`FrameBlend`] it encodes, the
//! instance's [`Look`] and the LOD dither levels it carries.

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

/// One visible instance for one frame: 96 bytes, mirrored by WGSL's
/// `InstanceRecord` in `shaders/instance_record.wgsl`.
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
    /// Plus twice the LOD cross-fade level, if any
    /// ([`Self::with_lod_dither`]).
    pub fade: f32,
    /// Tint, RGBA8 packed little-endian (`r | g << 8 | b << 16 | a << 24`),
    /// multiplied into the base colour.
    pub tint: u32,
    /// Its look: palette row and hidden submeshes ([`Look`]).
    pub look: Look,
    /// Keeps the record a multiple of 16 bytes (uniform array stride).
    pub pad: [u32; 2],
}

/// Where a record's instance was one frame before (64 bytes), written
/// beside each record by the cull pass when a view asks for it
/// ([`crate::gpu::CullView::PREVIOUS`]) and read by a motion-vector
/// prepass; mirrored by WGSL's `PreviousRecord` in
/// `shaders/instance_record.wgsl`. Only the current clip's frames are
/// kept: a cross-fade's other clip and its weight are taken as now's.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PreviousRecord {
    /// Top three rows of last frame's `world_from_model`.
    pub world_from_model: [[f32; 4]; 3],
    /// Current clip, last frame: earlier global frame.
    pub frame0: u32,
    /// Current clip, last frame: later global frame.
    pub frame1: u32,
    /// Current clip, last frame: weight of `frame1`.
    pub t: f32,
    /// Keeps the record a multiple of 16 bytes.
    pub pad: u32,
}

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
            look: Look::DEFAULT,
            pad: [0; 2],
        }
    }

    /// This record with look `look`.
    #[inline]
    pub fn with_look(mut self, look: Look) -> Self {
        self.look = look;
        self
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

    /// This record drawn as one half of a LOD cross-fade at `level` (1 to
    /// [`LOD_DITHER_LEVELS`] − 1): the mesh keeps the pixels whose dither
    /// rank is below `level`, the impostor the others. Stored in `fade` as
    /// `fade + 2·level` (a clip fade is at most 1, so the two never mix);
    /// [`Self::clip_fade`] and [`Self::lod_dither`] read them back.
    pub fn with_lod_dither(mut self, level: u32) -> Self {
        self.fade += 2.0 * level as f32;
        self
    }

    /// The LOD cross-fade level (0: none). See [`Self::with_lod_dither`].
    pub fn lod_dither(&self) -> u32 {
        (self.fade * 0.5).floor().max(0.0) as u32
    }

    /// The clip cross-fade's weight of the current clip.
    pub fn clip_fade(&self) -> f32 {
        self.fade - 2.0 * self.lod_dither() as f32
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

const _: () = assert!(std::mem::size_of::<InstanceRecord>() == INSTANCE_RECORD_SIZE);

/// An instance's look: the palette row it wears and the submeshes it hides.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Pod, Zeroable)]
pub struct Look {
    /// Row of its model's [`Palette`](crate::variety::Palette) (0 when the model has none; a row
    /// past the last reads the last).
    pub variant: u32,
    /// Bit `i` hides submesh `i` of the finest LOD, and what the coarser
    /// LODs keep of it ([`submesh_bits`](crate::variety::submesh_bits)).
    pub hidden: u32,
}

impl Look {
    /// Row 0, every submesh shown.
    pub const DEFAULT: Look = Look {
        variant: 0,
        hidden: 0,
    };
}

/// Packs linear RGBA in `[0, 1]` into the record's RGBA8 tint.
pub fn pack_tint(rgba: Vec4) -> u32 {
    let c = (rgba.clamp(Vec4::ZERO, Vec4::ONE) * 255.0).round();
    (c.x as u32) | (c.y as u32) << 8 | (c.z as u32) << 16 | (c.w as u32) << 24
}

/// Levels of the dithered cross-fade between a model's last mesh LOD and
/// its impostor (a 4 × 4 ordered-dither matrix ranks each pixel 0 to 15).
pub const LOD_DITHER_LEVELS: u32 = 16;
