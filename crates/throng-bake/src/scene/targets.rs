//! The morph target counts of the scene's meshes and the first slot of
//! each mesh instance: scene arithmetic that the validity rules (rule 6),
//! the mesh conversion and the reference share, below all of them
//! (`throng_bake::morph` re-exports it).

use super::{Mesh, Scene};

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
