//! `docs/FORMAT.md` against the code, so the documentation of the `.throng`
//! file cannot drift from what `throng_core::format` writes and reads.
//!
//! The field tables of the doc (header, directory entry, string reference and
//! every record) are parsed and compared with the Rust structs through
//! `offset_of!`/`size_of`; the header of a real file is then read at the
//! documented offsets from raw bytes, the checksum recomputed with a CRC-32
//! written from the doc's description, and the whole file rebuilt by a writer
//! that follows only the doc's layout rules, which must give the same bytes.
//! Finally the bulk sections (`VERT`, `INDX`, `TEXL`) are viewed in place
//! without copying, and the texel addressing and frame-table rules of the doc
//! are checked against the CPU pose evaluator.

use std::mem::{offset_of, size_of, size_of_val};

use bytemuck::Zeroable;
use throng_bake::sample::PoseEvaluator;
use throng_bake::{BakeOptions, bake_file, import_file};
use throng_core::format::{
    self, BoneRecord, ClipRecord, Directory, EventRecord, HEADER_SIZE, Header, ImageRecord,
    ImpostorRecord, LodRecord, MAGIC, MaterialRecord, ModelRecord, MorphSlotRecord,
    ProvenanceRecord, SECTION_ALIGN, SECTION_ENTRY_SIZE, SectionEntry, StrRef, SubmeshRecord,
    TextureSlotRecord, VERSION, read_model, tags, write_model,
};
use throng_core::glam::Mat4;
use throng_core::model::{BakedModel, BakedVertex, RootMotionKey, TexelFormat, Texels};
use throng_core::morph::MorphDelta;
use throng_tests::{asset, crc32_ieee, repo_root};

const MODEL: &str = "khronos_RiggedSimple.glb";

fn bake(name: &str, opts: &BakeOptions) -> BakedModel {
    bake_file(&asset(name), opts, &|_, _| {})
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .0
}

fn doc() -> String {
    let path = repo_root().join("docs/FORMAT.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The cells of the first markdown table after the first heading that
/// `is_heading` accepts, header and separator rows included.
fn table_after(doc: &str, what: &str, is_heading: impl Fn(&str) -> bool) -> Vec<Vec<String>> {
    let mut lines = doc
        .lines()
        .skip_while(|l| !(l.starts_with('#') && is_heading(l)));
    assert!(
        lines.next().is_some(),
        "docs/FORMAT.md has no heading for {what}"
    );
    let rows: Vec<Vec<String>> = lines
        .skip_while(|l| !l.starts_with('|') && !l.starts_with('#'))
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim()
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().replace('`', ""))
                .collect()
        })
        .collect();
    assert!(
        rows.len() > 2,
        "docs/FORMAT.md: no table under the heading of {what}"
    );
    rows
}

/// One row of a documented field table.
#[derive(Debug)]
struct Row {
    offset: usize,
    size: usize,
    ty: String,
    field: String,
}

/// The field table under the heading that names `key` in backticks.
fn field_table(doc: &str, key: &str) -> Vec<Row> {
    let needle = format!("`{key}`");
    table_after(doc, key, |h| h.contains(&needle))
        .into_iter()
        .filter_map(|cells| {
            let offset = cells.first()?.parse().ok()?; // skips header and separator rows
            assert!(cells.len() >= 4, "{key}: short row {cells:?}");
            Some(Row {
                offset,
                size: cells[1]
                    .parse()
                    .unwrap_or_else(|_| panic!("{key}: bad size in {cells:?}")),
                ty: cells[2].clone(),
                field: cells[3].clone(),
            })
        })
        .collect()
}

/// Size in bytes of a documented type: `u32`, `f32[3]`, `StrRef`, ...
fn type_size(ty: &str) -> usize {
    let (base, count) = match ty.split_once('[') {
        Some((base, n)) => (base, n.trim_end_matches(']').parse::<usize>().unwrap()),
        None => (ty, 1),
    };
    let base = match base {
        "u8" => 1,
        "u16" | "i16" | "f16" => 2,
        "u32" | "f32" => 4,
        "u64" | "StrRef" => 8,
        "TextureSlotRecord" => 32,
        other => panic!("docs/FORMAT.md uses an undocumented type {other:?}"),
    };
    base * count
}

/// `(struct size, [(field, offset, size)])` of a record struct.
type Layout = (usize, Vec<(&'static str, usize, usize)>);

macro_rules! layout {
    ($t:ty: $($f:ident),+ $(,)?) => {{
        let z = <$t as Zeroable>::zeroed();
        let fields: Vec<(&'static str, usize, usize)> =
            vec![$((stringify!($f), offset_of!($t, $f), size_of_val(&z.$f))),+];
        (size_of::<$t>(), fields)
    }};
}

fn check_table(doc: &str, key: &str, (size, fields): Layout, failures: &mut Vec<String>) {
    let rows = field_table(doc, key);
    let documented: Vec<_> = rows.iter().map(|r| r.field.as_str()).collect();
    let actual: Vec<_> = fields.iter().map(|f| f.0).collect();
    if documented != actual {
        failures.push(format!(
            "{key}: the doc lists fields {documented:?}, the struct has {actual:?}"
        ));
        return;
    }
    let mut end = 0;
    for (row, &(name, offset, field_size)) in rows.iter().zip(&fields) {
        if (row.offset, row.size) != (offset, field_size) {
            failures.push(format!(
                "{key}.{name}: documented at {}+{}, the struct has it at {offset}+{field_size}",
                row.offset, row.size
            ));
        }
        if type_size(&row.ty) != row.size {
            failures.push(format!(
                "{key}.{name}: documented type {} is not {} bytes",
                row.ty, row.size
            ));
        }
        if row.offset != end {
            failures.push(format!(
                "{key}.{name}: documented at {}, the previous field ends at {end}",
                row.offset
            ));
        }
        end = row.offset + row.size;
    }
    if end != size {
        failures.push(format!(
            "{key}: documented fields end at {end}, the record is {size} bytes"
        ));
    }
    println!("{key}: {} fields, {size} bytes, as documented", rows.len());
}

#[test]
fn documented_tables_match_the_structs() {
    let doc = doc();
    let mut failures = Vec::new();
    let tables: Vec<(&str, Layout)> = vec![
        (
            "Header",
            layout!(Header: magic, version, header_size, file_size, section_count, checksum, flags, reserved),
        ),
        (
            "SectionEntry",
            layout!(SectionEntry: tag, record_size, offset, length),
        ),
        ("StrRef", layout!(StrRef: offset, len)),
        (
            "ModelRecord",
            layout!(ModelRecord: name, source, fps, texel_format, texture_width, texture_layers,
                bounds_min, bounding_radius, bounds_max, bake_error, reserved),
        ),
        (
            "BoneRecord",
            layout!(BoneRecord: name, node, parent, inverse_bind, rest_global),
        ),
        (
            "ClipRecord",
            layout!(ClipRecord: name, first_frame, frame_count, duration, flags, bounds_min, bounds_max,
                error_at_frames, error_between_frames, max_error, reserved),
        ),
        (
            "LodRecord",
            layout!(LodRecord: first_vertex, vertex_count, first_index, index_count, first_submesh,
                submesh_count, screen_size, reserved),
        ),
        (
            "SubmeshRecord",
            layout!(SubmeshRecord: material, flags, source_node, source_mesh, source_primitive,
                base_vertex, vertex_count, first_index, index_count, reserved),
        ),
        (
            "MaterialRecord",
            layout!(MaterialRecord: name, base_color_factor, emissive, metallic_factor,
                roughness_factor, normal_scale, occlusion_strength, alpha_mode, alpha_cutoff, flags,
                textures),
        ),
        (
            "TextureSlotRecord",
            layout!(TextureSlotRecord: image, wrap, offset, scale, rotation, reserved),
        ),
        (
            "ImageRecord",
            layout!(ImageRecord: name, width, height, levels, codec, content, reserved, data_offset, data_len),
        ),
        ("RootMotionKey", layout!(RootMotionKey: translation, yaw)),
        ("EventRecord", layout!(EventRecord: clip, time, name, data)),
        (
            "ImpostorRecord",
            layout!(ImpostorRecord: views, frames, cell, layer_size, layers, clips, screen_size, codec, images, reserved),
        ),
        (
            "ProvenanceRecord",
            layout!(ProvenanceRecord: inputs, options, baker, files, reserved),
        ),
        (
            "BakedVertex",
            layout!(BakedVertex: position, normal, uv, joints, weights, morph, tangent),
        ),
        (
            "MorphSlotRecord",
            layout!(MorphSlotRecord: name, node, mesh, target),
        ),
        (
            "MorphDelta",
            layout!(MorphDelta: position, slot, normal, pad),
        ),
        // `FBND` has no struct: `[f32; 6]`, min corner then max corner.
        (
            "FBND",
            (size_of::<[f32; 6]>(), vec![("min", 0, 12), ("max", 12, 12)]),
        ),
    ];
    for (key, layout) in tables {
        check_table(&doc, key, layout, &mut failures);
    }
    assert_eq!(size_of::<Header>(), HEADER_SIZE);
    assert_eq!(size_of::<SectionEntry>(), SECTION_ENTRY_SIZE);
    assert!(
        failures.is_empty(),
        "docs/FORMAT.md disagrees with the code:\n{}",
        failures.join("\n")
    );
}

#[test]
fn documented_section_table_lists_every_section_the_writer_emits() {
    let doc = doc();
    let rows: Vec<Vec<String>> = table_after(&doc, "the section table", |h| h == "## Sections")
        .into_iter()
        .skip(2)
        .collect();
    let documented: Vec<(String, String)> =
        rows.iter().map(|c| (c[0].clone(), c[1].clone())).collect();
    for precision in [TexelFormat::F32, TexelFormat::F16] {
        let opts = BakeOptions {
            precision,
            ..BakeOptions::default()
        };
        let bytes = write_model(&bake(MODEL, &opts)).unwrap();
        let dir = Directory::parse(&bytes).unwrap();
        let written: Vec<String> = dir
            .entries
            .iter()
            .map(|e| String::from_utf8(e.tag.to_vec()).unwrap())
            .collect();
        let listed: Vec<&String> = documented.iter().map(|d| &d.0).collect();
        assert_eq!(
            listed,
            written.iter().collect::<Vec<_>>(),
            "the doc's section table must list the sections the writer emits, in its order"
        );
        for (e, (tag, size)) in dir.entries.iter().zip(&documented) {
            let sizes: Vec<u32> = size.split(" or ").map(|s| s.parse().unwrap()).collect();
            assert!(
                sizes.contains(&e.record_size),
                "{tag}: written with {}-byte records, the doc says {size}",
                e.record_size
            );
        }
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

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
        count, 22,
        "the twenty-two sections FORMAT.md lists (twenty-one required, PROV optional)"
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

#[test]
fn bulk_sections_are_viewed_in_place_in_an_aligned_buffer() {
    for precision in [TexelFormat::F32, TexelFormat::F16] {
        let opts = BakeOptions {
            precision,
            ..BakeOptions::default()
        };
        let model = bake(MODEL, &opts);
        let bytes = write_model(&model).unwrap();
        let aligned = format::aligned_copy(&bytes);
        let buf: &[u8] = &bytemuck::cast_slice::<u128, u8>(&aligned)[..bytes.len()];
        assert_eq!(buf.as_ptr() as usize % 16, 0);
        let dir = Directory::parse(buf).unwrap();
        let start = |tag: [u8; 4]| buf[dir.entry(tag).unwrap().offset as usize..].as_ptr();

        let verts: &[BakedVertex] = dir.view(buf, tags::VERTICES).unwrap();
        assert!(std::ptr::eq(verts.as_ptr().cast(), start(tags::VERTICES)));
        let all_verts: Vec<BakedVertex> =
            model.lods.iter().flat_map(|l| l.vertices.clone()).collect();
        assert!(verts == all_verts.as_slice());

        let indices: &[u32] = dir.view(buf, tags::INDICES).unwrap();
        assert!(std::ptr::eq(indices.as_ptr().cast(), start(tags::INDICES)));
        let all_indices: Vec<u32> = model.lods.iter().flat_map(|l| l.indices.clone()).collect();
        assert_eq!(indices, all_indices.as_slice());

        let texel_bytes: &[u8] = match precision {
            TexelFormat::F32 => {
                bytemuck::cast_slice(dir.view::<[f32; 4]>(buf, tags::TEXELS).unwrap())
            }
            TexelFormat::F16 => {
                bytemuck::cast_slice(dir.view::<[u16; 4]>(buf, tags::TEXELS).unwrap())
            }
        };
        assert!(std::ptr::eq(texel_bytes.as_ptr(), start(tags::TEXELS)));
        assert_eq!(texel_bytes, model.texture.texels.as_bytes());

        // The same bytes one byte off alignment cannot be viewed, only read.
        let shifted = format::aligned_copy(&[&[0u8][..], &bytes].concat());
        let off: &[u8] = &bytemuck::cast_slice::<u128, u8>(&shifted)[1..][..bytes.len()];
        let dir = Directory::parse(off).unwrap();
        let err = dir.view::<BakedVertex>(off, tags::VERTICES).unwrap_err();
        assert!(
            err.to_string().contains("cannot be viewed in place"),
            "{err}"
        );
        assert!(read_model(off).unwrap() == model);
        println!(
            "{precision:?}: VERT, INDX and TEXL viewed in place; unaligned view refused: {err}"
        );
    }
}

/// Texel `r` of bone `b` at global frame `g`, located with the doc's formula
/// in a `W × W × layers` array filled from `TEXL` layer by layer, row by row.
fn texel_from_doc(model: &BakedModel, texl: &[[f32; 4]], g: u32, b: u32, r: u32) -> [f32; 4] {
    let w = model.texture.width as usize;
    let i = (g as usize * model.bones.len() + b as usize) * 3 + r as usize;
    let layer = i / (w * w);
    let y = (i % (w * w)) / w;
    let x = i % w;
    assert!(x < w && y < w && layer < model.texture.layers as usize);
    texl[layer * w * w + y * w + x]
}

/// Row `r` of a column-major matrix, as the doc stores it in a texel.
fn doc_row(m: &[f32; 16], r: usize) -> [f32; 4] {
    [m[r], m[4 + r], m[8 + r], m[12 + r]]
}

#[test]
fn texels_follow_the_documented_addressing_and_frame_table() {
    // Small layers so that the texture has several and clips cross layers.
    let opts = BakeOptions {
        max_layer_size: 8,
        ..BakeOptions::default()
    };
    let path = asset(MODEL);
    let scene = import_file(&path).unwrap().scene;
    let model = bake(MODEL, &opts);
    assert!(model.texture.layers > 1, "the test needs several layers");
    let bytes = write_model(&model).unwrap();
    let aligned = format::aligned_copy(&bytes);
    let buf: &[u8] = &bytemuck::cast_slice::<u128, u8>(&aligned)[..bytes.len()];
    let dir = Directory::parse(buf).unwrap();
    let texl: &[[f32; 4]] = dir.view(buf, tags::TEXELS).unwrap();
    let bones = dir.section(buf, tags::BONES).unwrap();
    let bone_count = model.bones.len();
    let frames = texl.len() / (bone_count * 3);
    assert_eq!(texl.len(), frames * bone_count * 3);
    let w2 = (model.texture.width * model.texture.width) as usize;
    let layers = model.texture.layers as usize;
    assert!(
        texl.len() <= w2 * layers && texl.len() > w2 * (layers - 1),
        "tight"
    );

    // BONE matrices read at their documented offsets.
    let matrix = |b: usize, at: usize| -> [f32; 16] {
        std::array::from_fn(|k| f32_at(bones, b * 144 + at + 4 * k))
    };
    let eval = PoseEvaluator::new(&scene);
    let mut checked = 0;
    for (b, bone) in model.bones.iter().enumerate() {
        let (ibm, rest) = (matrix(b, 16), matrix(b, 80));
        assert_eq!(Mat4::from_cols_array(&ibm), bone.inverse_bind);
        // Frame 0 is the rest pose: P = rest_global · inverse_bind.
        let p = (Mat4::from_cols_array(&rest) * Mat4::from_cols_array(&ibm)).to_cols_array();
        for r in 0..3 {
            assert_eq!(
                texel_from_doc(&model, texl, 0, b as u32, r),
                doc_row(&p, r as usize)
            );
        }
        // Frame k of clip c is global frame first_frame + k, sampled at k·D/(n−1).
        for clip in &model.clips {
            let source = scene.clips.iter().find(|c| c.name == clip.name).unwrap();
            let n = clip.frame_count;
            for k in 0..n {
                let t = if k + 1 == n {
                    clip.duration
                } else {
                    k as f32 * clip.duration / (n - 1) as f32
                };
                let g = eval.globals(Some(source), t)[bone.node as usize];
                let p = (g * bone.inverse_bind).to_cols_array();
                for r in 0..3 {
                    assert_eq!(
                        texel_from_doc(&model, texl, clip.first_frame + k, b as u32, r),
                        doc_row(&p, r as usize),
                        "clip {:?} frame {k} bone {b} row {r}",
                        clip.name
                    );
                    checked += 1;
                }
            }
        }
    }
    // The baker's frame table: rest pose, then each clip's frames in order.
    let mut next = 1;
    for clip in &model.clips {
        assert_eq!(clip.first_frame, next);
        next += clip.frame_count;
    }
    assert_eq!(next as usize, frames);
    assert!(matches!(model.texture.texels, Texels::F32(_)));
    println!(
        "{MODEL}: {checked} texel rows at W={} × {} layers match the documented addressing",
        model.texture.width, model.texture.layers
    );
}
