//! Compressed glTF on the command line: `throng inspect` lists the
//! extensions a file uses, required or not, read or not; `throng bake` of a
//! file requiring one the baker does not read exits non-zero with one line
//! naming it, and writes nothing.

use std::path::PathBuf;

use crate::common::throng_json as json;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn inspect_lists_the_extensions_and_whether_each_is_read() {
    let file = root().join("tests/data/compressed/fox_cz.glb");
    let info = json(&["inspect", file.to_str().unwrap(), "--json"]);
    let listed: Vec<(String, bool, bool)> = info["extensions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_owned(),
                e["required"] == true,
                e["read"] == true,
            )
        })
        .collect();
    let want = |name: &str, required| (name.to_owned(), required, true);
    assert_eq!(
        listed,
        [
            want("KHR_mesh_quantization", true),
            want("KHR_meshopt_compression", true),
            want("KHR_texture_transform", false),
        ]
    );
}

#[test]
fn a_bake_of_a_file_requiring_an_unread_extension_fails_in_one_line_and_writes_nothing() {
    let dir = std::env::temp_dir().join(format!("throng-compressed-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // fox_c.glb with a required extension no baker reads.
    let bytes = std::fs::read(root().join("tests/data/compressed/fox_c.glb")).unwrap();
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let text = std::str::from_utf8(&bytes[20..20 + json_len]).unwrap();
    let edited = text.replacen(
        "\"extensionsRequired\":[",
        "\"extensionsRequired\":[\"EXT_foo\",",
        1,
    );
    assert_ne!(edited, text, "the fixture lists extensionsRequired");
    let mut padded = edited.into_bytes();
    while !padded.len().is_multiple_of(4) {
        padded.push(b' ');
    }
    let bin = &bytes[20 + json_len..];
    let mut glb = b"glTF".to_vec();
    glb.extend(2u32.to_le_bytes());
    glb.extend(((12 + 8 + padded.len() + bin.len()) as u32).to_le_bytes());
    glb.extend((padded.len() as u32).to_le_bytes());
    glb.extend(b"JSON");
    glb.extend(&padded);
    glb.extend(bin);
    let model = dir.join("model.glb");
    std::fs::write(&model, glb).unwrap();
    let out = dir.join("model.throng");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["bake", model.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the bake succeeded: {stderr}");
    assert!(
        stderr.contains("model.glb: requires EXT_foo, which this baker does not read; it reads: KHR_mesh_quantization, EXT_meshopt_compression")
            && stderr.lines().count() == 1,
        "{stderr}"
    );
    assert!(!out.exists(), "{} was written", out.display());
    let _ = std::fs::remove_dir_all(&dir);
}
