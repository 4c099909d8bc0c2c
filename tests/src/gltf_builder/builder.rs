//! [`GltfBuilder`]: nodes, accessors (each in its own 4-byte aligned buffer
//! view), meshes, skins and animations appended to one binary buffer, and
//! the JSON document written from them.

use base64::Engine as _;
use glam::Mat4;
use serde_json::{Map, Value, json};

use super::{
    Channel, Interpolation, JointType, Node, Path, Primitive, Property, Transform, WeightType,
    component, glb_bytes, gltf_bytes,
};

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
