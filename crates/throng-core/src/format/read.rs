//! Reading a `.throng` file: every check of the module's list, in order, so
//! that a damaged file is an error, never a panic or an allocation beyond
//! its own size.

use std::path::Path;

use bytemuck::Pod;
use glam::{Mat4, Vec3};

use super::*;
use crate::error::FormatError;
use crate::impostor::{AtlasPlan, ImpostorAtlas, TextureCodec, ViewGrid};
use crate::limits::{MAX_FILE_SIZE, MAX_IMAGE_SIDE};
use crate::material::{Image, ImageContent};
use crate::math::Aabb;
use crate::model::{
    BakedModel, BakedVertex, Bone, BoneTexture, ClipError, ClipEvent, ClipInfo, Lod, RootMotionKey,
    TexelFormat, Texels,
};
use crate::morph::{MorphDelta, MorphSlot, Morphs};
use crate::provenance::{MAX_PROVENANCE_TEXT, Provenance};
use crate::texture_codec::{mip_levels, mip_size};

/// Reads and validates a model from `path`.
pub fn read_file(path: &Path) -> Result<BakedModel, FormatError> {
    let bytes = crate::input_file::read(path, MAX_FILE_SIZE)?;
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
        Self::parse_with(bytes, true)
    }

    /// [`Self::parse`], the checksum checked only if `checksum`.
    fn parse_with(bytes: &[u8], checksum: bool) -> Result<Self, FormatError> {
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
        let computed = if checksum {
            crc32fast::hash(&bytes[HEADER_SIZE..])
        } else {
            header.checksum
        };
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
                submeshes: subs[sr].iter().copied().map(SubmeshRecord::to_submesh).collect(),
            })
        })
        .collect::<Result<Vec<_>, FormatError>>()?;
    let materials = records::<MaterialRecord>(&dir, bytes, tags::MATERIALS)?
        .iter()
        .enumerate()
        .map(|(i, r)| r.to_material(i, strings.get(r.name, &|| format!("material {i}"))?))
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
            let name = strings.get(r.name, &|| format!("image {i} name"))?;
            let corrupt = |what: String| FormatError::corrupt(format!("image {i} ({name}): {what}"));
            let codec = TextureCodec::from_u32(r.codec)
                .ok_or_else(|| corrupt(format!("unknown codec {}", r.codec)))?;
            let content = ImageContent::from_code(r.content)
                .ok_or_else(|| corrupt(format!("unknown content {}", r.content)))?;
            // Sizes beyond the limit are refused before any level's size is
            // worked out from them.
            if r.width == 0 || r.height == 0 || r.width > MAX_IMAGE_SIDE || r.height > MAX_IMAGE_SIDE {
                return Err(corrupt(format!(
                    "{}×{} is outside 1..={MAX_IMAGE_SIDE} texels a side",
                    r.width, r.height
                )));
            }
            if r.levels != mip_levels(r.width, r.height) {
                return Err(corrupt(format!(
                    "{} mip levels; a {}×{} image has {}",
                    r.levels,
                    r.width,
                    r.height,
                    mip_levels(r.width, r.height)
                )));
            }
            let mut at = r.data_offset as usize;
            let levels: Vec<Vec<u8>> = (0..r.levels)
                .map(|l| {
                    let (w, h) = mip_size(r.width, r.height, l);
                    let n = codec.level_bytes(w, h) as usize;
                    at += n;
                    image_data.get(at - n..at).filter(|_| at as u64 <= end).map(<[u8]>::to_vec)
                })
                .collect::<Option<_>>()
                .ok_or_else(|| corrupt(format!("its mip chain needs more than its {} bytes", r.data_len)))?;
            if at as u64 != end {
                return Err(corrupt(format!(
                    "its mip chain is {} bytes, not the {} it declares",
                    at as u64 - r.data_offset,
                    r.data_len
                )));
            }
            Ok(Image {
                name,
                width: r.width,
                height: r.height,
                codec,
                content,
                levels,
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
    let impostor = read_impostor(&dir, bytes)?;
    let morphs = read_morphs(&dir, bytes, &strings)?;
    let provenance = provenance_section(&dir, bytes, &strings)?;
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
        morphs,
        impostor,
        provenance,
    };
    model.validate()?;
    Ok(model)
}

/// The morph sections (`MSLT`, `MWGT`, `MDLT`); their consistency with the
/// frames and vertices is [`Morphs::validate`]'s.
fn read_morphs(dir: &Directory, bytes: &[u8], strings: &Strings) -> Result<Morphs, FormatError> {
    let slots = records::<MorphSlotRecord>(dir, bytes, tags::MORPH_SLOTS)?
        .iter()
        .enumerate()
        .map(|(i, r)| {
            Ok(MorphSlot {
                name: strings.get(r.name, &|| format!("morph slot {i} name"))?,
                node: r.node,
                mesh: r.mesh,
                target: r.target,
            })
        })
        .collect::<Result<Vec<_>, FormatError>>()?;
    Ok(Morphs {
        slots,
        weights: records(dir, bytes, tags::MORPH_WEIGHTS)?,
        deltas: records::<MorphDelta>(dir, bytes, tags::MORPH_DELTAS)?,
    })
}

/// The provenance of the `.throng` file `bytes` (`None`: the file has no
/// `PROV` section), with the header, checksum and directory checked but no
/// other section read: what `throng bake` reads to decide whether an
/// output is up to date, without decoding the model.
pub fn read_provenance(bytes: &[u8]) -> Result<Option<Provenance>, FormatError> {
    let dir = Directory::parse(bytes)?;
    let strings = Strings(dir.section(bytes, tags::STRINGS)?, Default::default());
    provenance_section(&dir, bytes, &strings)
}

/// The provenance of the `.throng` file at `path`, reading only its header,
/// directory, `STRS` and `PROV` (a few kilobytes of a file of tens of
/// megabytes): the header, the directory and those sections are checked
/// as [`read_provenance`] checks them, but not the checksum over the rest,
/// which would mean reading it all. What `throng bake` uses to skip an up-to-date
/// output: a file damaged elsewhere is still refused when it is loaded
/// (and `--force` re-bakes it).
pub fn peek_provenance(path: &Path) -> Result<Option<Provenance>, FormatError> {
    use std::io::{Read, Seek, SeekFrom};
    let io = |source| FormatError::Io {
        path: path.display().to_string(),
        source,
    };
    let crate::input_file::InputFile { mut file, len } =
        crate::input_file::open(path, MAX_FILE_SIZE)?;
    // Zeroed (untouched pages), with only what is read filled in.
    let mut bytes = vec![0u8; len as usize];
    let mut fill = |at: u64, n: u64, bytes: &mut [u8]| -> Result<(), FormatError> {
        let end = at.checked_add(n).filter(|&e| e <= len).ok_or_else(|| {
            FormatError::corrupt(format!(
                "a section at {at}+{n} runs past the {len}-byte file"
            ))
        })?;
        file.seek(SeekFrom::Start(at)).map_err(io)?;
        file.read_exact(&mut bytes[at as usize..end as usize])
            .map_err(io)
    };
    fill(0, (HEADER_SIZE as u64).min(len), &mut bytes)?;
    if bytes.len() >= HEADER_SIZE {
        let header: Header = bytemuck::pod_read_unaligned(&bytes[..HEADER_SIZE]);
        let dir = (header.section_count.min(MAX_SECTIONS) as u64) * SECTION_ENTRY_SIZE as u64;
        fill(
            HEADER_SIZE as u64,
            dir.min(len - HEADER_SIZE as u64),
            &mut bytes,
        )?;
    }
    let dir = Directory::parse_with(&bytes, false)?;
    for tag in [tags::STRINGS, tags::PROVENANCE] {
        if let Some(e) = dir.entry(tag) {
            fill(e.offset, e.length, &mut bytes)?;
        }
    }
    let strings = Strings(dir.section(&bytes, tags::STRINGS)?, Default::default());
    provenance_section(&dir, &bytes, &strings)
}

/// The optional `PROV` section: absent or empty, or one record.
fn provenance_section(
    dir: &Directory,
    bytes: &[u8],
    strings: &Strings,
) -> Result<Option<Provenance>, FormatError> {
    if dir.entry(tags::PROVENANCE).is_none() {
        return Ok(None);
    }
    let records: Vec<ProvenanceRecord> = records(dir, bytes, tags::PROVENANCE)?;
    let r = match records.as_slice() {
        [] => return Ok(None),
        [r] => r,
        more => {
            return Err(FormatError::corrupt(format!(
                "section PROV holds {} records, expected 0 or 1",
                more.len()
            )));
        }
    };
    if r.reserved != [0; 3] {
        return Err(FormatError::corrupt(
            "reserved provenance fields are not zero",
        ));
    }
    for (what, s) in [("options", r.options), ("baker", r.baker)] {
        if s.len as usize > MAX_PROVENANCE_TEXT {
            return Err(FormatError::corrupt(format!(
                "provenance {what} text is {} bytes, more than {MAX_PROVENANCE_TEXT}",
                s.len
            )));
        }
    }
    Ok(Some(Provenance {
        inputs: r.inputs,
        files: r.files,
        options: strings.get(r.options, &|| "provenance options".into())?,
        baker: strings.get(r.baker, &|| "provenance baker".into())?,
    }))
}

/// The impostor sections: none, or a plan whose images are exactly the
/// bytes its layout needs (checked against the section's actual length
/// before anything is copied); the rest is `ImpostorAtlas::check`'s.
fn read_impostor(dir: &Directory, bytes: &[u8]) -> Result<Option<ImpostorAtlas>, FormatError> {
    let plans: Vec<ImpostorRecord> = records(dir, bytes, tags::IMPOSTOR)?;
    let spheres: Vec<[f32; 4]> = records(dir, bytes, tags::IMPOSTOR_SPHERES)?;
    let data = dir.section(bytes, tags::IMPOSTOR_DATA)?;
    let r = match plans.as_slice() {
        [] if spheres.is_empty() && data.is_empty() => return Ok(None),
        [] => {
            return Err(FormatError::corrupt(
                "impostor spheres or images without an impostor plan (IMPO is empty)",
            ));
        }
        [r] => *r,
        more => {
            return Err(FormatError::corrupt(format!(
                "section IMPO holds {} records, expected 0 or 1",
                more.len()
            )));
        }
    };
    let codec = TextureCodec::from_u32(r.codec).ok_or_else(|| {
        FormatError::corrupt(format!(
            "impostor images in codec {}, known are 0 (RGBA8), 1 (BC7) and 2 (BC3)",
            r.codec
        ))
    })?;
    if r.reserved != [0; 3] {
        return Err(FormatError::corrupt(
            "reserved impostor plan fields are not zero",
        ));
    }
    let plan = AtlasPlan {
        views: ViewGrid { side: r.views },
        frames: r.frames,
        cell: r.cell,
        clips: r.clips,
        layer_size: r.layer_size,
        layers: r.layers,
        codec,
        surface: match r.images {
            2 => false,
            3 => true,
            n => {
                return Err(FormatError::corrupt(format!(
                    "impostor of {n} images, expected 2 (colour, normal) or 3 (and the surface)"
                )));
            }
        },
    };
    let image = ImpostorAtlas::image_bytes(&plan);
    let images = plan.images();
    if data.len() as u64 != image.saturating_mul(images as u64) {
        return Err(FormatError::corrupt(format!(
            "impostor images hold {} bytes, the plan ({}² texels × {} layers, {images} images in {}) needs {}",
            data.len(),
            r.layer_size,
            r.layers,
            codec.name(),
            image.saturating_mul(images as u64)
        )));
    }
    let (colour, rest) = data.split_at(image as usize);
    let (normal, surface) = rest.split_at(image as usize);
    Ok(Some(ImpostorAtlas {
        plan,
        screen_size: r.screen_size,
        spheres,
        colour: colour.to_vec(),
        normal: normal.to_vec(),
        surface: surface.to_vec(),
    }))
}
