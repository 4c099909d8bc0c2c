//! The one checked way into a glTF file's objects.
//!
//! The `gltf` crate's wrapper types (`Image::source`, `Texture::source`,
//! `Accessor::view`, `Channel::sampler`, `Skin::joints`, `Primitive::get`,
//! even iterating `Document::views`) `unwrap` indices and required fields
//! of the JSON, trusting its validator to have caught every broken one. It
//! does not: an image with neither `uri` nor `bufferView`, or a `bufferView`
//! without `mimeType`, passes validation and panics in `Image::source`; a
//! file read without validation (the provenance hash) panics on any broken
//! index. So Throng never calls those wrappers. It reads `gltf::json`'s plain
//! structs through [`Doc`], whose every lookup checks the index against its
//! list and every required field and pair of fields against glTF 2.0's
//! rules, and answers a named [`ImportError`] — the JSON path of the
//! property that refers, which object and index, which rule — instead.
//!
//! What the lookups return are small resolved values ([`View`],
//! [`Accessor`], [`ImageSource`], [`Texture`], [`AnimSampler`], [`Skin`],
//! [`Primitive`]) whose indices are known to be in range, so the code that
//! reads bytes through them (`crate::accessor`) indexes nothing unchecked.
//! A test in this module holds the rest of the crate to it: no other file
//! reaches `gltf::Document` or the wrapper types.

use std::collections::BTreeMap;

use gltf::json;
use gltf::json::validation::Checked;

use crate::error::ImportError;
use crate::extensions::IMAGE_EXTENSIONS;

/// glTF's component types (`gltf::json::accessor::ComponentType`).
pub(crate) use gltf::json::accessor::ComponentType as DataType;
/// glTF's element types (`gltf::json::accessor::Type`).
pub(crate) use gltf::json::accessor::Type as Dimensions;
pub(crate) use gltf::json::animation::{Interpolation, Property};
pub(crate) use gltf::json::mesh::{Mode, Semantic};
pub(crate) use gltf::json::texture::WrappingMode;

mod values;

pub(crate) use values::{
    Accessor, AnimSampler, Channel, ImageSource, MorphTarget, Primitive, Skin, Sparse, Texture,
    View,
};

/// A glTF document, read through checks.
#[derive(Clone, Copy)]
pub(crate) struct Doc<'a> {
    json: &'a json::Root,
}

/// `index` as a `usize` (a glTF count or offset beyond the address space
/// cannot be read anyway).
pub(crate) fn to_usize(x: u64) -> usize {
    usize::try_from(x).unwrap_or(usize::MAX)
}

/// A broken rule of glTF 2.0 at `path`.
pub(crate) fn broken(path: impl Into<String>, rule: impl Into<String>) -> ImportError {
    ImportError::BrokenRule {
        path: path.into(),
        rule: rule.into(),
    }
}

/// A checked enumeration value (`Checked::Valid`), or the rule it breaks.
pub(crate) fn checked<T: Copy>(
    value: &Checked<T>,
    path: impl FnOnce() -> String,
) -> Result<T, ImportError> {
    match value {
        Checked::Valid(v) => Ok(*v),
        Checked::Invalid => Err(broken(path(), "is not one of the values glTF 2.0 allows")),
    }
}

impl<'a> Doc<'a> {
    /// Reads `json` through checks.
    pub fn new(json: &'a json::Root) -> Self {
        Self { json }
    }

    /// The plain JSON, for what needs no check (names, factors, extras).
    pub fn json(&self) -> &'a json::Root {
        self.json
    }

    /// `list[index]`, or a [`ImportError::BadIndex`] naming `what` at `path`.
    fn get<T>(
        list: &'a [T],
        what: &'static str,
        index: usize,
        path: impl FnOnce() -> String,
    ) -> Result<&'a T, ImportError> {
        list.get(index).ok_or_else(|| ImportError::BadIndex {
            path: path(),
            what,
            index,
            len: list.len(),
        })
    }

    /// Buffer view `index`, referred to from `path`.
    pub fn view(&self, index: usize, path: impl Fn() -> String) -> Result<View, ImportError> {
        let v = Self::get(&self.json.buffer_views, "bufferViews", index, &path)?;
        let buffer = v.buffer.value();
        Self::get(&self.json.buffers, "buffers", buffer, || {
            format!("bufferViews[{index}].buffer")
        })?;
        Ok(View {
            index,
            buffer,
            offset: v.byte_offset.map_or(0, |o| o.0),
            length: v.byte_length.0,
            stride: v.byte_stride.map(|s| s.0).filter(|&s| s != 0),
        })
    }

    /// Accessor `index`, referred to from `path`, with its views.
    pub fn accessor(
        &self,
        index: usize,
        path: impl Fn() -> String,
    ) -> Result<Accessor, ImportError> {
        let a = Self::get(&self.json.accessors, "accessors", index, &path)?;
        let at = |field: &str| format!("accessors[{index}].{field}");
        let data_type = checked(&a.component_type, || at("componentType"))?.0;
        let dims = checked(&a.type_, || at("type"))?;
        let view = match a.buffer_view {
            Some(v) => Some(self.view(v.value(), || at("bufferView"))?),
            None => None,
        };
        let sparse = match &a.sparse {
            None => None,
            Some(s) => {
                let sp = |field: &str| format!("accessors[{index}].sparse.{field}");
                Some(Sparse {
                    count: s.count.0,
                    indices: self
                        .view(s.indices.buffer_view.value(), || sp("indices.bufferView"))?,
                    indices_offset: s.indices.byte_offset.0,
                    index_type: checked(&s.indices.component_type, || sp("indices.componentType"))?
                        .0,
                    values: self.view(s.values.buffer_view.value(), || sp("values.bufferView"))?,
                    values_offset: s.values.byte_offset.0,
                })
            }
        };
        Ok(Accessor {
            index,
            data_type,
            dims,
            normalized: a.normalized,
            count: a.count.0,
            offset: a.byte_offset.map_or(0, |o| o.0),
            view,
            sparse,
        })
    }

    /// Where image `index` keeps its bytes (glTF 2.0 §5.17: exactly one of
    /// `uri` and `bufferView`, and `mimeType` with a `bufferView`). Both
    /// present reads the view; a view without `mimeType` is read anyway,
    /// by its bytes' signature, and comes back with the rule it broke.
    pub fn image(&self, index: usize) -> Result<(ImageSource<'a>, Option<String>), ImportError> {
        let img = Self::get(&self.json.images, "images", index, || "images".into())?;
        let at = format!("images[{index}]");
        match (&img.buffer_view, &img.uri) {
            (None, None) => Err(broken(
                at,
                "has neither uri nor bufferView (glTF 2.0 requires one of them)",
            )),
            (Some(v), uri) => {
                let view = self.view(v.value(), || format!("{at}.bufferView"))?;
                let note = match (uri, &img.mime_type) {
                    (Some(_), _) => Some(format!(
                        "{at}: has both uri and bufferView (glTF 2.0 allows one); the bufferView is read"
                    )),
                    (None, None) => Some(format!(
                        "{at}: has a bufferView but no mimeType (glTF 2.0 requires it); read as the PNG or JPEG its bytes say"
                    )),
                    (None, Some(_)) => None,
                };
                Ok((ImageSource::View(view), note))
            }
            (None, Some(uri)) => Ok((ImageSource::Uri(uri), None)),
        }
    }

    /// Texture `index`, referred to from `path`: its image index (checked
    /// against `images`, not read) and its sampler's wraps.
    pub fn texture(&self, index: usize, path: impl Fn() -> String) -> Result<Texture, ImportError> {
        let t = Self::get(&self.json.textures, "textures", index, &path)?;
        let at = |field: &str| format!("textures[{index}].{field}");
        // The image of the first extension the baker reads that names one
        // (its `source` is then the fallback, or absent): KTX2 before WebP,
        // as a file offering both expects of a reader with both.
        let extension = IMAGE_EXTENSIONS
            .iter()
            .find_map(|name| Some((name, t.extensions.as_ref()?.others.get(*name)?)));
        let (image, field) = match extension {
            Some((name, e)) => {
                let field = format!("extensions.{name}.source");
                let image = e
                    .get("source")
                    .and_then(serde_json::Value::as_u64)
                    .and_then(|s| usize::try_from(s).ok())
                    .ok_or_else(|| ImportError::BrokenRule {
                        path: at(&field),
                        rule: "is not an image index".into(),
                    })?;
                (image, field)
            }
            None => (t.source.value(), "source".into()),
        };
        Self::get(&self.json.images, "images", image, || at(&field))?;
        let wrap = match t.sampler {
            None => [WrappingMode::Repeat; 2],
            Some(s) => {
                let s_index = s.value();
                let sampler =
                    Self::get(&self.json.samplers, "samplers", s_index, || at("sampler"))?;
                let sp = |field: &str| format!("samplers[{s_index}].{field}");
                [
                    checked(&sampler.wrap_s, || sp("wrapS"))?,
                    checked(&sampler.wrap_t, || sp("wrapT"))?,
                ]
            }
        };
        Ok(Texture { image, wrap })
    }

    /// Node `index`, referred to from `path`.
    pub fn node(
        &self,
        index: usize,
        path: impl Fn() -> String,
    ) -> Result<&'a json::scene::Node, ImportError> {
        Self::get(&self.json.nodes, "nodes", index, path)
    }

    /// Node `index`'s children (checked).
    pub fn children(&self, index: usize) -> Result<Vec<usize>, ImportError> {
        let node = self.node(index, || "nodes".into())?;
        node.children
            .iter()
            .flatten()
            .enumerate()
            .map(|(k, c)| {
                self.node(c.value(), || format!("nodes[{index}].children[{k}]"))
                    .map(|_| c.value())
            })
            .collect()
    }

    /// Node `index`'s mesh and skin (checked).
    pub fn node_mesh(&self, index: usize) -> Result<(Option<usize>, Option<usize>), ImportError> {
        let node = self.node(index, || "nodes".into())?;
        let mesh = match node.mesh {
            Some(m) => {
                Self::get(&self.json.meshes, "meshes", m.value(), || {
                    format!("nodes[{index}].mesh")
                })?;
                Some(m.value())
            }
            None => None,
        };
        let skin = match node.skin {
            Some(s) => {
                Self::get(&self.json.skins, "skins", s.value(), || {
                    format!("nodes[{index}].skin")
                })?;
                Some(s.value())
            }
            None => None,
        };
        Ok((mesh, skin))
    }

    /// The default scene (or the first): its index and root nodes (checked);
    /// `None` when the file has no scene.
    pub fn scene_roots(&self) -> Result<Option<(usize, Vec<usize>)>, ImportError> {
        let index = match self.json.scene {
            Some(s) => {
                Self::get(&self.json.scenes, "scenes", s.value(), || "scene".into())?;
                s.value()
            }
            None if self.json.scenes.is_empty() => return Ok(None),
            None => 0,
        };
        let roots = self.json.scenes[index]
            .nodes
            .iter()
            .enumerate()
            .map(|(k, n)| {
                self.node(n.value(), || format!("scenes[{index}].nodes[{k}]"))
                    .map(|_| n.value())
            })
            .collect::<Result<_, _>>()?;
        Ok(Some((index, roots)))
    }

    /// Skin `index`: joints and inverse bind matrices (checked).
    pub fn skin(&self, index: usize) -> Result<Skin, ImportError> {
        let s = Self::get(&self.json.skins, "skins", index, || "skins".into())?;
        let joints = s
            .joints
            .iter()
            .enumerate()
            .map(|(k, j)| {
                self.node(j.value(), || format!("skins[{index}].joints[{k}]"))
                    .map(|_| j.value())
            })
            .collect::<Result<_, _>>()?;
        let inverse_binds = match s.inverse_bind_matrices {
            Some(a) => {
                Some(self.accessor(a.value(), || format!("skins[{index}].inverseBindMatrices"))?)
            }
            None => None,
        };
        Ok(Skin {
            joints,
            inverse_binds,
        })
    }

    /// Primitive `p` of mesh `m`: topology, attributes, indices, material
    /// and morph targets, every index checked.
    pub fn primitive(&self, m: usize, p: usize) -> Result<Primitive, ImportError> {
        let mesh = Self::get(&self.json.meshes, "meshes", m, || "meshes".into())?;
        let at = format!("meshes[{m}].primitives[{p}]");
        let prim = Self::get(&mesh.primitives, "primitives", p, || format!("meshes[{m}]"))?;
        let mode = checked(&prim.mode, || format!("{at}.mode"))?;
        let mut attributes = BTreeMap::new();
        for (semantic, index) in &prim.attributes {
            let Checked::Valid(semantic) = semantic else {
                return Err(broken(
                    format!("{at}.attributes"),
                    "names an attribute glTF 2.0 does not define",
                ));
            };
            let name = semantic.to_string();
            let acc = self.accessor(index.value(), || format!("{at}.attributes.{name}"))?;
            attributes.insert(semantic.clone(), acc);
        }
        let indices = match prim.indices {
            Some(i) => Some(self.accessor(i.value(), || format!("{at}.indices"))?),
            None => None,
        };
        let material = match prim.material {
            Some(i) => {
                Self::get(&self.json.materials, "materials", i.value(), || {
                    format!("{at}.material")
                })?;
                Some(i.value())
            }
            None => None,
        };
        let mut targets = Vec::new();
        for (t, target) in prim.targets.iter().flatten().enumerate() {
            let attr = |a: Option<json::Index<json::Accessor>>, name: &str| {
                a.map(|a| self.accessor(a.value(), || format!("{at}.targets[{t}].{name}")))
                    .transpose()
            };
            targets.push(MorphTarget {
                positions: attr(target.positions, "POSITION")?,
                normals: attr(target.normals, "NORMAL")?,
            });
        }
        Ok(Primitive {
            mode,
            attributes,
            indices,
            material,
            targets,
        })
    }

    /// The number of morph targets of mesh `m`'s first primitive (0 for a
    /// mesh out of range or without primitives).
    pub fn mesh_target_count(&self, m: usize) -> usize {
        self.json
            .meshes
            .get(m)
            .and_then(|mesh| mesh.primitives.first())
            .map_or(0, |p| p.targets.as_ref().map_or(0, Vec::len))
    }

    /// Channel `c` of animation `a`: target node and property, and its
    /// sampler with both accessors (checked).
    pub fn channel(&self, a: usize, c: usize) -> Result<Channel, ImportError> {
        let anim = Self::get(&self.json.animations, "animations", a, || {
            "animations".into()
        })?;
        let at = format!("animations[{a}].channels[{c}]");
        let ch = Self::get(&anim.channels, "channels", c, || format!("animations[{a}]"))?;
        let node = ch.target.node.value();
        self.node(node, || format!("{at}.target.node"))?;
        let property = checked(&ch.target.path, || format!("{at}.target.path"))?;
        let s = ch.sampler.value();
        let sampler = Self::get(&anim.samplers, "samplers", s, || format!("{at}.sampler"))?;
        let sp = |field: &str| format!("animations[{a}].samplers[{s}].{field}");
        Ok(Channel {
            node,
            property,
            sampler: AnimSampler {
                index: s,
                input: self.accessor(sampler.input.value(), || sp("input"))?,
                output: self.accessor(sampler.output.value(), || sp("output"))?,
                interpolation: checked(&sampler.interpolation, || sp("interpolation"))?,
            },
        })
    }

    /// The URIs of every buffer and image, as `(kind, uri)`, for what hashes
    /// a model's files: read from the JSON alone (no rule is needed to list
    /// them, and a broken image is still a file the bake may read).
    pub fn external_uris(&self) -> impl Iterator<Item = (&'static str, &'a str)> {
        let buffers = self
            .json
            .buffers
            .iter()
            .filter_map(|b| b.uri.as_deref().map(|u| ("buffer", u)));
        let images = self
            .json
            .images
            .iter()
            .filter_map(|i| i.uri.as_deref().map(|u| ("image", u)));
        buffers.chain(images)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> json::Root {
        json::Root::from_slice(text.as_bytes()).expect("the test's JSON parses")
    }

    fn error(result: Result<impl std::fmt::Debug, ImportError>) -> String {
        result.expect_err("a broken rule").to_string()
    }

    #[test]
    fn broken_images_are_named_never_unwrapped() {
        let root = doc(r#"{"asset":{"version":"2.0"},
                "buffers":[{"byteLength":4}],
                "bufferViews":[{"buffer":0,"byteLength":4},{"buffer":3,"byteLength":4}],
                "images":[{}, {"bufferView":0}, {"bufferView":9,"mimeType":"image/png"},
                          {"bufferView":1,"mimeType":"image/png"},
                          {"uri":"a.png","bufferView":0,"mimeType":"image/png"}]}"#);
        let d = Doc::new(&root);
        let e = error(d.image(0));
        assert!(
            e.contains("images[0]") && e.contains("neither uri nor bufferView"),
            "{e}"
        );
        let (source, note) = d.image(1).expect("a view without mimeType is read");
        assert!(matches!(source, ImageSource::View(View { index: 0, .. })));
        assert!(note.is_some_and(|n| n.contains("no mimeType")));
        let e = error(d.image(2));
        assert!(
            e.contains("images[2].bufferView") && e.contains("bufferViews[9]"),
            "{e}"
        );
        let e = error(d.image(3));
        assert!(
            e.contains("bufferViews[1].buffer") && e.contains("buffers[3]"),
            "{e}"
        );
        let (_, note) = d.image(4).expect("both: the view is read");
        assert!(note.is_some_and(|n| n.contains("both uri and bufferView")));
        let e = error(d.image(5));
        assert!(e.contains("images[5]") && e.contains("5"), "{e}");
    }

    #[test]
    fn textures_accessors_skins_and_channels_check_every_index() {
        let root = doc(r#"{"asset":{"version":"2.0"},
                "nodes":[{}],
                "textures":[{"source":4},{"source":0,"sampler":2}],
                "images":[{"uri":"a.png"}],
                "accessors":[{"bufferView":7,"componentType":5126,"count":1,"type":"SCALAR"},
                             {"componentType":5126,"count":1,"type":"SCALAR",
                              "sparse":{"count":1,"indices":{"bufferView":5,"componentType":5121},
                                        "values":{"bufferView":0}}}],
                "skins":[{"joints":[0,3]}],
                "animations":[{"channels":[{"sampler":1,"target":{"node":0,"path":"rotation"}}],
                               "samplers":[{"input":0,"output":0}]}]}"#);
        let d = Doc::new(&root);
        for (what, e, expect) in [
            (
                "texture source",
                error(d.texture(0, || "t".into())),
                "textures[0].source",
            ),
            (
                "texture sampler",
                error(d.texture(1, || "t".into())),
                "textures[1].sampler",
            ),
            (
                "accessor view",
                error(d.accessor(0, || "x".into())),
                "accessors[0].bufferView",
            ),
            (
                "sparse indices",
                error(d.accessor(1, || "x".into())),
                "accessors[1].sparse.indices.bufferView",
            ),
            ("skin joint", error(d.skin(0)), "skins[0].joints[1]"),
            (
                "channel sampler",
                error(d.channel(0, 0)),
                "animations[0].channels[0].sampler",
            ),
            (
                "missing accessor",
                error(d.accessor(9, || "here".into())),
                "here",
            ),
        ] {
            assert!(e.contains(expect), "{what}: {e:?} should name {expect:?}");
        }
    }

    /// The rest of the crate reads glTF through [`Doc`]: no file outside
    /// this folder names the wrapper types whose accessors unwrap. Every
    /// `.rs` file under `src/` is read, so a new file is covered.
    #[test]
    fn no_other_file_reaches_the_gltf_wrappers() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let here = src.join("gltf_doc");
        let mut sources = Vec::new();
        let mut folders = vec![src.clone()];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    if path != here {
                        folders.push(path);
                    }
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let file = path.strip_prefix(&src).unwrap().display().to_string();
                    sources.push((file, text));
                }
            }
        }
        // The crate's files outside gltf_doc/ (34 when this was written):
        // a walk that found few read the wrong folder.
        assert!(
            sources.len() >= 30,
            "read {} files under {}",
            sources.len(),
            src.display()
        );
        let wrappers = [
            ".document.",
            "gltf::Document",
            "gltf::Accessor",
            "gltf::Primitive",
            "gltf::Texture",
            "gltf::Mesh",
            "gltf::image::",
            "gltf::texture::",
            "gltf::animation::",
            "gltf::buffer::",
            "gltf::scene::",
            "gltf::mesh::",
            "gltf::material::",
            "gltf::accessor::",
        ];
        for (file, text) in &sources {
            for w in wrappers {
                assert!(
                    !text.contains(w),
                    "{file} names {w:?}: read glTF through gltf_doc::Doc, whose lookups are checked"
                );
            }
        }
    }
}
