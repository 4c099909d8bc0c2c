//! The reader and the writer against each other and against the committed
//! sample of this version (`tests/data/simple_skin.v{VERSION}.throng`), in
//! the crate's own tests, so that a change to either fails here and fast:
//! cargo-mutants runs a crate's own tests (CONTRIBUTING.md). The structural
//! cases, every flip of every byte and the fuzzing are throng-tests'
//! `format_robustness`, over a fixture with every section.

use std::path::{Path, PathBuf};

use super::*;
use crate::model::ClipEvent;
use crate::provenance::Provenance;

/// The committed sample of this format version.
fn sample_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data")
        .join(format!("simple_skin.v{VERSION}.throng"))
}

/// The committed sample, read.
pub(super) fn sample_model() -> crate::BakedModel {
    read_model(&sample()).unwrap()
}

pub(super) fn sample() -> Vec<u8> {
    let path = sample_path();
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the committed sample of this version)",
            path.display()
        )
    })
}

#[test]
fn the_committed_sample_reads_and_writes_back_byte_for_byte() {
    let bytes = sample();
    let model = read_model(&bytes).unwrap();
    assert!(
        !model.bones.is_empty() && !model.clips.is_empty() && !model.lods.is_empty(),
        "the sample has bones, clips and a mesh"
    );
    assert!(model.lods[0].vertices.len() > 3 && model.lods[0].indices.len() >= 3);
    let again = write_model(&model).unwrap();
    let first = bytes.iter().zip(&again).position(|(a, b)| a != b);
    assert!(
        again == bytes,
        "written back: {} bytes against {}, first difference at {first:?}",
        again.len(),
        bytes.len()
    );
    assert_eq!(
        read_file(&sample_path()).unwrap(),
        model,
        "read_file reads what read_model does"
    );
}

#[test]
fn events_and_provenance_round_trip() {
    let mut model = read_model(&sample()).unwrap();
    model.events = two_events(model.clips[0].duration);
    model.provenance = Some(Provenance {
        inputs: [7; 32],
        files: 3,
        options: "lods=none".into(),
        baker: "throng-bake 0.1.0".into(),
    });
    let bytes = write_model(&model).unwrap();
    assert_eq!(read_model(&bytes).unwrap(), model);
    assert_eq!(read_provenance(&bytes).unwrap(), model.provenance);
    let path = std::env::temp_dir().join(format!("throng-format-{}.throng", std::process::id()));
    write_file(&model, &path).unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "write_file writes write_model's bytes"
    );
    assert_eq!(peek_provenance(&path).unwrap(), model.provenance);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn every_prefix_and_every_flipped_bit_of_the_sample_is_refused() {
    let bytes = sample();
    for n in 0..bytes.len() {
        assert!(
            read_model(&bytes[..n]).is_err(),
            "a prefix of {n} bytes loaded"
        );
    }
    let mut flipped = bytes.clone();
    for i in 0..flipped.len() {
        flipped[i] ^= 0x10;
        assert!(read_model(&flipped).is_err(), "byte {i} flipped loaded");
        flipped[i] ^= 0x10;
    }
}

/// Two events of clip 0 (of `duration` seconds): one at its start without
/// data, one midway with JSON data.
pub(super) fn two_events(duration: f32) -> Vec<ClipEvent> {
    vec![
        ClipEvent {
            clip: 0,
            time: 0.0,
            name: "start".into(),
            data: String::new(),
        },
        ClipEvent {
            clip: 0,
            time: duration * 0.5,
            name: "step".into(),
            data: r#"{"foot": "left"}"#.into(),
        },
    ]
}
