//! The `.throng` reader refuses damage: every truncated prefix of a valid
//! `.throng` and a set of corrupted ones (flipped bytes in headers, lengths
//! and indices) fail to load with an error; no panic.
//!
//! * Every prefix of a valid file fails, with the header left as it is and
//!   with the header patched to the prefix's size and checksum.
//! * Every flipped byte fails (the checksum catches anything past the header).
//! * Behind the checksum, each structural rule of `docs/FORMAT.md` is broken
//!   on its own with the CRC recomputed ([`fix_checksum`]), and each must give
//!   its own named error whose message says what was wrong.
//! * A deterministic fuzz loop of random writes never panics, and anything it
//!   makes that loads is a valid model that survives a round trip.
//! * A committed version-1 sample still loads and equals a fresh bake, and the
//!   same file claiming version 0 is refused with `UnsupportedVersion`.
//!
//! The fixture is `khronos_RiggedSimple.glb` baked with default options, plus
//! one image (used by its material) and a second LOD, so that every section
//! holds records and every index kind can be corrupted.

use std::mem::{offset_of, size_of};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::OnceLock;

use bytemuck::Pod;
use throng_bake::images::bake_image;
use throng_bake::scene::SourceImage;
use throng_bake::{BakeOptions, bake_file};
use throng_core::FormatError;
use throng_core::format::ImpostorRecord;
use throng_core::format::{
    BoneRecord, ClipRecord, Directory, HEADER_SIZE, Header, ImageRecord, LodRecord, MaterialRecord,
    ModelRecord, SECTION_ENTRY_SIZE, SectionEntry, StrRef, SubmeshRecord, TextureSlotRecord,
    VERSION, read_file, read_model, tags, write_model,
};
use throng_core::impostor::{AtlasPlan, ImpostorAtlas};
use throng_core::material::ImageContent;
use throng_core::material::{TextureRef, TextureSlot};
use throng_core::model::{BakedModel, BakedVertex};
use throng_core::texture_codec::TextureCodec;
use throng_tests::{asset, crc32_ieee, repo_root};

/// Recomputes the header checksum after a test has edited the file, so the
/// edit reaches the structural checks behind the CRC.
fn fix_checksum(bytes: &mut [u8]) {
    if bytes.len() >= HEADER_SIZE {
        let crc = crc32_ieee(&bytes[HEADER_SIZE..]);
        put(bytes, offset_of!(Header, checksum), crc);
    }
}

/// Writes `value` at byte `at`.
fn put<T: Pod>(bytes: &mut [u8], at: usize, value: T) {
    bytes[at..at + size_of::<T>()].copy_from_slice(bytemuck::bytes_of(&value));
}

/// Reads a `T` at byte `at`.
fn get<T: Pod>(bytes: &[u8], at: usize) -> T {
    bytemuck::pod_read_unaligned(&bytes[at..at + size_of::<T>()])
}

struct Fixture {
    model: BakedModel,
    bytes: Vec<u8>,
    dir: Directory,
}

impl Fixture {
    /// Byte offset of the directory entry of `tag`.
    fn entry(&self, tag: [u8; 4]) -> usize {
        let i = self.dir.entries.iter().position(|e| e.tag == tag).unwrap();
        HEADER_SIZE + i * SECTION_ENTRY_SIZE
    }

    /// Byte offset of section `tag`.
    fn section(&self, tag: [u8; 4]) -> usize {
        self.dir.entry(tag).unwrap().offset as usize
    }

    /// Byte offset of field `field` (an `offset_of!`) of record `index` of `T`s in `tag`.
    fn rec<T>(&self, tag: [u8; 4], index: usize, field: usize) -> usize {
        let e = self.dir.entry(tag).unwrap();
        assert_eq!(e.record_size as usize, size_of::<T>());
        assert!(
            (index + 1) * size_of::<T>() <= e.length as usize,
            "no record {index}"
        );
        e.offset as usize + index * size_of::<T>() + field
    }

    fn file_size(&self) -> usize {
        self.bytes.len()
    }
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let name = "khronos_RiggedSimple.glb";
        // At a fixed 30 fps, so the texture keeps the size the cases rely on.
        let fixed = BakeOptions {
            max_fps: throng_core::limits::DEFAULT_FPS,
            ..BakeOptions::default()
        };
        let (mut model, _) =
            bake_file(&asset(name), &fixed, &|_, _| {}).unwrap_or_else(|e| panic!("{name}: {e}"));
        // An 8 × 4 BC7 image: levels of 2, 1, 1 and 1 blocks, 80 bytes.
        let checker = SourceImage {
            name: "checker.png".into(),
            width: 8,
            height: 4,
            rgba: (0..128).map(|i| (i * 37) as u8).collect(),
        };
        model.images.push(bake_image(
            &checker,
            ImageContent::Colour,
            TextureCodec::Bc7,
        ));
        model.materials[0].textures[TextureSlot::BaseColor as usize] = Some(TextureRef::new(0));
        let mut lod1 = model.lods[0].clone();
        model.lods[0].screen_size = 0.25; // sizes never increase from LOD to LOD
        lod1.screen_size = 0.0;
        model.lods.push(lod1);
        // A tiny impostor: 2 × 2 views, 1 frame, 4² texels, one 8² layer,
        // with the surface image (three images of 256 bytes).
        let plan = AtlasPlan::layout(2, 1, 4, 1).with_surface(true);
        let image = ImpostorAtlas::image_bytes(&plan) as usize;
        model.impostor = Some(ImpostorAtlas {
            plan,
            screen_size: 0.05,
            spheres: vec![[0.0, 0.5, 0.0, 1.5]],
            colour: (0..image).map(|i| i as u8).collect(),
            normal: (0..image).map(|i| (i * 7) as u8).collect(),
            surface: (0..image).map(|i| (i * 3) as u8).collect(),
        });
        let bytes = write_model(&model).unwrap();
        let dir = Directory::parse(&bytes).unwrap();
        assert!(read_model(&bytes).unwrap() == model);
        // The cases below rely on these.
        assert_eq!(model.bones.len(), 2);
        assert_eq!(model.clips.len(), 1);
        assert_eq!(model.lods[0].vertices.len(), 160);
        assert_eq!(model.lods[0].indices.len(), 564);
        assert_eq!(model.lods[0].submeshes.len(), 1);
        assert_eq!(model.texture.width, 20);
        assert_eq!((plan.layer_size, plan.layers), (8, 1));
        Fixture { model, bytes, dir }
    })
}

/// The error a case must produce.
#[derive(Clone, Copy, Debug)]
enum Expect {
    BadMagic,
    Version(u32),
    Truncated,
    Checksum,
    Corrupt,
    Invalid,
}

fn is_expected(e: &FormatError, expect: Expect) -> bool {
    match (e, expect) {
        (FormatError::BadMagic { .. }, Expect::BadMagic) => true,
        (FormatError::UnsupportedVersion { found, supported }, Expect::Version(v)) => {
            *found == v && *supported == VERSION
        }
        (FormatError::Truncated { .. }, Expect::Truncated) => true,
        (FormatError::Checksum { .. }, Expect::Checksum) => true,
        (FormatError::Corrupt(_), Expect::Corrupt) => true,
        (FormatError::Invalid(_), Expect::Invalid) => true,
        _ => false,
    }
}

fn kind(e: &FormatError) -> &'static str {
    match e {
        FormatError::Io { .. } => "Io",
        FormatError::BadMagic { .. } => "BadMagic",
        FormatError::UnsupportedVersion { .. } => "UnsupportedVersion",
        FormatError::Truncated { .. } => "Truncated",
        FormatError::Checksum { .. } => "Checksum",
        FormatError::Corrupt(_) => "Corrupt",
        FormatError::Invalid(_) => "Invalid",
        FormatError::Input(_) => "Input",
        FormatError::Write(_) => "Write",
    }
}

/// Loads `bytes`, turning a panic into a message.
fn load(bytes: &[u8]) -> Result<Result<BakedModel, FormatError>, String> {
    catch_unwind(AssertUnwindSafe(|| read_model(bytes))).map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

/// Runs named corruption cases and collects what went wrong.
struct Cases {
    failures: Vec<String>,
    run: usize,
}

impl Cases {
    /// Applies `edit` to a copy of the fixture, recomputes the checksum and
    /// expects the error `expect` with a message containing every `mentions`.
    fn check(
        &mut self,
        name: &str,
        expect: Expect,
        mentions: &[&str],
        edit: impl FnOnce(&Fixture, &mut Vec<u8>),
    ) {
        self.check_raw(name, expect, mentions, |f, bytes| {
            edit(f, bytes);
            fix_checksum(bytes);
        });
    }

    /// Like [`Cases::check`] but leaves the checksum as the edit left it.
    fn check_raw(
        &mut self,
        name: &str,
        expect: Expect,
        mentions: &[&str],
        edit: impl FnOnce(&Fixture, &mut Vec<u8>),
    ) {
        let f = fixture();
        let mut bytes = f.bytes.clone();
        edit(f, &mut bytes);
        self.expect(name, &bytes, expect, mentions);
    }

    fn expect(&mut self, name: &str, bytes: &[u8], expect: Expect, mentions: &[&str]) {
        self.run += 1;
        match load(bytes) {
            Err(panic) => self.failures.push(format!("{name}: PANIC {panic}")),
            Ok(Ok(_)) => self
                .failures
                .push(format!("{name}: loaded, expected {expect:?}")),
            Ok(Err(e)) => {
                let msg = e.to_string();
                println!("{name:<52} {:<18} {msg}", kind(&e));
                if !is_expected(&e, expect) {
                    self.failures
                        .push(format!("{name}: expected {expect:?}, got {e:?}"));
                }
                for m in mentions {
                    if !msg.contains(m) {
                        self.failures
                            .push(format!("{name}: message {msg:?} does not mention {m:?}"));
                    }
                }
            }
        }
    }

    fn finish(self) {
        println!("{} corruption cases", self.run);
        assert!(
            self.failures.is_empty(),
            "{} of {} cases failed:\n{}",
            self.failures.len(),
            self.run,
            self.failures.join("\n")
        );
    }
}

#[test]
fn every_truncated_prefix_fails() {
    let f = fixture();
    let len = f.file_size();
    let mut panics = Vec::new();
    for n in 0..len {
        // As cut: the header (if any) still declares the whole file.
        match load(&f.bytes[..n]) {
            Err(p) => panics.push(format!("prefix {n}: PANIC {p}")),
            Ok(Ok(_)) => panic!("prefix of {n} of {len} bytes loaded"),
            Ok(Err(e)) => assert!(
                matches!(e, FormatError::Truncated { .. }),
                "prefix {n}: expected Truncated, got {e}"
            ),
        }
        // With the header patched to the prefix, so the sections are checked.
        if n >= HEADER_SIZE {
            let mut cut = f.bytes[..n].to_vec();
            put(&mut cut, offset_of!(Header, file_size), n as u64);
            fix_checksum(&mut cut);
            match load(&cut) {
                Err(p) => panics.push(format!("patched prefix {n}: PANIC {p}")),
                Ok(Ok(_)) => panic!("patched prefix of {n} of {len} bytes loaded"),
                Ok(Err(_)) => {}
            }
        }
    }
    assert!(panics.is_empty(), "{}", panics.join("\n"));
    println!(
        "{len} prefixes (and {} patched ones) fail",
        len - HEADER_SIZE
    );
}

#[test]
fn every_flipped_byte_fails() {
    let f = fixture();
    let mut kinds = std::collections::BTreeMap::<&str, usize>::new();
    let mut bytes = f.bytes.clone();
    for i in 0..bytes.len() {
        for mask in [0x01u8, 0x80, 0xFF] {
            bytes[i] ^= mask;
            let result = load(&bytes);
            bytes[i] ^= mask;
            let e = match result {
                Err(p) => panic!("byte {i} ^ {mask:#04x}: PANIC {p}"),
                Ok(Ok(_)) => panic!("byte {i} ^ {mask:#04x}: loaded"),
                Ok(Err(e)) => e,
            };
            if i >= HEADER_SIZE {
                assert!(
                    matches!(e, FormatError::Checksum { .. }),
                    "byte {i} ^ {mask:#04x} is covered by the CRC, got {e}"
                );
            }
            *kinds.entry(kind(&e)).or_default() += 1;
        }
    }
    println!("{} bytes × 3 flips, errors by kind: {kinds:?}", bytes.len());
}

#[test]
fn each_structural_rule_behind_the_checksum_gives_its_own_error() {
    use Expect::*;
    let f = fixture();
    let mut c = Cases {
        failures: Vec::new(),
        run: 0,
    };
    let len = f.file_size();

    // ---- header
    c.check("bad magic", BadMagic, &["magic"], |_, b| b[1] = b'X');
    c.check(
        "version 0",
        Version(0),
        &["version 0", "re-bake"],
        |_, b| put(b, offset_of!(Header, version), 0u32),
    );
    let next = VERSION + 1;
    c.check(
        "the next version",
        Version(next),
        &[&format!("version {next}"), "re-bake"],
        |_, b| put(b, offset_of!(Header, version), next),
    );
    c.check(
        "version u32::MAX",
        Version(u32::MAX),
        &["version"],
        |_, b| put(b, offset_of!(Header, version), u32::MAX),
    );
    c.check("header size 32", Corrupt, &["header size 32"], |_, b| {
        put(b, offset_of!(Header, header_size), 32u32)
    });
    c.check("header size 128", Corrupt, &["header size 128"], |_, b| {
        put(b, offset_of!(Header, header_size), 128u32)
    });
    c.check("header flags 1", Corrupt, &["reserved header"], |_, b| {
        put(b, offset_of!(Header, flags), 1u32)
    });
    c.check(
        "header reserved[6] = 1",
        Corrupt,
        &["reserved header"],
        |_, b| put(b, offset_of!(Header, reserved) + 24, 1u32),
    );
    c.check(
        "file_size larger than the file",
        Truncated,
        &["needs"],
        |_, b| put(b, offset_of!(Header, file_size), len as u64 + 16),
    );
    c.check("file_size u64::MAX", Truncated, &["needs"], |_, b| {
        put(b, offset_of!(Header, file_size), u64::MAX)
    });
    c.check(
        "file_size smaller than the file",
        Corrupt,
        &["16 bytes after"],
        |_, b| put(b, offset_of!(Header, file_size), len as u64 - 16),
    );
    c.check(
        "bytes appended after the file",
        Corrupt,
        &["3 bytes after"],
        |_, b| b.extend_from_slice(&[0, 0, 0]),
    );
    c.check_raw(
        "stored checksum off by one",
        Checksum,
        &["checksum"],
        |f, b| {
            let at = offset_of!(Header, checksum);
            put(b, at, f.dir.header.checksum.wrapping_add(1))
        },
    );
    c.check_raw("a section byte flipped", Checksum, &["checksum"], |f, b| {
        b[f.section(tags::VERTICES) + 3] ^= 0x10
    });
    for (count, mention) in [
        (u32::MAX, "at most 64"),
        (65, "at most 64"),
        (23, "inside the directory"),
        (21, "required section MDLT is missing"),
        (18, "required section IMPD is missing"),
        (15, "required section EVNT is missing"),
        (0, "required section STRS is missing"),
    ] {
        c.check(
            &format!("section count {count}"),
            Corrupt,
            &[mention],
            |_, b| put(b, offset_of!(Header, section_count), count),
        );
    }

    // ---- directory
    let entry = |f: &Fixture, tag, field| f.entry(tag) + field;
    let offset = offset_of!(SectionEntry, offset);
    let length = offset_of!(SectionEntry, length);
    let record_size = offset_of!(SectionEntry, record_size);
    c.check(
        "section offset at the end of the file",
        Corrupt,
        &["BONE", "runs past the end"],
        |f, b| put(b, entry(f, tags::BONES, offset), len as u64),
    );
    c.check(
        "section offset + length overflows",
        Corrupt,
        &["BONE", "runs past the end"],
        |f, b| put(b, entry(f, tags::BONES, offset), u64::MAX - 15),
    );
    c.check(
        "section length u64::MAX",
        Corrupt,
        &["VERT", "runs past the end"],
        |f, b| put(b, entry(f, tags::VERTICES, length), u64::MAX),
    );
    c.check(
        "section offset misaligned",
        Corrupt,
        &["BONE", "misaligned"],
        |f, b| {
            let at = entry(f, tags::BONES, offset);
            let misaligned = get::<u64>(b, at) + 8;
            put(b, at, misaligned)
        },
    );
    c.check(
        "section offset inside the directory",
        Corrupt,
        &["BONE", "inside the directory"],
        |f, b| put(b, entry(f, tags::BONES, offset), HEADER_SIZE as u64),
    );
    c.check(
        "section overlapping another",
        Corrupt,
        &["overlap", "CLIP", "BONE"],
        |f, b| {
            put(
                b,
                entry(f, tags::CLIPS, offset),
                f.section(tags::BONES) as u64,
            )
        },
    );
    c.check(
        "length not a whole number of records",
        Corrupt,
        &["BONE", "287", "whole number of 144-byte records"],
        |f, b| put(b, entry(f, tags::BONES, length), 287u64),
    );
    c.check(
        "record size 0",
        Corrupt,
        &["BONE", "0-byte records"],
        |f, b| put(b, entry(f, tags::BONES, record_size), 0u32),
    );
    c.check(
        "wrong record size (BONE 72)",
        Corrupt,
        &["BONE", "declares 72-byte records, expected 144"],
        |f, b| put(b, entry(f, tags::BONES, record_size), 72u32),
    );
    c.check(
        "wrong record size (VERT 36)",
        Corrupt,
        &["VERT", "declares 36-byte records, expected 72"],
        |f, b| put(b, entry(f, tags::VERTICES, record_size), 36u32),
    );
    c.check(
        "wrong texel record size (8 for f32)",
        Corrupt,
        &["texel records are 8 bytes", "needs 16"],
        |f, b| put(b, entry(f, tags::TEXELS, record_size), 8u32),
    );
    // IMGD's first 64 image bytes, as one 64-byte record, are a
    // well-formed CLIP section, so only the duplicate is wrong.
    c.check("duplicate tag", Corrupt, &["CLIP appears twice"], |f, b| {
        put(b, entry(f, tags::IMAGE_DATA, record_size), 64u32);
        put(b, entry(f, tags::IMAGE_DATA, length), 64u64);
        put(b, entry(f, tags::IMAGE_DATA, 0), tags::CLIPS)
    });
    // PROV is optional: renamed, it is an unknown section, skipped, and the
    // model loads without provenance (checked after this table).
    for e in f.dir.entries.iter().filter(|e| e.tag != tags::PROVENANCE) {
        let name = String::from_utf8_lossy(&e.tag).into_owned();
        c.check(
            &format!("missing section {name} (tag renamed)"),
            Corrupt,
            &[&format!("required section {name} is missing")],
            |f, b| {
                let at = entry(f, e.tag, 0);
                b[at] = b[at].to_ascii_lowercase();
            },
        );
    }

    // ---- MODL
    let modl = |f: &Fixture, field| f.rec::<ModelRecord>(tags::MODEL, 0, field);
    c.check(
        "MODL holds no record",
        Corrupt,
        &["MODL holds 0 records, expected 1"],
        |f, b| put(b, entry(f, tags::MODEL, length), 0u64),
    );
    c.check(
        "MODL reserved not zero",
        Corrupt,
        &["reserved model fields"],
        |f, b| put(b, modl(f, offset_of!(ModelRecord, reserved) + 8), 1u32),
    );
    c.check(
        "unknown texel format code 7",
        Corrupt,
        &["unknown texel format code 7"],
        |f, b| put(b, modl(f, offset_of!(ModelRecord, texel_format)), 7u32),
    );
    c.check(
        "texel format f16 with f32 records",
        Corrupt,
        &["texel records are 16 bytes", "F16 needs 8"],
        |f, b| put(b, modl(f, offset_of!(ModelRecord, texel_format)), 1u32),
    );
    for (w, layers, what) in [
        (2048, 1, "texture width 2048 > 1024"),
        (1025, 1, "texture width 1025 > 1024"),
        (0, 1, "texture width 0"),
        (19, 1, "texture width 19 (too small)"),
        (20, 2, "texture not tight (a wholly unused layer)"),
        (20, 0, "texture with 0 layers"),
    ] {
        c.check(
            what,
            Invalid,
            &[&format!(
                "texture layout {w}x{w}x{layers} does not tightly hold 384 texels"
            )],
            |f, b| {
                put(b, modl(f, offset_of!(ModelRecord, texture_width)), w as u32);
                put(
                    b,
                    modl(f, offset_of!(ModelRecord, texture_layers)),
                    layers as u32,
                );
            },
        );
    }
    c.check("fps NaN", Invalid, &["fps NaN is outside"], |f, b| {
        put(b, modl(f, offset_of!(ModelRecord, fps)), f32::NAN)
    });
    c.check("fps 0", Invalid, &["fps 0 is outside"], |f, b| {
        put(b, modl(f, offset_of!(ModelRecord, fps)), 0f32)
    });
    c.check("bake error NaN", Invalid, &["bake error"], |f, b| {
        put(b, modl(f, offset_of!(ModelRecord, bake_error)), f32::NAN)
    });
    c.check(
        "negative bounding radius",
        Invalid,
        &["bounding radius"],
        |f, b| put(b, modl(f, offset_of!(ModelRecord, bounding_radius)), -1f32),
    );
    c.check(
        "model bounds min > max",
        Invalid,
        &["model bounds"],
        |f, b| put(b, modl(f, offset_of!(ModelRecord, bounds_min)), 1e30f32),
    );
    let strs_len = f.dir.entry(tags::STRINGS).unwrap().length as u32;
    c.check(
        "model name outside the string table",
        Corrupt,
        &["model name", "outside"],
        |f, b| {
            put(
                b,
                modl(f, offset_of!(ModelRecord, name)),
                StrRef {
                    offset: strs_len - 5,
                    len: 10,
                },
            )
        },
    );

    // ---- strings
    let bone = |f: &Fixture, i, field| f.rec::<BoneRecord>(tags::BONES, i, field);
    let bone0_name: StrRef = get(&f.bytes, bone(f, 0, offset_of!(BoneRecord, name)));
    c.check(
        "string offset past the table",
        Corrupt,
        &["bone 0: string 10000+4 is outside"],
        |f, b| {
            put(
                b,
                bone(f, 0, offset_of!(BoneRecord, name)),
                StrRef {
                    offset: 10_000,
                    len: 4,
                },
            )
        },
    );
    c.check(
        "string length u32::MAX",
        Corrupt,
        &["bone 1: string", "outside"],
        |f, b| put(b, bone(f, 1, offset_of!(BoneRecord, name) + 4), u32::MAX),
    );
    c.check(
        "invalid UTF-8 in a bone name",
        Corrupt,
        &["bone 0: string is not UTF-8"],
        |f, b| b[f.section(tags::STRINGS) + bone0_name.offset as usize] = 0xFF,
    );
    c.check(
        "strings sharing bytes",
        Corrupt,
        &["may not share bytes"],
        |f, b| {
            let source: StrRef = get(b, modl(f, offset_of!(ModelRecord, source)));
            put(b, bone(f, 0, offset_of!(BoneRecord, name)), source);
            put(b, bone(f, 1, offset_of!(BoneRecord, name)), source);
        },
    );

    // ---- BONE
    c.check("no bones", Invalid, &["palette has 0 bones"], |f, b| {
        put(b, entry(f, tags::BONES, length), 0u64)
    });
    c.check(
        "bone parent out of range",
        Invalid,
        &["bone 1 (Bone.001) has parent 2 (palette has 2)"],
        |f, b| put(b, bone(f, 1, offset_of!(BoneRecord, parent)), 2u32),
    );
    c.check(
        "bone is its own parent",
        Invalid,
        &["bone 0 (Bone) has parent 0"],
        |f, b| put(b, bone(f, 0, offset_of!(BoneRecord, parent)), 0u32),
    );
    c.check("bone-parent cycle", Invalid, &["cycle"], |f, b| {
        put(b, bone(f, 0, offset_of!(BoneRecord, parent)), 1u32)
    });
    c.check(
        "bone matrix infinite",
        Invalid,
        &["bone 1 (Bone.001) has a non-finite matrix"],
        |f, b| {
            put(
                b,
                bone(f, 1, offset_of!(BoneRecord, rest_global) + 20),
                f32::INFINITY,
            )
        },
    );

    // ---- CLIP
    let clip = |f: &Fixture, field| f.rec::<ClipRecord>(tags::CLIPS, 0, field);
    c.check(
        "clip frames past the table",
        Invalid,
        &["clip 0 (animation0) spans frames 2..65, the table has 64"],
        |f, b| put(b, clip(f, offset_of!(ClipRecord, first_frame)), 2u32),
    );
    c.check(
        "clip first frame u32::MAX",
        Invalid,
        &["clip 0 (animation0) spans frames 4294967295.."],
        |f, b| put(b, clip(f, offset_of!(ClipRecord, first_frame)), u32::MAX),
    );
    c.check(
        "clip with 0 frames",
        Invalid,
        &["clip 0 (animation0) spans frames 1..1"],
        |f, b| put(b, clip(f, offset_of!(ClipRecord, frame_count)), 0u32),
    );
    c.check(
        "clip duration > 0 with 1 frame",
        Invalid,
        &["clip 0 (animation0) has duration 2.08", "with 1 frames"],
        |f, b| put(b, clip(f, offset_of!(ClipRecord, frame_count)), 1u32),
    );
    c.check(
        "clip duration 0 with 63 frames",
        Invalid,
        &["has duration 0 with 63 frames"],
        |f, b| put(b, clip(f, offset_of!(ClipRecord, duration)), 0f32),
    );
    c.check(
        "clip duration negative",
        Invalid,
        &["has duration -1 with 63 frames"],
        |f, b| put(b, clip(f, offset_of!(ClipRecord, duration)), -1f32),
    );
    c.check(
        "clip duration NaN",
        Invalid,
        &["has duration NaN"],
        |f, b| put(b, clip(f, offset_of!(ClipRecord, duration)), f32::NAN),
    );
    c.check(
        "clip flags not zero",
        Corrupt,
        &["clip 0 has unknown flags 0x4"],
        |f, b| put(b, clip(f, offset_of!(ClipRecord, flags)), 4u32),
    );
    c.check(
        "clip reserved not zero",
        Corrupt,
        &["clip 0 has unknown flags 0x0 or a non-zero reserved field"],
        |f, b| put(b, clip(f, offset_of!(ClipRecord, reserved)), 1u32),
    );
    for (field, what) in [
        (offset_of!(ClipRecord, error_at_frames), "at_frames: NaN"),
        (
            offset_of!(ClipRecord, error_between_frames),
            "between_frames: NaN",
        ),
        (offset_of!(ClipRecord, max_error), "max_error: NaN"),
    ] {
        c.check(
            &format!("clip error {what}"),
            Invalid,
            &["clip 0 (animation0) has errors", what],
            |f, b| put(b, clip(f, field), f32::NAN),
        );
    }
    c.check(
        "clip error between frames negative",
        Invalid,
        &["clip 0 (animation0) has errors", "between_frames: -1.0"],
        |f, b| {
            put(
                b,
                clip(f, offset_of!(ClipRecord, error_between_frames)),
                -1f32,
            )
        },
    );
    c.check(
        "clip bounds min > max",
        Invalid,
        &["clip 0 (animation0) has invalid bounds"],
        |f, b| put(b, clip(f, offset_of!(ClipRecord, bounds_max) + 4), -1e30f32),
    );
    c.check(
        "clip name outside the string table",
        Corrupt,
        &["clip 0: string"],
        |f, b| {
            put(
                b,
                clip(f, offset_of!(ClipRecord, name)),
                StrRef {
                    offset: strs_len,
                    len: 1,
                },
            )
        },
    );

    // ---- TEXL and FBND
    let texl = |f: &Fixture, texel: usize, component: usize| {
        f.section(tags::TEXELS) + texel * 16 + component * 4
    };
    c.check(
        "texel NaN",
        Invalid,
        &["texture holds a NaN or infinite value"],
        |f, b| put(b, texl(f, 200, 2), f32::NAN),
    );
    c.check(
        "texel infinite",
        Invalid,
        &["texture holds a NaN or infinite value"],
        |f, b| put(b, texl(f, 383, 3), f32::NEG_INFINITY),
    );
    c.check(
        "texel count not whole frames",
        Invalid,
        &["381 texels, not a positive multiple of 6"],
        |f, b| put(b, entry(f, tags::TEXELS, length), 381u64 * 16),
    );
    c.check("no texels", Invalid, &["0 texels"], |f, b| {
        put(b, entry(f, tags::TEXELS, length), 0u64)
    });
    c.check(
        "frame bounds missing a frame",
        Invalid,
        &["63 frame bounds for 64 frames"],
        |f, b| put(b, entry(f, tags::FRAME_BOUNDS, length), 63u64 * 24),
    );
    c.check(
        "frame bounds infinite",
        Invalid,
        &["bounds of frame 3 are invalid"],
        |f, b| {
            put(
                b,
                f.section(tags::FRAME_BOUNDS) + 3 * 24 + 16,
                f32::INFINITY,
            )
        },
    );

    // ---- LODS
    let lod = |f: &Fixture, i, field| f.rec::<LodRecord>(tags::LODS, i, field);
    c.check(
        "LOD vertex range past VERT",
        Corrupt,
        &["LOD 1 vertex range 160+161 exceeds the 320 available"],
        |f, b| put(b, lod(f, 1, offset_of!(LodRecord, vertex_count)), 161u32),
    );
    c.check(
        "LOD index range past INDX",
        Corrupt,
        &["LOD 1 index range 564+567 exceeds the 1128 available"],
        |f, b| put(b, lod(f, 1, offset_of!(LodRecord, index_count)), 567u32),
    );
    c.check(
        "LOD submesh range past SUBM",
        Corrupt,
        &["LOD 1 submesh range 1+5 exceeds the 2 available"],
        |f, b| put(b, lod(f, 1, offset_of!(LodRecord, submesh_count)), 5u32),
    );
    c.check(
        "LOD ranges overlapping the previous LOD",
        Corrupt,
        &["LOD 1 starts at vertex 0", "expected 160, 564, 1"],
        |f, b| put(b, lod(f, 1, offset_of!(LodRecord, first_vertex)), 0u32),
    );
    c.check(
        "LOD ranges with a gap",
        Corrupt,
        &["LOD 0 starts at vertex 0, index 3, submesh 0"],
        |f, b| put(b, lod(f, 0, offset_of!(LodRecord, first_index)), 3u32),
    );
    c.check(
        "LOD without submesh",
        Invalid,
        &["LOD 1: no submesh"],
        |f, b| put(b, lod(f, 1, offset_of!(LodRecord, submesh_count)), 0u32),
    );
    c.check("no LOD", Invalid, &["no LOD"], |f, b| {
        put(b, entry(f, tags::LODS, length), 0u64)
    });
    c.check(
        "LOD screen size NaN",
        Invalid,
        &["LOD 0: screen size not finite"],
        |f, b| put(b, lod(f, 0, offset_of!(LodRecord, screen_size)), f32::NAN),
    );
    c.check(
        "LOD reserved field not zero",
        Corrupt,
        &["LOD 0", "reserved"],
        |f, b| put(b, lod(f, 0, offset_of!(LodRecord, reserved)), 1u32),
    );

    // ---- VERT and INDX
    let vert = |f: &Fixture, i, field| f.rec::<BakedVertex>(tags::VERTICES, i, field);
    c.check(
        "vertex bone index = bone count",
        Invalid,
        &["LOD 0: vertex 0 uses bone 2, the palette has 2"],
        |f, b| put(b, vert(f, 0, offset_of!(BakedVertex, joints)), 2u16),
    );
    c.check(
        "vertex bone index u16::MAX (unused influence)",
        Invalid,
        &["LOD 1: vertex 5 uses bone 65535"],
        |f, b| {
            put(
                b,
                vert(f, 165, offset_of!(BakedVertex, joints) + 6),
                u16::MAX,
            )
        },
    );
    c.check(
        "vertex position NaN",
        Invalid,
        &["LOD 0: vertex 7 has a non-finite or negative value"],
        |f, b| {
            put(
                b,
                vert(f, 7, offset_of!(BakedVertex, position) + 4),
                f32::NAN,
            )
        },
    );
    c.check(
        "vertex weight negative",
        Invalid,
        &["LOD 0: vertex 9 has a non-finite or negative value"],
        |f, b| put(b, vert(f, 9, offset_of!(BakedVertex, weights) + 8), -0.5f32),
    );
    let indx = |f: &Fixture, i: usize| f.section(tags::INDICES) + 4 * i;
    c.check(
        "submesh index = its vertex count",
        Invalid,
        &["LOD 0: submesh 0 index 160 is beyond its 160 vertices"],
        |f, b| put(b, indx(f, 0), 160u32),
    );
    c.check(
        "submesh index u32::MAX",
        Invalid,
        &["LOD 1: submesh 0 index 4294967295 is beyond"],
        |f, b| put(b, indx(f, 1127), u32::MAX),
    );

    // ---- SUBM
    let subm = |f: &Fixture, i, field| f.rec::<SubmeshRecord>(tags::SUBMESHES, i, field);
    c.check(
        "submesh unknown flag",
        Corrupt,
        &["submesh 0", "unknown flags"],
        |f, b| put(b, subm(f, 0, offset_of!(SubmeshRecord, flags)), 0x80u32),
    );
    c.check(
        "submesh reserved field not zero",
        Corrupt,
        &["submesh 0", "reserved"],
        |f, b| put(b, subm(f, 0, offset_of!(SubmeshRecord, reserved)), 7u32),
    );
    c.check(
        "submesh vertex range past its LOD",
        Invalid,
        &["LOD 0: submesh 0 spans vertices ..161 of 160"],
        |f, b| {
            put(
                b,
                subm(f, 0, offset_of!(SubmeshRecord, vertex_count)),
                161u32,
            )
        },
    );
    c.check(
        "submesh base vertex past its LOD",
        Invalid,
        &["LOD 1: submesh 0 spans vertices ..4294967455 of 160"],
        |f, b| {
            put(
                b,
                subm(f, 1, offset_of!(SubmeshRecord, base_vertex)),
                u32::MAX,
            )
        },
    );
    c.check(
        "submesh index range past its LOD",
        Invalid,
        &["LOD 0: submesh 0", "indices ..567 of 564"],
        |f, b| put(b, subm(f, 0, offset_of!(SubmeshRecord, first_index)), 3u32),
    );
    c.check(
        "submesh index count not triangles",
        Invalid,
        &["LOD 0: submesh 0 has 563 indices, not triangles"],
        |f, b| {
            put(
                b,
                subm(f, 0, offset_of!(SubmeshRecord, index_count)),
                563u32,
            )
        },
    );
    c.check(
        "submesh material out of range",
        Invalid,
        &["LOD 1: submesh 0 uses material 1 (there are 1)"],
        |f, b| put(b, subm(f, 1, offset_of!(SubmeshRecord, material)), 1u32),
    );

    // ---- MATL
    let matl = |f: &Fixture, field| f.rec::<MaterialRecord>(tags::MATERIALS, 0, field);
    // Field `field` of texture slot `slot` of material 0.
    let slot = |f: &Fixture, slot: TextureSlot, field| {
        matl(f, offset_of!(MaterialRecord, textures))
            + slot as usize * size_of::<TextureSlotRecord>()
            + field
    };
    c.check(
        "material image index out of range",
        Invalid,
        &["material 0 (Material_001-effect): its baseColorTexture uses image 1 (there are 1)"],
        |f, b| {
            let at = slot(
                f,
                TextureSlot::BaseColor,
                offset_of!(TextureSlotRecord, image),
            );
            put(b, at, 1u32)
        },
    );
    c.check(
        "normal texture names an image past the last",
        Invalid,
        &["material 0 (Material_001-effect): its normalTexture uses image 7 (there are 1)"],
        |f, b| {
            put(
                b,
                slot(f, TextureSlot::Normal, offset_of!(TextureSlotRecord, image)),
                7u32,
            )
        },
    );
    c.check(
        "roughness 2",
        Invalid,
        &["material 0 (Material_001-effect): metallic 0, roughness 2 and occlusion strength 1 must be within 0..=1"],
        |f, b| put(b, matl(f, offset_of!(MaterialRecord, roughness_factor)), 2.0f32),
    );
    c.check(
        "emissive texture transform NaN",
        Invalid,
        &["material 0 (Material_001-effect): its emissiveTexture transform is not finite"],
        |f, b| {
            put(
                b,
                slot(
                    f,
                    TextureSlot::Emissive,
                    offset_of!(TextureSlotRecord, image),
                ),
                0u32,
            );
            put(
                b,
                slot(
                    f,
                    TextureSlot::Emissive,
                    offset_of!(TextureSlotRecord, rotation),
                ),
                f32::NAN,
            )
        },
    );
    c.check(
        "texture wrap bits past v",
        Corrupt,
        &["material 0's baseColorTexture has unknown wrap bits 0x10000"],
        |f, b| {
            put(
                b,
                slot(
                    f,
                    TextureSlot::BaseColor,
                    offset_of!(TextureSlotRecord, wrap),
                ),
                0x10000u32,
            )
        },
    );
    c.check(
        "material alpha mode 3",
        Corrupt,
        &["material 0 has unknown alpha mode 3"],
        |f, b| put(b, matl(f, offset_of!(MaterialRecord, alpha_mode)), 3u32),
    );
    c.check(
        "material wrap mode 3",
        Corrupt,
        &["material 0's baseColorTexture has unknown wrap mode 3"],
        |f, b| {
            put(
                b,
                slot(
                    f,
                    TextureSlot::BaseColor,
                    offset_of!(TextureSlotRecord, wrap),
                ),
                3u32 << 8,
            )
        },
    );
    c.check(
        "material flags 2",
        Corrupt,
        &["material 0 has unknown flags 0x2"],
        |f, b| put(b, matl(f, offset_of!(MaterialRecord, flags)), 2u32),
    );
    c.check(
        "material colour NaN",
        Invalid,
        &["material 0 (Material_001-effect): a factor is not finite"],
        |f, b| {
            put(
                b,
                matl(f, offset_of!(MaterialRecord, base_color_factor) + 12),
                f32::NAN,
            )
        },
    );
    c.check(
        "no materials but a submesh uses one",
        Invalid,
        &["submesh 0 uses material 0 (there are 0)"],
        |f, b| put(b, entry(f, tags::MATERIALS, length), 0u64),
    );

    // ---- IMGS
    let imgs = |f: &Fixture, field| f.rec::<ImageRecord>(tags::IMAGES, 0, field);
    c.check(
        "image bytes past IMGD",
        Corrupt,
        &["image 0 bytes 0+81 exceed the 80-byte image data"],
        |f, b| put(b, imgs(f, offset_of!(ImageRecord, data_len)), 81u64),
    );
    c.check(
        "image length u64::MAX",
        Corrupt,
        &["image 0 bytes 0+18446744073709551615 exceed"],
        |f, b| put(b, imgs(f, offset_of!(ImageRecord, data_len)), u64::MAX),
    );
    c.check(
        "image bytes not where the previous ended",
        Corrupt,
        &["image 0 bytes start at 1", "expected 0"],
        |f, b| put(b, imgs(f, offset_of!(ImageRecord, data_offset)), 1u64),
    );
    c.check(
        "image name outside the string table",
        Corrupt,
        &["image 0 name: string"],
        |f, b| {
            put(
                b,
                imgs(f, offset_of!(ImageRecord, name)),
                StrRef {
                    offset: u32::MAX,
                    len: u32::MAX,
                },
            )
        },
    );
    c.check(
        "image codec unknown",
        Corrupt,
        &["image 0 (checker.png): unknown codec 9"],
        |f, b| put(b, imgs(f, offset_of!(ImageRecord, codec)), 9u32),
    );
    c.check(
        "image content unknown",
        Corrupt,
        &["image 0 (checker.png): unknown content 3"],
        |f, b| put(b, imgs(f, offset_of!(ImageRecord, content)), 3u32),
    );
    c.check(
        "image of width 0",
        Corrupt,
        &["image 0 (checker.png): 0×4 is outside 1..=8192 texels a side"],
        |f, b| put(b, imgs(f, offset_of!(ImageRecord, width)), 0u32),
    );
    c.check(
        "image of width u32::MAX",
        Corrupt,
        &["4294967295×4 is outside 1..=8192"],
        |f, b| put(b, imgs(f, offset_of!(ImageRecord, width)), u32::MAX),
    );
    c.check(
        "image missing a mip level",
        Corrupt,
        &["image 0 (checker.png): 3 mip levels; a 8×4 image has 4"],
        |f, b| put(b, imgs(f, offset_of!(ImageRecord, levels)), 3u32),
    );
    c.check(
        "image levels u32::MAX",
        Corrupt,
        &["4294967295 mip levels; a 8×4 image has 4"],
        |f, b| put(b, imgs(f, offset_of!(ImageRecord, levels)), u32::MAX),
    );
    c.check(
        "image chain longer than its bytes",
        Corrupt,
        &["image 0 (checker.png): its mip chain needs more than its 80 bytes"],
        |f, b| put(b, imgs(f, offset_of!(ImageRecord, width)), 12u32),
    );
    c.check(
        "image chain shorter than its bytes",
        Corrupt,
        &["image 0 (checker.png): its mip chain is 60 bytes, not the 80 it declares"],
        |f, b| {
            // 8 × 1 RGBA8: 32 + 16 + 8 + 4 bytes.
            put(b, imgs(f, offset_of!(ImageRecord, codec)), 0u32);
            put(b, imgs(f, offset_of!(ImageRecord, height)), 1u32);
        },
    );
    c.check(
        "BC7 image whose sides are not whole blocks",
        Invalid,
        &["image 0 (checker.png): 6×4 is not a whole number of 4×4 blocks, which bc7 needs"],
        |f, b| {
            put(b, imgs(f, offset_of!(ImageRecord, width)), 6u32);
            put(b, imgs(f, offset_of!(ImageRecord, levels)), 3u32);
            put(b, imgs(f, offset_of!(ImageRecord, data_len)), 64u64);
        },
    );
    c.check(
        "no images but a material uses one",
        Invalid,
        &["uses image 0 (there are 0)"],
        |f, b| put(b, entry(f, tags::IMAGES, length), 0u64),
    );

    // ---- IMPO, IMPS, IMPD
    let impo = |f: &Fixture, field| f.rec::<ImpostorRecord>(tags::IMPOSTOR, 0, field);
    c.check(
        "impostor images a record short",
        Corrupt,
        &["impostor images hold 764 bytes", "needs 768"],
        |f, b| put(b, entry(f, tags::IMPOSTOR_DATA, length), 764u64),
    );
    c.check(
        "impostor plan of two layers",
        Corrupt,
        &["impostor images hold 768 bytes", "needs 1536"],
        |f, b| put(b, impo(f, offset_of!(ImpostorRecord, layers)), 2u32),
    );
    c.check(
        "impostor layer of u32::MAX texels",
        Corrupt,
        &["impostor images hold 768 bytes"],
        |f, b| {
            put(b, impo(f, offset_of!(ImpostorRecord, layer_size)), u32::MAX);
            put(b, impo(f, offset_of!(ImpostorRecord, layers)), u32::MAX);
        },
    );
    c.check(
        "impostor cell of 0 texels",
        Invalid,
        &["impostor plan", "0 texels a cell is out of range"],
        |f, b| put(b, impo(f, offset_of!(ImpostorRecord, cell)), 0u32),
    );
    c.check(
        "impostor of 2 clips for 1",
        Invalid,
        &["impostor of 2 clips for a model of 1"],
        |f, b| put(b, impo(f, offset_of!(ImpostorRecord, clips)), 2u32),
    );
    c.check(
        "impostor layout not its plan's",
        Invalid,
        &["is not the layout of its plan"],
        |f, b| put(b, impo(f, offset_of!(ImpostorRecord, views)), 3u32),
    );
    c.check(
        "impostor images in an unknown codec",
        Corrupt,
        &["impostor images in codec 7"],
        |f, b| put(b, impo(f, offset_of!(ImpostorRecord, codec)), 7u32),
    );
    c.check(
        "impostor RGBA8 images read as BC3",
        Corrupt,
        &[
            "impostor images hold 768 bytes",
            "3 images in bc3",
            "needs 192",
        ],
        |f, b| put(b, impo(f, offset_of!(ImpostorRecord, codec)), 2u32),
    );
    c.check(
        "impostor of 4 images",
        Corrupt,
        &["impostor of 4 images, expected 2", "or 3"],
        |f, b| put(b, impo(f, offset_of!(ImpostorRecord, images)), 4u32),
    );
    c.check(
        "impostor of 2 images holding 3",
        Corrupt,
        &["impostor images hold 768 bytes", "2 images", "needs 512"],
        |f, b| put(b, impo(f, offset_of!(ImpostorRecord, images)), 2u32),
    );
    c.check(
        "impostor plan's reserved word set",
        Corrupt,
        &["reserved impostor plan fields are not zero"],
        |f, b| put(b, impo(f, offset_of!(ImpostorRecord, reserved)) + 8, 1u32),
    );
    c.check(
        "impostor screen size of infinity",
        Invalid,
        &["impostor screen size inf"],
        |f, b| {
            put(
                b,
                impo(f, offset_of!(ImpostorRecord, screen_size)),
                f32::INFINITY,
            )
        },
    );
    c.check(
        "impostor sphere of radius 0",
        Invalid,
        &["impostor sphere of clip 0"],
        |f, b| put(b, f.section(tags::IMPOSTOR_SPHERES) + 12, 0.0f32),
    );
    c.check(
        "impostor sphere of NaN",
        Invalid,
        &["impostor sphere of clip 0"],
        |f, b| put(b, f.section(tags::IMPOSTOR_SPHERES), f32::NAN),
    );
    c.check(
        "impostor spheres without a plan",
        Corrupt,
        &["without an impostor plan"],
        |f, b| put(b, entry(f, tags::IMPOSTOR, length), 0u64),
    );

    c.finish();
    assert_eq!(f.model.images.len(), 1);
}

/// xorshift64: a tiny deterministic PRNG.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Fuzz iterations; each makes 1 to 8 random writes.
const FUZZ_ITERATIONS: usize = 4000;

#[test]
fn random_writes_never_panic() {
    let f = fixture();
    let len = f.file_size();
    let dir_end = HEADER_SIZE + f.dir.entries.len() * SECTION_ENTRY_SIZE;
    let interesting: [u32; 14] = [
        0,
        1,
        2,
        3,
        16,
        64,
        0xFF,
        0xFFFF,
        0x7FFF_FFFF,
        0x8000_0000,
        0xFFFF_FFFF,
        0x7FC0_0000, // NaN
        0x7F80_0000, // +inf
        len as u32,
    ];
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut outcomes = std::collections::BTreeMap::<&str, usize>::new();
    let mut panics = Vec::new();
    for iteration in 0..FUZZ_ITERATIONS {
        let mut bytes = f.bytes.clone();
        let mut edits = Vec::new();
        for _ in 0..1 + rng.below(8) {
            // A third in the header and directory, a third in a section, a third anywhere.
            let at = match rng.below(3) {
                0 => rng.below(dir_end),
                1 => {
                    let e = &f.dir.entries[rng.below(f.dir.entries.len())];
                    e.offset as usize + rng.below(e.length.max(1) as usize)
                }
                _ => rng.below(len),
            }
            .min(len - 1);
            if rng.below(2) == 0 {
                let v = rng.next() as u8;
                bytes[at] = v;
                edits.push(format!("[{at}]={v:#04x}"));
            } else {
                let at = (at & !3).min(len - 4);
                let v = interesting[rng.below(interesting.len())];
                put(&mut bytes, at, v);
                edits.push(format!("[{at}..+4]={v:#x}"));
            }
        }
        let fixed = rng.below(2) == 0;
        if fixed {
            fix_checksum(&mut bytes);
        }
        let outcome = match load(&bytes) {
            Err(p) => {
                panics.push(format!(
                    "iteration {iteration} (crc fixed: {fixed}) {}: PANIC {p}",
                    edits.join(" ")
                ));
                "panic"
            }
            Ok(Err(e)) => kind(&e),
            Ok(Ok(model)) => {
                // Only a valid model may load, and it must survive a round trip.
                if let Err(e) = model.validate() {
                    panic!("iteration {iteration}: loaded an invalid model: {e}");
                }
                let again = read_model(&write_model(&model).unwrap()).unwrap();
                assert!(again == model, "iteration {iteration}: round trip differs");
                "Ok (valid)"
            }
        };
        *outcomes.entry(outcome).or_default() += 1;
    }
    println!("{FUZZ_ITERATIONS} fuzz iterations: {outcomes:?}");
    assert!(panics.is_empty(), "{}", panics.join("\n"));
}

/// The sample committed for format version `v`, named after it.
fn sample_path(v: u32) -> PathBuf {
    repo_root()
        .join("tests/data")
        .join(format!("simple_skin.v{v}.throng"))
}

/// The committed sample of the current version.
fn golden_path() -> PathBuf {
    sample_path(VERSION)
}

fn bake_simple_skin() -> BakedModel {
    let name = "khronos_SimpleSkin.gltf";
    bake_file(&asset(name), &BakeOptions::default(), &|_, _| {})
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .0
}

/// The committed sample; written (only if missing) when `UPDATE_GOLDENS=1`.
/// A lock keeps the two tests that use it from writing it at the same time.
fn golden() -> Vec<u8> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let path = golden_path();
    if !path.exists() {
        assert!(
            std::env::var("UPDATE_GOLDENS").as_deref() == Ok("1"),
            "{} is missing: run with UPDATE_GOLDENS=1 to write it, and commit it",
            path.display()
        );
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, write_model(&bake_simple_skin()).unwrap()).unwrap();
        println!("wrote {}", path.display());
    }
    std::fs::read(&path).unwrap()
}

/// The first part of two models that differs, for a readable failure.
fn first_difference(a: &BakedModel, b: &BakedModel) -> &'static str {
    if a.name != b.name || a.source != b.source {
        "name or source"
    } else if a.fps != b.fps || a.bake_error != b.bake_error {
        "fps or bake error"
    } else if a.bones != b.bones {
        "bones"
    } else if a.clips != b.clips {
        "clips"
    } else if a.texture != b.texture {
        "texture"
    } else if a.bounds != b.bounds || a.bounding_radius != b.bounding_radius {
        "bounds"
    } else if a.frame_bounds != b.frame_bounds {
        "frame bounds"
    } else if a.lods != b.lods {
        "LODs"
    } else if a.materials != b.materials || a.images != b.images {
        "materials or images"
    } else {
        "nothing"
    }
}

#[test]
fn committed_sample_loads_and_equals_a_fresh_bake() {
    golden();
    let path = golden_path();
    let loaded = read_file(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}\nThe committed version-{VERSION} sample no longer loads: if the format changed, bump format::VERSION and commit a sample of the new version",
            path.display()
        )
    });
    // The sample records its provenance (a hash of the inputs' contents,
    // the options and the baker: the same on every machine), as a fresh
    // bake does.
    let fresh = bake_simple_skin();
    let recorded = fresh
        .provenance
        .as_ref()
        .expect("bake_file records provenance");
    assert_eq!(
        recorded.files, 1,
        "SimpleSkin is one file (its sidecar is absent)"
    );
    assert!(
        loaded == fresh,
        "{}: the committed sample differs from a fresh bake in its {}: a format change must bump format::VERSION (or a bake change must re-write the sample with UPDATE_GOLDENS=1 after deleting it)",
        path.display(),
        first_difference(&loaded, &fresh)
    );
    println!(
        "{}: {} bytes, {} bones, {} clips, equal to a fresh bake",
        path.display(),
        std::fs::metadata(&path).unwrap().len(),
        loaded.bones.len(),
        loaded.clips.len()
    );
}

/// `bytes` (described by `what`) are refused with `UnsupportedVersion`
/// naming version `found`, in a message that says to re-bake.
fn assert_refused_as_version(what: &str, bytes: &[u8], found: u32) {
    let e = read_model(bytes).unwrap_err();
    println!("{what}: {e}");
    assert!(
        matches!(e, FormatError::UnsupportedVersion { found: f, supported: VERSION } if f == found),
        "{e:?}"
    );
    assert!(e.to_string().contains("re-bake"), "{e}");
}

/// Samples committed for earlier format versions stay in `tests/data`: each
/// must be refused with a named error that says to re-bake.
#[test]
fn older_committed_samples_are_refused_with_a_named_error() {
    let mut seen = 0;
    for v in 1..VERSION {
        let path = sample_path(v);
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        seen += 1;
        assert_refused_as_version(&path.display().to_string(), &bytes, v);
    }
    assert!(
        seen > 0 || VERSION == 1,
        "no older sample found in tests/data"
    );
}

#[test]
fn committed_sample_claiming_version_0_is_refused() {
    let mut bytes = golden();
    put(&mut bytes, offset_of!(Header, version), 0u32);
    assert_refused_as_version("version 0", &bytes, 0);
}

#[test]
fn provenance_round_trips_is_read_alone_and_is_checked() {
    use throng_core::format::{ProvenanceRecord, peek_provenance, read_provenance};
    use throng_core::provenance::Provenance;
    // A file without PROV (the section is optional) has none, read alone
    // or with the model.
    let mut model = read_model(&golden()).unwrap();
    model.provenance = None;
    let without = write_model(&model).unwrap();
    assert_eq!(read_provenance(&without).unwrap(), None);
    assert_eq!(read_model(&without).unwrap().provenance, None);
    let recorded = Provenance {
        inputs: [7; 32],
        files: 3,
        options: "fps=30 impostor=[none]".into(),
        baker: "throng-bake test".into(),
    };
    model.provenance = Some(recorded.clone());
    let bytes = write_model(&model).unwrap();
    assert_eq!(
        read_model(&bytes).unwrap().provenance.as_ref(),
        Some(&recorded)
    );
    assert_eq!(read_provenance(&bytes).unwrap().as_ref(), Some(&recorded));

    let dir = Directory::parse(&bytes).unwrap();
    let at = dir.entry(tags::PROVENANCE).unwrap().offset as usize;
    // A damaged record fails the checksum: a stale output is never taken
    // for a fresh one.
    let mut damaged = bytes.clone();
    damaged[at] ^= 1;
    let e = read_provenance(&damaged).unwrap_err();
    assert!(e.to_string().contains("checksum"), "{e}");
    // Behind a valid checksum: reserved fields, and texts past the table.
    let mut reserved = bytes.clone();
    put(
        &mut reserved,
        at + offset_of!(ProvenanceRecord, reserved),
        1u32,
    );
    fix_checksum(&mut reserved);
    let e = read_provenance(&reserved).unwrap_err();
    assert!(e.to_string().contains("reserved provenance"), "{e}");
    let mut outside = bytes.clone();
    put(
        &mut outside,
        at + offset_of!(ProvenanceRecord, options) + 4,
        4000u32,
    );
    fix_checksum(&mut outside);
    let e = read_model(&outside).unwrap_err();
    println!("options past the string table: {e}");
    assert!(e.to_string().contains("provenance options"), "{e}");
    // Peeked from a file (header, directory, STRS and PROV only): the same;
    // every truncation and a PROV pointing past the end are errors, never
    // a panic or a read past the file.
    let path = std::env::temp_dir().join(format!("throng-peek-{}.throng", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(peek_provenance(&path).unwrap().as_ref(), Some(&recorded));
    for n in [
        0,
        10,
        HEADER_SIZE,
        HEADER_SIZE + 30,
        at,
        at + 20,
        bytes.len() - 1,
    ] {
        std::fs::write(&path, &bytes[..n]).unwrap();
        assert!(
            peek_provenance(&path).is_err(),
            "a {n}-byte prefix was read"
        );
    }
    let mut past = bytes.clone();
    let index = dir
        .entries
        .iter()
        .position(|e| e.tag == tags::PROVENANCE)
        .unwrap();
    put(
        &mut past,
        HEADER_SIZE + index * SECTION_ENTRY_SIZE + offset_of!(SectionEntry, offset),
        bytes.len() as u64,
    );
    std::fs::write(&path, &past).unwrap();
    let e = peek_provenance(&path).unwrap_err();
    println!("PROV past the end: {e}");
    std::fs::remove_file(&path).unwrap();
    // Renamed, PROV is an unknown section: skipped, no provenance.
    let mut renamed = bytes.clone();
    let index = dir
        .entries
        .iter()
        .position(|e| e.tag == tags::PROVENANCE)
        .unwrap();
    renamed[HEADER_SIZE + index * SECTION_ENTRY_SIZE] = b'p';
    fix_checksum(&mut renamed);
    assert_eq!(read_model(&renamed).unwrap().provenance, None);
}
