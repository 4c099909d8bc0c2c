//! Whole files that are not glTF at all, truncated or corrupt GLB headers
//! and chunks, and error chains that print each cause once.

use serde_json::json;
use throng_bake::import_slice;
use throng_core::error::Chain;
use throng_tests::assert_mentions;

use super::{base_builder, edited, import_err};

#[test]
fn not_gltf_at_all() {
    for (case, bytes) in [
        ("empty file", &b""[..]),
        ("invalid JSON", &b"{ \"asset\": { \"version\": \"2.0\" "[..]),
        ("JSON but not glTF", &b"[1, 2, 3]"[..]),
        ("no asset", &b"{}"[..]),
        ("GLB magic only", &b"glTF"[..]),
    ] {
        let msg = import_err(case, bytes);
        assert_mentions(case, &msg, &["not a valid glTF 2.0 file"]);
    }
}

#[test]
fn truncated_and_corrupt_glb() {
    let glb = base_builder().to_glb();
    let msg = import_err("half a GLB", &glb[..glb.len() / 2]);
    assert_mentions("half a GLB", &msg, &["not a valid glTF 2.0 file"]);

    // A header whose total length is smaller than the header itself (gltf
    // 1.4 subtracts the header size from it unchecked).
    for length in [0u32, 11] {
        let mut bad = glb.clone();
        bad[8..12].copy_from_slice(&length.to_le_bytes());
        let case = format!("GLB length {length}");
        let msg = import_err(&case, &bad);
        assert_mentions(&case, &msg, &["not a valid glTF 2.0 file", "GLB header"]);
    }
    // Shorter than the chunks but not than the header: the reader is lenient
    // (it reads the chunks that are there); either answer is fine, no panic.
    for length in [12u32, 19, 20] {
        let mut bad = glb.clone();
        bad[8..12].copy_from_slice(&length.to_le_bytes());
        let _ = import_slice(&bad, None, "short GLB length");
    }
    // A JSON chunk longer than the file.
    let mut bad = glb.clone();
    bad[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    let msg = import_err("JSON chunk length", &bad);
    assert_mentions("JSON chunk length", &msg, &["not a valid glTF 2.0 file"]);
}

/// A message either prints its cause or returns it as its
/// `source`, never both, so the chain the CLI prints says each thing once.
#[test]
fn errors_print_their_cause_once() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let missing = throng_bake::import_file(&dir.join("no-such-model.glb")).unwrap_err();
    let invalid = import_slice(
        &edited(|d| d["scenes"][0]["nodes"] = json!([7])),
        None,
        "bad scene",
    )
    .unwrap_err();
    for (case, e, cause) in [
        ("missing file", &missing, "os error"),
        ("invalid glTF", &invalid, "invalid glTF"),
    ] {
        let chain = Chain(e).to_string();
        println!("{case}: {chain}");
        let n = chain.matches(cause).count();
        assert_eq!(n, 1, "{case}: {cause:?} appears {n} times: {chain}");
    }
    assert!(Chain(&missing).to_string().contains("no-such-model.glb"));
}
