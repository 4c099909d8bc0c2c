//! Cases of the file's frame: the header (magic, version, sizes, reserved
//! words, checksum, section count) and the section directory (offsets,
//! lengths, record sizes, duplicate and missing tags).

use std::mem::offset_of;

use throng_core::format::{HEADER_SIZE, Header, SectionEntry, VERSION, tags};

use super::fixture::{Fixture, get, put};
use super::table::Expect::*;
use super::table::{Case, Runner, case};

/// Field `field` (an `offset_of!` into `SectionEntry`) of `tag`'s entry.
fn entry(f: &Fixture, tag: [u8; 4], field: usize) -> usize {
    f.entry_field(tag, field)
}

const OFFSET: usize = offset_of!(SectionEntry, offset);
const LENGTH: usize = offset_of!(SectionEntry, length);
const RECORD_SIZE: usize = offset_of!(SectionEntry, record_size);

/// The header: magic, version, its own size, flags and reserved words,
/// the file size, the checksum and the section count.
#[rustfmt::skip]
pub static HEADER: &[Case] = &[
    case("bad magic", BadMagic, &["magic"], |_, b| b[1] = b'X'),
    case("version 0", Version(0), &["version 0", "re-bake"], |_, b| put(b, offset_of!(Header, version), 0u32)),
    case("the next version", Version(VERSION + 1), &["re-bake"], |_, b| put(b, offset_of!(Header, version), VERSION + 1)),
    case("version u32::MAX", Version(u32::MAX), &["version"], |_, b| put(b, offset_of!(Header, version), u32::MAX)),
    case("header size 32", Corrupt, &["header size 32"], |_, b| { put(b, offset_of!(Header, header_size), 32u32) }),
    case("header size 128", Corrupt, &["header size 128"], |_, b| { put(b, offset_of!(Header, header_size), 128u32) }),
    case("header flags 1", Corrupt, &["reserved header"], |_, b| { put(b, offset_of!(Header, flags), 1u32) }),
    case("header reserved[6] = 1", Corrupt, &["reserved header"], |_, b| put(b, offset_of!(Header, reserved) + 24, 1u32)),
    case("file_size larger than the file", Truncated, &["needs"], |f, b| put(b, offset_of!(Header, file_size), f.file_size() as u64 + 16)),
    case("file_size u64::MAX", Truncated, &["needs"], |_, b| { put(b, offset_of!(Header, file_size), u64::MAX) }),
    case("file_size smaller than the file", Corrupt, &["16 bytes after"], |f, b| put(b, offset_of!(Header, file_size), f.file_size() as u64 - 16)),
    case("bytes appended after the file", Corrupt, &["3 bytes after"], |_, b| b.extend_from_slice(&[0, 0, 0])),
    case("stored checksum off by one", Checksum, &["checksum"], |f, b| { let at = offset_of!(Header, checksum); put(b, at, f.dir.header.checksum.wrapping_add(1)) })
    .raw(),
    case("a section byte flipped", Checksum, &["checksum"], |f, b| { b[f.section(tags::VERTICES) + 3] ^= 0x10 })
    .raw(),
    case("section count 4294967295", Corrupt, &["at most 64"], |_, b| put(b, offset_of!(Header, section_count), u32::MAX)),
    case("section count 65", Corrupt, &["at most 64"], |_, b| { put(b, offset_of!(Header, section_count), 65u32) }),
    case("section count 25", Corrupt, &["inside the directory"], |_, b| put(b, offset_of!(Header, section_count), 25u32)),
    case("section count 23", Corrupt, &["required section MDLT is missing"], |_, b| put(b, offset_of!(Header, section_count), 23u32)),
    case("section count 20", Corrupt, &["required section IMPD is missing"], |_, b| put(b, offset_of!(Header, section_count), 20u32)),
    case("section count 17", Corrupt, &["required section EVNT is missing"], |_, b| put(b, offset_of!(Header, section_count), 17u32)),
    case("section count 0", Corrupt, &["required section STRS is missing"], |_, b| put(b, offset_of!(Header, section_count), 0u32)),
];

/// The directory: where each section lies, its length and record size,
/// each tag once.
#[rustfmt::skip]
pub static DIRECTORY: &[Case] = &[
    case("section offset at the end of the file", Corrupt, &["BONE", "runs past the end"], |f, b| put(b, entry(f, tags::BONES, OFFSET), f.file_size() as u64)),
    case("section offset + length overflows", Corrupt, &["BONE", "runs past the end"], |f, b| put(b, entry(f, tags::BONES, OFFSET), u64::MAX - 15)),
    case("section length u64::MAX", Corrupt, &["VERT", "runs past the end"], |f, b| put(b, entry(f, tags::VERTICES, LENGTH), u64::MAX)),
    case("section offset misaligned", Corrupt, &["BONE", "misaligned"], |f, b| { let at = entry(f, tags::BONES, OFFSET); let misaligned = get::<u64>(b, at) + 8; put(b, at, misaligned) }),
    case("section offset inside the directory", Corrupt, &["BONE", "inside the directory"], |f, b| put(b, entry(f, tags::BONES, OFFSET), HEADER_SIZE as u64)),
    case("section overlapping another", Corrupt, &["overlap", "CLIP", "BONE"], |f, b| { put(b, entry(f, tags::CLIPS, OFFSET), f.section(tags::BONES) as u64) }),
    case("length not a whole number of records", Corrupt, &["BONE", "287", "whole number of 144-byte records"], |f, b| put(b, entry(f, tags::BONES, LENGTH), 287u64)),
    case("record size 0", Corrupt, &["BONE", "0-byte records"], |f, b| put(b, entry(f, tags::BONES, RECORD_SIZE), 0u32)),
    case("wrong record size (BONE 72)", Corrupt, &["BONE", "declares 72-byte records, expected 144"], |f, b| put(b, entry(f, tags::BONES, RECORD_SIZE), 72u32)),
    case("wrong record size (VERT 36)", Corrupt, &["VERT", "declares 36-byte records, expected 72"], |f, b| put(b, entry(f, tags::VERTICES, RECORD_SIZE), 36u32)),
    case("wrong texel record size (8 for f32)", Corrupt, &["texel records are 8 bytes", "needs 16"], |f, b| put(b, entry(f, tags::TEXELS, RECORD_SIZE), 8u32)),
    // IMGD's first 64 image bytes, as one 64-byte record, are a
    // well-formed CLIP section, so only the duplicate is wrong.
    case("duplicate tag", Corrupt, &["CLIP appears twice"], |f, b| { put(b, entry(f, tags::IMAGE_DATA, RECORD_SIZE), 64u32); put(b, entry(f, tags::IMAGE_DATA, LENGTH), 64u64); put(b, entry(f, tags::IMAGE_DATA, 0), tags::CLIPS) }),
];

/// A case per section the fixture holds, made from its directory: the
/// section's tag renamed (lower-cased) must be reported missing. PROV is
/// optional: renamed, it is an unknown section, skipped, and the model
/// loads without provenance (the provenance test checks that); so is
/// FEET (the model loads without stored contacts), while PHAS without its
/// FEET is missing.
pub fn run_missing_sections(runner: &mut Runner, f: &Fixture) {
    let optional = [tags::PROVENANCE, tags::FEET];
    for e in f.dir.entries.iter().filter(|e| !optional.contains(&e.tag)) {
        let name = String::from_utf8_lossy(&e.tag).into_owned();
        let mut bytes = f.bytes.clone();
        let at = f.entry(e.tag);
        bytes[at] = bytes[at].to_ascii_lowercase();
        super::fixture::fix_checksum(&mut bytes);
        runner.expect(
            &format!("missing section {name} (tag renamed)"),
            &bytes,
            Corrupt,
            &[&format!("required section {name} is missing")],
        );
    }
}
