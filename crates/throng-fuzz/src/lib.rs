//! The bodies of Throng's fuzz targets, one module each, so that the
//! coverage-guided fuzzer (`fuzz/`, cargo-fuzz with libFuzzer) and the
//! corpus replay under `cargo test` (`tests/corpus.rs`) run the same code.
//!
//! A body takes the fuzzer's bytes and says whether it accepted them (went
//! past the parser into use); bad input must come back as an error, so the
//! only failures are panics — including the
//! invariants each body asserts on what it accepted (a model that reads
//! also samples; a model that bakes also writes and reads back; a composed
//! shader holds each module once). `TARGETS` names them for the tools.

pub mod cli_args;
pub mod gltf;
pub mod provenance;
pub mod throng_file;
pub mod wgsl;

/// A fuzz target: its name (the folder of its seeds and regressions, and
/// cargo-fuzz's target) and its body.
pub type Target = (&'static str, fn(&[u8]) -> bool);

/// Every target, by name.
pub const TARGETS: [Target; 5] = [
    ("throng_file", throng_file::run),
    ("gltf", gltf::run),
    ("provenance", provenance::run),
    ("cli_args", cli_args::run),
    ("wgsl", wgsl::run),
];

/// The model every target that needs a valid one uses: the Khronos
/// SimpleSkin, baked (format version of this build).
pub fn simple_skin() -> throng_core::BakedModel {
    throng_core::format::read_model(include_bytes!("../../../tests/data/simple_skin.v10.throng"))
        .expect("the committed simple_skin.v10.throng reads")
}
