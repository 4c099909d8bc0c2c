//! The container of a `.throng` (and of a frames file): its header,
//! checksum and directory checked ([`Directory`]), sections viewed in place
//! or copied out as records (the texels among them), the string table read
//! without overlaps, and sections laid out as a file (`lay_out`). Below the
//! model reader (`read.rs`) and the provenance peek (`provenance.rs`).

use bytemuck::Pod;

use super::{
    HEADER_SIZE, Header, MAGIC, MAX_SECTIONS, SECTION_ALIGN, SECTION_ENTRY_SIZE, SectionEntry,
    StrRef, VERSION, expected_record_size, tags,
};
use crate::error::FormatError;
use crate::model::{TexelFormat, Texels};

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
    pub(super) fn parse_with(bytes: &[u8], checksum: bool) -> Result<Self, FormatError> {
        let len = bytes.len() as u64;
        let header = read_header(bytes)?;
        check_checksum(&header, bytes, checksum)?;
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
        check_sections(&entries, dir_end as u64, len)?;
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

/// The header of `bytes`, checked: long enough, magic, version, header size,
/// reserved fields zero, and a declared file size equal to `bytes`' length
/// (a shorter file is truncated, a longer one has trailing bytes).
fn read_header(bytes: &[u8]) -> Result<Header, FormatError> {
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
    Ok(header)
}

/// Compares the CRC-32 of everything after the header with the one
/// `header` stores; with `checksum` false the check is skipped.
fn check_checksum(header: &Header, bytes: &[u8], checksum: bool) -> Result<(), FormatError> {
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
    Ok(())
}

/// Checks the directory `entries` of a `len`-byte file whose directory ends
/// at `dir_end`: each section checked by [`check_section`], no tag twice,
/// and no two sections overlapping.
fn check_sections(entries: &[SectionEntry], dir_end: u64, len: u64) -> Result<(), FormatError> {
    let mut spans: Vec<(u64, u64, [u8; 4])> = Vec::new();
    for e in entries {
        let end = check_section(e, dir_end, len)?;
        if spans.iter().any(|s| s.2 == e.tag) {
            return Err(FormatError::corrupt(format!(
                "section {} appears twice",
                tag_name(e.tag)
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
    Ok(())
}

/// One directory entry on its own: inside the `len`-byte file, aligned and
/// after the directory (which ends at `dir_end`), a whole number of records
/// of the size its tag expects. Returns the section's end offset.
fn check_section(e: &SectionEntry, dir_end: u64, len: u64) -> Result<u64, FormatError> {
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
    if !e.offset.is_multiple_of(SECTION_ALIGN as u64) || e.offset < dir_end {
        return Err(FormatError::corrupt(format!(
            "section {name} offset {} is misaligned or inside the directory",
            e.offset
        )));
    }
    if e.record_size == 0 || !e.length.is_multiple_of(e.record_size as u64) {
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
    Ok(end)
}

pub(super) fn tag_name(tag: [u8; 4]) -> String {
    tag.iter()
        .map(|&b| if b.is_ascii_graphic() { b as char } else { '?' })
        .collect()
}

/// Records of `T` from a section, copied out (works at any alignment).
pub(super) fn records<T: Pod>(
    dir: &Directory,
    bytes: &[u8],
    tag: [u8; 4],
) -> Result<Vec<T>, FormatError> {
    let s = dir.section(bytes, tag)?;
    match bytemuck::try_cast_slice::<u8, T>(s) {
        Ok(v) => Ok(v.to_vec()),
        Err(_) => Ok(bytemuck::pod_collect_to_vec(s)),
    }
}

pub(super) fn one_record<T: Pod>(
    dir: &Directory,
    bytes: &[u8],
    tag: [u8; 4],
) -> Result<T, FormatError> {
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
pub(super) struct Strings<'a>(pub(super) &'a [u8], pub(super) std::cell::Cell<u64>);

impl Strings<'_> {
    pub(super) fn get(&self, r: StrRef, what: &dyn Fn() -> String) -> Result<String, FormatError> {
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

/// The bone texture's texels (`TEXL`), in the format of code `format` (the
/// model record's, or a frames file's).
pub(super) fn read_texels(
    dir: &Directory,
    bytes: &[u8],
    format: u32,
) -> Result<Texels, FormatError> {
    let format = TexelFormat::from_code(format)
        .ok_or_else(|| FormatError::corrupt(format!("unknown texel format code {format}")))?;
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
    Ok(match format {
        TexelFormat::F32 => Texels::F32(records(dir, bytes, tags::TEXELS)?),
        TexelFormat::F16 => Texels::F16(records(dir, bytes, tags::TEXELS)?),
    })
}

/// The file: header, directory and `sections`, each at an aligned offset,
/// the checksum over all but the header.
pub(super) fn lay_out(sections: &[([u8; 4], u32, &[u8])]) -> Vec<u8> {
    let dir_end = HEADER_SIZE + sections.len() * SECTION_ENTRY_SIZE;
    let mut offset = dir_end.next_multiple_of(SECTION_ALIGN);
    let mut entries = Vec::with_capacity(sections.len());
    for (tag, record_size, bytes) in sections {
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
    for (entry, (_, _, bytes)) in entries.iter().zip(sections) {
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
    out
}
