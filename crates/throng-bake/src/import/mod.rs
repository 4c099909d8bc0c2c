//! glTF 2.0 (`.gltf` with embedded or external buffers, `.glb`) → [`Scene`].
//!
//! What is kept: the node hierarchy of the whole file, the skins, the meshes
//! (triangles, triangle strips and fans as triangle lists), the node→mesh
//! instances reachable from the default scene, translation/rotation/scale
//! and morph-weight animation channels, morph targets (position and normal
//! offsets, target names from `extras.targetNames`, default weights from the
//! mesh and the node), and materials with their encoded images.
//! What is dropped, with a warning: point and line primitives, morph
//! targets' tangent offsets, cameras, lights.
//!
//! Every object is reached through `gltf_doc::Doc`, whose lookups
//! check each index and required field (the `gltf` crate's wrappers
//! `unwrap` them), and every accessor is read through the `accessor` module,
//! which checks it against its buffer; errors carry the glTF JSON path of
//! the offending property.
//! External buffers and images are read through the `uri` module: inside the
//! model's folder only (unless [`ImportOptions::allow_outside_uris`]), regular
//! files only, and never more bytes than a buffer's `byteLength` or
//! [`MAX_IMAGE_BYTES`](throng_core::limits::MAX_IMAGE_BYTES) for an image.

use std::collections::BTreeMap;
use std::path::Path;

use crate::scene::{Mesh, MeshInstance, Primitive, Scene};
use glam::Vec3;
use throng_core::limits::{MAX_CLIPS, MAX_FILE_SIZE};

use crate::accessor::Buffers;
use crate::error::ImportError;
use crate::gltf_doc::Doc;
use crate::uri::{Longer, UriError, UriReader, shown_uri};

mod anim;
mod image_bytes;
mod material;
mod mesh;
mod nodes;

use mesh::sanitize_joints;

/// How an import treats the files a glTF names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// Read buffer and image URIs that leave the model's folder: absolute
    /// paths, `file:` URIs, `..` segments and symbolic links that point
    /// elsewhere. Off by default: a model is untrusted input and must not
    /// make the baker read (and embed) other files. Only regular files are
    /// read either way.
    pub allow_outside_uris: bool,
}

/// An imported scene and what the importer had to say about it.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The scene, validated.
    pub scene: Scene,
    /// Warnings: what was dropped or repaired, with counts.
    pub warnings: Vec<String>,
    /// The glTF extensions the file uses, and whether the baker read each.
    pub extensions: Vec<crate::extensions::ExtensionUse>,
}

/// Collects warnings, merging repeats of the same message into one with a count.
#[derive(Default)]
struct Warnings(BTreeMap<String, usize>, Vec<String>);

impl Warnings {
    fn add(&mut self, msg: impl Into<String>) {
        let msg = msg.into();
        let n = self.0.entry(msg.clone()).or_insert(0);
        if *n == 0 {
            self.1.push(msg);
        }
        *n += 1;
    }

    fn finish(self) -> Vec<String> {
        self.1
            .into_iter()
            .map(|m| match self.0[&m] {
                1 => m,
                n => format!("{m} (×{n})"),
            })
            .collect()
    }
}

/// Imports a `.gltf` or `.glb` file. External buffers and images are resolved
/// relative to the file and must lie inside its folder
/// ([`ImportOptions::default`]).
pub fn import_file(path: &Path) -> Result<Imported, ImportError> {
    import_file_with(path, &ImportOptions::default())
}

/// [`import_file`] with options.
pub fn import_file_with(path: &Path, opts: &ImportOptions) -> Result<Imported, ImportError> {
    let bytes = throng_core::input_file::read(path, MAX_FILE_SIZE)?;
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    import_slice_with(&bytes, path.parent(), name, opts).map_err(|e| match e {
        ImportError::Gltf { source, .. } => ImportError::Gltf {
            path: path.display().to_string(),
            source,
        },
        e => e,
    })
}

/// Imports glTF or GLB bytes. `base_dir` resolves relative URIs (which must
/// stay inside it); without it only embedded data can be used.
pub fn import_slice(
    bytes: &[u8],
    base_dir: Option<&Path>,
    name: &str,
) -> Result<Imported, ImportError> {
    import_slice_with(bytes, base_dir, name, &ImportOptions::default())
}

/// [`import_slice`] with options.
pub fn import_slice_with(
    bytes: &[u8],
    base_dir: Option<&Path>,
    name: &str,
    opts: &ImportOptions,
) -> Result<Imported, ImportError> {
    let gltf_error = |source| ImportError::Gltf {
        path: name.to_owned(),
        source,
    };
    check_glb_header(bytes).map_err(gltf_error)?;
    let gltf::Gltf { document, blob } =
        gltf::Gltf::from_slice_without_validation(bytes).map_err(gltf_error)?;
    let root = document.into_json();
    let mut w = Warnings::default();
    crate::extensions::check(&root.extensions_required, &root.extensions_used, &mut |m| {
        w.add(m)
    })?;
    check_position_indices(&root)?;
    validate_json(&root).map_err(gltf_error)?;
    let doc = Doc::new(&root);
    let animations = root.animations.len();
    if animations > MAX_CLIPS as usize {
        return Err(ImportError::Unsupported {
            path: "animations".into(),
            msg: format!(
                "{animations} animations, more than the {MAX_CLIPS} clips a model can hold"
            ),
        });
    }
    let uris = UriReader::new(base_dir, opts.allow_outside_uris);
    let buffers = load_buffers(&root, blob, &uris)?;
    let ctx = Ctx { doc, buffers, uris };
    let scene = ctx.build(name, &mut w)?;
    scene.validate()?;
    Ok(Imported {
        scene,
        warnings: w.finish(),
        extensions: crate::extensions::uses(&root.extensions_used, &root.extensions_required),
    })
}

/// Rejects a GLB header whose total length is below the 12-byte header
/// itself: gltf 1.4's GLB reader subtracts the header size from it unchecked
/// (an overflow panic in debug builds).
fn check_glb_header(bytes: &[u8]) -> Result<(), gltf::Error> {
    const HEADER: usize = 12;
    if bytes.len() >= HEADER && bytes.starts_with(b"glTF") {
        let length = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
        if (length as usize) < HEADER {
            return Err(gltf::Error::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "the GLB header declares a total length of {length} bytes, less than the {HEADER}-byte header itself"
                ),
            )));
        }
    }
    Ok(())
}

/// Checks every primitive's POSITION accessor index: gltf-json 1.4's
/// validation indexes that accessor without a bounds check (a panic on an
/// out-of-range index), so this must run before [`validate_json`].
fn check_position_indices(root: &gltf::json::Root) -> Result<(), ImportError> {
    use gltf::json::validation::Checked;
    let position = Checked::Valid(gltf::Semantic::Positions);
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            if let Some(index) = prim.attributes.get(&position)
                && index.value() >= root.accessors.len()
            {
                return Err(ImportError::Accessor {
                    path: format!("meshes[{m}].primitives[{p}].attributes.POSITION"),
                    msg: format!(
                        "accessor index {} is out of range (the file has {} accessors)",
                        index.value(),
                        root.accessors.len()
                    ),
                });
            }
        }
    }
    Ok(())
}

/// glTF schema validation (what `gltf::Gltf::from_slice` does after parsing),
/// reporting every error with its JSON path.
fn validate_json(root: &gltf::json::Root) -> Result<(), gltf::Error> {
    use gltf::json::Path;
    use gltf::json::validation::Validate;
    let mut errors = Vec::new();
    let mut report = |path: &dyn Fn() -> Path, error| errors.push((path(), error));
    root.validate(root, Path::new, &mut report);
    // gltf-json 1.4's animation validation skips the channel targets; an
    // out-of-range node or unknown path would then panic in
    // `Target::node`/`Target::property`. Validate them here.
    for (a, anim) in root.animations.iter().enumerate() {
        for (c, ch) in anim.channels.iter().enumerate() {
            let path = || {
                Path::new()
                    .field("animations")
                    .index(a)
                    .field("channels")
                    .index(c)
                    .field("target")
            };
            ch.target.validate(root, path, &mut report);
        }
    }
    // gltf-json 1.4 also demands a bufferView of every accessor without
    // sparse data, but glTF 2.0 (§5.1.1) allows none: the elements are then
    // zeros. `crate::accessor` reads such accessors.
    errors.retain(|(path, error)| {
        !(matches!(error, gltf::json::validation::Error::Missing)
            && path
                .as_str()
                .strip_prefix("accessors[")
                .and_then(|rest| rest.strip_suffix("].bufferView"))
                .is_some_and(|i| i.parse::<usize>().is_ok()))
    });
    // A broken texture — an image, texture or sampler object, or a
    // material's reference to a texture — drops that texture with a warning
    // (`material.rs`, through `crate::gltf_doc`'s checked lookups), as an
    // image that does not decode does: it does not make the model unbakeable.
    errors.retain(|(path, _)| !in_a_texture(path.as_str()));
    // gltf-json knows only the extensions it parses; those the baker reads
    // itself (`crate::extensions`, checked before this) are not errors.
    errors.retain(|(path, _)| {
        let required = path.as_str().strip_prefix("extensionsRequired[");
        !required.is_some_and(|rest| {
            rest.split_once(']').is_some_and(|(i, _)| {
                i.parse::<usize>()
                    .ok()
                    .and_then(|i| root.extensions_required.get(i))
                    .is_some_and(|e| crate::extensions::is_read(e))
            })
        })
    });
    if errors.is_empty() {
        Ok(())
    } else {
        Err(gltf::Error::Validation(errors))
    }
}

/// Whether a validation error's JSON path lies in what only a texture
/// reads: `images[…]`, `textures[…]`, `samplers[…]`, or a material's
/// `…Texture.index`.
fn in_a_texture(path: &str) -> bool {
    ["images[", "textures[", "samplers["]
        .iter()
        .any(|p| path.starts_with(p))
        || (path.starts_with("materials[") && path.ends_with("Texture.index"))
}

/// Loads every buffer, each cut to its declared `byteLength` (glTF allows a
/// longer file or chunk, e.g. padding; a shorter one is an error).
fn load_buffers(
    root: &gltf::json::Root,
    blob: Option<Vec<u8>>,
    uris: &UriReader,
) -> Result<Buffers, ImportError> {
    let mut out = Vec::new();
    for (index, buffer) in root.buffers.iter().enumerate() {
        let length = crate::gltf_doc::to_usize(buffer.byte_length.0);
        if buffer.uri.is_none() && crate::meshopt_views::is_fallback(buffer) {
            // No data of its own: only compressed views name it, and they
            // are read from their decoded bytes.
            out.push(Vec::new());
            continue;
        }
        let mut data = match &buffer.uri {
            None => blob.clone().ok_or_else(|| ImportError::Buffer {
                index,
                msg: "refers to the GLB binary chunk, but the file has none".into(),
            })?,
            Some(uri) => {
                let uri_error = |msg| ImportError::Uri {
                    path: format!("buffers[{index}].uri"),
                    uri: shown_uri(uri),
                    msg,
                };
                uris.read(uri, buffer.byte_length.0, Longer::Truncate)
                    .map_err(|e| {
                        uri_error(match e {
                            UriError::Refused(msg) | UriError::Unreadable(msg) => msg,
                            UriError::TooLong { len, limit } => {
                                format!("is {len} bytes, more than {limit}")
                            }
                        })
                    })?
            }
        };
        if data.len() < length {
            return Err(ImportError::Buffer {
                index,
                msg: format!(
                    "has {} bytes but declares byteLength {}",
                    data.len(),
                    buffer.byte_length.0
                ),
            });
        }
        data.truncate(length);
        out.push(data);
    }
    let decoded = crate::meshopt_views::decode_views(root, &out)?;
    let mut buffers = Buffers::new(out, decoded);
    let doc = Doc::new(root);
    let draco = crate::draco_primitives::decode_primitives(root, &|view, path| {
        let view = doc.view(view, path)?;
        Ok(buffers.view(&view, path)?.to_vec())
    })?;
    buffers.set_draco(draco);
    Ok(buffers)
}

struct Ctx<'a> {
    doc: Doc<'a>,
    buffers: Buffers,
    uris: UriReader<'a>,
}

impl Ctx<'_> {
    fn build(&self, name: &str, w: &mut Warnings) -> Result<Scene, ImportError> {
        let nodes = self.nodes()?;
        let reachable = self.reachable(&nodes)?;
        let skins = self.skins()?;
        let (materials, images) = self.materials(w)?;
        let mut meshes = Vec::new();
        for (m, mesh) in self.doc.json().meshes.iter().enumerate() {
            let mut primitives = Vec::new();
            for p in 0..mesh.primitives.len() {
                if let Some(prim) = self.primitive(m, p, w)? {
                    primitives.push(prim);
                }
            }
            let (target_names, weights) = mesh_targets(m, mesh, &primitives, w);
            meshes.push(Mesh {
                name: mesh.name.clone().unwrap_or_else(|| format!("mesh{m}")),
                primitives,
                target_names,
                weights,
            });
        }
        let mut instances = Vec::new();
        for (n, &reached) in reachable.iter().enumerate() {
            let (Some(mesh), skin) = self.doc.node_mesh(n)? else {
                continue;
            };
            if !reached {
                continue;
            }
            let mut skin = skin.map(|s| s as u32);
            let prims = &meshes[mesh].primitives;
            if skin.is_some() && prims.iter().any(|p| p.influence_sets == 0) {
                w.add(format!(
                    "nodes[{n}] has a skin but meshes[{mesh}] lacks JOINTS_0/WEIGHTS_0: drawn rigidly"
                ));
                skin = None;
            }
            if let Some(s) = skin {
                let joint_count = skins[s as usize].joints.len();
                sanitize_joints(&mut meshes[mesh], n, mesh, joint_count, w)?;
            }
            instances.push(MeshInstance {
                node: n as u32,
                mesh: mesh as u32,
                skin,
            });
        }
        let (clips, events) = self.clips(w)?;
        Ok(Scene {
            name: name.to_owned(),
            nodes,
            skins,
            meshes,
            instances,
            clips,
            materials,
            images,
            events,
        })
    }
}

/// A mesh's target names (`extras.targetNames` where it lists one per
/// target, else `target{i}`) and default weights (zeros where absent), for
/// the target count of its first primitive: a primitive with another count
/// fails the scene's rule 6 with both counts.
fn mesh_targets(
    m: usize,
    mesh: &gltf::json::Mesh,
    prims: &[Primitive],
    w: &mut Warnings,
) -> (Vec<String>, Vec<f32>) {
    let n = prims.first().map_or(0, |p| p.targets.len());
    let listed: Option<Vec<String>> = mesh
        .extras
        .as_ref()
        .and_then(|raw| serde_json::from_str::<serde_json::Value>(raw.get()).ok())
        .and_then(|v| {
            v.get("targetNames")?
                .as_array()?
                .iter()
                .map(|x| x.as_str().map(str::to_owned))
                .collect()
        });
    let names = match listed {
        Some(names) if names.len() == n => names,
        Some(names) => {
            w.add(format!(
                "meshes[{m}].extras.targetNames lists {} names for {n} targets; numbered instead",
                names.len()
            ));
            (0..n).map(|i| format!("target{i}")).collect()
        }
        None => (0..n).map(|i| format!("target{i}")).collect(),
    };
    let weights = mesh.weights.clone().unwrap_or_else(|| vec![0.0; n]);
    (names, weights)
}

fn to_vec3(v: &[f32]) -> Vec<Vec3> {
    v.chunks_exact(3).map(Vec3::from_slice).collect()
}

fn bad_value(path: String, msg: &str) -> ImportError {
    ImportError::Accessor {
        path,
        msg: msg.to_owned(),
    }
}
