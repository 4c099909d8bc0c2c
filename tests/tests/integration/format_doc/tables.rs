//! The field tables of `docs/FORMAT.md` (header, directory entry, string
//! reference, every record) against the Rust structs' `offset_of!`/`size_of`,
//! and its section table against the sections the writer emits.

use std::mem::{offset_of, size_of, size_of_val};

use bytemuck::Zeroable;
use throng_bake::BakeOptions;
use throng_core::format::frames::{FramesRecord, FramesRefRecord};
use throng_core::format::{
    BoneRecord, ClipRecord, Directory, EventRecord, FootRecord, HEADER_SIZE, Header, ImageRecord,
    ImpostorRecord, LodRecord, MaterialRecord, ModelRecord, MorphSlotRecord, ProvenanceRecord,
    SECTION_ENTRY_SIZE, SectionEntry, StrRef, SubmeshRecord, TextureSlotRecord, write_model,
};
use throng_core::model::{BakedVertex, RootMotionKey, TexelFormat};
use throng_core::morph::MorphDelta;

use super::{MODEL, bake, doc, field_table, table_after, type_size};

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
                error_at_frames, error_between_frames, max_error, ground),
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
        ("FootRecord", layout!(FootRecord: clip, bone, lift, phases)),
        (
            "FramesRefRecord",
            layout!(FramesRefRecord: file, texel_count, hash),
        ),
        (
            "FramesRecord",
            layout!(FramesRecord: texel_format, texture_width, texture_layers, reserved),
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

/// The tags of the sections in `bytes`, in file order, with their record
/// sizes.
fn sections_of(bytes: &[u8]) -> Vec<(String, u32)> {
    Directory::parse(bytes)
        .unwrap()
        .entries
        .iter()
        .map(|e| (String::from_utf8(e.tag.to_vec()).unwrap(), e.record_size))
        .collect()
}

#[test]
fn documented_frames_file_and_reference_are_what_the_writer_emits() {
    let doc = doc();
    let model = bake(MODEL, &BakeOptions::default());
    let frames = throng_core::format::write_frames(&model.texture);
    let rows: Vec<(String, u32)> = table_after(&doc, "the frames file's section table", |h| {
        h.starts_with("## Frames files")
    })
    .into_iter()
    .skip(2)
    .map(|c| {
        (
            c[0].clone(),
            c[1].split(" or ").next().unwrap().parse().unwrap(),
        )
    })
    .collect();
    assert_eq!(
        sections_of(&frames),
        rows.iter()
            .map(|(tag, size)| (tag.trim_matches('`').to_owned(), *size))
            .collect::<Vec<_>>(),
        "the frames file's sections, in order, with their record sizes"
    );
    // A referring model: the model's sections with FREF in TEXL's place.
    let own = sections_of(&write_model(&model).unwrap());
    let referring = sections_of(
        &throng_core::format::write_model_referring(&model, "a.throng-frames").unwrap(),
    );
    let expected: Vec<(String, u32)> = own
        .into_iter()
        .map(|(tag, size)| {
            if tag == "TEXL" {
                ("FREF".to_owned(), 48)
            } else {
                (tag, size)
            }
        })
        .collect();
    assert_eq!(referring, expected, "FREF where TEXL would be");
}
