//! The source scene: a glTF model's animation-relevant content, free of the
//! glTF crate.
//!
//! `throng-bake` imports a glTF file into a [`Scene`]; the baker turns it into
//! a [`throng_core::model::BakedModel`] and the CPU reference ([`crate::reference`])
//! evaluates it with glTF's own semantics. The scene keeps glTF's structure
//! (nodes, skins, meshes, node→mesh instances, animation channels), not the
//! baked palette form, so the reference stays independent of the palette
//! construction it checks.
//!
//! # Validity rules ([`Scene::validate`])
//! 1. Every node's parent index is in range and the hierarchy has no cycle.
//! 2. Every skin has as many inverse binds as joints; joints are valid nodes.
//! 3. Every instance names a valid node, mesh and (optional) skin.
//! 4. Every primitive's attribute arrays have one entry per vertex, its indices
//!    are below its vertex count and a multiple of 3 long, its joint indices
//!    are below the skin's joint count (checked per instance), and every float
//!    is finite.
//! 5. Every channel targets a valid node, has at least one key, strictly
//!    increasing finite non-negative times and finite values, with 1 value per
//!    key (3 for cubic spline).
//! 6. Morph targets and weights agree in count everywhere and are finite
//!    ([`validate::morph_rules`]).
//! 7. Every material's image exists; every image is 1..=`MAX_IMAGE_SIDE`
//!    texels a side and holds its RGBA8 texels.

use glam::{Mat4, Vec2, Vec3, Vec4};

pub use throng_core::material::{AlphaMode, Material, TextureWrap};
use throng_core::math::Trs;

pub(crate) mod targets;
pub(crate) mod validate;

/// An image as the glTF gave it, decoded to RGBA8 (rows top to bottom);
/// the bake makes its mip chain and stores it in the file's codec
/// (`throng_bake::images`).
#[derive(Clone, Debug, PartialEq)]
pub struct SourceImage {
    /// Image name or URI.
    pub name: String,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
    /// `width × height` RGBA8 texels.
    pub rgba: Vec<u8>,
}

/// A node's rest-pose local transform.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LocalTransform {
    /// Given as translation/rotation/scale (animatable).
    Trs(Trs),
    /// Given as a matrix. glTF forbids animating such nodes; if a clip does,
    /// the sampler decomposes the matrix.
    Matrix(Mat4),
}

impl LocalTransform {
    /// The local matrix.
    pub fn to_mat4(&self) -> Mat4 {
        match self {
            Self::Trs(trs) => trs.to_mat4(),
            Self::Matrix(m) => *m,
        }
    }

    /// The local transform as TRS (decomposing a matrix).
    pub fn to_trs(&self) -> Trs {
        match self {
            Self::Trs(trs) => *trs,
            Self::Matrix(m) => Trs::from_mat4(m),
        }
    }
}

/// One node of the hierarchy.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneNode {
    /// Node name (glTF `name`, or `node{index}` when absent).
    pub name: String,
    /// Parent node index; `None` for a scene root.
    pub parent: Option<u32>,
    /// Rest-pose local transform.
    pub rest: LocalTransform,
    /// Its mesh's morph weights (glTF `node.weights`), overriding the mesh's.
    pub weights: Option<Vec<f32>>,
}

/// A glTF skin: joints and their inverse bind matrices.
#[derive(Clone, Debug, PartialEq)]
pub struct Skin {
    /// Skin name.
    pub name: String,
    /// Joint node indices.
    pub joints: Vec<u32>,
    /// One inverse bind matrix per joint (identity where the file gives none).
    pub inverse_binds: Vec<Mat4>,
}

/// Index topology of a primitive (after conversion to triangle lists).
#[derive(Clone, Debug, PartialEq)]
pub struct Primitive {
    /// Index of this primitive in its glTF mesh.
    pub index: u32,
    /// Positions, in the mesh's own (bind-pose) space.
    pub positions: Vec<Vec3>,
    /// Normals; `None` if the file had none (the baker then computes them).
    pub normals: Option<Vec<Vec3>>,
    /// Tangents (xyz, w the bitangent's sign); `None` if the file had none
    /// (the baker generates MikkTSpace tangents where a normal map needs
    /// them). A zero-length one is kept: the bake stores it as "none".
    pub tangents: Option<Vec<Vec4>>,
    /// First texture coordinate set.
    pub uvs: Option<Vec<Vec2>>,
    /// Number of 4-wide influence sets (JOINTS_n/WEIGHTS_n pairs); 0 if unskinned.
    pub influence_sets: u32,
    /// Joint indices (into the skin's joints), vertex-major:
    /// `joints[(v * influence_sets + s) * 4 + k]`.
    pub joints: Vec<u16>,
    /// Weights, laid out like [`Self::joints`].
    pub weights: Vec<f32>,
    /// Triangle-list indices.
    pub indices: Vec<u32>,
    /// Material index, if any.
    pub material: Option<u32>,
    /// Morph targets (as many as the mesh's [`Mesh::target_names`]).
    pub targets: Vec<MorphTarget>,
}

impl Primitive {
    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Influences of vertex `v` as `(joint, weight)` pairs, all sets.
    pub fn influences(&self, v: usize) -> impl Iterator<Item = (u16, f32)> + '_ {
        let n = self.influence_sets as usize * 4;
        let range = v * n..(v + 1) * n;
        self.joints[range.clone()]
            .iter()
            .copied()
            .zip(self.weights[range].iter().copied())
    }
}

/// One morph target of a primitive: per-vertex offsets in the mesh's space.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct MorphTarget {
    /// Position offsets, one per vertex.
    pub positions: Vec<Vec3>,
    /// Normal offsets, one per vertex (`None`: the target moves no normal).
    pub normals: Option<Vec<Vec3>>,
}

/// The morph weights of one node, animated (glTF `weights` path).
#[derive(Clone, Debug, PartialEq)]
pub struct WeightChannel {
    /// Target node (it shows a mesh with morph targets).
    pub node: u32,
    /// Interpolation.
    pub interpolation: Interpolation,
    /// Key times in seconds, strictly increasing.
    pub times: Vec<f32>,
    /// Weights per key, `targets` at a time; for cubic splines
    /// `(in-tangents, values, out-tangents)` per key.
    pub values: Vec<f32>,
    /// Weights per key value (the mesh's target count).
    pub targets: u32,
}

impl WeightChannel {
    /// The last key time.
    pub fn duration(&self) -> f32 {
        self.times.last().copied().unwrap_or(0.0)
    }
}

/// A glTF mesh.
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    /// Mesh name.
    pub name: String,
    /// Its primitives, in file order (points and lines already dropped).
    pub primitives: Vec<Primitive>,
    /// Names of its morph targets (`extras.targetNames`, or `target{i}`).
    pub target_names: Vec<String>,
    /// Default morph weights, one per target (zeros where the file has none).
    pub weights: Vec<f32>,
}

/// A node that draws a mesh (glTF `node.mesh`), optionally skinned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeshInstance {
    /// The node holding the mesh.
    pub node: u32,
    /// The mesh.
    pub mesh: u32,
    /// The skin, if the node has one and the mesh carries joints and weights.
    pub skin: Option<u32>,
}

/// The animated property of a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Property {
    /// Translation (`Vec3` in xyz).
    Translation,
    /// Rotation (quaternion xyzw).
    Rotation,
    /// Scale (`Vec3` in xyz).
    Scale,
}

/// Keyframe interpolation (glTF §3.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// Hold the value of the previous key.
    Step,
    /// Linear (spherical linear, shortest path, for rotations).
    Linear,
    /// Cubic Hermite spline with in/out tangents.
    CubicSpline,
}

/// One animated property of one node.
#[derive(Clone, Debug, PartialEq)]
pub struct Channel {
    /// Target node.
    pub node: u32,
    /// Target property.
    pub property: Property,
    /// Interpolation.
    pub interpolation: Interpolation,
    /// Key times in seconds, strictly increasing.
    pub times: Vec<f32>,
    /// Values: one per key, or `(in_tangent, value, out_tangent)` per key for
    /// cubic splines. Vec3 properties use xyz (w = 0).
    pub values: Vec<Vec4>,
}

/// An animation clip.
#[derive(Clone, Debug, PartialEq)]
pub struct Clip {
    /// Clip name (glTF `name`, or `clip{index}` when absent).
    pub name: String,
    /// Channels. Nodes without a channel keep their rest value.
    pub channels: Vec<Channel>,
    /// Morph weight channels. Nodes without one keep their default weights.
    pub weights: Vec<WeightChannel>,
}

impl Clip {
    /// Duration: the latest key time over all channels (clips start at 0).
    pub fn duration(&self) -> f32 {
        self.channels
            .iter()
            .filter_map(|c| c.times.last().copied())
            .chain(self.weights.iter().map(WeightChannel::duration))
            .fold(0.0, f32::max)
    }
}

/// A whole source model.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Scene {
    /// Model name (file stem).
    pub name: String,
    /// Nodes in file order.
    pub nodes: Vec<SceneNode>,
    /// Skins in file order.
    pub skins: Vec<Skin>,
    /// Meshes in file order.
    pub meshes: Vec<Mesh>,
    /// Mesh instances in node order (the order of [`crate::reference`] output
    /// and of baked submeshes).
    pub instances: Vec<MeshInstance>,
    /// Clips in file order.
    pub clips: Vec<Clip>,
    /// Materials in file order.
    pub materials: Vec<Material>,
    /// Images in file order, decoded.
    pub images: Vec<SourceImage>,
    /// Named events on clips (from glTF animation extras or a sidecar file).
    pub events: Vec<throng_core::model::ClipEvent>,
}

impl Scene {
    /// Node indices ordered so that every parent comes before its children.
    ///
    /// Requires rule 1 ([`Self::validate`]); on a cyclic hierarchy the nodes
    /// on the cycle are left out.
    pub fn topological_order(&self) -> Vec<u32> {
        let n = self.nodes.len();
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut order = Vec::with_capacity(n);
        for (i, node) in self.nodes.iter().enumerate() {
            match node.parent {
                Some(p) if (p as usize) < n => children[p as usize].push(i as u32),
                _ => order.push(i as u32),
            }
        }
        let mut head = 0;
        while head < order.len() {
            let i = order[head] as usize;
            order.extend_from_slice(&children[i]);
            head += 1;
        }
        order
    }
}
