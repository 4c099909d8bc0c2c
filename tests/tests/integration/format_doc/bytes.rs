//! The raw bytes of a real file against the doc: the header fields at their
//! documented offsets, the directory, the CRC-32 and zero padding, and a
//! writer that follows only the doc's layout rules giving the same bytes
//! (with unknown sections skipped).

use throng_bake::BakeOptions;
use throng_core::format::{
    Directory, HEADER_SIZE, MAGIC, SECTION_ALIGN, SECTION_ENTRY_SIZE, VERSION, read_model,
    write_model,
};
use throng_tests::crc32_ieee;

use super::{MODEL, bake, doc, field_table, u32_at, u64_at};

#[test]
fn round_trip_and_header_fields_at_their_documented_offsets() {
    let model = bake(MODEL, &BakeOptions::default());
    let bytes = write_model(&model).unwrap();
    let back = read_model(&bytes).unwrap();
    assert!(back == model, "write_model → read_model changed the model");

    let doc = doc();
    let header = field_table(&doc, "Header");
    let at = |field: &str| {
        header
            .iter()
            .find(|r| r.field == field)
            .unwrap_or_else(|| panic!("the doc's header table has no {field}"))
            .offset
    };
    // The offsets the issue lists; a change here is a format change (bump VERSION).
    for (field, offset) in [
        ("magic", 0),
        ("version", 8),
        ("header_size", 12),
        ("file_size", 16),
        ("section_count", 24),
        ("checksum", 28),
    ] {
        assert_eq!(at(field), offset, "documented offset of {field}");
    }
    assert_eq!(&bytes[at("magic")..at("magic") + 8], b"\x89THRONG\n");
    assert_eq!(MAGIC, *b"\x89THRONG\n");
    assert_eq!(u32_at(&bytes, at("version")), VERSION);
    let documented = format!("# The `.throng` file format, version {VERSION}");
    assert!(
        doc.contains(&documented),
        "docs/FORMAT.md must document version {VERSION}"
    );
    assert_eq!(u32_at(&bytes, at("header_size")), 64);
    assert_eq!(u64_at(&bytes, at("file_size")), bytes.len() as u64);
    let count = u32_at(&bytes, at("section_count")) as usize;
    assert_eq!(
        count, 24,
        "the twenty-four sections FORMAT.md lists (twenty-one required; PROV, FEET and PHAS optional)"
    );
    assert_eq!(
        u32_at(&bytes, at("checksum")),
        crc32_ieee(&bytes[HEADER_SIZE..]),
        "checksum = CRC-32 of bytes [64, file_size)"
    );
    assert_eq!(
        crc32_ieee(b"123456789"),
        0xCBF4_3926,
        "the doc's check value"
    );
    assert_eq!(u32_at(&bytes, at("flags")), 0);
    assert!(bytes[at("reserved")..HEADER_SIZE].iter().all(|&b| b == 0));

    // Directory entries read at the documented offsets agree with the parser.
    let entry = field_table(&doc, "SectionEntry");
    let eat = |field: &str| entry.iter().find(|r| r.field == field).unwrap().offset;
    let dir = Directory::parse(&bytes).unwrap();
    let dir_end = HEADER_SIZE + count * SECTION_ENTRY_SIZE;
    let mut covered = vec![false; bytes.len()];
    covered[..dir_end].iter_mut().for_each(|c| *c = true);
    for (i, parsed) in dir.entries.iter().enumerate() {
        let base = HEADER_SIZE + i * SECTION_ENTRY_SIZE;
        let tag: [u8; 4] = bytes[base + eat("tag")..][..4].try_into().unwrap();
        let record_size = u32_at(&bytes, base + eat("record_size"));
        let offset = u64_at(&bytes, base + eat("offset")) as usize;
        let length = u64_at(&bytes, base + eat("length")) as usize;
        assert_eq!(
            (tag, record_size, offset as u64, length as u64),
            (parsed.tag, parsed.record_size, parsed.offset, parsed.length)
        );
        let name = String::from_utf8_lossy(&tag);
        assert_eq!(
            offset % SECTION_ALIGN,
            0,
            "section {name} at {offset} is not 16-byte aligned"
        );
        assert_eq!(SECTION_ALIGN, 16);
        assert!(offset >= dir_end && offset + length <= bytes.len());
        assert_eq!(length % record_size as usize, 0);
        covered[offset..offset + length]
            .iter_mut()
            .for_each(|c| *c = true);
        println!("{name}: {record_size}-byte records at {offset}+{length}");
    }
    assert_eq!(bytes.len() % 16, 0, "file size is rounded up to 16");
    let stray = (0..bytes.len()).find(|&i| !covered[i] && bytes[i] != 0);
    assert_eq!(stray, None, "padding bytes are written as zero");
}

/// A writer that follows only the doc: header, directory, each section at the
/// previous end rounded up to 16, zero padding, file size rounded up to 16,
/// CRC-32 of bytes [64, file_size).
fn write_from_doc(sections: &[([u8; 4], u32, &[u8])]) -> Vec<u8> {
    let round = |n: usize| n.div_ceil(16) * 16;
    let dir_end = 64 + 24 * sections.len();
    let mut out = vec![0u8; round(dir_end)];
    for (i, (tag, record_size, data)) in sections.iter().enumerate() {
        let offset = out.len();
        out.extend_from_slice(data);
        out.resize(round(out.len()), 0);
        let e = 64 + 24 * i;
        out[e..e + 4].copy_from_slice(tag);
        out[e + 4..e + 8].copy_from_slice(&record_size.to_le_bytes());
        out[e + 8..e + 16].copy_from_slice(&(offset as u64).to_le_bytes());
        out[e + 16..e + 24].copy_from_slice(&(data.len() as u64).to_le_bytes());
    }
    let len = out.len() as u64;
    out[..8].copy_from_slice(b"\x89THRONG\n");
    out[8..12].copy_from_slice(&VERSION.to_le_bytes());
    out[12..16].copy_from_slice(&64u32.to_le_bytes());
    out[16..24].copy_from_slice(&len.to_le_bytes());
    out[24..28].copy_from_slice(&(sections.len() as u32).to_le_bytes());
    let crc = crc32_ieee(&out[64..]);
    out[28..32].copy_from_slice(&crc.to_le_bytes());
    out
}

#[test]
fn a_writer_built_from_the_doc_gives_the_same_bytes_and_unknown_sections_are_skipped() {
    let model = bake(MODEL, &BakeOptions::default());
    let bytes = write_model(&model).unwrap();
    let dir = Directory::parse(&bytes).unwrap();
    let mut sections: Vec<([u8; 4], u32, &[u8])> = dir
        .entries
        .iter()
        .map(|e| {
            let s = dir.section(&bytes, e.tag).unwrap();
            (e.tag, e.record_size, s)
        })
        .collect();
    assert!(
        write_from_doc(&sections) == bytes,
        "the doc's layout rules do not reproduce write_model's bytes"
    );

    // An extra section with an unknown tag, anywhere in the directory, is skipped.
    let extra = [7u8; 40];
    sections.insert(3, (*b"XTRA", 8, &extra));
    let with_extra = write_from_doc(&sections);
    let back = read_model(&with_extra).expect("an unknown section is skipped");
    assert!(back == model);
    // ... but it still obeys the directory rules.
    sections[3].1 = 16; // 40 bytes are not whole 16-byte records
    let err = read_model(&write_from_doc(&sections)).unwrap_err();
    println!("unknown section with partial records: {err}");
    assert!(err.to_string().contains("XTRA"), "{err}");
}
