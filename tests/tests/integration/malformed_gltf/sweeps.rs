//! Exhaustive damage: every truncated prefix of a valid file, every byte
//! of the binary chunk set to 0xFF and every JSON value replaced by a
//! hostile one is refused cleanly or imported and baked, never a panic.

use serde_json::{Value, json};
use throng_bake::{BakeOptions, bake, import_slice};
use throng_tests::asset;
use throng_tests::gltf_builder::{glb_bytes, gltf_bytes};

use super::base_builder;

/// Every prefix of a valid file is rejected cleanly (or, for the whole file,
/// accepted): as is, and with the GLB header's total length patched to the
/// prefix so that chunk parsing is reached.
#[test]
fn every_truncated_prefix_fails_cleanly() {
    let built = base_builder().to_glb();
    let rigged = std::fs::read(asset("khronos_RiggedSimple.glb")).expect("bundled asset");
    let gltf = base_builder().to_gltf();
    for (name, file) in [
        ("built.glb", &built),
        ("khronos_RiggedSimple.glb", &rigged),
        ("built.gltf", &gltf),
    ] {
        let mut accepted = 0;
        for len in 0..=file.len() {
            let mut prefix = file[..len].to_vec();
            if import_slice(&prefix, None, name).is_ok() {
                accepted += 1;
            }
            if len >= 12 && prefix.starts_with(b"glTF") {
                prefix[8..12].copy_from_slice(&(len as u32).to_le_bytes());
                if let Ok(imported) = import_slice(&prefix, None, name) {
                    // Only a cut at the very end of a chunk can still parse;
                    // whatever parses must also bake or fail cleanly.
                    let _ = bake(&imported.scene, &BakeOptions::default(), &|_, _| {});
                }
            }
        }
        assert_eq!(accepted, 1, "{name}: only the whole file imports");
        println!("{name}: {} prefixes checked", file.len() + 1);
    }
}

/// Every byte of the binary chunk set to 0xFF in turn (joint indices, counts
/// of float bits, NaN patterns): import and bake give `Ok` or `Err`, never a
/// panic.
#[test]
fn corrupt_binary_data_never_panics() {
    let b = base_builder();
    let mut doc = b.to_json();
    doc["buffers"][0].as_object_mut().unwrap().remove("uri");
    let (mut ok, mut err) = (0, 0);
    for i in 0..b.bin().len() {
        let mut bin = b.bin().to_vec();
        bin[i] = 0xFF;
        match import_slice(&glb_bytes(&doc, &bin), None, "corrupt") {
            Ok(imported) => {
                ok += 1;
                let _ = bake(&imported.scene, &BakeOptions::default(), &|_, _| {});
            }
            Err(_) => err += 1,
        }
    }
    println!("corrupt bytes: {ok} imported, {err} rejected");
    assert!(err > 0, "some corruption must be detected");
}

/// Every number and string of the base document replaced in turn by values
/// that break indices, counts, offsets, types and enums: import and bake give
/// `Ok` or `Err`, never a panic.
#[test]
fn every_json_value_replaced_never_panics() {
    fn leaves(v: &Value, at: String, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => o
                .iter()
                .for_each(|(k, v)| leaves(v, format!("{at}/{k}"), out)),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, v)| leaves(v, format!("{at}/{i}"), out)),
            Value::Number(_) | Value::String(_) => out.push(at),
            _ => {}
        }
    }
    let base = base_builder().to_json();
    let mut pointers = Vec::new();
    leaves(&base, String::new(), &mut pointers);
    let replacements = [
        json!(0),
        json!(1),
        json!(7),
        json!(99),
        json!(-1),
        json!(4_294_967_296u64),
        json!(0.5),
        json!("bogus"),
        json!(null),
    ];
    let (mut ok, mut err) = (0, 0);
    for pointer in &pointers {
        for r in &replacements {
            let mut doc = base.clone();
            *doc.pointer_mut(pointer).expect("a leaf") = r.clone();
            match import_slice(&gltf_bytes(&doc), None, "mutated") {
                Ok(imported) => {
                    ok += 1;
                    let _ = bake(&imported.scene, &BakeOptions::default(), &|_, _| {});
                }
                Err(_) => err += 1,
            }
        }
    }
    println!(
        "{} values × {} replacements: {ok} imported, {err} rejected",
        pointers.len(),
        replacements.len()
    );
    assert!(err > 0);
}
