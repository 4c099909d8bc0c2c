//! `throng inspect`: a human or JSON summary of a `.throng` or glTF file.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args as ClapArgs;
use serde_json::{Value, json};
use throng_bake::Scene;
use throng_core::BakedModel;
use throng_core::limits::TEXELS_PER_MATRIX;
use throng_core::model::TexelFormat;

use crate::inspect_materials::{images_json, materials_json, source_images_json};
use crate::util::{bytes, thousands, write_stdout};
use throng_bake::ModelKind;

/// Arguments of `throng inspect`.
#[derive(ClapArgs)]
pub struct Args {
    /// A `.throng`, `.gltf` or `.glb` file.
    pub file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `throng inspect`.
pub fn run(args: Args) -> Result<()> {
    let value = match ModelKind::of(&args.file)? {
        ModelKind::Throng => {
            let size = std::fs::metadata(&args.file)
                .with_context(|| format!("reading {}", args.file.display()))?
                .len();
            let model = throng_core::format::read_file(&args.file)
                .with_context(|| format!("loading {}", args.file.display()))?;
            let mut value = baked_json(&model, size);
            // Its header, directory and FREF only: read_file checked them.
            value["texture"]["frames_file"] =
                throng_core::format::peek_frames_file(&args.file)?.into();
            value
        }
        ModelKind::Gltf => {
            let imported = throng_bake::import_file(&args.file)
                .with_context(|| format!("importing {}", args.file.display()))?;
            let mut value = gltf_json(&imported.scene, &imported.warnings);
            value["extensions"] = extensions_json(&imported.extensions);
            value
        }
    };
    if args.json {
        write_stdout(&(serde_json::to_string_pretty(&value)? + "\n"))
    } else {
        write_stdout(&text(&value))
    }
}

/// JSON summary of a baked model.
pub fn baked_json(m: &BakedModel, file_bytes: u64) -> Value {
    json!({
        "kind": "throng",
        "name": m.name,
        "source": m.source,
        "file_bytes": file_bytes,
        "fps": m.fps,
        "bake_error_rel": m.bake_error,
        "bounding_radius": m.bounding_radius,
        "bounds": { "min": m.bounds.min.to_array(), "max": m.bounds.max.to_array() },
        "bones": m.bones.iter().enumerate().map(|(i, b)| json!({
            "index": i, "name": b.name, "node": b.node, "parent": b.parent,
        })).collect::<Vec<_>>(),
        "frames": m.frame_count(),
        "clips": m.clips.iter().enumerate().map(|(i, c)| json!({
            "index": i, "name": c.name, "duration": c.duration,
            "first_frame": c.first_frame, "frames": c.frame_count,
            "fps": throng_bake::bake::clip_rate(c.frame_count, c.duration),
            "bytes": c.frame_count as u64 * m.bone_count() as u64 * TEXELS_PER_MATRIX as u64
                * m.texture.texels.format().texel_size() as u64,
            "error_at_frames_rel": c.error.at_frames,
            "error_between_frames_rel": c.error.between_frames,
            "max_error_rel": c.error.max_error,
            "bounds": { "min": c.bounds.min.to_array(), "max": c.bounds.max.to_array() },
        })).collect::<Vec<_>>(),
        "texture": {
            "width": m.texture.width, "layers": m.texture.layers,
            "format": match m.texture.texels.format() { TexelFormat::F32 => "Rgba32Float", TexelFormat::F16 => "Rgba16Float" },
            "texels": m.texture.texels.len(), "bytes": m.texture.texels.as_bytes().len(), "gpu_bytes": m.texture.gpu_bytes(),
        },
        "lods": m.lods.iter().map(|l| json!({
            "screen_size": l.screen_size, "vertices": l.vertices.len(), "triangles": l.indices.len() / 3,
            "submeshes": l.submeshes.iter().map(|s| json!({
                "material": s.material, "source": [s.source_node, s.source_mesh, s.source_primitive],
                "vertices": s.vertex_count, "triangles": s.index_count / 3, "flags": s.flags,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "materials": materials_json(&m.materials),
        "images": images_json(&m.images),
        "morphs": crate::inspect_morphs::baked_morphs_json(m),
        "feet": crate::inspect_feet::baked_feet_json(m),
        "impostor": m.impostor.as_ref().map(|a| json!({
            "views": a.plan.views.side, "frames": a.plan.frames, "cell": a.plan.cell,
            "layer_size": a.plan.layer_size, "layers": a.plan.layers, "codec": a.plan.codec.name(),
            "bytes": a.plan.bytes(),
            "images": if a.plan.surface { ["colour", "normal", "surface"].as_slice() } else { &["colour", "normal"] },
        })),
        "provenance": m.provenance.as_ref().map(|p| json!({
            "inputs_blake3": p.inputs_hex(), "files": p.files, "options": p.options, "baker": p.baker,
        })),
    })
}

/// `["colour", "normal"]` as "colour and normal", and so on.
fn image_list(names: &Value) -> String {
    let names: Vec<&str> = names
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// JSON summary of an imported glTF scene.
pub fn gltf_json(s: &Scene, warnings: &[String]) -> Value {
    json!({
        "kind": "gltf",
        "name": s.name,
        "nodes": s.nodes.len(),
        "skins": s.skins.iter().map(|k| json!({ "name": k.name, "joints": k.joints.len() })).collect::<Vec<_>>(),
        "meshes": s.meshes.iter().map(|m| json!({
            "name": m.name,
            "primitives": m.primitives.iter().map(|p| json!({
                "vertices": p.vertex_count(), "triangles": p.indices.len() / 3,
                "influence_sets": p.influence_sets, "normals": p.normals.is_some(), "uvs": p.uvs.is_some(),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "instances": s.instances.iter().map(|i| json!({ "node": i.node, "mesh": i.mesh, "skin": i.skin })).collect::<Vec<_>>(),
        "clips": s.clips.iter().enumerate().map(|(i, c)| json!({
            "index": i, "name": c.name, "duration": c.duration(), "channels": c.channels.len() + c.weights.len(),
        })).collect::<Vec<_>>(),
        "materials": materials_json(&s.materials),
        "images": source_images_json(&s.images, &s.materials),
        "morphs": crate::inspect_morphs::scene_morphs_json(s),
        "warnings": warnings,
    })
}

/// The extensions a glTF file uses, each with whether it is required and
/// whether the baker read it.
fn extensions_json(uses: &[throng_bake::extensions::ExtensionUse]) -> Value {
    uses.iter()
        .map(|e| json!({ "name": e.name, "required": e.required, "read": e.read }))
        .collect()
}

/// Renders a summary as text.
fn text(v: &Value) -> String {
    let mut s = String::new();
    if v["kind"] == "throng" {
        baked_text(&mut s, v);
    } else {
        gltf_text(&mut s, v);
    }
    s
}

/// The array at `v[k]`, or an empty one.
fn arr(v: &Value, k: &str) -> Vec<Value> {
    v[k].as_array().cloned().unwrap_or_default()
}

/// `x` as a count, 0 where it is none.
fn n(x: &Value) -> u64 {
    x.as_u64().unwrap_or(0)
}

/// The text of a `.throng`'s summary: its data, materials, morphs,
/// impostor and provenance, then its clips.
fn baked_text(s: &mut String, v: &Value) {
    use std::fmt::Write;
    baked_data_lines(s, v);
    crate::inspect_materials::text(s, v);
    crate::inspect_morphs::text(s, v);
    impostor_line(s, &v["impostor"]);
    provenance_line(s, &v["provenance"]);
    let _ = writeln!(
        s,
        "  radius    {:.4}; bake error {:.2e} × radius",
        v["bounding_radius"].as_f64().unwrap_or(0.0),
        v["bake_error_rel"].as_f64().unwrap_or(0.0)
    );
    baked_clip_lines(s, v);
    crate::inspect_feet::text(s, v);
}

/// A `.throng`'s headline (name, source, file size), then its bones,
/// frames, bone texture and a line per LOD.
fn baked_data_lines(s: &mut String, v: &Value) {
    use std::fmt::Write;
    let _ = writeln!(
        s,
        "{} (.throng, baked from {}, {})",
        v["name"].as_str().unwrap_or(""),
        v["source"].as_str().unwrap_or("?"),
        bytes(n(&v["file_bytes"]))
    );
    let _ = writeln!(s, "  bones     {}", arr(v, "bones").len());
    let _ = writeln!(
        s,
        "  frames    {} (clips at least {} fps)",
        thousands(n(&v["frames"])),
        v["fps"]
    );
    let t = &v["texture"];
    let _ = writeln!(
        s,
        "  texture   {}×{}×{} {}, {} texels, {} on the GPU",
        t["width"],
        t["width"],
        t["layers"],
        t["format"].as_str().unwrap_or(""),
        thousands(n(&t["texels"])),
        bytes(n(&t["gpu_bytes"]))
    );
    if let Some(file) = t["frames_file"].as_str() {
        let _ = writeln!(
            s,
            "            in the frames file {file} beside it (shared)"
        );
    }
    for (i, l) in arr(v, "lods").iter().enumerate() {
        let _ = writeln!(
            s,
            "  LOD {i}     {} vertices, {} triangles, {} submeshes",
            thousands(n(&l["vertices"])),
            thousands(n(&l["triangles"])),
            l["submeshes"].as_array().map_or(0, Vec::len)
        );
    }
}

/// The `impostor` line: the atlas's views, frames, cells, layers, codec,
/// bytes and images, or "none".
fn impostor_line(s: &mut String, i: &Value) {
    use std::fmt::Write;
    if i.is_object() {
        let _ = writeln!(
            s,
            "  impostor  {}×{} views, {} frames a clip, {}² texels a cell, {} layers of {}², {}, {} ({})",
            i["views"],
            i["views"],
            i["frames"],
            i["cell"],
            i["layers"],
            i["layer_size"],
            i["codec"].as_str().unwrap_or("?").to_uppercase(),
            bytes(n(&i["bytes"])),
            image_list(&i["images"])
        );
    } else {
        let _ = writeln!(s, "  impostor  none");
    }
}

/// The `provenance` lines: the inputs' count and hash, the baker and its
/// options, or that none was recorded.
fn provenance_line(s: &mut String, p: &Value) {
    use std::fmt::Write;
    if p.is_object() {
        let _ = writeln!(
            s,
            "  provenance  {} input file{}, BLAKE3 {}; {}\n              options {}",
            p["files"],
            if p["files"] == 1 { "" } else { "s" },
            p["inputs_blake3"].as_str().unwrap_or(""),
            p["baker"].as_str().unwrap_or(""),
            p["options"].as_str().unwrap_or("")
        );
    } else {
        let _ = writeln!(
            s,
            "  provenance  none recorded (an older bake: never up to date)"
        );
    }
}

/// The `clips` count and a line per baked clip: its frames, rate, bytes
/// and errors.
fn baked_clip_lines(s: &mut String, v: &Value) {
    use std::fmt::Write;
    let _ = writeln!(s, "  clips     {}", arr(v, "clips").len());
    for c in arr(v, "clips") {
        let f = |k: &str| c[k].as_f64().unwrap_or(0.0);
        let _ = writeln!(
            s,
            "    {:>3}  {:24} {:>8.3} s  {:>5} frames (first {}) at {:.1} fps, {}; error {:.2e} at frames, {:.2e} between (bound {:.1e})",
            c["index"],
            c["name"].as_str().unwrap_or(""),
            f("duration"),
            c["frames"],
            c["first_frame"],
            f("fps"),
            bytes(n(&c["bytes"])),
            f("error_at_frames_rel"),
            f("error_between_frames_rel"),
            f("max_error_rel")
        );
    }
}

/// The text of a glTF's summary: its nodes, skins, meshes, materials,
/// morphs and clips, the extensions it uses and the import's warnings.
fn gltf_text(s: &mut String, v: &Value) {
    use std::fmt::Write;
    let _ = writeln!(s, "{} (glTF)", v["name"].as_str().unwrap_or(""));
    let _ = writeln!(s, "  nodes     {}", v["nodes"]);
    let _ = writeln!(
        s,
        "  skins     {} ({} joints in all)",
        arr(v, "skins").len(),
        arr(v, "skins").iter().map(|k| n(&k["joints"])).sum::<u64>()
    );
    let _ = writeln!(
        s,
        "  meshes    {} drawn by {} nodes",
        arr(v, "meshes").len(),
        arr(v, "instances").len()
    );
    crate::inspect_materials::text(s, v);
    crate::inspect_morphs::text(s, v);
    let _ = writeln!(s, "  clips     {}", arr(v, "clips").len());
    for c in arr(v, "clips") {
        let _ = writeln!(
            s,
            "    {:>3}  {:24} {:>8.3} s  {:>4} channels",
            c["index"],
            c["name"].as_str().unwrap_or(""),
            c["duration"].as_f64().unwrap_or(0.0),
            c["channels"]
        );
    }
    extension_lines(s, v);
    for w in arr(v, "warnings") {
        let _ = writeln!(s, "  warning: {}", w.as_str().unwrap_or(""));
    }
}

/// The `extensions` heading, where the glTF uses any, and a line per
/// extension: required or only used, read by the baker or not.
fn extension_lines(s: &mut String, v: &Value) {
    use std::fmt::Write;
    let extensions = arr(v, "extensions");
    if !extensions.is_empty() {
        let _ = writeln!(s, "  extensions");
    }
    for e in extensions {
        let _ = writeln!(
            s,
            "    {:36} {:9} {}",
            e["name"].as_str().unwrap_or(""),
            if e["required"] == true {
                "required"
            } else {
                "used"
            },
            if e["read"] == true {
                "read"
            } else {
                "not read"
            }
        );
    }
}
