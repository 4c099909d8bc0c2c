//! Morph targets as the source scene holds them: each primitive's targets'
//! offsets ([`MorphTarget`]), a clip's weight channels ([`WeightChannel`];
//! their sampling is [`crate::morph`]'s), and the target counts and first
//! slots of the mesh instances. Part of the scene model, so that the
//! scene's validity rules (rule 6 is about morphs) need nothing above it.

use glam::Vec3;

use super::{Interpolation, Mesh, Scene};

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

/// Morph targets of a mesh (those of its first primitive; rule 6 makes
/// every primitive agree).
pub fn target_count(mesh: &Mesh) -> usize {
    mesh.target_names.len()
}

/// The first slot of every mesh instance, and the total: slots run over the
/// instances in order, each instance taking its mesh's target count.
pub fn first_slots(scene: &Scene) -> (Vec<u32>, u32) {
    let mut next = 0u32;
    let firsts = scene
        .instances
        .iter()
        .map(|inst| {
            let first = next;
            next += target_count(&scene.meshes[inst.mesh as usize]) as u32;
            first
        })
        .collect();
    (firsts, next)
}
