//! A small glTF 2.0 builder for tests.
//!
//! It assembles a glTF JSON document with one binary buffer from plain Rust
//! values: nodes (TRS or matrix), meshes whose primitives carry POSITION,
//! optional NORMAL, any number of JOINTS_n/WEIGHTS_n sets (joints as u8 or
//! u16, weights as f32 or normalised u8/u16), morph targets (POSITION and
//! optional NORMAL offsets) and indices, skins with optional inverse bind
//! matrices, animations of transforms and morph weights with
//! STEP/LINEAR/CUBICSPLINE samplers, and one scene. [`GltfBuilder::to_gltf`] returns a `.gltf` with the buffer
//! embedded as a base64 data URI, [`GltfBuilder::to_glb`] a `.glb`.
//!
//! Every accessor gets its own buffer view, 4-byte aligned, so a test can
//! break one accessor without disturbing the others. Deliberately broken
//! files are made by editing [`GltfBuilder::to_json`]'s value (or the binary
//! chunk, [`GltfBuilder::bin`]) and serialising it with [`gltf_bytes`] or
//! [`glb_bytes`].
//!
//! ```
//! use throng_tests::gltf_builder::{GltfBuilder, Node, Primitive};
//! let mut b = GltfBuilder::new();
//! let mesh = b.mesh(
//!     "tri",
//!     vec![Primitive::new(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])],
//! );
//! b.node(Node::new("n").translation([1.0, 2.0, 3.0]).mesh(mesh));
//! let bytes = b.to_gltf();
//! assert!(throng_bake::import_slice(&bytes, None, "tri").is_ok());
//! ```

use base64::Engine as _;
use glam::{Mat4, Quat, Vec3};
use serde_json::{Map, Value, json};
/// The channel enums are the importer's own: a channel built here names
/// its property and interpolation exactly as the imported scene will.
pub use throng_bake::scene::{Interpolation, Property};

/// glTF `componentType` codes.
pub mod component {
    /// `BYTE`.
    pub const I8: u32 = 5120;
    /// `UNSIGNED_BYTE`.
    pub const U8: u32 = 5121;
    /// `SHORT`.
    pub const I16: u32 = 5122;
    /// `UNSIGNED_SHORT`.
    pub const U16: u32 = 5123;
    /// `UNSIGNED_INT`.
    pub const U32: u32 = 5125;
    /// `FLOAT`.
    pub const F32: u32 = 5126;
}

/// Component type of a JOINTS_n accessor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JointType {
    /// `UNSIGNED_BYTE`.
    #[default]
    U8,
    /// `UNSIGNED_SHORT`.
    U16,
}

/// Component type of a WEIGHTS_n accessor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WeightType {
    /// `FLOAT`.
    #[default]
    F32,
    /// Normalised `UNSIGNED_BYTE` (weight × 255, rounded).
    UnormU8,
    /// Normalised `UNSIGNED_SHORT` (weight × 65535, rounded).
    UnormU16,
}

/// A node's local transform as written to the file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Transform {
    /// No transform property at all (identity).
    None,
    /// `translation`, `rotation` (xyzw), `scale`.
    Trs {
        /// Translation.
        translation: Vec3,
        /// Rotation; written as given (not normalised).
        rotation: Quat,
        /// Scale.
        scale: Vec3,
    },
    /// `matrix`, column-major.
    Matrix(Mat4),
}

/// A node to add with [`GltfBuilder::node`].
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// `name`.
    pub name: String,
    /// Local transform.
    pub transform: Transform,
    /// `children` (node indices).
    pub children: Vec<usize>,
    /// `mesh`.
    pub mesh: Option<usize>,
    /// `skin`.
    pub skin: Option<usize>,
}

impl Node {
    /// A node with no transform, children, mesh or skin.
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            transform: Transform::None,
            children: Vec::new(),
            mesh: None,
            skin: None,
        }
    }

    fn trs(&mut self) -> (&mut Vec3, &mut Quat, &mut Vec3) {
        if !matches!(self.transform, Transform::Trs { .. }) {
            self.transform = Transform::Trs {
                translation: Vec3::ZERO,
                rotation: Quat::IDENTITY,
                scale: Vec3::ONE,
            };
        }
        match &mut self.transform {
            Transform::Trs {
                translation,
                rotation,
                scale,
            } => (translation, rotation, scale),
            _ => unreachable!("set just above"),
        }
    }

    /// Sets `translation` (switching to a TRS transform).
    pub fn translation(mut self, t: [f32; 3]) -> Self {
        *self.trs().0 = Vec3::from_array(t);
        self
    }

    /// Sets `rotation` from quaternion components `[x, y, z, w]`.
    pub fn rotation(mut self, q: [f32; 4]) -> Self {
        *self.trs().1 = Quat::from_array(q);
        self
    }

    /// Sets `scale`.
    pub fn scale(mut self, s: [f32; 3]) -> Self {
        *self.trs().2 = Vec3::from_array(s);
        self
    }

    /// Sets `matrix` from its 16 column-major entries.
    pub fn matrix(mut self, m: [f32; 16]) -> Self {
        self.transform = Transform::Matrix(Mat4::from_cols_array(&m));
        self
    }

    /// Sets `children`.
    pub fn children(mut self, children: &[usize]) -> Self {
        self.children = children.to_vec();
        self
    }

    /// Sets `mesh`.
    pub fn mesh(mut self, mesh: usize) -> Self {
        self.mesh = Some(mesh);
        self
    }

    /// Sets `skin`.
    pub fn skin(mut self, skin: usize) -> Self {
        self.skin = Some(skin);
        self
    }
}

/// One JOINTS_n/WEIGHTS_n pair.
#[derive(Clone, Debug, PartialEq)]
pub struct Influences {
    /// Four joint indices (into the skin's joints) per vertex.
    pub joints: Vec<[u16; 4]>,
    /// Four weights per vertex.
    pub weights: Vec<[f32; 4]>,
    /// How the joints are stored.
    pub joint_type: JointType,
    /// How the weights are stored.
    pub weight_type: WeightType,
}

/// A mesh primitive to add with [`GltfBuilder::mesh`]. Triangles.
#[derive(Clone, Debug, PartialEq)]
pub struct Primitive {
    /// POSITION (the accessor gets the `min`/`max` glTF requires).
    pub positions: Vec<[f32; 3]>,
    /// NORMAL.
    pub normals: Option<Vec<[f32; 3]>>,
    /// TEXCOORD_0.
    pub uvs: Option<Vec<[f32; 2]>>,
    /// JOINTS_n/WEIGHTS_n, set n at index n.
    pub influences: Vec<Influences>,
    /// `indices` (stored as u16 when they fit, else u32).
    pub indices: Option<Vec<u32>>,
    /// Morph targets.
    pub targets: Vec<Target>,
}

/// A morph target: POSITION offsets and optional NORMAL offsets.
pub type Target = (Vec<[f32; 3]>, Option<Vec<[f32; 3]>>);

impl Primitive {
    /// A primitive with positions only (non-indexed triangles).
    pub fn new(positions: &[[f32; 3]]) -> Self {
        Self {
            positions: positions.to_vec(),
            normals: None,
            uvs: None,
            influences: Vec::new(),
            indices: None,
            targets: Vec::new(),
        }
    }

    /// Adds a morph target with these POSITION (and NORMAL) offsets.
    pub fn target(mut self, positions: &[[f32; 3]], normals: Option<&[[f32; 3]]>) -> Self {
        self.targets
            .push((positions.to_vec(), normals.map(<[[f32; 3]]>::to_vec)));
        self
    }

    /// Adds TEXCOORD_0.
    pub fn uvs(mut self, uvs: &[[f32; 2]]) -> Self {
        self.uvs = Some(uvs.to_vec());
        self
    }

    /// Adds NORMAL.
    pub fn normals(mut self, normals: &[[f32; 3]]) -> Self {
        self.normals = Some(normals.to_vec());
        self
    }

    /// Adds the next JOINTS_n/WEIGHTS_n set as u8 joints and f32 weights.
    pub fn skin_set(self, joints: &[[u16; 4]], weights: &[[f32; 4]]) -> Self {
        self.skin_set_as(joints, weights, JointType::U8, WeightType::F32)
    }

    /// Adds the next JOINTS_n/WEIGHTS_n set with the given storage types.
    pub fn skin_set_as(
        mut self,
        joints: &[[u16; 4]],
        weights: &[[f32; 4]],
        joint_type: JointType,
        weight_type: WeightType,
    ) -> Self {
        self.influences.push(Influences {
            joints: joints.to_vec(),
            weights: weights.to_vec(),
            joint_type,
            weight_type,
        });
        self
    }

    /// Adds `indices`.
    pub fn indices(mut self, indices: &[u32]) -> Self {
        self.indices = Some(indices.to_vec());
        self
    }
}

/// What a channel animates: a transform property, or the node's morph
/// weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// `translation`, `rotation` or `scale`.
    Transform(Property),
    /// `weights`: one scalar per morph target per key.
    Weights,
}

/// One channel with its own sampler, for [`GltfBuilder::animation`].
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    /// Target node.
    pub node: usize,
    /// Target property.
    pub path: Path,
    /// Sampler interpolation.
    pub interpolation: Interpolation,
    /// Key times (the sampler's input).
    pub times: Vec<f32>,
    /// Output values, flattened: 3 (or 4 for rotations) floats per element;
    /// cubic splines have 3 elements per key (in-tangent, value, out-tangent).
    pub values: Vec<f32>,
}

impl Channel {
    /// A translation channel; for cubic splines `values` holds
    /// `(in, value, out)` per key.
    pub fn translation(
        node: usize,
        interpolation: Interpolation,
        times: &[f32],
        values: &[[f32; 3]],
    ) -> Self {
        Self::vec3(node, Property::Translation, interpolation, times, values)
    }

    /// A scale channel (values as for [`Self::translation`]).
    pub fn scale(
        node: usize,
        interpolation: Interpolation,
        times: &[f32],
        values: &[[f32; 3]],
    ) -> Self {
        Self::vec3(node, Property::Scale, interpolation, times, values)
    }

    /// A rotation channel with quaternions `[x, y, z, w]`.
    pub fn rotation(
        node: usize,
        interpolation: Interpolation,
        times: &[f32],
        values: &[[f32; 4]],
    ) -> Self {
        Self {
            node,
            path: Path::Transform(Property::Rotation),
            interpolation,
            times: times.to_vec(),
            values: values.iter().flatten().copied().collect(),
        }
    }

    /// A morph weight channel: `values` holds the weights of every target
    /// per key (for cubic splines: in-tangents, values, out-tangents).
    pub fn weights(
        node: usize,
        interpolation: Interpolation,
        times: &[f32],
        values: &[f32],
    ) -> Self {
        Self {
            node,
            path: Path::Weights,
            interpolation,
            times: times.to_vec(),
            values: values.to_vec(),
        }
    }

    fn vec3(
        node: usize,
        path: Property,
        interpolation: Interpolation,
        times: &[f32],
        values: &[[f32; 3]],
    ) -> Self {
        Self {
            node,
            path: Path::Transform(path),
            interpolation,
            times: times.to_vec(),
            values: values.iter().flatten().copied().collect(),
        }
    }
}

/// Assembles a glTF document. Add nodes, meshes, skins and animations (each
/// call returns the new object's index), then call [`Self::to_gltf`] or
/// [`Self::to_glb`].
#[derive(Clone, Debug, Default)]
pub struct GltfBuilder {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
    nodes: Vec<Node>,
    meshes: Vec<Value>,
    skins: Vec<Value>,
    animations: Vec<Value>,
    scene: Option<Vec<usize>>,
}

impl GltfBuilder {
    /// An empty document.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a node; returns its index.
    pub fn node(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// Appends `child` to the `children` of `parent`.
    pub fn add_child(&mut self, parent: usize, child: usize) {
        self.nodes[parent].children.push(child);
    }

    /// Sets the roots of the (single, default) scene. Without this call the
    /// scene holds every node that is nobody's child.
    pub fn scene(&mut self, roots: &[usize]) {
        self.scene = Some(roots.to_vec());
    }

    /// Appends raw accessor data in its own buffer view; returns the
    /// accessor index. `ty` is the glTF `type` (`"SCALAR"`, `"VEC3"`, …).
    pub fn accessor_raw(
        &mut self,
        ty: &str,
        component_type: u32,
        normalized: bool,
        count: usize,
        bytes: &[u8],
    ) -> usize {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.views.push(json!({
            "buffer": 0,
            "byteOffset": offset,
            "byteLength": bytes.len(),
        }));
        let mut acc = json!({
            "bufferView": self.views.len() - 1,
            "componentType": component_type,
            "count": count,
            "type": ty,
        });
        if normalized {
            acc["normalized"] = json!(true);
        }
        self.accessors.push(acc);
        self.accessors.len() - 1
    }

    /// Appends an f32 accessor of type `ty` with `components` floats per
    /// element; returns its index.
    pub fn accessor_f32(&mut self, ty: &str, components: usize, data: &[f32]) -> usize {
        assert_eq!(data.len() % components, 0, "partial element");
        let bytes: Vec<u8> = data.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.accessor_raw(ty, component::F32, false, data.len() / components, &bytes)
    }

    /// Appends a VEC3 f32 accessor with `min` and `max` (as POSITION needs).
    pub fn accessor_positions(&mut self, positions: &[[f32; 3]]) -> usize {
        let flat: Vec<f32> = positions.iter().flatten().copied().collect();
        let a = self.accessor_f32("VEC3", 3, &flat);
        let mut min = [f32::MAX; 3];
        let mut max = [f32::MIN; 3];
        for p in positions {
            for c in 0..3 {
                min[c] = min[c].min(p[c]);
                max[c] = max[c].max(p[c]);
            }
        }
        if positions.is_empty() {
            (min, max) = ([0.0; 3], [0.0; 3]);
        }
        self.accessors[a]["min"] = json!(min);
        self.accessors[a]["max"] = json!(max);
        a
    }

    /// Appends an unsigned-integer accessor (`U8`, `U16` or `U32` codes from
    /// [`component`]); returns its index.
    pub fn accessor_uint(
        &mut self,
        ty: &str,
        components: usize,
        component_type: u32,
        normalized: bool,
        data: &[u32],
    ) -> usize {
        assert_eq!(data.len() % components, 0, "partial element");
        let bytes: Vec<u8> = match component_type {
            component::U8 => data.iter().map(|&v| u8::try_from(v).unwrap()).collect(),
            component::U16 => data
                .iter()
                .flat_map(|&v| u16::try_from(v).unwrap().to_le_bytes())
                .collect(),
            component::U32 => data.iter().flat_map(|&v| v.to_le_bytes()).collect(),
            other => panic!("not an unsigned integer component type: {other}"),
        };
        self.accessor_raw(
            ty,
            component_type,
            normalized,
            data.len() / components,
            &bytes,
        )
    }

    /// Adds a mesh; returns its index.
    pub fn mesh(&mut self, name: &str, primitives: Vec<Primitive>) -> usize {
        let mut prims = Vec::new();
        for p in primitives {
            let mut attributes = Map::new();
            attributes.insert(
                "POSITION".into(),
                json!(self.accessor_positions(&p.positions)),
            );
            if let Some(n) = &p.normals {
                let flat: Vec<f32> = n.iter().flatten().copied().collect();
                attributes.insert("NORMAL".into(), json!(self.accessor_f32("VEC3", 3, &flat)));
            }
            if let Some(uv) = &p.uvs {
                let flat: Vec<f32> = uv.iter().flatten().copied().collect();
                attributes.insert(
                    "TEXCOORD_0".into(),
                    json!(self.accessor_f32("VEC2", 2, &flat)),
                );
            }
            for (set, infl) in p.influences.iter().enumerate() {
                let joints: Vec<u32> = infl.joints.iter().flatten().map(|&j| j as u32).collect();
                let jt = match infl.joint_type {
                    JointType::U8 => component::U8,
                    JointType::U16 => component::U16,
                };
                let ja = self.accessor_uint("VEC4", 4, jt, false, &joints);
                let weights = infl.weights.iter().flatten().copied();
                let wa = match infl.weight_type {
                    WeightType::F32 => self.accessor_f32("VEC4", 4, &weights.collect::<Vec<_>>()),
                    WeightType::UnormU8 => {
                        let q: Vec<u32> = weights.map(|w| (w * 255.0).round() as u32).collect();
                        self.accessor_uint("VEC4", 4, component::U8, true, &q)
                    }
                    WeightType::UnormU16 => {
                        let q: Vec<u32> = weights.map(|w| (w * 65535.0).round() as u32).collect();
                        self.accessor_uint("VEC4", 4, component::U16, true, &q)
                    }
                };
                attributes.insert(format!("JOINTS_{set}"), json!(ja));
                attributes.insert(format!("WEIGHTS_{set}"), json!(wa));
            }
            let mut prim = json!({ "attributes": attributes });
            if !p.targets.is_empty() {
                let targets: Vec<Value> = p
                    .targets
                    .iter()
                    .map(|(pos, nrm)| {
                        let mut t = Map::new();
                        t.insert("POSITION".into(), json!(self.accessor_positions(pos)));
                        if let Some(n) = nrm {
                            let flat: Vec<f32> = n.iter().flatten().copied().collect();
                            t.insert("NORMAL".into(), json!(self.accessor_f32("VEC3", 3, &flat)));
                        }
                        Value::Object(t)
                    })
                    .collect();
                prim["targets"] = json!(targets);
            }
            if let Some(idx) = &p.indices {
                let ct = if idx.iter().all(|&i| i < u16::MAX as u32) {
                    component::U16
                } else {
                    component::U32
                };
                prim["indices"] = json!(self.accessor_uint("SCALAR", 1, ct, false, idx));
            }
            prims.push(prim);
        }
        self.meshes
            .push(json!({ "name": name, "primitives": prims }));
        self.meshes.len() - 1
    }

    /// Sets mesh `mesh`'s default morph `weights` and, if given, its
    /// `extras.targetNames`.
    pub fn mesh_weights(&mut self, mesh: usize, weights: &[f32], names: Option<&[&str]>) {
        self.meshes[mesh]["weights"] = json!(weights);
        if let Some(names) = names {
            self.meshes[mesh]["extras"] = json!({ "targetNames": names });
        }
    }

    /// Adds a skin; `inverse_binds` (one per joint) become an accessor, or
    /// the property is left out when `None`. Returns the skin index.
    pub fn skin(&mut self, name: &str, joints: &[usize], inverse_binds: Option<&[Mat4]>) -> usize {
        let mut skin = json!({ "name": name, "joints": joints });
        if let Some(ibms) = inverse_binds {
            let flat: Vec<f32> = ibms.iter().flat_map(|m| m.to_cols_array()).collect();
            skin["inverseBindMatrices"] = json!(self.accessor_f32("MAT4", 16, &flat));
        }
        self.skins.push(skin);
        self.skins.len() - 1
    }

    /// Adds an animation, one sampler per channel; returns its index.
    pub fn animation(&mut self, name: &str, channels: Vec<Channel>) -> usize {
        let mut samplers = Vec::new();
        let mut chans = Vec::new();
        for ch in channels {
            let input = self.accessor_f32("SCALAR", 1, &ch.times);
            let (ty, n) = match ch.path {
                Path::Transform(Property::Rotation) => ("VEC4", 4),
                Path::Weights => ("SCALAR", 1),
                _ => ("VEC3", 3),
            };
            let output = self.accessor_f32(ty, n, &ch.values);
            // glTF requires min/max on animation inputs.
            let (lo, hi) = ch
                .times
                .iter()
                .fold((f32::MAX, f32::MIN), |(lo, hi), &t| (lo.min(t), hi.max(t)));
            if lo <= hi {
                self.accessors[input]["min"] = json!([lo]);
                self.accessors[input]["max"] = json!([hi]);
            }
            let interpolation = match ch.interpolation {
                Interpolation::Step => "STEP",
                Interpolation::Linear => "LINEAR",
                Interpolation::CubicSpline => "CUBICSPLINE",
            };
            samplers.push(json!({
                "input": input,
                "output": output,
                "interpolation": interpolation,
            }));
            let path = match ch.path {
                Path::Transform(Property::Translation) => "translation",
                Path::Transform(Property::Rotation) => "rotation",
                Path::Transform(Property::Scale) => "scale",
                Path::Weights => "weights",
            };
            chans.push(json!({
                "sampler": samplers.len() - 1,
                "target": { "node": ch.node, "path": path },
            }));
        }
        self.animations.push(json!({
            "name": name,
            "channels": chans,
            "samplers": samplers,
        }));
        self.animations.len() - 1
    }

    /// The binary buffer (what a `.glb` BIN chunk or the data URI holds).
    pub fn bin(&self) -> &[u8] {
        &self.bin
    }

    /// The JSON document with the buffer embedded as a base64 data URI.
    pub fn to_json(&self) -> Value {
        let uri = format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&self.bin)
        );
        self.document(Some(uri))
    }

    /// The JSON document with the buffer in an external file named by
    /// `bin_uri` (write [`GltfBuilder::bin`] there).
    pub fn to_json_external(&self, bin_uri: &str) -> Value {
        self.document(Some(bin_uri.to_owned()))
    }

    /// The `.gltf` bytes (buffer embedded).
    pub fn to_gltf(&self) -> Vec<u8> {
        gltf_bytes(&self.to_json())
    }

    /// The JSON document of the `.glb` form (the buffer has no URI: it is
    /// the BIN chunk), to edit and pack with [`glb_bytes`].
    pub fn to_json_glb(&self) -> Value {
        self.document(None)
    }

    /// The `.glb` bytes (buffer in the BIN chunk).
    pub fn to_glb(&self) -> Vec<u8> {
        glb_bytes(&self.document(None), &self.bin)
    }

    /// The document; `uri` is the buffer's URI (`None`: the GLB BIN chunk).
    fn document(&self, uri: Option<String>) -> Value {
        let nodes: Vec<Value> = self.nodes.iter().map(node_json).collect();
        let roots = self.scene.clone().unwrap_or_else(|| {
            (0..self.nodes.len())
                .filter(|i| !self.nodes.iter().any(|n| n.children.contains(i)))
                .collect()
        });
        let mut doc = json!({
            "asset": { "version": "2.0", "generator": "throng-tests gltf_builder" },
            "scene": 0,
            "scenes": [{ "nodes": roots }],
            "nodes": nodes,
        });
        let mut put = |key: &str, v: &[Value]| {
            if !v.is_empty() {
                doc[key] = Value::Array(v.to_vec());
            }
        };
        put("meshes", &self.meshes);
        put("skins", &self.skins);
        put("animations", &self.animations);
        put("accessors", &self.accessors);
        put("bufferViews", &self.views);
        if !self.bin.is_empty() {
            let mut buffer = json!({ "byteLength": self.bin.len() });
            if let Some(uri) = uri {
                buffer["uri"] = json!(uri);
            }
            doc["buffers"] = json!([buffer]);
        }
        doc
    }
}

fn node_json(n: &Node) -> Value {
    let mut v = json!({ "name": n.name });
    match n.transform {
        Transform::None => {}
        Transform::Trs {
            translation,
            rotation,
            scale,
        } => {
            v["translation"] = json!(translation.to_array());
            v["rotation"] = json!(rotation.to_array());
            v["scale"] = json!(scale.to_array());
        }
        Transform::Matrix(m) => v["matrix"] = json!(m.to_cols_array()),
    }
    if !n.children.is_empty() {
        v["children"] = json!(n.children);
    }
    if let Some(m) = n.mesh {
        v["mesh"] = json!(m);
    }
    if let Some(s) = n.skin {
        v["skin"] = json!(s);
    }
    v
}

/// A skinned, animated triangle: node 0 "joint" (animated, clip "move"),
/// node 1 "skinned" (mesh 0, skin 0). Accessors: 0 POSITION, 1 JOINTS_0,
/// 2 WEIGHTS_0, 3 indices, 4 inverse binds, 5 key times, 6 key values; each
/// has its own buffer view with the same index. The base of the malformed
/// and hostile glTF tests, which edit it.
pub fn skinned_triangle(
    indices: &[u32],
    joints: [[u16; 4]; 3],
    weights: [[f32; 4]; 3],
) -> GltfBuilder {
    let mut b = GltfBuilder::new();
    let joint = b.node(Node::new("joint"));
    let mesh = b.mesh(
        "tri",
        vec![
            Primitive::new(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
                .skin_set(&joints, &weights)
                .indices(indices),
        ],
    );
    let skin = b.skin("skin", &[joint], Some(&[Mat4::IDENTITY]));
    b.node(Node::new("skinned").mesh(mesh).skin(skin));
    b.animation(
        "move",
        vec![Channel::translation(
            joint,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[[0.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        )],
    );
    b
}

/// A document with an unskinned node "joint" (for channels to animate) and
/// a rigid triangle under node "rigid"; returns the builder and the joint.
pub fn rigid_triangle_and_joint() -> (GltfBuilder, usize) {
    let mut b = GltfBuilder::new();
    let joint = b.node(Node::new("joint"));
    let mesh = b.mesh(
        "tri",
        vec![Primitive::new(&[
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
        ])],
    );
    b.node(Node::new("rigid").mesh(mesh));
    (b, joint)
}

/// A rigid triangle under node "rigid" and one clip, "forever", that moves
/// node "joint" with a last key at `last_key` seconds: a hostile duration
/// for the bake's size checks.
pub fn long_clip(last_key: f32) -> Vec<u8> {
    let (mut b, joint) = rigid_triangle_and_joint();
    b.animation(
        "forever",
        vec![Channel::translation(
            joint,
            Interpolation::Linear,
            &[0.0, last_key],
            &[[0.0; 3]; 2],
        )],
    );
    b.to_gltf()
}

/// Serialises a (possibly edited) document as `.gltf` bytes.
pub fn gltf_bytes(doc: &Value) -> Vec<u8> {
    serde_json::to_vec_pretty(doc).expect("a JSON value serialises")
}

/// Packs a (possibly edited) document and a binary chunk as `.glb` bytes
/// (the BIN chunk is left out when `bin` is empty).
pub fn glb_bytes(doc: &Value, bin: &[u8]) -> Vec<u8> {
    let mut json = serde_json::to_vec(doc).expect("a JSON value serialises");
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let mut total = 12 + 8 + json.len();
    if !bin.is_empty() {
        total += 8 + bin.len();
    }
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    if !bin.is_empty() {
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
    }
    out
}
