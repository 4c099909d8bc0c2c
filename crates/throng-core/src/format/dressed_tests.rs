//! The reader and the writer over a model with every section holding
//! records — the committed sample dressed with materials whose every field
//! and texture slot differs from its default, an image, a second LOD,
//! root motion, events, morph targets, an impostor and provenance — and
//! the directory's rules at their boundaries, each refusal by its exact
//! message. In the crate's own tests so that cargo-mutants, which runs a
//! crate's own tests (CONTRIBUTING.md), sees them.

use glam::{Vec2, Vec3, Vec4};

use super::tests::sample;
use super::*;
use crate::impostor::{AtlasPlan, ImpostorAtlas};
use crate::material::{
    AlphaMode, Image, ImageContent, Material, TextureRef, TextureWrap, UvTransform,
};
use crate::model::{BakedModel, RootMotionKey};
use crate::morph::{MorphDelta, MorphSlot, Morphs};
use crate::provenance::Provenance;
use crate::texture_codec::TextureCodec;

/// A texture reference whose every field differs from the default and
/// from the other slots' (`k` the slot).
fn texture(image: u32, k: u32) -> TextureRef {
    let wraps = [
        TextureWrap::ClampToEdge,
        TextureWrap::MirroredRepeat,
        TextureWrap::Repeat,
    ];
    TextureRef {
        image,
        wrap: [wraps[k as usize % 3], wraps[(k as usize + 1) % 3]],
        transform: UvTransform {
            offset: Vec2::new(0.25 + k as f32, -0.5),
            rotation: 0.125 * (k + 1) as f32,
            scale: Vec2::new(2.0, 0.5 + k as f32),
        },
    }
}

/// The committed sample with every section holding records.
pub(super) fn dressed() -> BakedModel {
    let mut model = read_model(&sample()).unwrap();
    let frames = model
        .clips
        .iter()
        .map(|c| c.first_frame + c.frame_count)
        .max()
        .unwrap();
    model.images = vec![
        image("checker.png", (8, 4), ImageContent::Colour, 1),
        image("bumps.png", (4, 4), ImageContent::Normal, 2),
    ];
    model.materials = materials();
    let mut lod1 = model.lods[0].clone();
    model.lods[0].screen_size = 0.25;
    lod1.screen_size = 0.0;
    // Morph targets: two slots; LOD 0's first vertices move.
    model.morphs = morphs(frames);
    for (i, v) in model.lods[0].vertices.iter_mut().take(3).enumerate() {
        v.morph = [2 * i as u32, 2];
    }
    model.lods.push(lod1);
    model.clips[0].root_motion = true;
    // Keys from zero at the clip's first frame.
    let start = model.clips[0].first_frame;
    model.root_motion = (0..frames)
        .map(|f| {
            let t = f.saturating_sub(start) as f32;
            RootMotionKey {
                translation: [0.0, 0.0, 0.5 * t],
                yaw: 0.01 * t,
            }
        })
        .collect();
    model.events = super::tests::two_events(model.clips[0].duration);
    model.impostor = Some(impostor());
    // Two feet, one planted twice, the other once.
    let d = model.clips[0].duration;
    model.contacts = vec![crate::model::ClipContacts {
        ground: -0.25,
        feet: vec![
            crate::model::FootContacts {
                bone: 1,
                lift: 0.0,
                phases: vec![(0.0, 0.25 * d), (0.5 * d, d)],
            },
            crate::model::FootContacts {
                bone: 0,
                lift: 0.125,
                phases: vec![(0.25 * d, 0.5 * d)],
            },
        ],
    }];
    model.provenance = Some(Provenance {
        inputs: [7; 32],
        files: 3,
        options: "lods=none".into(),
        baker: "throng-bake 0.1.0".into(),
    });
    model
}

/// A BC7 image of `width × height` texels with every level, its bytes a
/// pattern of `seed`.
fn image(name: &str, (width, height): (u32, u32), content: ImageContent, seed: usize) -> Image {
    Image {
        name: name.into(),
        width,
        height,
        codec: TextureCodec::Bc7,
        content,
        levels: (0..crate::texture_codec::mip_levels(width, height))
            .map(|l| {
                let (w, h) = crate::texture_codec::mip_size(width, height, l);
                let n = TextureCodec::Bc7.level_bytes(w, h) as usize;
                (0..n).map(|i| (i * 37 + seed + l as usize) as u8).collect()
            })
            .collect(),
    }
}

/// Two materials whose every field differs from the default: one masked
/// and double-sided with every slot, one blended with two slots empty.
fn materials() -> Vec<Material> {
    let first = Material {
        name: "skin".into(),
        base_color_factor: Vec4::new(0.9, 0.5, 0.25, 0.75),
        metallic_factor: 0.3,
        roughness_factor: 0.7,
        normal_scale: 0.8,
        occlusion_strength: 0.6,
        emissive: Vec3::new(0.1, 0.2, 0.3),
        textures: std::array::from_fn(|k| Some(texture(k as u32 % 2, k as u32))),
        alpha_mode: AlphaMode::Mask,
        alpha_cutoff: 0.4,
        double_sided: true,
    };
    let mut second = Material {
        name: "cloth".into(),
        alpha_mode: AlphaMode::Blend,
        double_sided: false,
        ..first.clone()
    };
    second.textures[1] = None;
    second.textures[3] = None;
    vec![first, second]
}

/// Two morph slots over `frames` frames and six deltas.
fn morphs(frames: u32) -> Morphs {
    Morphs {
        slots: vec![
            MorphSlot {
                name: "smile".into(),
                node: 1,
                mesh: 0,
                target: 0,
            },
            MorphSlot {
                name: "blink".into(),
                node: 1,
                mesh: 0,
                target: 1,
            },
        ],
        weights: (0..frames * 2).map(|i| (i % 7) as f32 / 7.0).collect(),
        deltas: (0..6)
            .map(|i| MorphDelta {
                position: [0.01 * i as f32, 0.02, -0.03],
                slot: i % 2,
                normal: [0.0, 0.1 * i as f32, 0.0],
                pad: 0,
            })
            .collect(),
    }
}

/// A tiny impostor: 2 × 2 views, 1 frame, 4² texels, with the surface
/// image.
fn impostor() -> ImpostorAtlas {
    let plan = AtlasPlan::layout(2, 1, 4, 1).with_surface(true);
    let bytes = ImpostorAtlas::image_bytes(&plan) as usize;
    ImpostorAtlas {
        plan,
        screen_size: 0.05,
        spheres: vec![[0.0, 0.5, 0.0, 1.5]],
        colour: (0..bytes).map(|i| i as u8).collect(),
        normal: (0..bytes).map(|i| (i * 7) as u8).collect(),
        surface: (0..bytes).map(|i| (i * 3) as u8).collect(),
    }
}

/// Sets the header's checksum to its bytes', so an edit reaches the checks
/// behind it.
fn fix_checksum(bytes: &mut [u8]) {
    let crc = crc32fast::hash(&bytes[HEADER_SIZE..]);
    let at = std::mem::offset_of!(Header, checksum);
    bytes[at..at + 4].copy_from_slice(&crc.to_le_bytes());
}

/// The message of `bytes`' refusal.
fn refusal(bytes: &[u8]) -> String {
    match read_model(bytes) {
        Ok(_) => panic!("loaded"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_model_with_every_section_round_trips_byte_for_byte() {
    let model = dressed();
    let bytes = write_model(&model).unwrap();
    let dir = Directory::parse(&bytes).unwrap();
    for e in &dir.entries {
        assert!(
            e.length > 0,
            "section {} holds records in the dressed model",
            directory::tag_name(e.tag)
        );
    }
    let read = read_model(&bytes).unwrap();
    assert!(read.materials[0] == model.materials[0], "materials[0]");
    assert!(read.materials[1] == model.materials[1], "materials[1]");
    assert!(read.images == model.images, "images");
    assert!(read.morphs == model.morphs, "morphs");
    assert!(read.impostor == model.impostor, "impostor");
    assert!(read == model, "the whole model");
    assert!(write_model(&read).unwrap() == bytes, "written again");
    // The aligned view layer sees the same records.
    let aligned = directory::aligned_copy(&bytes);
    assert_eq!(aligned.len(), bytes.len().div_ceil(16));
    let view: &[u8] = bytemuck::cast_slice(&aligned);
    assert_eq!(&view[..bytes.len()], &bytes[..]);
    let bones: &[BoneRecord] = dir.view(view, tags::BONES).unwrap();
    assert_eq!(bones.len(), model.bones.len());
}

#[test]
fn each_section_declaring_another_record_size_is_refused_by_name() {
    let bytes = write_model(&dressed()).unwrap();
    let dir = Directory::parse(&bytes).unwrap();
    let mut checked = 0;
    for (i, e) in dir.entries.iter().enumerate() {
        let Some(expected) = expected_record_size(e.tag).filter(|&s| s != 0) else {
            continue;
        };
        // A size that divides the section (so only the size rule can
        // refuse it) and is not the expected one.
        let other = if expected == 1 { e.length as u32 } else { 1 };
        assert_ne!(other as usize, expected);
        let mut bad = bytes.clone();
        let at =
            HEADER_SIZE + i * SECTION_ENTRY_SIZE + std::mem::offset_of!(SectionEntry, record_size);
        bad[at..at + 4].copy_from_slice(&other.to_le_bytes());
        fix_checksum(&mut bad);
        let name = directory::tag_name(e.tag);
        assert_eq!(
            refusal(&bad),
            format!(
                "corrupt file: section {name} declares {other}-byte records, expected {expected}"
            )
        );
        checked += 1;
    }
    // Every section but the texels (whose size depends on their format).
    assert_eq!(checked, dir.entries.len() - 1);
}

/// A file of a header and `entries`, `len` bytes long, its checksum right.
fn file_of(section_count: u32, entries: &[SectionEntry], len: usize) -> Vec<u8> {
    let header = Header {
        magic: MAGIC,
        version: VERSION,
        header_size: HEADER_SIZE as u32,
        file_size: len as u64,
        section_count,
        checksum: 0,
        flags: 0,
        reserved: [0; 7],
    };
    let mut bytes = vec![0u8; len];
    bytes[..HEADER_SIZE].copy_from_slice(bytemuck::bytes_of(&header));
    for (i, e) in entries.iter().enumerate() {
        let at = HEADER_SIZE + i * SECTION_ENTRY_SIZE;
        bytes[at..at + SECTION_ENTRY_SIZE].copy_from_slice(bytemuck::bytes_of(e));
    }
    fix_checksum(&mut bytes);
    bytes
}

fn entry(tag: &[u8; 4], record_size: u32, offset: u64, length: u64) -> SectionEntry {
    SectionEntry {
        tag: *tag,
        record_size,
        offset,
        length,
    }
}

fn parse_error(bytes: &[u8]) -> String {
    Directory::parse(bytes).unwrap_err().to_string()
}

#[test]
fn the_directory_rules_hold_at_their_boundaries() {
    // A header alone is a directory of nothing.
    let header = file_of(0, &[], HEADER_SIZE);
    assert!(Directory::parse(&header).unwrap().entries.is_empty());
    // At most MAX_SECTIONS; MAX_SECTIONS itself is only short here.
    let at_most = parse_error(&file_of(MAX_SECTIONS, &[], HEADER_SIZE));
    assert!(at_most.contains("section directory"), "{at_most}");
    assert_eq!(
        parse_error(&file_of(MAX_SECTIONS + 1, &[], HEADER_SIZE)),
        format!(
            "corrupt file: {} sections (at most {MAX_SECTIONS})",
            MAX_SECTIONS + 1
        )
    );
    // A directory ending exactly where the file does, its sections empty
    // and right behind it (64 + 2 × 24 = 112, a multiple of 16).
    let end = HEADER_SIZE + 2 * SECTION_ENTRY_SIZE;
    let two = [
        entry(b"AAAA", 4, end as u64, 0),
        entry(b"BBBB", 1, end as u64, 0),
    ];
    assert_eq!(
        Directory::parse(&file_of(2, &two, end)).unwrap().entries,
        two
    );
    // One entry more than the file holds.
    let short = parse_error(&file_of(3, &two, end));
    assert!(short.contains("section directory"), "{short}");
    // Misaligned, or inside the directory.
    let dir_end = (HEADER_SIZE + SECTION_ENTRY_SIZE) as u64;
    for offset in [dir_end + 4, HEADER_SIZE as u64] {
        assert_eq!(
            parse_error(&file_of(1, &[entry(b"CCCC", 4, offset, 0)], 160)),
            format!(
                "corrupt file: section CCCC offset {offset} is misaligned or inside the directory"
            )
        );
    }
    // Records of no size, or not a whole number of them.
    for (size, length) in [(0, 16), (3, 16)] {
        assert_eq!(
            parse_error(&file_of(1, &[entry(b"DDDD", size, 96, length)], 128)),
            format!(
                "corrupt file: section DDDD length {length} is not a whole number of {size}-byte records"
            )
        );
    }
}

/// The dressed model's bytes with the `u32` at field `field` (an
/// `offset_of!`) of record `index` of section `tag` set to `value`, the
/// checksum right: the message of its refusal.
fn refusal_with(tag: [u8; 4], index: usize, record: usize, field: usize, value: u32) -> String {
    let mut bytes = write_model(&dressed()).unwrap();
    let dir = Directory::parse(&bytes).unwrap();
    let at = dir.entry(tag).unwrap().offset as usize + index * record + field;
    bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
    fix_checksum(&mut bytes);
    refusal(&bytes)
}

/// Asserts that record 0 of section `tag` (`R`s, each a `what` in
/// messages, written with flags 0x1) is refused by name with the reserved
/// word at `reserved` set to 1, and with the flags at `flags` set to
/// `unknown` (`(reserved, flags)`: `offset_of!`s).
#[track_caller]
fn assert_flags_checked<R>(
    tag: [u8; 4],
    what: &str,
    (reserved, flags): (usize, usize),
    unknown: u32,
) {
    let message = |shown: u32| {
        format!("corrupt file: {what} 0 has unknown flags {shown:#x} or a non-zero reserved field")
    };
    let record = std::mem::size_of::<R>();
    assert_eq!(refusal_with(tag, 0, record, reserved, 1), message(1));
    assert_eq!(
        refusal_with(tag, 0, record, flags, unknown),
        message(unknown)
    );
}

#[test]
fn reserved_fields_and_unknown_flags_are_refused_by_name() {
    use std::mem::offset_of;
    // Clip 0 has root motion (flag 1): a second flag refuses it.
    let flags = offset_of!(ClipRecord, flags);
    assert_eq!(
        refusal_with(tags::CLIPS, 0, std::mem::size_of::<ClipRecord>(), flags, 3),
        "corrupt file: clip 0 has unknown flags 0x3"
    );
    // Submesh 0's normals were generated (flag 1).
    let submesh = (
        offset_of!(SubmeshRecord, reserved),
        offset_of!(SubmeshRecord, flags),
    );
    assert_flags_checked::<SubmeshRecord>(tags::SUBMESHES, "submesh", submesh, 0x10);
}

#[test]
fn image_sides_outside_the_limit_are_refused_by_name() {
    use std::mem::{offset_of, size_of};
    let side = |field, value| refusal_with(tags::IMAGES, 0, size_of::<ImageRecord>(), field, value);
    let (w, h) = (
        offset_of!(ImageRecord, width),
        offset_of!(ImageRecord, height),
    );
    let max = crate::limits::MAX_IMAGE_SIDE;
    for (field, value, size) in [
        (w, 0, "0×4".to_string()),
        (h, 0, "8×0".to_string()),
        (w, max + 1, format!("{}×4", max + 1)),
        (h, max + 1, format!("8×{}", max + 1)),
    ] {
        assert_eq!(
            side(field, value),
            format!(
                "corrupt file: image 0 (checker.png): {size} is outside 1..={max} texels a side"
            )
        );
    }
    // The limit itself is a side an image may have.
    let mut model = dressed();
    let long = |width, height| Image {
        name: format!("{width}x{height}"),
        width,
        height,
        codec: TextureCodec::Bc7,
        content: ImageContent::Data,
        levels: (0..crate::texture_codec::mip_levels(width, height))
            .map(|l| {
                let (w, h) = crate::texture_codec::mip_size(width, height, l);
                vec![l as u8; TextureCodec::Bc7.level_bytes(w, h) as usize]
            })
            .collect(),
    };
    model.images.push(long(max, 4));
    model.images.push(long(4, max));
    let read = read_model(&write_model(&model).unwrap()).unwrap();
    assert!(read.images == model.images, "images of {max} texels a side");
}

#[test]
fn impostor_spheres_or_images_without_a_plan_are_refused() {
    // The plan emptied; then the spheres too, the images left.
    for emptied in [
        &[tags::IMPOSTOR][..],
        &[tags::IMPOSTOR, tags::IMPOSTOR_SPHERES],
    ] {
        let mut bytes = write_model(&dressed()).unwrap();
        let dir = Directory::parse(&bytes).unwrap();
        for tag in emptied {
            let i = dir.entries.iter().position(|e| e.tag == *tag).unwrap();
            let at =
                HEADER_SIZE + i * SECTION_ENTRY_SIZE + std::mem::offset_of!(SectionEntry, length);
            bytes[at..at + 8].copy_from_slice(&0u64.to_le_bytes());
        }
        fix_checksum(&mut bytes);
        assert_eq!(
            refusal(&bytes),
            "corrupt file: impostor spheres or images without an impostor plan (IMPO is empty)",
            "{} emptied",
            emptied.len()
        );
    }
}

#[test]
fn provenance_texts_are_held_to_their_limit() {
    use crate::provenance::MAX_PROVENANCE_TEXT;
    let mut model = dressed();
    let p = model.provenance.as_mut().unwrap();
    p.options = "o".repeat(MAX_PROVENANCE_TEXT);
    p.baker = "b".repeat(MAX_PROVENANCE_TEXT);
    let bytes = write_model(&model).unwrap();
    assert_eq!(read_model(&bytes).unwrap(), model, "texts at the limit");
    for (what, field) in [
        ("options", std::mem::offset_of!(ProvenanceRecord, options)),
        ("baker", std::mem::offset_of!(ProvenanceRecord, baker)),
    ] {
        let len = field + std::mem::offset_of!(StrRef, len);
        let size = std::mem::size_of::<ProvenanceRecord>();
        let too_long = (MAX_PROVENANCE_TEXT + 1) as u32;
        assert_eq!(
            refusal_with(tags::PROVENANCE, 0, size, len, too_long),
            format!(
                "corrupt file: provenance {what} text is {too_long} bytes, more than {MAX_PROVENANCE_TEXT}"
            )
        );
    }
}

#[test]
fn a_provenance_peek_at_a_short_directory_reads_only_the_file() {
    // Five entries declared, ten bytes of them present.
    let bytes = file_of(5, &[], HEADER_SIZE + 10);
    let path =
        std::env::temp_dir().join(format!("throng-peek-short-{}.throng", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    let e = peek_provenance(&path).unwrap_err().to_string();
    let _ = std::fs::remove_file(&path);
    assert!(
        e.contains("section directory") && e.contains(&(HEADER_SIZE + 10).to_string()),
        "{e}"
    );
}

#[test]
fn strings_sharing_bytes_are_refused() {
    use std::mem::{offset_of, size_of};
    // Event 0's empty data pointed at event 1's: the strings then take
    // more bytes than the table holds (the writer never shares).
    let mut bytes = write_model(&dressed()).unwrap();
    let dir = Directory::parse(&bytes).unwrap();
    let events = dir.entry(tags::EVENTS).unwrap().offset as usize;
    let data = offset_of!(EventRecord, data);
    let from = events + size_of::<EventRecord>() + data;
    let shared: [u8; 8] = bytes[from..from + 8].try_into().unwrap();
    bytes[events + data..events + data + 8].copy_from_slice(&shared);
    fix_checksum(&mut bytes);
    let table = dir.entry(tags::STRINGS).unwrap().length;
    let e = refusal(&bytes);
    assert!(
        e.contains(&format!(
            "more than the {table}-byte string table (strings may not share bytes)"
        )),
        "{e}"
    );
}

#[test]
fn foot_records_out_of_order_or_taking_other_phases_are_refused() {
    use std::mem::{offset_of, size_of};
    let size = size_of::<FootRecord>();
    let (clip, phases) = (offset_of!(FootRecord, clip), offset_of!(FootRecord, phases));
    let cases = [
        (
            1,
            clip,
            5,
            "foot record 1 is of clip 5 (after clip 0, of 1 clips)",
        ),
        (
            0,
            phases,
            9,
            "foot phases range 0+9 exceeds the 3 available",
        ),
        (1, phases, 0, "3 phases, the foot records take 2"),
    ];
    for (record, field, value, says) in cases {
        let e = refusal_with(tags::FEET, record, size, field, value);
        assert_eq!(e, format!("corrupt file: {says}"));
    }
}
