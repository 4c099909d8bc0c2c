//! Malformed glTF buffers: shorter than their `byteLength`, missing, without
//! a URI, a GLB without (or with a short) binary chunk, a missing external
//! file, and buffer views past the end of their buffer.

use serde_json::json;
use throng_bake::import_slice;
use throng_core::error::Chain;
use throng_tests::assert_mentions;
use throng_tests::gltf_builder::glb_bytes;

use super::{KEY_TIMES, POSITION, base_builder, edited, import_err};

#[test]
fn buffer_shorter_than_its_byte_length() {
    let bytes = edited(|d| {
        let n = d["buffers"][0]["byteLength"].as_u64().unwrap();
        d["buffers"][0]["byteLength"] = json!(n + 100);
    });
    let msg = import_err("short buffer", &bytes);
    assert_mentions("short buffer", &msg, &["buffers[0]", "byteLength"]);
}

#[test]
fn missing_buffers() {
    // No `buffers` at all: the buffer views point at nothing.
    let bytes = edited(|d| {
        d.as_object_mut().unwrap().remove("buffers");
    });
    let msg = import_err("no buffers", &bytes);
    assert_mentions("no buffers", &msg, &["bufferViews[0].buffer"]);

    // A `.gltf` buffer without a URI (only a GLB may do that).
    let bytes = edited(|d| {
        d["buffers"][0].as_object_mut().unwrap().remove("uri");
    });
    let msg = import_err("buffer without uri", &bytes);
    assert_mentions("buffer without uri", &msg, &["buffers[0]", "binary chunk"]);

    // A GLB whose buffer refers to a BIN chunk that is not there.
    let mut doc = base_builder().to_json();
    doc["buffers"][0].as_object_mut().unwrap().remove("uri");
    let msg = import_err("glb without bin", &glb_bytes(&doc, &[]));
    assert_mentions("glb without bin", &msg, &["buffers[0]", "binary chunk"]);

    // A GLB whose BIN chunk is shorter than the buffer's byteLength.
    let b = base_builder();
    let mut doc = b.to_json();
    doc["buffers"][0].as_object_mut().unwrap().remove("uri");
    let short = &b.bin()[..b.bin().len() / 2];
    let msg = import_err("glb short bin", &glb_bytes(&doc, short));
    assert_mentions("glb short bin", &msg, &["buffers[0]", "byteLength"]);
}

#[test]
fn missing_external_buffer_file() {
    let bytes = edited(|d| d["buffers"][0]["uri"] = json!("missing.bin"));
    // Without a base directory the URI cannot be resolved.
    let msg = import_err("external, no base", &bytes);
    assert_mentions("external, no base", &msg, &["buffers[0]", "missing.bin"]);
    // With one, the file is not there.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let msg = match import_slice(&bytes, Some(dir), "external") {
        Ok(_) => panic!("external: imported a file whose buffer is missing"),
        Err(e) => Chain(&e).to_string(),
    };
    println!("external: {msg}");
    assert_mentions("external", &msg, &["buffers[0]", "missing.bin"]);
}

#[test]
fn buffer_view_past_the_buffer() {
    let bytes = edited(|d| d["bufferViews"][POSITION]["byteLength"] = json!(100_000));
    let msg = import_err("view length", &bytes);
    assert_mentions(
        "view length",
        &msg,
        &[
            "meshes[0].primitives[0].attributes.POSITION",
            "bufferViews[0]",
            "buffers[0]",
        ],
    );
    let bytes = edited(|d| d["bufferViews"][KEY_TIMES]["byteOffset"] = json!(1u64 << 40));
    let msg = import_err("view offset", &bytes);
    assert_mentions(
        "view offset",
        &msg,
        &["animations[0].samplers[0].input", "bufferViews[5]"],
    );
}
