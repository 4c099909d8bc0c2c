//! Primitives compressed with Draco (`KHR_draco_mesh_compression`),
//! decoded at import by `draco-core`, a pure-Rust decoder of Google's
//! bitstream (docs/GLTF.md, "Draco"). A compressed primitive's extension
//! names a buffer view holding the stream and, per attribute semantic, the
//! Draco attribute's unique id; the primitive's accessors (which have no
//! buffer view of their own) keep their count, type and normalization, and
//! their values are the decoded attribute's — the indices accessor's the
//! decoded triangles'. Skinned primitives' `JOINTS_0` and `WEIGHTS_0` are
//! generic attributes found by their ids like any other.
//!
//! The stream is untrusted: the decoded values are held against every
//! accessor's count before they stand in for it, the whole file's decoded
//! components against a budget checked from the accessors' counts before
//! anything is decoded ([`MAX_DECODED_VIEW_BYTES`], 4 bytes a component),
//! and a decoder that fails or panics is an error naming the primitive.

use std::collections::HashMap;

use draco_core::decoder_buffer::DecoderBuffer;
use draco_core::geometry_indices::{FaceIndex, PointIndex};
use draco_core::mesh::Mesh;
use draco_core::mesh_decoder::MeshDecoder;
use gltf::json;
use serde_json::Value;
use throng_core::limits::MAX_DECODED_VIEW_BYTES;

use crate::error::ImportError;

/// The extension's name.
const NAME: &str = "KHR_draco_mesh_compression";

/// A buffer view's bytes by index (checked), its referrer's path given
/// for the error.
pub(crate) type ViewBytes<'a> =
    &'a dyn Fn(usize, &dyn Fn() -> String) -> Result<Vec<u8>, ImportError>;

/// Decoded accessor values, raw (not normalized), element-major, by
/// accessor index: they stand in for the accessors of compressed
/// primitives.
pub(crate) fn decode_primitives(
    root: &json::Root,
    view_bytes: ViewBytes<'_>,
) -> Result<HashMap<usize, Vec<f64>>, ImportError> {
    let mut out = HashMap::new();
    let mut budget = 0usize;
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let Some(ext) = prim.extensions.as_ref().and_then(|e| e.others.get(NAME)) else {
                continue;
            };
            let path = format!("meshes[{m}].primitives[{p}].extensions.{NAME}");
            let broken = |rule: String| ImportError::BrokenRule {
                path: path.clone(),
                rule,
            };
            let view = ext
                .get("bufferView")
                .and_then(Value::as_u64)
                .and_then(|v| usize::try_from(v).ok())
                .ok_or_else(|| broken("bufferView is missing or not an index".into()))?;
            let ids = ext
                .get("attributes")
                .and_then(Value::as_object)
                .ok_or_else(|| broken("attributes is missing".into()))?;
            // Every compressed attribute's accessor, with its Draco id.
            let mut targets: Vec<(String, usize, u32, usize, usize)> = Vec::new();
            for (semantic, id) in ids {
                let id = id
                    .as_u64()
                    .and_then(|i| u32::try_from(i).ok())
                    .ok_or_else(|| broken(format!("attributes.{semantic} is not an id")))?;
                let accessor = prim
                    .attributes
                    .iter()
                    .find(|(s, _)| semantic_name(s) == *semantic)
                    .map(|(_, a)| a.value())
                    .ok_or_else(|| {
                        broken(format!(
                            "attributes.{semantic} names no attribute of the primitive"
                        ))
                    })?;
                let (count, components) = accessor_shape(root, accessor).ok_or_else(|| {
                    broken(format!("attributes.{semantic}'s accessor is missing"))
                })?;
                targets.push((semantic.clone(), accessor, id, count, components));
            }
            let indices = match prim.indices {
                Some(i) => Some((
                    i.value(),
                    accessor_shape(root, i.value())
                        .ok_or_else(|| broken("the indices' accessor is missing".into()))?
                        .0,
                )),
                None => None,
            };
            let components: usize = targets
                .iter()
                .map(|t| t.3.saturating_mul(t.4))
                .chain(indices.map(|(_, n)| n))
                .fold(0usize, usize::saturating_add);
            budget = budget.saturating_add(components.saturating_mul(4));
            if budget > MAX_DECODED_VIEW_BYTES {
                return Err(broken(format!(
                    "the compressed primitives decode to more than {MAX_DECODED_VIEW_BYTES} bytes together"
                )));
            }
            let stream = view_bytes(view, &|| format!("{path}.bufferView"))?;
            let mesh = decode(&stream).map_err(|e| {
                broken(format!(
                    "the {}-byte Draco stream does not decode ({e})",
                    stream.len()
                ))
            })?;
            for (semantic, accessor, id, count, components) in targets {
                let attribute = mesh.attribute_by_unique_id(id).ok_or_else(|| {
                    broken(format!("the stream has no attribute {id} ({semantic})"))
                })?;
                if mesh.num_points() != count {
                    return Err(broken(format!(
                        "the stream decodes to {} vertices; accessors[{accessor}] ({semantic}) has {count}",
                        mesh.num_points()
                    )));
                }
                if (attribute.num_components() as usize) < components {
                    return Err(broken(format!(
                        "attribute {id} ({semantic}) has {} components; accessors[{accessor}] has {components}",
                        attribute.num_components()
                    )));
                }
                let values = attribute.read_f32s(count, components);
                out.insert(accessor, values.into_iter().map(f64::from).collect());
            }
            if let Some((accessor, count)) = indices {
                if mesh.num_faces().checked_mul(3) != Some(count) {
                    return Err(broken(format!(
                        "the stream decodes to {} triangles; accessors[{accessor}] (indices) has {count} indices",
                        mesh.num_faces()
                    )));
                }
                let mut flat = Vec::with_capacity(count);
                for f in 0..mesh.num_faces() {
                    let face = mesh.face(FaceIndex(f as u32));
                    flat.extend(face.iter().map(|p: &PointIndex| f64::from(p.0)));
                }
                out.insert(accessor, flat);
            }
        }
    }
    Ok(out)
}

/// Decodes a Draco mesh stream; a panic in the decoder is an error too.
fn decode(stream: &[u8]) -> Result<Mesh, String> {
    std::panic::catch_unwind(|| {
        let mut buffer = DecoderBuffer::new(stream);
        let mut mesh = Mesh::new();
        MeshDecoder::new()
            .decode(&mut buffer, &mut mesh)
            .map(|()| mesh)
            .map_err(|e| e.to_string())
    })
    .unwrap_or_else(|_| Err("the decoder failed on it".into()))
}

/// An accessor's element count and components per element.
fn accessor_shape(root: &json::Root, index: usize) -> Option<(usize, usize)> {
    let a = root.accessors.get(index)?;
    let dims = match &a.type_ {
        json::validation::Checked::Valid(t) => t.multiplicity(),
        json::validation::Checked::Invalid => return None,
    };
    Some((usize::try_from(a.count.0).ok()?, dims))
}

/// A semantic as glTF spells it (`POSITION`, `TEXCOORD_0`, `JOINTS_0`…).
fn semantic_name(s: &json::validation::Checked<json::mesh::Semantic>) -> String {
    match s {
        json::validation::Checked::Valid(s) => s.to_string(),
        json::validation::Checked::Invalid => String::new(),
    }
}
