//! Edits of a glTF's float accessors in place (its JSON and binary chunk,
//! as [`super::glb_parts`] gives them): what tests use to make a body from
//! the bundled Fox — a rig scaled, a mesh stretched, a joint turned.

use serde_json::Value;

/// Edits each group of `width` floats of the float accessor `index` in
/// `bin` with `edit`.
pub fn edit_floats(
    doc: &Value,
    bin: &mut [u8],
    index: usize,
    width: usize,
    mut edit: impl FnMut(&mut [f32]),
) {
    let accessor = &doc["accessors"][index];
    assert_eq!(accessor["componentType"], 5126, "a float accessor");
    let view = &doc["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
    let start =
        view["byteOffset"].as_u64().unwrap_or(0) + accessor["byteOffset"].as_u64().unwrap_or(0);
    let stride = view["byteStride"].as_u64().unwrap_or(4 * width as u64);
    let mut group = vec![0.0f32; width];
    for i in 0..accessor["count"].as_u64().unwrap() {
        let at = (start + i * stride) as usize;
        for (c, v) in group.iter_mut().enumerate() {
            *v = f32::from_le_bytes(bin[at + 4 * c..at + 4 * c + 4].try_into().unwrap());
        }
        edit(&mut group);
        for (c, v) in group.iter().enumerate() {
            bin[at + 4 * c..at + 4 * c + 4].copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// Multiplies the components `which` of each group of `width` floats of
/// the accessor `index` by `k` in `bin` (and its bounds).
pub fn scale_accessor(
    doc: &mut Value,
    bin: &mut [u8],
    index: usize,
    width: usize,
    which: &[usize],
    k: f32,
) {
    edit_floats(doc, bin, index, width, |g| {
        which.iter().for_each(|&c| g[c] *= k)
    });
    for bound in ["min", "max"] {
        if let Some(values) = doc["accessors"][index][bound].as_array_mut() {
            for &c in which {
                let v = values[c].as_f64().unwrap() * k as f64;
                values[c] = Value::from(v);
            }
        }
    }
}

/// The POSITION accessor of every primitive of every mesh of `doc`.
pub fn position_accessors(doc: &Value) -> Vec<usize> {
    doc["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["primitives"].as_array().unwrap().clone())
        .map(|p| p["attributes"]["POSITION"].as_u64().unwrap() as usize)
        .collect()
}
