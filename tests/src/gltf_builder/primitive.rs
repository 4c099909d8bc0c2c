//! Mesh primitives of the built document: positions, normals, UVs, morph
//! targets, indices and JOINTS_n/WEIGHTS_n sets with their storage types.

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

/// A mesh primitive to add with [`GltfBuilder::mesh`](super::GltfBuilder::mesh). Triangles.
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
