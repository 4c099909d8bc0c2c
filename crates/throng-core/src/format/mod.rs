//! The `.throng` file: one baked model, versioned, checksummed and validated
//! on load. `docs/FORMAT.md` documents it byte by byte; the test
//! `tests/tests/integration/format_doc/` checks the documented header fields at their offsets.
//!
//! Layout: a 64-byte [`Header`], a section directory of [`SectionEntry`]s,
//! then sections, each starting at a multiple of [`SECTION_ALIGN`] bytes so
//! bulk arrays can be viewed in place with `bytemuck` once the file sits in a
//! 16-byte-aligned buffer. All numbers are little-endian.
//!
//! The reader checks, in order: the size, magic and version; the header
//! fields; the CRC32 of everything after the header; the directory (every
//! section inside the file, aligned, non-overlapping, whole records, no
//! duplicate); each record's strings and indices (LODs and images take
//! consecutive ranges and strings share no bytes, so no byte is copied out
//! twice); and finally [`BakedModel::validate`](crate::BakedModel::validate). Every failure is a
//! [`FormatError`](crate::FormatError); nothing panics and nothing is allocated beyond the file's
//! own size.

use bytemuck::{Pod, Zeroable};

use crate::model::{BakedVertex, RootMotionKey, Submesh};

mod directory;
#[cfg(test)]
mod dressed_tests;
#[cfg(test)]
mod feet_tests;
pub mod frames;
#[cfg(test)]
mod frames_tests;
mod material;
mod provenance;
mod read;
#[cfg(test)]
mod tests;
mod write;

pub use material::{MaterialRecord, TextureSlotRecord};

pub use directory::{Directory, aligned_copy};
pub use frames::{frames_file, read_frames, write_frames};
pub use provenance::{peek_frames_file, peek_provenance, read_provenance};
pub use read::{read_file, read_model, read_model_with_frames};
pub use write::{write_file, write_model, write_model_referring};

/// The first 8 bytes of every `.throng` file.
pub const MAGIC: [u8; 8] = *b"\x89THRONG\n";
/// The format version this build writes and reads.
pub const VERSION: u32 = 10;
/// Size of the header in bytes.
pub const HEADER_SIZE: usize = 64;
/// Size of one directory entry in bytes.
pub const SECTION_ENTRY_SIZE: usize = 24;
/// Alignment of every section's offset.
pub const SECTION_ALIGN: usize = 16;
/// Most sections a file may list.
pub const MAX_SECTIONS: u32 = 64;
/// "No index" marker in `u32` index fields.
pub const NONE: u32 = u32::MAX;

/// The file header (64 bytes at offset 0).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq, Eq)]
pub struct Header {
    /// [`MAGIC`].
    pub magic: [u8; 8],
    /// [`VERSION`].
    pub version: u32,
    /// [`HEADER_SIZE`].
    pub header_size: u32,
    /// Total file size in bytes.
    pub file_size: u64,
    /// Number of directory entries.
    pub section_count: u32,
    /// CRC32 (IEEE) of bytes `[HEADER_SIZE, file_size)`.
    pub checksum: u32,
    /// Reserved flags, zero.
    pub flags: u32,
    /// Reserved, zero.
    pub reserved: [u32; 7],
}

/// A directory entry (24 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq, Eq)]
pub struct SectionEntry {
    /// Four ASCII bytes naming the section.
    pub tag: [u8; 4],
    /// Size of one record in bytes (1 for byte blobs).
    pub record_size: u32,
    /// Offset from the start of the file, a multiple of [`SECTION_ALIGN`].
    pub offset: u64,
    /// Length in bytes, a multiple of `record_size`.
    pub length: u64,
}

/// A reference into the string table (`STRS`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable, PartialEq, Eq, Default)]
pub struct StrRef {
    /// Byte offset in the string table.
    pub offset: u32,
    /// Byte length (UTF-8).
    pub len: u32,
}

/// `MODL`: one record of model-wide values (80 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ModelRecord {
    /// Model name.
    pub name: StrRef,
    /// Source file name.
    pub source: StrRef,
    /// Bake rate.
    pub fps: f32,
    /// 0 = `Rgba32Float`, 1 = `Rgba16Float`.
    pub texel_format: u32,
    /// Layer side W.
    pub texture_width: u32,
    /// Layer count.
    pub texture_layers: u32,
    /// Bounds of everything, min corner.
    pub bounds_min: [f32; 3],
    /// Bounding radius (half the bounds diagonal).
    pub bounding_radius: f32,
    /// Bounds of everything, max corner.
    pub bounds_max: [f32; 3],
    /// Measured bake error relative to the bounding radius.
    pub bake_error: f32,
    /// Reserved, zero.
    pub reserved: [u32; 4],
}

/// `BONE`: one palette entry (144 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct BoneRecord {
    /// Node name.
    pub name: StrRef,
    /// Source node index.
    pub node: u32,
    /// Parent palette index or [`NONE`].
    pub parent: u32,
    /// Inverse bind matrix, column-major.
    pub inverse_bind: [f32; 16],
    /// Rest-pose global matrix, column-major.
    pub rest_global: [f32; 16],
}

/// `CLIP`: one clip (64 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ClipRecord {
    /// Clip name.
    pub name: StrRef,
    /// First global frame.
    pub first_frame: u32,
    /// Frame count.
    pub frame_count: u32,
    /// Duration in seconds.
    pub duration: f32,
    /// Bit 0: [`CLIP_ROOT_MOTION`]; other bits zero.
    pub flags: u32,
    /// Bounds over the clip, min corner.
    pub bounds_min: [f32; 3],
    /// Bounds over the clip, max corner.
    pub bounds_max: [f32; 3],
    /// Worst skinned-vertex error at the baked frame times, relative to the
    /// bounding radius.
    pub error_at_frames: f32,
    /// Worst skinned-vertex error between baked frames, relative to the
    /// bounding radius.
    pub error_between_frames: f32,
    /// The bound the clip was baked for (`--max-error`), 0 if unknown.
    pub max_error: f32,
    /// The clip's ground: its feet's lowest height, model units (0 when the
    /// file has no `FEET`).
    pub ground: f32,
}

/// `FEET`: one foot in one clip (16 bytes; [`crate::contacts`]), clip by
/// clip, each clip's feet in the same order; its phases are the next
/// `phases` records of `PHAS`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct FootRecord {
    /// Clip index.
    pub clip: u32,
    /// The foot's palette index.
    pub bone: u32,
    /// Its lowest height above the clip's ground, model units.
    pub lift: f32,
    /// Its contact phases in `PHAS`.
    pub phases: u32,
}

/// Clip flag: the clip was baked in place with root motion in `RMOT`.
pub const CLIP_ROOT_MOTION: u32 = 1;

/// `EVNT`: one clip event (24 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct EventRecord {
    /// Clip index.
    pub clip: u32,
    /// Clip time in seconds.
    pub time: f32,
    /// Event name.
    pub name: StrRef,
    /// Payload (JSON text, may be empty).
    pub data: StrRef,
}

/// `MSLT`: one morph slot, a target of one mesh instance (20 bytes;
/// [`crate::morph::MorphSlot`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct MorphSlotRecord {
    /// Target name.
    pub name: StrRef,
    /// Node showing the mesh.
    pub node: u32,
    /// glTF mesh index.
    pub mesh: u32,
    /// Target index in the mesh.
    pub target: u32,
}

/// `IMPO`: the animated impostor's plan (48 bytes; the section holds none
/// when the model has no impostor).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ImpostorRecord {
    /// Views along each side of the hemi-octahedral lattice.
    pub views: u32,
    /// Captures per clip.
    pub frames: u32,
    /// Texels along a cell's side.
    pub cell: u32,
    /// Side of each atlas layer in texels.
    pub layer_size: u32,
    /// Layers of each image.
    pub layers: u32,
    /// Clips captured (the model's).
    pub clips: u32,
    /// Projected size (fraction of the screen height) below which the
    /// impostor replaces the meshes; 0: never.
    pub screen_size: f32,
    /// How the images are stored (`TextureCodec`): 0 RGBA8, 1 BC7, 2 BC3.
    pub codec: u32,
    /// Images in `IMPD`: 2 (colour, normal) or 3 (and the surface).
    pub images: u32,
    /// Zero.
    pub reserved: [u32; 3],
}

/// `LODS`: one level of detail (32 bytes). Ranges index `VERT`, `INDX`, `SUBM`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct LodRecord {
    /// First vertex in `VERT`.
    pub first_vertex: u32,
    /// Vertex count.
    pub vertex_count: u32,
    /// First index in `INDX`.
    pub first_index: u32,
    /// Index count.
    pub index_count: u32,
    /// First submesh in `SUBM`.
    pub first_submesh: u32,
    /// Submesh count.
    pub submesh_count: u32,
    /// Screen-size threshold.
    pub screen_size: f32,
    /// Reserved, zero.
    pub reserved: u32,
}

/// `SUBM`: one submesh (40 bytes); vertex and index ranges are relative to
/// its LOD.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct SubmeshRecord {
    /// Material index or [`NONE`].
    pub material: u32,
    /// `SUBMESH_*` flags.
    pub flags: u32,
    /// Source node.
    pub source_node: u32,
    /// Source mesh.
    pub source_mesh: u32,
    /// Source primitive.
    pub source_primitive: u32,
    /// First vertex within the LOD.
    pub base_vertex: u32,
    /// Vertex count.
    pub vertex_count: u32,
    /// First index within the LOD.
    pub first_index: u32,
    /// Index count.
    pub index_count: u32,
    /// Reserved, zero.
    pub reserved: u32,
}

/// Builds a `$ty` (a [`Submesh`] or a [`SubmeshRecord`]) from `$from`,
/// copying every field the two share, then the fields given in braces: the
/// material (an `Option` in the model, an index or [`NONE`] on disk) and the
/// record's `reserved`. The shared fields are listed here only.
macro_rules! submesh_with_shared_fields {
    ($ty:ident, $from:expr, { $($rest:tt)* }) => {{
        let from = $from;
        $ty {
            flags: from.flags,
            source_node: from.source_node,
            source_mesh: from.source_mesh,
            source_primitive: from.source_primitive,
            base_vertex: from.base_vertex,
            vertex_count: from.vertex_count,
            first_index: from.first_index,
            index_count: from.index_count,
            $($rest)*
        }
    }};
}

impl SubmeshRecord {
    /// The record written for `s`.
    fn from_submesh(s: &Submesh) -> Self {
        submesh_with_shared_fields!(SubmeshRecord, s, {
            material: s.material.unwrap_or(NONE),
            reserved: 0,
        })
    }

    /// The submesh this record stands for (no checks: the reader checks the
    /// ranges and [`BakedModel::validate`](crate::BakedModel::validate) the rest).
    fn to_submesh(self) -> Submesh {
        submesh_with_shared_fields!(Submesh, self, {
            material: opt_index(self.material),
        })
    }
}

/// `None` for [`NONE`], else the index.
fn opt_index(v: u32) -> Option<u32> {
    (v != NONE).then_some(v)
}

/// `IMGS`: one image (48 bytes); its mip chain lives in `IMGD`, level 0
/// first, each level's bytes [`TextureCodec::level_bytes`] of its size.
///
/// [`TextureCodec::level_bytes`]: crate::texture_codec::TextureCodec::level_bytes
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ImageRecord {
    /// Image name.
    pub name: StrRef,
    /// Width of level 0.
    pub width: u32,
    /// Height of level 0.
    pub height: u32,
    /// Mip levels stored.
    pub levels: u32,
    /// How every level is stored (`TextureCodec`): 0 RGBA8, 1 BC7, 2 BC3.
    pub codec: u32,
    /// What the texels are (`ImageContent`): 0 colour (sRGB), 1 data, 2
    /// normal map.
    pub content: u32,
    /// Reserved, zero.
    pub reserved: u32,
    /// Offset in `IMGD`.
    pub data_offset: u64,
    /// Length in bytes, every level.
    pub data_len: u64,
}

/// `PROV`: where the bake came from (64 bytes;
/// [`crate::provenance::Provenance`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ProvenanceRecord {
    /// BLAKE3 of the bake's inputs.
    pub inputs: [u8; 32],
    /// The bake's options, canonical text.
    pub options: StrRef,
    /// The baker's name and version.
    pub baker: StrRef,
    /// Files hashed into `inputs`.
    pub files: u32,
    /// Reserved, zero.
    pub reserved: [u32; 3],
}

/// Section tags, in the order the writer emits them.
pub mod tags {
    /// Model-wide record.
    pub const MODEL: [u8; 4] = *b"MODL";
    /// String table.
    pub const STRINGS: [u8; 4] = *b"STRS";
    /// Where the bake came from (optional: none, or one record).
    pub const PROVENANCE: [u8; 4] = *b"PROV";
    /// Palette.
    pub const BONES: [u8; 4] = *b"BONE";
    /// Clips.
    pub const CLIPS: [u8; 4] = *b"CLIP";
    /// Bone texture texels.
    pub const TEXELS: [u8; 4] = *b"TEXL";
    /// Per-frame bounds.
    pub const FRAME_BOUNDS: [u8; 4] = *b"FBND";
    /// LODs.
    pub const LODS: [u8; 4] = *b"LODS";
    /// Submeshes.
    pub const SUBMESHES: [u8; 4] = *b"SUBM";
    /// Vertices.
    pub const VERTICES: [u8; 4] = *b"VERT";
    /// Indices.
    pub const INDICES: [u8; 4] = *b"INDX";
    /// Materials.
    pub const MATERIALS: [u8; 4] = *b"MATL";
    /// Image records.
    pub const IMAGES: [u8; 4] = *b"IMGS";
    /// Image bytes.
    pub const IMAGE_DATA: [u8; 4] = *b"IMGD";
    /// Root motion per frame.
    pub const ROOT_MOTION: [u8; 4] = *b"RMOT";
    /// Clip events.
    pub const EVENTS: [u8; 4] = *b"EVNT";
    /// The impostor's plan (none, or one record).
    pub const IMPOSTOR: [u8; 4] = *b"IMPO";
    /// The impostor's framing spheres, one per clip.
    pub const IMPOSTOR_SPHERES: [u8; 4] = *b"IMPS";
    /// The impostor's images: colour, normal, then the surface where the
    /// plan has it.
    pub const IMPOSTOR_DATA: [u8; 4] = *b"IMPD";
    /// Morph slots ([`super::MorphSlotRecord`]; none without morph targets).
    pub const MORPH_SLOTS: [u8; 4] = *b"MSLT";
    /// Morph weights: one f32 per frame and slot, frame-major.
    pub const MORPH_WEIGHTS: [u8; 4] = *b"MWGT";
    /// Morph deltas ([`crate::morph::MorphDelta`], 32 bytes each).
    pub const MORPH_DELTAS: [u8; 4] = *b"MDLT";
    /// In place of `TEXL`: the frames file holding the texels
    /// ([`super::frames::FramesRefRecord`]; none, or one record).
    pub const FRAMES_REF: [u8; 4] = *b"FREF";
    /// A frames file's record ([`super::frames::FramesRecord`]).
    pub const FRAMES: [u8; 4] = *b"FRMS";
    /// Feet per clip ([`super::FootRecord`]; optional: absent, the
    /// contacts were not measured).
    pub const FEET: [u8; 4] = *b"FEET";
    /// Contact phases, clip seconds `[start, end]` (with `FEET`).
    pub const PHASES: [u8; 4] = *b"PHAS";
}

const _: () = {
    assert!(std::mem::size_of::<Header>() == HEADER_SIZE);
    assert!(std::mem::size_of::<SectionEntry>() == SECTION_ENTRY_SIZE);
    assert!(std::mem::size_of::<ModelRecord>() == 80);
    assert!(std::mem::size_of::<BoneRecord>() == 144);
    assert!(std::mem::size_of::<ClipRecord>() == 64);
    assert!(std::mem::size_of::<FootRecord>() == 16);
    assert!(std::mem::size_of::<LodRecord>() == 32);
    assert!(std::mem::size_of::<SubmeshRecord>() == 40);
    assert!(std::mem::size_of::<ImageRecord>() == 48);
    assert!(std::mem::size_of::<BakedVertex>() == 72);
    assert!(std::mem::size_of::<MorphSlotRecord>() == 20);
    assert!(std::mem::size_of::<crate::morph::MorphDelta>() == 32);
    assert!(std::mem::size_of::<EventRecord>() == 24);
    assert!(std::mem::size_of::<RootMotionKey>() == 16);
    assert!(std::mem::size_of::<ImpostorRecord>() == 48);
    assert!(std::mem::size_of::<ProvenanceRecord>() == 64);
};

/// Record size each known section must declare.
fn expected_record_size(tag: [u8; 4]) -> Option<usize> {
    use std::mem::size_of;
    Some(match tag {
        tags::MODEL => size_of::<ModelRecord>(),
        tags::STRINGS | tags::IMAGE_DATA | tags::IMPOSTOR_DATA => 1,
        tags::BONES => size_of::<BoneRecord>(),
        tags::CLIPS => size_of::<ClipRecord>(),
        tags::TEXELS => 0, // depends on the texel format; checked when read
        tags::FRAME_BOUNDS => 24,
        tags::LODS => size_of::<LodRecord>(),
        tags::SUBMESHES => size_of::<SubmeshRecord>(),
        tags::VERTICES => size_of::<BakedVertex>(),
        tags::INDICES => 4,
        tags::MATERIALS => size_of::<MaterialRecord>(),
        tags::IMAGES => size_of::<ImageRecord>(),
        tags::ROOT_MOTION => size_of::<RootMotionKey>(),
        tags::EVENTS => size_of::<EventRecord>(),
        tags::IMPOSTOR => size_of::<ImpostorRecord>(),
        tags::IMPOSTOR_SPHERES => 16,
        tags::PROVENANCE => size_of::<ProvenanceRecord>(),
        tags::MORPH_SLOTS => size_of::<MorphSlotRecord>(),
        tags::MORPH_WEIGHTS => 4,
        tags::MORPH_DELTAS => size_of::<crate::morph::MorphDelta>(),
        tags::FRAMES_REF => size_of::<frames::FramesRefRecord>(),
        tags::FRAMES => size_of::<frames::FramesRecord>(),
        tags::FEET => size_of::<FootRecord>(),
        tags::PHASES => 8,
        _ => return None,
    })
}

// ---------------------------------------------------------------- writing
