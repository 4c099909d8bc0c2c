//! The `.throng` reader refuses damage: every truncated prefix of a valid
//! `.throng` and a set of corrupted ones (flipped bytes in headers, lengths
//! and indices) fail to load with an error; no panic.
//!
//! * Every prefix of a valid file fails, with the header left as it is and
//!   with the header patched to the prefix's size and checksum.
//! * Every flipped byte fails (the checksum catches anything past the header).
//! * Behind the checksum, each structural rule of `docs/FORMAT.md` is broken
//!   on its own with the CRC recomputed ([`fixture::fix_checksum`]), and each
//!   must give its own named error whose message says what was wrong. These
//!   cases are tables ([`table::Case`]: a name, an edit of the bytes, the
//!   error kind and the text its message must mention), one per part of the
//!   file — the header and directory (`file_cases`), the model, strings,
//!   bones, clips and texels (`model_cases`), LODs, vertices, indices and
//!   submeshes (`mesh_cases`), materials, images and the impostor
//!   (`material_cases`) — plus a case per section the fixture holds (its tag
//!   renamed), all run by one [`table::Runner`] that prints every case and
//!   fails listing each one that went wrong.
//! * A deterministic fuzz loop of random writes never panics, and anything it
//!   makes that loads is a valid model that survives a round trip.
//! * The committed sample of the current version still loads and equals a
//!   fresh bake; the samples of older versions, and the current one claiming
//!   version 0, are refused with `UnsupportedVersion`.
//! * Provenance (the optional PROV section) round-trips, is read alone, and
//!   is checked like the rest.
//!
//! The fixture ([`fixture::fixture`]) is `khronos_RiggedSimple.glb` baked
//! with default options, plus one image (used by its material), a second LOD
//! and an impostor, so that every section holds records and every index kind
//! can be corrupted.

use std::mem::offset_of;
use std::path::PathBuf;

use throng_bake::{BakeOptions, bake_file};
use throng_core::FormatError;
use throng_core::format::{
    Directory, HEADER_SIZE, Header, SECTION_ENTRY_SIZE, SectionEntry, VERSION, read_file,
    read_model, tags, write_model,
};
use throng_core::model::BakedModel;
use throng_tests::rng::Rng;
use throng_tests::{asset, repo_root};

#[path = "format_robustness/file_cases.rs"]
mod file_cases;
#[path = "format_robustness/fixture.rs"]
mod fixture;
#[path = "format_robustness/material_cases.rs"]
mod material_cases;
#[path = "format_robustness/mesh_cases.rs"]
mod mesh_cases;
#[path = "format_robustness/model_cases.rs"]
mod model_cases;
#[path = "format_robustness/table.rs"]
mod table;

use fixture::{fix_checksum, fixture, kind, load, put};
use table::{Case, Runner};

/// The tables of structural cases that follow the directory's, in the
/// file's order.
static RECORD_TABLES: &[&[Case]] = &[
    model_cases::MODEL,
    model_cases::STRINGS,
    model_cases::BONES,
    model_cases::CLIPS,
    model_cases::TEXELS,
    mesh_cases::LODS,
    mesh_cases::VERTICES,
    mesh_cases::SUBMESHES,
    material_cases::MATERIALS,
    material_cases::IMAGES,
    material_cases::IMPOSTOR,
];

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
    let f = fixture();
    let mut runner = Runner::default();
    runner.run_all(file_cases::HEADER);
    runner.run_all(file_cases::DIRECTORY);
    file_cases::run_missing_sections(&mut runner, f);
    for cases in RECORD_TABLES {
        runner.run_all(cases);
    }
    runner.finish();
    assert_eq!(f.model.images.len(), 1);
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
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
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
                let v = rng.bits() as u8;
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
