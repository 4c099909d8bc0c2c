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
            let plan = Plan::of(root, prim, ext, &path)?;
            budget = budget.saturating_add(plan.bytes());
            if budget > MAX_DECODED_VIEW_BYTES {
                return Err(broken(
                    &path,
                    format!(
                        "the compressed primitives decode to more than {MAX_DECODED_VIEW_BYTES} bytes together"
                    ),
                ));
            }
            let stream = view_bytes(plan.view, &|| format!("{path}.bufferView"))?;
            let mesh = decode(&stream).map_err(|e| {
                broken(
                    &path,
                    format!(
                        "the {}-byte Draco stream does not decode ({e})",
                        stream.len()
                    ),
                )
            })?;
            plan.take(&mesh, &path, &mut out)?;
        }
    }
    Ok(out)
}

fn broken(path: &str, rule: String) -> ImportError {
    ImportError::BrokenRule {
        path: path.to_owned(),
        rule,
    }
}

/// A compressed attribute: its semantic, accessor, Draco id, and the
/// accessor's count and components per element.
struct Target {
    semantic: String,
    accessor: usize,
    id: u32,
    count: usize,
    components: usize,
}

/// What one compressed primitive's stream must give: its view, its
/// attributes' accessors, and its indices' accessor with its count.
struct Plan {
    view: usize,
    targets: Vec<Target>,
    indices: Option<(usize, usize)>,
}

impl Plan {
    /// The primitive `prim`'s extension object `ext`, checked against the
    /// primitive's accessors.
    fn of(
        root: &json::Root,
        prim: &json::mesh::Primitive,
        ext: &Value,
        path: &str,
    ) -> Result<Self, ImportError> {
        let view = ext
            .get("bufferView")
            .and_then(Value::as_u64)
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| broken(path, "bufferView is missing or not an index".into()))?;
        let ids = ext
            .get("attributes")
            .and_then(Value::as_object)
            .ok_or_else(|| broken(path, "attributes is missing".into()))?;
        let mut targets = Vec::new();
        for (semantic, id) in ids {
            let id = id
                .as_u64()
                .and_then(|i| u32::try_from(i).ok())
                .ok_or_else(|| broken(path, format!("attributes.{semantic} is not an id")))?;
            let accessor = prim
                .attributes
                .iter()
                .find(|(s, _)| semantic_name(s) == *semantic)
                .map(|(_, a)| a.value())
                .ok_or_else(|| {
                    broken(
                        path,
                        format!("attributes.{semantic} names no attribute of the primitive"),
                    )
                })?;
            let (count, components) = accessor_shape(root, accessor).ok_or_else(|| {
                broken(path, format!("attributes.{semantic}'s accessor is missing"))
            })?;
            targets.push(Target {
                semantic: semantic.clone(),
                accessor,
                id,
                count,
                components,
            });
        }
        let indices = match prim.indices {
            Some(i) => {
                let (count, _) = accessor_shape(root, i.value())
                    .ok_or_else(|| broken(path, "the indices' accessor is missing".into()))?;
                Some((i.value(), count))
            }
            None => None,
        };
        Ok(Self {
            view,
            targets,
            indices,
        })
    }

    /// Bytes the decoded values take, at 4 a component.
    fn bytes(&self) -> usize {
        self.targets
            .iter()
            .map(|t| t.count.saturating_mul(t.components))
            .chain(self.indices.map(|(_, n)| n))
            .fold(0usize, usize::saturating_add)
            .saturating_mul(4)
    }

    /// The decoded `mesh`'s values for every accessor of the plan, checked
    /// against their counts, into `out`.
    fn take(
        self,
        mesh: &Mesh,
        path: &str,
        out: &mut HashMap<usize, Vec<f64>>,
    ) -> Result<(), ImportError> {
        for t in self.targets {
            let (semantic, accessor, id) = (&t.semantic, t.accessor, t.id);
            let attribute = mesh.attribute_by_unique_id(id).ok_or_else(|| {
                broken(
                    path,
                    format!("the stream has no attribute {id} ({semantic})"),
                )
            })?;
            if mesh.num_points() != t.count {
                return Err(broken(
                    path,
                    format!(
                        "the stream decodes to {} vertices; accessors[{accessor}] ({semantic}) has {}",
                        mesh.num_points(),
                        t.count
                    ),
                ));
            }
            if (attribute.num_components() as usize) < t.components {
                return Err(broken(
                    path,
                    format!(
                        "attribute {id} ({semantic}) has {} components; accessors[{accessor}] has {}",
                        attribute.num_components(),
                        t.components
                    ),
                ));
            }
            let values = attribute.read_f32s(t.count, t.components);
            out.insert(accessor, values.into_iter().map(f64::from).collect());
        }
        if let Some((accessor, count)) = self.indices {
            if mesh.num_faces().checked_mul(3) != Some(count) {
                return Err(broken(
                    path,
                    format!(
                        "the stream decodes to {} triangles; accessors[{accessor}] (indices) has {count} indices",
                        mesh.num_faces()
                    ),
                ));
            }
            let flat = (0..mesh.num_faces())
                .flat_map(|f| mesh.face(FaceIndex(f as u32)))
                .map(|p: PointIndex| f64::from(p.0))
                .collect();
            out.insert(accessor, flat);
        }
        Ok(())
    }
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
