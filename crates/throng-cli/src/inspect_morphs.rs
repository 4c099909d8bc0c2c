//! `throng inspect`'s morph targets: for a `.throng`, each slot (the target
//! of one mesh instance) with its deltas and whether its clips animate it,
//! and the bytes the weights and deltas take in the file and on the GPU;
//! for a glTF, each mesh's targets and the clips' weight channels.

use serde_json::{Value, json};
use throng_bake::Scene;
use throng_core::BakedModel;
use throng_core::limits::MORPH_TEXTURE_WIDTH;

use crate::util::{bytes, thousands};

/// The baked model's morph targets as JSON (`null` without any).
pub fn baked_morphs_json(m: &BakedModel) -> Value {
    let morphs = &m.morphs;
    if morphs.is_empty() {
        return Value::Null;
    }
    let frames = m.frame_count();
    // One pass over the deltas (a face may have millions), not one a slot.
    let mut per_slot = vec![0usize; morphs.slots.len()];
    for d in &morphs.deltas {
        per_slot[d.slot as usize] += 1;
    }
    let slots: Vec<Value> = morphs
        .slots
        .iter()
        .enumerate()
        .map(|(s, slot)| {
            let deltas = per_slot[s];
            let first = morphs.weight(0, s as u32);
            let animated = (1..frames).any(|f| morphs.weight(f, s as u32) != first);
            json!({
                "name": slot.name, "node": slot.node, "mesh": slot.mesh, "target": slot.target,
                "deltas": deltas, "rest_weight": first, "animated": animated,
            })
        })
        .collect();
    let file_bytes = morphs.weights.len() * 4
        + std::mem::size_of_val(morphs.deltas.as_slice())
        + morphs.slots.len() * std::mem::size_of::<throng_core::format::MorphSlotRecord>();
    json!({
        "slots": slots,
        "deltas": morphs.deltas.len(),
        "file_bytes": file_bytes,
        "gpu_bytes": morphs.texture_rows(frames) * MORPH_TEXTURE_WIDTH as u64 * 16,
    })
}

/// The scene's morph targets as JSON: targets per mesh, weight channels
/// per clip.
pub fn scene_morphs_json(s: &Scene) -> Value {
    json!({
        "meshes": s.meshes.iter().filter(|m| !m.target_names.is_empty()).map(|m| json!({
            "mesh": m.name, "targets": m.target_names, "weights": m.weights,
        })).collect::<Vec<_>>(),
        "weight_channels": s.clips.iter().map(|c| c.weights.len()).sum::<usize>(),
    })
}

/// Appends the morph lines of a summary (`v["morphs"]`) to `s`.
pub fn text(s: &mut String, v: &Value) {
    use std::fmt::Write;
    let m = &v["morphs"];
    if v["kind"] == "throng" {
        let Some(slots) = m["slots"].as_array() else {
            let _ = writeln!(s, "  morph targets  none");
            return;
        };
        let _ = writeln!(
            s,
            "  morph targets  {} slots, {} deltas; {} in the file, {} on the GPU",
            slots.len(),
            thousands(m["deltas"].as_u64().unwrap_or(0)),
            bytes(m["file_bytes"].as_u64().unwrap_or(0)),
            bytes(m["gpu_bytes"].as_u64().unwrap_or(0))
        );
        for (i, slot) in slots.iter().enumerate() {
            let _ = writeln!(
                s,
                "    {i:>3}  {:24} mesh {} node {} target {}: {} deltas, rest weight {}, {}",
                slot["name"].as_str().unwrap_or(""),
                slot["mesh"],
                slot["node"],
                slot["target"],
                slot["deltas"],
                slot["rest_weight"],
                if slot["animated"] == true {
                    "animated"
                } else {
                    "not animated"
                }
            );
        }
    } else {
        let meshes = m["meshes"].as_array().cloned().unwrap_or_default();
        if meshes.is_empty() {
            let _ = writeln!(s, "  morph targets  none");
            return;
        }
        let _ = writeln!(
            s,
            "  morph targets  in {} meshes, {} weight channels",
            meshes.len(),
            m["weight_channels"]
        );
        for mesh in meshes {
            let names: Vec<&str> = mesh["targets"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "    {}: {}",
                mesh["mesh"].as_str().unwrap_or(""),
                names.join(", ")
            );
        }
    }
}
