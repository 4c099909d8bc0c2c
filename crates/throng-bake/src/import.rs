//! glTF 2.0 (`.gltf` with embedded or external buffers, `.glb`) → [`Scene`].
//!
//! What is kept: the node hierarchy of the whole file, the skins, the meshes
//! (triangles, triangle strips and fans as triangle lists), the node→mesh
//! instances reachable from the default scene, translation/rotation/scale
//! animation channels, and base-colour materials with their encoded images.
//! What is dropped, with a warning: point and line primitives, morph targets
//! and weight channels, cameras, lights, textures other than base colour.
//!
//! Every accessor is read through the `accessor` module, which checks it against
//! its buffer; errors carry the glTF JSON path of the offending property.
//! External buffers and images are read through the `uri` module: inside the
//! model's folder only (unless [`ImportOptions::allow_outside_uris`]), regular
//! files only, and never more bytes than a buffer's `byteLength` or
//! [`MAX_IMAGE_BYTES`] for an image.

use std::collections::BTreeMap;
use std::path::Path;

use crate::scene::{
    AlphaMode, Channel, Clip, Image, Interpolation, LocalTransform, Material, Mesh, MeshInstance,
    Primitive, Property, Scene, SceneNode, Skin, TextureWrap,
};
use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use gltf::accessor::{DataType, Dimensions};
use throng_core::limits::{MAX_CLIPS, MAX_IMAGE_BYTES};
use throng_core::math::Trs;
use throng_core::model::ClipEvent;

use crate::accessor::{
    Buffers, Expect, FLOAT_ONLY, FLOAT_OR_NORM, FLOAT_OR_UNORM, SMALL_UINTS, UINTS,
};
use crate::error::ImportError;
use crate::uri::{Longer, UriError, UriReader, shown_uri};

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
    let bytes = std::fs::read(path).map_err(|source| ImportError::Io {
        path: path.display().to_string(),
        source,
    })?;
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
    let gltf = gltf::Gltf::from_slice_without_validation(bytes).map_err(gltf_error)?;
    check_position_indices(gltf.document.as_json())?;
    validate_json(&gltf.document).map_err(gltf_error)?;
    let animations = gltf.document.animations().len();
    if animations > MAX_CLIPS as usize {
        return Err(ImportError::Unsupported {
            path: "animations".into(),
            msg: format!(
                "{animations} animations, more than the {MAX_CLIPS} clips a model can hold"
            ),
        });
    }
    let mut w = Warnings::default();
    let uris = UriReader::new(base_dir, opts.allow_outside_uris);
    let buffers = load_buffers(&gltf, &uris)?;
    let ctx = Ctx {
        doc: &gltf.document,
        buffers,
        uris,
    };
    let scene = ctx.build(name, &mut w)?;
    scene.validate()?;
    Ok(Imported {
        scene,
        warnings: w.finish(),
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
fn validate_json(doc: &gltf::Document) -> Result<(), gltf::Error> {
    use gltf::json::Path;
    use gltf::json::validation::Validate;
    let root = doc.as_json();
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
    if errors.is_empty() {
        Ok(())
    } else {
        Err(gltf::Error::Validation(errors))
    }
}

/// Loads every buffer, each cut to its declared `byteLength` (glTF allows a
/// longer file or chunk, e.g. padding; a shorter one is an error).
fn load_buffers(gltf: &gltf::Gltf, uris: &UriReader) -> Result<Buffers, ImportError> {
    let mut out = Vec::new();
    for buffer in gltf.document.buffers() {
        let index = buffer.index();
        let mut data = match buffer.source() {
            gltf::buffer::Source::Bin => gltf.blob.clone().ok_or_else(|| ImportError::Buffer {
                index,
                msg: "refers to the GLB binary chunk, but the file has none".into(),
            })?,
            gltf::buffer::Source::Uri(uri) => {
                let uri_error = |msg| ImportError::Uri {
                    path: format!("buffers[{index}].uri"),
                    uri: shown_uri(uri),
                    msg,
                };
                uris.read(uri, buffer.length() as u64, Longer::Truncate)
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
        if data.len() < buffer.length() {
            return Err(ImportError::Buffer {
                index,
                msg: format!(
                    "has {} bytes but declares byteLength {}",
                    data.len(),
                    buffer.length()
                ),
            });
        }
        data.truncate(buffer.length());
        out.push(data);
    }
    Ok(Buffers::new(out))
}

struct Ctx<'a> {
    doc: &'a gltf::Document,
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
        for mesh in self.doc.meshes() {
            let mut primitives = Vec::new();
            for prim in mesh.primitives() {
                if let Some(p) = self.primitive(mesh.index(), &prim, w)? {
                    primitives.push(p);
                }
            }
            meshes.push(Mesh {
                name: mesh
                    .name()
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("mesh{}", mesh.index())),
                primitives,
            });
        }
        let mut instances = Vec::new();
        for node in self.doc.nodes() {
            let Some(mesh) = node.mesh() else { continue };
            if !reachable[node.index()] {
                continue;
            }
            let mut skin = node.skin().map(|s| s.index() as u32);
            let prims = &meshes[mesh.index()].primitives;
            if skin.is_some() && prims.iter().any(|p| p.influence_sets == 0) {
                w.add(format!(
                    "nodes[{}] has a skin but meshes[{}] lacks JOINTS_0/WEIGHTS_0: drawn rigidly",
                    node.index(),
                    mesh.index()
                ));
                skin = None;
            }
            if let Some(s) = skin {
                let joint_count = skins[s as usize].joints.len();
                sanitize_joints(
                    &mut meshes[mesh.index()],
                    node.index(),
                    mesh.index(),
                    joint_count,
                    w,
                )?;
            }
            instances.push(MeshInstance {
                node: node.index() as u32,
                mesh: mesh.index() as u32,
                skin,
            });
        }
        if self.doc.nodes().any(|n| n.weights().is_some())
            || self.doc.meshes().any(|m| m.weights().is_some())
        {
            w.add("morph target weights are ignored");
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

    fn nodes(&self) -> Result<Vec<SceneNode>, ImportError> {
        let mut out: Vec<SceneNode> = Vec::new();
        for node in self.doc.nodes() {
            let i = node.index();
            let rest = match node.transform() {
                gltf::scene::Transform::Matrix { matrix } => {
                    let m = Mat4::from_cols_array_2d(&matrix);
                    if !m.is_finite() {
                        return Err(bad_value(format!("nodes[{i}].matrix"), "is not finite"));
                    }
                    LocalTransform::Matrix(m)
                }
                gltf::scene::Transform::Decomposed {
                    translation,
                    rotation,
                    scale,
                } => {
                    let q = Vec4::from_array(rotation);
                    let (t, s) = (Vec3::from_array(translation), Vec3::from_array(scale));
                    if !q.is_finite() || !t.is_finite() || !s.is_finite() {
                        return Err(bad_value(
                            format!("nodes[{i}]"),
                            "translation, rotation or scale is not finite",
                        ));
                    }
                    if q.length() < 1e-6 {
                        return Err(bad_value(
                            format!("nodes[{i}].rotation"),
                            "is a zero quaternion",
                        ));
                    }
                    LocalTransform::Trs(Trs {
                        translation: t,
                        rotation: Quat::from_vec4(q.normalize()),
                        scale: s,
                    })
                }
            };
            out.push(SceneNode {
                name: node
                    .name()
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("node{i}")),
                parent: None,
                rest,
            });
        }
        for node in self.doc.nodes() {
            for child in node.children() {
                let c = child.index();
                if out[c].parent.is_some() || c == node.index() {
                    return Err(ImportError::Unsupported {
                        path: format!("nodes[{}].children", node.index()),
                        msg: format!(
                            "node {c} has more than one parent (or is its own child); the hierarchy must be a forest"
                        ),
                    });
                }
                out[c].parent = Some(node.index() as u32);
            }
        }
        check_acyclic(&out)?;
        Ok(out)
    }

    /// Nodes reachable from the default scene (or the first scene; or every
    /// root when the file has no scene).
    fn reachable(&self, nodes: &[SceneNode]) -> Result<Vec<bool>, ImportError> {
        let scene = self
            .doc
            .default_scene()
            .or_else(|| self.doc.scenes().next());
        let roots: Vec<usize> = match &scene {
            Some(s) => s.nodes().map(|n| n.index()).collect(),
            None => (0..nodes.len())
                .filter(|&i| nodes[i].parent.is_none())
                .collect(),
        };
        let mut reach = vec![false; nodes.len()];
        let mut stack = Vec::new();
        for r in roots {
            if nodes[r].parent.is_some() {
                return Err(ImportError::Unsupported {
                    path: format!("scenes[{}].nodes", scene.map(|s| s.index()).unwrap_or(0)),
                    msg: format!("root node {r} has a parent"),
                });
            }
            stack.push(r);
        }
        while let Some(n) = stack.pop() {
            if std::mem::replace(&mut reach[n], true) {
                continue;
            }
            stack.extend(
                self.doc
                    .nodes()
                    .nth(n)
                    .into_iter()
                    .flat_map(|node| node.children().map(|c| c.index())),
            );
        }
        Ok(reach)
    }

    fn skins(&self) -> Result<Vec<Skin>, ImportError> {
        let mut out = Vec::new();
        for skin in self.doc.skins() {
            let s = skin.index();
            let joints: Vec<u32> = skin.joints().map(|j| j.index() as u32).collect();
            if joints.is_empty() {
                return Err(bad_value(format!("skins[{s}].joints"), "is empty"));
            }
            let inverse_binds = match skin.inverse_bind_matrices() {
                None => vec![Mat4::IDENTITY; joints.len()],
                Some(acc) => {
                    let path = || format!("skins[{s}].inverseBindMatrices");
                    let c = self.buffers.read(
                        &acc,
                        Expect {
                            dims: &[Dimensions::Mat4],
                            types: FLOAT_ONLY,
                            normalized_ints: false,
                        },
                        &path,
                    )?;
                    if c.count() < joints.len() {
                        return Err(bad_value(
                            path(),
                            &format!("has {} matrices for {} joints", c.count(), joints.len()),
                        ));
                    }
                    c.to_f32()
                        .chunks_exact(16)
                        .take(joints.len())
                        .map(|m| Mat4::from_cols_slice(m))
                        .collect()
                }
            };
            out.push(Skin {
                name: skin
                    .name()
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("skin{s}")),
                joints,
                inverse_binds,
            });
        }
        Ok(out)
    }

    fn primitive(
        &self,
        m: usize,
        prim: &gltf::Primitive,
        w: &mut Warnings,
    ) -> Result<Option<Primitive>, ImportError> {
        use gltf::mesh::{Mode, Semantic};
        let p = prim.index();
        let at = format!("meshes[{m}].primitives[{p}]");
        let mode = prim.mode();
        if matches!(
            mode,
            Mode::Points | Mode::Lines | Mode::LineLoop | Mode::LineStrip
        ) {
            w.add(format!(
                "{at}: {mode:?} primitive skipped (only triangles are drawn)"
            ));
            return Ok(None);
        }
        if prim.morph_targets().len() > 0 {
            w.add(format!("{at}: morph targets ignored"));
        }
        let attr_path = |name: &str| format!("{at}.attributes.{name}");
        let vec3f = Expect {
            dims: &[Dimensions::Vec3],
            types: FLOAT_ONLY,
            normalized_ints: true,
        };
        let pos_acc = prim
            .get(&Semantic::Positions)
            .ok_or_else(|| ImportError::Accessor {
                path: format!("{at}.attributes"),
                msg: "no POSITION attribute".into(),
            })?;
        let positions = to_vec3(
            &self
                .buffers
                .read(&pos_acc, vec3f, &|| attr_path("POSITION"))?
                .to_f32(),
        );
        let n = positions.len();
        let same_count = |name: &str, count: usize| {
            if count != n {
                Err(ImportError::Accessor {
                    path: attr_path(name),
                    msg: format!("has {count} elements, POSITION has {n}"),
                })
            } else {
                Ok(())
            }
        };
        let normals = match prim.get(&Semantic::Normals) {
            Some(acc) => {
                let v = to_vec3(
                    &self
                        .buffers
                        .read(&acc, vec3f, &|| attr_path("NORMAL"))?
                        .to_f32(),
                );
                same_count("NORMAL", v.len())?;
                Some(v)
            }
            None => None,
        };
        let uvs = match prim.get(&Semantic::TexCoords(0)) {
            Some(acc) => {
                let c = self.buffers.read(
                    &acc,
                    Expect {
                        dims: &[Dimensions::Vec2],
                        types: FLOAT_OR_UNORM,
                        normalized_ints: true,
                    },
                    &|| attr_path("TEXCOORD_0"),
                )?;
                same_count("TEXCOORD_0", c.count())?;
                Some(c.to_f32().chunks_exact(2).map(Vec2::from_slice).collect())
            }
            None => None,
        };
        let mut sets: Vec<(Vec<u32>, Vec<f32>)> = Vec::new();
        for set in 0u32.. {
            let (ja, wa) = (
                prim.get(&Semantic::Joints(set)),
                prim.get(&Semantic::Weights(set)),
            );
            let (ja, wa) = match (ja, wa) {
                (None, None) => break,
                (Some(j), Some(w)) => (j, w),
                _ => {
                    return Err(ImportError::Accessor {
                        path: format!("{at}.attributes"),
                        msg: format!("JOINTS_{set} and WEIGHTS_{set} must come together"),
                    });
                }
            };
            let jn = format!("JOINTS_{set}");
            let wn = format!("WEIGHTS_{set}");
            let j = self.buffers.read(
                &ja,
                Expect {
                    dims: &[Dimensions::Vec4],
                    types: SMALL_UINTS,
                    normalized_ints: false,
                },
                &|| attr_path(&jn),
            )?;
            let wt = self.buffers.read(
                &wa,
                Expect {
                    dims: &[Dimensions::Vec4],
                    types: FLOAT_OR_UNORM,
                    normalized_ints: true,
                },
                &|| attr_path(&wn),
            )?;
            same_count(&jn, j.count())?;
            same_count(&wn, wt.count())?;
            let weights = wt.to_f32();
            if let Some(i) = weights.iter().position(|&x| x < 0.0) {
                return Err(ImportError::Accessor {
                    path: attr_path(&wn),
                    msg: format!("vertex {} has a negative weight", i / 4),
                });
            }
            sets.push((j.to_u32(), weights));
        }
        let influence_sets = sets.len() as u32;
        let mut joints = Vec::with_capacity(n * 4 * sets.len());
        let mut weights = Vec::with_capacity(n * 4 * sets.len());
        for v in 0..n {
            for (js, ws) in &sets {
                joints.extend(js[v * 4..v * 4 + 4].iter().map(|&j| j as u16));
                weights.extend_from_slice(&ws[v * 4..v * 4 + 4]);
            }
        }
        let raw_indices: Vec<u32> = match prim.indices() {
            Some(acc) => {
                let path = || format!("{at}.indices");
                let idx = self
                    .buffers
                    .read(
                        &acc,
                        Expect {
                            dims: &[Dimensions::Scalar],
                            types: UINTS,
                            normalized_ints: false,
                        },
                        &path,
                    )?
                    .to_u32();
                if let Some(&bad) = idx.iter().find(|&&i| i as usize >= n) {
                    return Err(ImportError::Accessor {
                        path: path(),
                        msg: format!("index {bad} is beyond the {n} vertices"),
                    });
                }
                idx
            }
            None => (0..n as u32).collect(),
        };
        let indices = match mode {
            Mode::TriangleStrip => (0..raw_indices.len().saturating_sub(2))
                .flat_map(|i| {
                    if i % 2 == 0 {
                        [raw_indices[i], raw_indices[i + 1], raw_indices[i + 2]]
                    } else {
                        [raw_indices[i + 1], raw_indices[i], raw_indices[i + 2]]
                    }
                })
                .collect(),
            Mode::TriangleFan => (1..raw_indices.len().saturating_sub(1))
                .flat_map(|i| [raw_indices[i], raw_indices[i + 1], raw_indices[0]])
                .collect(),
            _ => {
                let mut v = raw_indices;
                if !v.len().is_multiple_of(3) {
                    w.add(format!("{at}: {} indices is not a whole number of triangles; the remainder is dropped", v.len()));
                    v.truncate(v.len() / 3 * 3);
                }
                v
            }
        };
        Ok(Some(Primitive {
            index: p as u32,
            positions,
            normals,
            uvs,
            influence_sets,
            joints,
            weights,
            indices,
            material: prim.material().index().map(|i| i as u32),
        }))
    }

    fn materials(&self, w: &mut Warnings) -> Result<(Vec<Material>, Vec<Image>), ImportError> {
        let mut images = Vec::new();
        let mut image_map: BTreeMap<usize, Option<u32>> = BTreeMap::new();
        let mut out = Vec::new();
        for mat in self.doc.materials() {
            let i = mat.index().unwrap_or(0);
            let pbr = mat.pbr_metallic_roughness();
            let mut m = Material {
                name: mat
                    .name()
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("material{i}")),
                base_color_factor: Vec4::from_array(pbr.base_color_factor()),
                alpha_mode: match mat.alpha_mode() {
                    gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
                    gltf::material::AlphaMode::Mask => AlphaMode::Mask,
                    gltf::material::AlphaMode::Blend => AlphaMode::Blend,
                },
                alpha_cutoff: mat.alpha_cutoff().unwrap_or(0.5),
                double_sided: mat.double_sided(),
                ..Material::default()
            };
            if let Some(info) = pbr.base_color_texture() {
                if info.tex_coord() != 0 {
                    w.add(format!(
                        "materials[{i}]: base colour uses TEXCOORD_{}; TEXCOORD_0 is used instead",
                        info.tex_coord()
                    ));
                }
                let tex = info.texture();
                let sampler = tex.sampler();
                m.wrap = [wrap(sampler.wrap_s()), wrap(sampler.wrap_t())];
                let src = tex.source().index();
                let slot = match image_map.get(&src) {
                    Some(slot) => *slot,
                    None => {
                        let slot = match self.image(src)? {
                            Ok(img) => {
                                images.push(img);
                                Some(images.len() as u32 - 1)
                            }
                            Err(why) => {
                                w.add(format!(
                                    "images[{src}]: {why}; the material is drawn untextured"
                                ));
                                None
                            }
                        };
                        image_map.insert(src, slot);
                        slot
                    }
                };
                m.base_color_image = slot;
            }
            out.push(m);
        }
        Ok((out, images))
    }

    /// Loads image `i`; the inner `Err` is a reason to skip it (unsupported
    /// format, missing file), the outer one a broken file or a URI the
    /// policy refuses (outside the folder, not a regular file, larger than
    /// [`MAX_IMAGE_BYTES`]).
    fn image(&self, i: usize) -> Result<Result<Image, String>, ImportError> {
        let json = &self.doc.as_json().images[i];
        let name = json
            .name
            .clone()
            .or_else(|| json.uri.clone().filter(|u| !u.starts_with("data:")))
            .unwrap_or_else(|| format!("image{i}"));
        let bytes = if let Some(view_index) = &json.buffer_view {
            let Some(view) = self.doc.views().nth(view_index.value()) else {
                return Err(bad_value(
                    format!("images[{i}].bufferView"),
                    "is out of range",
                ));
            };
            let path = || format!("images[{i}].bufferView");
            let data = self
                .buffers
                .data
                .get(view.buffer().index())
                .ok_or_else(|| bad_value(path(), "names a missing buffer"))?;
            let end = view
                .offset()
                .checked_add(view.length())
                .filter(|&e| e <= data.len());
            let Some(end) = end else {
                return Err(bad_value(path(), "runs past the end of its buffer"));
            };
            data[view.offset()..end].to_vec()
        } else if let Some(uri) = &json.uri {
            let refused = |msg| ImportError::Uri {
                path: format!("images[{i}].uri"),
                uri: shown_uri(uri),
                msg,
            };
            match self.uris.read(uri, MAX_IMAGE_BYTES, Longer::Refuse) {
                Ok(bytes) => bytes,
                Err(UriError::Refused(msg)) => return Err(refused(msg)),
                Err(UriError::TooLong { len, limit }) => {
                    return Err(refused(format!(
                        "is {len} bytes, more than the {limit}-byte limit for an image"
                    )));
                }
                Err(UriError::Unreadable(msg)) => return Ok(Err(msg)),
            }
        } else {
            return Err(bad_value(
                format!("images[{i}]"),
                "has neither uri nor bufferView",
            ));
        };
        let mime = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            "image/png"
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            "image/jpeg"
        } else {
            return Ok(Err("not a PNG or JPEG image".into()));
        };
        Ok(Ok(Image {
            name,
            mime: mime.into(),
            bytes,
        }))
    }

    fn clips(&self, w: &mut Warnings) -> Result<(Vec<Clip>, Vec<ClipEvent>), ImportError> {
        let mut events = Vec::new();
        let mut clips: Vec<Clip> = Vec::new();
        let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
        let mut next_suffix: BTreeMap<String, usize> = BTreeMap::new();
        for anim in self.doc.animations() {
            let a = anim.index();
            let mut channels: Vec<Channel> = Vec::new();
            for ch in anim.channels() {
                let c = ch.index();
                let at = format!("animations[{a}].channels[{c}]");
                let target = ch.target();
                let property = match target.property() {
                    gltf::animation::Property::Translation => Property::Translation,
                    gltf::animation::Property::Rotation => Property::Rotation,
                    gltf::animation::Property::Scale => Property::Scale,
                    gltf::animation::Property::MorphTargetWeights => {
                        w.add(format!(
                            "animations[{a}]: morph-target weight channels ignored"
                        ));
                        continue;
                    }
                };
                let sampler = ch.sampler();
                let s = sampler.index();
                let sp = format!("animations[{a}].samplers[{s}]");
                let interpolation = match sampler.interpolation() {
                    gltf::animation::Interpolation::Step => Interpolation::Step,
                    gltf::animation::Interpolation::Linear => Interpolation::Linear,
                    gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
                };
                let times = self
                    .buffers
                    .read(
                        &sampler.input(),
                        Expect {
                            dims: &[Dimensions::Scalar],
                            types: FLOAT_ONLY,
                            normalized_ints: false,
                        },
                        &|| format!("{sp}.input"),
                    )?
                    .to_f32();
                if let Some(k) = times.iter().position(|t| *t < 0.0) {
                    return Err(bad_value(
                        format!("{sp}.input"),
                        &format!("key {k} has negative time {}", times[k]),
                    ));
                }
                if let Some(k) = times.windows(2).position(|p| p[1] <= p[0]) {
                    return Err(bad_value(
                        format!("{sp}.input"),
                        &format!(
                            "key times are not strictly increasing at key {} ({} then {})",
                            k + 1,
                            times[k],
                            times[k + 1]
                        ),
                    ));
                }
                let (dims, types): (&[Dimensions], &[DataType]) = match property {
                    Property::Rotation => (&[Dimensions::Vec4], FLOAT_OR_NORM),
                    _ => (&[Dimensions::Vec3], FLOAT_ONLY),
                };
                let out = self.buffers.read(
                    &sampler.output(),
                    Expect {
                        dims,
                        types,
                        normalized_ints: true,
                    },
                    &|| format!("{sp}.output"),
                )?;
                let per_key = if interpolation == Interpolation::CubicSpline {
                    3
                } else {
                    1
                };
                if out.count() != times.len() * per_key {
                    return Err(bad_value(
                        format!("{sp}.output"),
                        &format!(
                            "has {} values for {} keys ({interpolation:?} needs {})",
                            out.count(),
                            times.len(),
                            times.len() * per_key
                        ),
                    ));
                }
                let n = out.dims;
                let values = out
                    .to_f32()
                    .chunks_exact(n)
                    .map(|v| {
                        if n == 4 {
                            Vec4::from_slice(v)
                        } else {
                            Vec3::from_slice(v).extend(0.0)
                        }
                    })
                    .collect();
                let node = target.node().index() as u32;
                if let Some(dup) = channels
                    .iter()
                    .position(|x| x.node == node && x.property == property)
                {
                    w.add(format!(
                        "{at}: a second channel for node {node} {property:?}; it replaces the first"
                    ));
                    channels.remove(dup);
                }
                channels.push(Channel {
                    node,
                    property,
                    interpolation,
                    times,
                    values,
                });
            }
            if channels.is_empty() {
                w.add(format!(
                    "animations[{a}] has no transform channels; skipped"
                ));
                continue;
            }
            let base = anim
                .name()
                .map(str::to_owned)
                .unwrap_or_else(|| format!("animation{a}"));
            // Linear in the clip count: names are looked up in a set, and a
            // repeated base name resumes at the next free suffix.
            let mut name = base.clone();
            let mut k = next_suffix.get(&base).copied().unwrap_or(2);
            while taken.contains(&name) {
                name = format!("{base} ({k})");
                k += 1;
            }
            next_suffix.insert(base.clone(), k);
            taken.insert(name.clone());
            if name != base {
                w.add(format!(
                    "animations[{a}]: duplicate clip name {base:?} renamed {name:?}"
                ));
            }
            let clip = Clip { name, channels };
            if let Some(raw) = anim.extras() {
                self.extras_events(a, clips.len() as u32, &clip, raw.get(), &mut events)?;
            }
            clips.push(clip);
        }
        Ok((clips, events))
    }

    /// Events in an animation's `extras.events` (see `crate::events`).
    fn extras_events(
        &self,
        a: usize,
        clip: u32,
        c: &Clip,
        raw: &str,
        out: &mut Vec<ClipEvent>,
    ) -> Result<(), ImportError> {
        let at = format!("animations[{a}].extras");
        let value: serde_json::Value = serde_json::from_str(raw)
            .map_err(|e| bad_value(at.clone(), &format!("not valid JSON: {e}")))?;
        let Some(list) = value.get("events") else {
            return Ok(());
        };
        let list = list
            .as_array()
            .ok_or_else(|| bad_value(format!("{at}.events"), "expected a list of events"))?;
        let d = c.duration();
        for (i, v) in list.iter().enumerate() {
            let path = format!("{at}.events[{i}]");
            let e = crate::events::parse_event(v, clip, &path)
                .map_err(|m| bad_value(path.clone(), &m))?;
            if !(e.time.is_finite() && (0.0..=d).contains(&e.time)) {
                return Err(bad_value(
                    path,
                    &format!("time {} s is outside clip {:?} (0..={d} s)", e.time, c.name),
                ));
            }
            out.push(e);
        }
        Ok(())
    }
}

/// Rejects a cyclic hierarchy (every node has at most one parent here, so a
/// cycle is a chain of parents that comes back to where it started), naming
/// the nodes on the cycle.
fn check_acyclic(nodes: &[SceneNode]) -> Result<(), ImportError> {
    const UNSEEN: usize = usize::MAX;
    // The walk that first reached each node; walks that reach a node seen by
    // an earlier (acyclic) walk stop there, so this is linear.
    let mut walk = vec![UNSEEN; nodes.len()];
    for start in 0..nodes.len() {
        let mut cur = start;
        loop {
            if walk[cur] == start {
                let mut cycle = vec![cur];
                let mut n = cur;
                while let Some(p) = nodes[n].parent {
                    n = p as usize;
                    cycle.push(n);
                    if n == cur {
                        break;
                    }
                }
                let parent = cycle[1];
                let list: Vec<String> = cycle.iter().rev().map(|n| n.to_string()).collect();
                return Err(ImportError::Unsupported {
                    path: format!("nodes[{parent}].children"),
                    msg: format!(
                        "the node hierarchy has a cycle (nodes {}); it must be a forest",
                        list.join(" → ")
                    ),
                });
            }
            if walk[cur] != UNSEEN {
                break;
            }
            walk[cur] = start;
            match nodes[cur].parent {
                Some(p) => cur = p as usize,
                None => break,
            }
        }
    }
    Ok(())
}

/// Replaces out-of-range joint indices that carry zero weight by 0 (harmless,
/// and common in exported files); a weighted one is an error.
fn sanitize_joints(
    mesh: &mut Mesh,
    node: usize,
    m: usize,
    joint_count: usize,
    w: &mut Warnings,
) -> Result<(), ImportError> {
    for prim in &mut mesh.primitives {
        let mut fixed = 0usize;
        for (k, j) in prim.joints.iter_mut().enumerate() {
            if *j as usize >= joint_count {
                if prim.weights[k] > 0.0 {
                    let sets = prim.influence_sets as usize;
                    let v = k / (4 * sets);
                    let set = (k / 4) % sets;
                    return Err(ImportError::Accessor {
                        path: format!(
                            "meshes[{m}].primitives[{}].attributes.JOINTS_{set}",
                            prim.index
                        ),
                        msg: format!(
                            "vertex {v} uses joint {} with weight {}, but the skin of nodes[{node}] has {joint_count} joints",
                            *j, prim.weights[k]
                        ),
                    });
                }
                *j = 0;
                fixed += 1;
            }
        }
        if fixed > 0 {
            w.add(format!(
                "meshes[{m}].primitives[{}]: {fixed} zero-weight joint indices beyond the skin set to 0",
                prim.index
            ));
        }
    }
    Ok(())
}

fn wrap(mode: gltf::texture::WrappingMode) -> TextureWrap {
    match mode {
        gltf::texture::WrappingMode::ClampToEdge => TextureWrap::ClampToEdge,
        gltf::texture::WrappingMode::MirroredRepeat => TextureWrap::MirroredRepeat,
        gltf::texture::WrappingMode::Repeat => TextureWrap::Repeat,
    }
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
