//! The `.throng` file: one baked model, versioned, checksummed and validated
//! on load. `docs/FORMAT.md` documents it byte by byte; the test
//! `tests/format_doc.rs` checks the documented header fields at their offsets.
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
//! twice); and finally [`BakedModel::validate`]. Every failure is a
//! [`FormatError`]; nothing panics and nothing is allocated beyond the file's
//! own size.

use std::path::Path;

use bytemuck::{Pod, Zeroable};
use glam::{Mat4, Vec3, Vec4};

use crate::error::FormatError;
use crate::limits::MAX_FILE_SIZE;
use crate::material::{AlphaMode, Image, Material, TextureWrap};
use crate::math::Aabb;
use crate::model::{
    BakedModel, BakedVertex, Bone, BoneTexture, ClipError, ClipEvent, ClipInfo, Lod, RootMotionKey,
    Submesh, TexelFormat, Texels,
};

/// The first 8 bytes of every `.throng` file.
pub const MAGIC: [u8; 8] = *b"\x89THRONG\n";
/// The format version this build writes and reads.
pub const VERSION: u32 = 3;
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
    /// Reserved, zero.
    pub reserved: u32,
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

/// `MATL`: one material (48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct MaterialRecord {
    /// Material name.
    pub name: StrRef,
    /// Base colour factor (linear RGBA).
    pub base_color_factor: [f32; 4],
    /// Image index or [`NONE`].
    pub image: u32,
    /// 0 opaque, 1 mask, 2 blend.
    pub alpha_mode: u32,
    /// Alpha cutoff.
    pub alpha_cutoff: f32,
    /// Bit 0: double-sided.
    pub flags: u32,
    /// Wrap u (0 repeat, 1 clamp, 2 mirrored repeat).
    pub wrap_u: u32,
    /// Wrap v.
    pub wrap_v: u32,
}

/// `IMGS`: one image (32 bytes); bytes live in `IMGD`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ImageRecord {
    /// Image name.
    pub name: StrRef,
    /// MIME type.
    pub mime: StrRef,
    /// Offset in `IMGD`.
    pub data_offset: u64,
    /// Length in bytes.
    pub data_len: u64,
}

/// Section tags, in the order the writer emits them.
pub mod tags {
    /// Model-wide record.
    pub const MODEL: [u8; 4] = *b"MODL";
    /// String table.
    pub const STRINGS: [u8; 4] = *b"STRS";
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
}

const _: () = {
    assert!(std::mem::size_of::<Header>() == HEADER_SIZE);
    assert!(std::mem::size_of::<SectionEntry>() == SECTION_ENTRY_SIZE);
    assert!(std::mem::size_of::<ModelRecord>() == 80);
    assert!(std::mem::size_of::<BoneRecord>() == 144);
    assert!(std::mem::size_of::<ClipRecord>() == 64);
    assert!(std::mem::size_of::<LodRecord>() == 32);
    assert!(std::mem::size_of::<SubmeshRecord>() == 40);
    assert!(std::mem::size_of::<MaterialRecord>() == 48);
    assert!(std::mem::size_of::<ImageRecord>() == 32);
    assert!(std::mem::size_of::<BakedVertex>() == 56);
    assert!(std::mem::size_of::<EventRecord>() == 24);
    assert!(std::mem::size_of::<RootMotionKey>() == 16);
};

/// Record size each known section must declare.
fn expected_record_size(tag: [u8; 4]) -> Option<usize> {
    use std::mem::size_of;
    Some(match tag {
        tags::MODEL => size_of::<ModelRecord>(),
        tags::STRINGS | tags::IMAGE_DATA => 1,
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
        _ => return None,
    })
}

// ---------------------------------------------------------------- writing

struct StringTable(Vec<u8>);

impl StringTable {
    fn add(&mut self, s: &str) -> StrRef {
        let r = StrRef {
            offset: self.0.len() as u32,
            len: s.len() as u32,
        };
        self.0.extend_from_slice(s.as_bytes());
        r
    }
}

fn mat_cols(m: &Mat4) -> [f32; 16] {
    m.to_cols_array()
}

/// Serialises a model. The model is validated first; an invalid model is
/// refused rather than written.
pub fn write_model(model: &BakedModel) -> Result<Vec<u8>, FormatError> {
    model.validate()?;
    let mut strings = StringTable(Vec::new());
    let model_rec = ModelRecord {
        name: strings.add(&model.name),
        source: strings.add(&model.source),
        fps: model.fps,
        texel_format: model.texture.texels.format() as u32,
        texture_width: model.texture.width,
        texture_layers: model.texture.layers,
        bounds_min: model.bounds.min.into(),
        bounding_radius: model.bounding_radius,
        bounds_max: model.bounds.max.into(),
        bake_error: model.bake_error,
        reserved: [0; 4],
    };
    let bones: Vec<BoneRecord> = model
        .bones
        .iter()
        .map(|b| BoneRecord {
            name: strings.add(&b.name),
            node: b.node,
            parent: b.parent.unwrap_or(NONE),
            inverse_bind: mat_cols(&b.inverse_bind),
            rest_global: mat_cols(&b.rest_global),
        })
        .collect();
    let clips: Vec<ClipRecord> = model
        .clips
        .iter()
        .map(|c| ClipRecord {
            name: strings.add(&c.name),
            first_frame: c.first_frame,
            frame_count: c.frame_count,
            duration: c.duration,
            flags: if c.root_motion { CLIP_ROOT_MOTION } else { 0 },
            bounds_min: c.bounds.min.into(),
            bounds_max: c.bounds.max.into(),
            error_at_frames: c.error.at_frames,
            error_between_frames: c.error.between_frames,
            max_error: c.error.max_error,
            reserved: 0,
        })
        .collect();
    let frame_bounds: Vec<[f32; 6]> = model
        .frame_bounds
        .iter()
        .map(|b| [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z])
        .collect();
    let mut lods = Vec::new();
    let mut subs = Vec::new();
    let mut verts: Vec<BakedVertex> = Vec::new();
    let mut indices: Vec<u32> = Vec::new();
    for lod in &model.lods {
        lods.push(LodRecord {
            first_vertex: verts.len() as u32,
            vertex_count: lod.vertices.len() as u32,
            first_index: indices.len() as u32,
            index_count: lod.indices.len() as u32,
            first_submesh: subs.len() as u32,
            submesh_count: lod.submeshes.len() as u32,
            screen_size: lod.screen_size,
            reserved: 0,
        });
        verts.extend_from_slice(&lod.vertices);
        indices.extend_from_slice(&lod.indices);
        subs.extend(lod.submeshes.iter().map(|s| SubmeshRecord {
            material: s.material.unwrap_or(NONE),
            flags: s.flags,
            source_node: s.source_node,
            source_mesh: s.source_mesh,
            source_primitive: s.source_primitive,
            base_vertex: s.base_vertex,
            vertex_count: s.vertex_count,
            first_index: s.first_index,
            index_count: s.index_count,
            reserved: 0,
        }));
    }
    let materials: Vec<MaterialRecord> = model
        .materials
        .iter()
        .map(|m| MaterialRecord {
            name: strings.add(&m.name),
            base_color_factor: m.base_color_factor.into(),
            image: m.base_color_image.unwrap_or(NONE),
            alpha_mode: m.alpha_mode as u32,
            alpha_cutoff: m.alpha_cutoff,
            flags: m.double_sided as u32,
            wrap_u: m.wrap[0] as u32,
            wrap_v: m.wrap[1] as u32,
        })
        .collect();
    let mut image_data = Vec::new();
    let images: Vec<ImageRecord> = model
        .images
        .iter()
        .map(|img| {
            let rec = ImageRecord {
                name: strings.add(&img.name),
                mime: strings.add(&img.mime),
                data_offset: image_data.len() as u64,
                data_len: img.bytes.len() as u64,
            };
            image_data.extend_from_slice(&img.bytes);
            rec
        })
        .collect();

    let events: Vec<EventRecord> = model
        .events
        .iter()
        .map(|e| EventRecord {
            clip: e.clip,
            time: e.time,
            name: strings.add(&e.name),
            data: strings.add(&e.data),
        })
        .collect();
    let texel_size = model.texture.texels.format().texel_size() as u32;
    let sections: Vec<([u8; 4], u32, &[u8])> = vec![
        (tags::MODEL, 80, bytemuck::bytes_of(&model_rec)),
        (tags::STRINGS, 1, &strings.0),
        (tags::BONES, 144, bytemuck::cast_slice(&bones)),
        (tags::CLIPS, 64, bytemuck::cast_slice(&clips)),
        (tags::TEXELS, texel_size, model.texture.texels.as_bytes()),
        (tags::FRAME_BOUNDS, 24, bytemuck::cast_slice(&frame_bounds)),
        (tags::LODS, 32, bytemuck::cast_slice(&lods)),
        (tags::SUBMESHES, 40, bytemuck::cast_slice(&subs)),
        (tags::VERTICES, 56, bytemuck::cast_slice(&verts)),
        (tags::INDICES, 4, bytemuck::cast_slice(&indices)),
        (tags::MATERIALS, 48, bytemuck::cast_slice(&materials)),
        (tags::IMAGES, 32, bytemuck::cast_slice(&images)),
        (tags::IMAGE_DATA, 1, &image_data),
        (
            tags::ROOT_MOTION,
            16,
            bytemuck::cast_slice(&model.root_motion),
        ),
        (tags::EVENTS, 24, bytemuck::cast_slice(&events)),
    ];
    let dir_end = HEADER_SIZE + sections.len() * SECTION_ENTRY_SIZE;
    let mut offset = dir_end.next_multiple_of(SECTION_ALIGN);
    let mut entries = Vec::with_capacity(sections.len());
    for (tag, record_size, bytes) in &sections {
        entries.push(SectionEntry {
            tag: *tag,
            record_size: *record_size,
            offset: offset as u64,
            length: bytes.len() as u64,
        });
        offset = (offset + bytes.len()).next_multiple_of(SECTION_ALIGN);
    }
    let file_size = offset;
    let mut out = vec![0u8; file_size];
    for (entry, (_, _, bytes)) in entries.iter().zip(&sections) {
        let at = entry.offset as usize;
        out[at..at + bytes.len()].copy_from_slice(bytes);
    }
    out[HEADER_SIZE..dir_end].copy_from_slice(bytemuck::cast_slice(&entries));
    let header = Header {
        magic: MAGIC,
        version: VERSION,
        header_size: HEADER_SIZE as u32,
        file_size: file_size as u64,
        section_count: entries.len() as u32,
        checksum: crc32fast::hash(&out[HEADER_SIZE..]),
        flags: 0,
        reserved: [0; 7],
    };
    out[..HEADER_SIZE].copy_from_slice(bytemuck::bytes_of(&header));
    Ok(out)
}

/// Writes a model to `path` atomically ([`crate::fsio::write_atomic`]): on
/// any failure an existing file there is untouched.
pub fn write_file(model: &BakedModel, path: &Path) -> Result<(), FormatError> {
    let bytes = write_model(model)?;
    Ok(crate::fsio::write_atomic(path, &bytes)?)
}

// ---------------------------------------------------------------- reading

/// Reads and validates a model from `path`.
pub fn read_file(path: &Path) -> Result<BakedModel, FormatError> {
    let io = |source| FormatError::Io {
        path: path.display().to_string(),
        source,
    };
    let len = std::fs::metadata(path).map_err(io)?.len();
    if len > MAX_FILE_SIZE {
        return Err(FormatError::corrupt(format!(
            "file is {len} bytes, more than the {MAX_FILE_SIZE}-byte limit"
        )));
    }
    let bytes = std::fs::read(path).map_err(io)?;
    read_model(&bytes)
}

/// Copies `bytes` into a 16-byte-aligned buffer (so sections can be viewed in
/// place) and returns it; the returned slice has the same bytes.
pub fn aligned_copy(bytes: &[u8]) -> Vec<u128> {
    let mut buf = vec![0u128; bytes.len().div_ceil(16)];
    bytemuck::cast_slice_mut::<u128, u8>(&mut buf)[..bytes.len()].copy_from_slice(bytes);
    buf
}

/// Validated header and directory of a file: the zero-copy view layer.
#[derive(Clone, Debug)]
pub struct Directory {
    /// The header.
    pub header: Header,
    /// Directory entries, in file order.
    pub entries: Vec<SectionEntry>,
}

impl Directory {
    /// Parses and checks the header, checksum and directory of `bytes`.
    pub fn parse(bytes: &[u8]) -> Result<Self, FormatError> {
        let len = bytes.len() as u64;
        if bytes.len() < HEADER_SIZE {
            return Err(FormatError::Truncated {
                what: "header".into(),
                needed: HEADER_SIZE as u64,
                len,
            });
        }
        let header: Header = bytemuck::pod_read_unaligned(&bytes[..HEADER_SIZE]);
        if header.magic != MAGIC {
            return Err(FormatError::BadMagic {
                found: header.magic.to_vec(),
            });
        }
        if header.version != VERSION {
            return Err(FormatError::UnsupportedVersion {
                found: header.version,
                supported: VERSION,
            });
        }
        if header.header_size as usize != HEADER_SIZE {
            return Err(FormatError::corrupt(format!(
                "header size {} (expected {HEADER_SIZE})",
                header.header_size
            )));
        }
        if header.flags != 0 || header.reserved != [0; 7] {
            return Err(FormatError::corrupt("reserved header fields are not zero"));
        }
        if header.file_size > len {
            return Err(FormatError::Truncated {
                what: "file (per its header)".into(),
                needed: header.file_size,
                len,
            });
        }
        if header.file_size < len {
            return Err(FormatError::corrupt(format!(
                "{} bytes after the {}-byte file the header declares",
                len - header.file_size,
                header.file_size
            )));
        }
        let computed = crc32fast::hash(&bytes[HEADER_SIZE..]);
        if computed != header.checksum {
            return Err(FormatError::Checksum {
                stored: header.checksum,
                computed,
            });
        }
        if header.section_count > MAX_SECTIONS {
            return Err(FormatError::corrupt(format!(
                "{} sections (at most {MAX_SECTIONS})",
                header.section_count
            )));
        }
        let dir_end = HEADER_SIZE + header.section_count as usize * SECTION_ENTRY_SIZE;
        if dir_end as u64 > len {
            return Err(FormatError::Truncated {
                what: "section directory".into(),
                needed: dir_end as u64,
                len,
            });
        }
        let entries: Vec<SectionEntry> = bytemuck::pod_collect_to_vec(&bytes[HEADER_SIZE..dir_end]);
        let mut spans: Vec<(u64, u64, [u8; 4])> = Vec::new();
        for e in &entries {
            let name = tag_name(e.tag);
            let end = e
                .offset
                .checked_add(e.length)
                .filter(|&end| end <= len)
                .ok_or_else(|| {
                    FormatError::corrupt(format!(
                        "section {name} at {}+{} runs past the end of the {len}-byte file",
                        e.offset, e.length
                    ))
                })?;
            if e.offset % SECTION_ALIGN as u64 != 0 || e.offset < dir_end as u64 {
                return Err(FormatError::corrupt(format!(
                    "section {name} offset {} is misaligned or inside the directory",
                    e.offset
                )));
            }
            if e.record_size == 0 || e.length % e.record_size as u64 != 0 {
                return Err(FormatError::corrupt(format!(
                    "section {name} length {} is not a whole number of {}-byte records",
                    e.length, e.record_size
                )));
            }
            if let Some(expected) = expected_record_size(e.tag)
                && expected != 0
                && expected != e.record_size as usize
            {
                return Err(FormatError::corrupt(format!(
                    "section {name} declares {}-byte records, expected {expected}",
                    e.record_size
                )));
            }
            if spans.iter().any(|s| s.2 == e.tag) {
                return Err(FormatError::corrupt(format!(
                    "section {name} appears twice"
                )));
            }
            spans.push((e.offset, end, e.tag));
        }
        spans.sort();
        if let Some(w) = spans.windows(2).find(|w| w[1].0 < w[0].1) {
            return Err(FormatError::corrupt(format!(
                "sections {} and {} overlap",
                tag_name(w[0].2),
                tag_name(w[1].2)
            )));
        }
        Ok(Self { header, entries })
    }

    /// The entry for `tag`, if present.
    pub fn entry(&self, tag: [u8; 4]) -> Option<&SectionEntry> {
        self.entries.iter().find(|e| e.tag == tag)
    }

    /// Bytes of a required section.
    pub fn section<'a>(&self, bytes: &'a [u8], tag: [u8; 4]) -> Result<&'a [u8], FormatError> {
        let e = self.entry(tag).ok_or_else(|| {
            FormatError::corrupt(format!("required section {} is missing", tag_name(tag)))
        })?;
        // `parse` checked the span lies inside `bytes`.
        Ok(&bytes[e.offset as usize..(e.offset + e.length) as usize])
    }

    /// Views a required section as records of `T` without copying. Fails if
    /// `bytes` is not aligned for `T` (see [`aligned_copy`]).
    pub fn view<'a, T: Pod>(&self, bytes: &'a [u8], tag: [u8; 4]) -> Result<&'a [T], FormatError> {
        let s = self.section(bytes, tag)?;
        bytemuck::try_cast_slice(s).map_err(|e| {
            FormatError::corrupt(format!(
                "section {} cannot be viewed in place: {e:?}",
                tag_name(tag)
            ))
        })
    }
}

fn tag_name(tag: [u8; 4]) -> String {
    tag.iter()
        .map(|&b| if b.is_ascii_graphic() { b as char } else { '?' })
        .collect()
}

/// Records of `T` from a section, copied out (works at any alignment).
fn records<T: Pod>(dir: &Directory, bytes: &[u8], tag: [u8; 4]) -> Result<Vec<T>, FormatError> {
    let s = dir.section(bytes, tag)?;
    match bytemuck::try_cast_slice::<u8, T>(s) {
        Ok(v) => Ok(v.to_vec()),
        Err(_) => Ok(bytemuck::pod_collect_to_vec(s)),
    }
}

fn one_record<T: Pod>(dir: &Directory, bytes: &[u8], tag: [u8; 4]) -> Result<T, FormatError> {
    let v: Vec<T> = records(dir, bytes, tag)?;
    match v.as_slice() {
        [one] => Ok(*one),
        _ => Err(FormatError::corrupt(format!(
            "section {} holds {} records, expected 1",
            tag_name(tag),
            v.len()
        ))),
    }
}

/// The string table, and how many of its bytes the strings read so far take:
/// the writer never shares bytes between strings, so more than the table's
/// length means references overlap (which could otherwise make a small file
/// allocate without bound).
struct Strings<'a>(&'a [u8], std::cell::Cell<u64>);

impl Strings<'_> {
    fn get(&self, r: StrRef, what: &dyn Fn() -> String) -> Result<String, FormatError> {
        let end = r.offset as u64 + r.len as u64;
        let slice = self.0.get(r.offset as usize..end as usize).ok_or_else(|| {
            FormatError::corrupt(format!(
                "{}: string {}+{} is outside the {}-byte string table",
                what(),
                r.offset,
                r.len,
                self.0.len()
            ))
        })?;
        let used = self.1.get() + r.len as u64;
        if used > self.0.len() as u64 {
            return Err(FormatError::corrupt(format!(
                "{}: strings take {used} bytes, more than the {}-byte string table (strings may not share bytes)",
                what(),
                self.0.len()
            )));
        }
        self.1.set(used);
        std::str::from_utf8(slice)
            .map(str::to_owned)
            .map_err(|_| FormatError::corrupt(format!("{}: string is not UTF-8", what())))
    }
}

fn opt_index(v: u32) -> Option<u32> {
    (v != NONE).then_some(v)
}

fn aabb(min: [f32; 3], max: [f32; 3]) -> Aabb {
    Aabb {
        min: Vec3::from(min),
        max: Vec3::from(max),
    }
}

fn range_in(
    what: &str,
    start: u32,
    count: u32,
    len: usize,
) -> Result<std::ops::Range<usize>, FormatError> {
    let end = start as u64 + count as u64;
    if end > len as u64 {
        return Err(FormatError::corrupt(format!(
            "{what} range {start}+{count} exceeds the {len} available"
        )));
    }
    Ok(start as usize..end as usize)
}

/// Parses and validates a model from the bytes of a `.throng` file.
pub fn read_model(bytes: &[u8]) -> Result<BakedModel, FormatError> {
    let dir = Directory::parse(bytes)?;
    let strings = Strings(dir.section(bytes, tags::STRINGS)?, Default::default());
    let m: ModelRecord = one_record(&dir, bytes, tags::MODEL)?;
    if m.reserved != [0; 4] {
        return Err(FormatError::corrupt("reserved model fields are not zero"));
    }
    let format = TexelFormat::from_code(m.texel_format).ok_or_else(|| {
        FormatError::corrupt(format!("unknown texel format code {}", m.texel_format))
    })?;
    let texel_entry = dir
        .entry(tags::TEXELS)
        .ok_or_else(|| FormatError::corrupt("required section TEXL is missing"))?;
    if texel_entry.record_size as usize != format.texel_size() {
        return Err(FormatError::corrupt(format!(
            "texel records are {} bytes, format {format:?} needs {}",
            texel_entry.record_size,
            format.texel_size()
        )));
    }
    let texels = match format {
        TexelFormat::F32 => Texels::F32(records(&dir, bytes, tags::TEXELS)?),
        TexelFormat::F16 => Texels::F16(records(&dir, bytes, tags::TEXELS)?),
    };
    let bones = records::<BoneRecord>(&dir, bytes, tags::BONES)?
        .iter()
        .enumerate()
        .map(|(i, b)| {
            Ok(Bone {
                name: strings.get(b.name, &|| format!("bone {i}"))?,
                node: b.node,
                parent: opt_index(b.parent),
                inverse_bind: Mat4::from_cols_array(&b.inverse_bind),
                rest_global: Mat4::from_cols_array(&b.rest_global),
            })
        })
        .collect::<Result<Vec<_>, FormatError>>()?;
    let clips = records::<ClipRecord>(&dir, bytes, tags::CLIPS)?
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if c.flags & !CLIP_ROOT_MOTION != 0 || c.reserved != 0 {
                return Err(FormatError::corrupt(format!(
                    "clip {i} has unknown flags {:#x} or a non-zero reserved field",
                    c.flags
                )));
            }
            Ok(ClipInfo {
                name: strings.get(c.name, &|| format!("clip {i}"))?,
                duration: c.duration,
                first_frame: c.first_frame,
                frame_count: c.frame_count,
                bounds: aabb(c.bounds_min, c.bounds_max),
                root_motion: c.flags & CLIP_ROOT_MOTION != 0,
                error: ClipError {
                    at_frames: c.error_at_frames,
                    between_frames: c.error_between_frames,
                    max_error: c.max_error,
                },
            })
        })
        .collect::<Result<Vec<_>, FormatError>>()?;
    let frame_bounds = records::<[f32; 6]>(&dir, bytes, tags::FRAME_BOUNDS)?
        .iter()
        .map(|b| aabb([b[0], b[1], b[2]], [b[3], b[4], b[5]]))
        .collect();
    let verts: Vec<BakedVertex> = records(&dir, bytes, tags::VERTICES)?;
    let indices: Vec<u32> = records(&dir, bytes, tags::INDICES)?;
    let subs: Vec<SubmeshRecord> = records(&dir, bytes, tags::SUBMESHES)?;
    if let Some(i) = subs
        .iter()
        .position(|s| s.reserved != 0 || s.flags & !crate::model::SUBMESH_GENERATED_NORMALS != 0)
    {
        return Err(FormatError::corrupt(format!(
            "submesh {i} has unknown flags {:#x} or a non-zero reserved field",
            subs[i].flags
        )));
    }
    // LOD l's ranges start where LOD l-1's end, so no record is copied twice.
    let mut next = [0u64; 3];
    let lods = records::<LodRecord>(&dir, bytes, tags::LODS)?
        .iter()
        .enumerate()
        .map(|(l, r)| {
            let at = format!("LOD {l}");
            if r.reserved != 0 {
                return Err(FormatError::corrupt(format!("{at}: reserved field is not zero")));
            }
            let first = [r.first_vertex, r.first_index, r.first_submesh].map(u64::from);
            if first != next {
                return Err(FormatError::corrupt(format!(
                    "{at} starts at vertex {}, index {}, submesh {}; LODs follow each other, so expected {}, {}, {}",
                    first[0], first[1], first[2], next[0], next[1], next[2]
                )));
            }
            let vr = range_in(
                &format!("{at} vertex"),
                r.first_vertex,
                r.vertex_count,
                verts.len(),
            )?;
            let ir = range_in(
                &format!("{at} index"),
                r.first_index,
                r.index_count,
                indices.len(),
            )?;
            let sr = range_in(
                &format!("{at} submesh"),
                r.first_submesh,
                r.submesh_count,
                subs.len(),
            )?;
            next = [vr.end, ir.end, sr.end].map(|end| end as u64);
            Ok(Lod {
                screen_size: r.screen_size,
                vertices: verts[vr].to_vec(),
                indices: indices[ir].to_vec(),
                submeshes: subs[sr]
                    .iter()
                    .map(|s| Submesh {
                        material: opt_index(s.material),
                        flags: s.flags,
                        source_node: s.source_node,
                        source_mesh: s.source_mesh,
                        source_primitive: s.source_primitive,
                        base_vertex: s.base_vertex,
                        vertex_count: s.vertex_count,
                        first_index: s.first_index,
                        index_count: s.index_count,
                    })
                    .collect(),
            })
        })
        .collect::<Result<Vec<_>, FormatError>>()?;
    let wrap = |code: u32, i: usize| match code {
        0 => Ok(TextureWrap::Repeat),
        1 => Ok(TextureWrap::ClampToEdge),
        2 => Ok(TextureWrap::MirroredRepeat),
        _ => Err(FormatError::corrupt(format!(
            "material {i} has unknown wrap mode {code}"
        ))),
    };
    let materials = records::<MaterialRecord>(&dir, bytes, tags::MATERIALS)?
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let alpha_mode = match r.alpha_mode {
                0 => AlphaMode::Opaque,
                1 => AlphaMode::Mask,
                2 => AlphaMode::Blend,
                x => {
                    return Err(FormatError::corrupt(format!(
                        "material {i} has unknown alpha mode {x}"
                    )));
                }
            };
            if r.flags & !1 != 0 {
                return Err(FormatError::corrupt(format!(
                    "material {i} has unknown flags {:#x}",
                    r.flags
                )));
            }
            Ok(Material {
                name: strings.get(r.name, &|| format!("material {i}"))?,
                base_color_factor: Vec4::from(r.base_color_factor),
                base_color_image: opt_index(r.image),
                wrap: [wrap(r.wrap_u, i)?, wrap(r.wrap_v, i)?],
                alpha_mode,
                alpha_cutoff: r.alpha_cutoff,
                double_sided: r.flags & 1 != 0,
            })
        })
        .collect::<Result<Vec<_>, FormatError>>()?;
    let image_data = dir.section(bytes, tags::IMAGE_DATA)?;
    // Image i's bytes start where image i-1's end, so none is copied twice.
    let mut next_data = 0u64;
    let images = records::<ImageRecord>(&dir, bytes, tags::IMAGES)?
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if r.data_offset != next_data {
                return Err(FormatError::corrupt(format!(
                    "image {i} bytes start at {} in IMGD; images follow each other, so expected {next_data}",
                    r.data_offset
                )));
            }
            let end = r
                .data_offset
                .checked_add(r.data_len)
                .filter(|&e| e <= image_data.len() as u64);
            let Some(end) = end else {
                return Err(FormatError::corrupt(format!(
                    "image {i} bytes {}+{} exceed the {}-byte image data",
                    r.data_offset,
                    r.data_len,
                    image_data.len()
                )));
            };
            next_data = end;
            Ok(Image {
                name: strings.get(r.name, &|| format!("image {i} name"))?,
                mime: strings.get(r.mime, &|| format!("image {i} MIME type"))?,
                bytes: image_data[r.data_offset as usize..end as usize].to_vec(),
            })
        })
        .collect::<Result<Vec<_>, FormatError>>()?;
    let root_motion: Vec<RootMotionKey> = records(&dir, bytes, tags::ROOT_MOTION)?;
    let events = records::<EventRecord>(&dir, bytes, tags::EVENTS)?
        .iter()
        .enumerate()
        .map(|(i, e)| {
            Ok(ClipEvent {
                clip: e.clip,
                time: e.time,
                name: strings.get(e.name, &|| format!("event {i} name"))?,
                data: strings.get(e.data, &|| format!("event {i} data"))?,
            })
        })
        .collect::<Result<Vec<_>, FormatError>>()?;
    let model = BakedModel {
        name: strings.get(m.name, &|| "model name".into())?,
        source: strings.get(m.source, &|| "model source".into())?,
        fps: m.fps,
        bake_error: m.bake_error,
        bones,
        clips,
        texture: BoneTexture {
            width: m.texture_width,
            layers: m.texture_layers,
            texels,
        },
        bounds: aabb(m.bounds_min, m.bounds_max),
        bounding_radius: m.bounding_radius,
        frame_bounds,
        lods,
        materials,
        images,
        root_motion,
        events,
    };
    model.validate()?;
    Ok(model)
}
