//! The CPU reference: glTF skinning evaluated directly on a [`Scene`].
//!
//! It is deliberately plain and independent of the baked palette: a skinned
//! primitive is `v' = Σ wᵢ · G(jointᵢ) · IBMᵢ · v` over *all* its influences
//! (weights renormalised to sum 1), a rigid primitive is `G(node) · v`, and the
//! transform of a node that holds a skinned mesh is ignored (glTF rule). The
//! baker's output is compared against this at every baked frame time.
//!
//! A vertex whose weights sum to zero is bound with weight 1 to joint 0 of its
//! skin (the baker applies the same rule and reports such vertices).
//!
//! Morph targets apply first, in the mesh's space: `v = v₀ + Σₜ wₜ Δvₜ` (and
//! the normal likewise) with the instance's weights at that time
//! ([`crate::morph::weights_at`]), then the vertex is skinned.

use glam::{Mat4, Vec3};

use crate::sample::PoseEvaluator;
use crate::scene::{MeshInstance, Scene};
use throng_core::math::{Rows3x4, mat4_to_rows, rows_transform_normal, rows_transform_point};

pub use throng_core::baked::SkinnedPrimitive;

/// Skins `scene` with clip `clip` (by index, `None` = rest pose) at time `t`.
pub fn sample(scene: &Scene, clip: Option<usize>, t: f32) -> Vec<SkinnedPrimitive> {
    let eval = PoseEvaluator::new(scene);
    let clip = clip.map(|c| &scene.clips[c]);
    let globals = eval.globals(clip, t);
    let mut weights = Vec::new();
    crate::morph::weights_at(scene, clip, t, &mut weights);
    skin_scene(scene, &globals, &weights)
}

/// A pose of the scene: node global matrices and morph slot weights.
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    /// Node global matrices.
    pub globals: Vec<Mat4>,
    /// Morph weights, one per slot ([`crate::morph::weights_at`]).
    pub weights: Vec<f32>,
}

impl Pose {
    /// The pose of clip `clip` (`None`: rest) at time `t`.
    pub fn of(scene: &Scene, clip: Option<usize>, t: f32) -> Self {
        let clip = clip.map(|c| &scene.clips[c]);
        let mut weights = Vec::new();
        crate::morph::weights_at(scene, clip, t, &mut weights);
        Self {
            globals: PoseEvaluator::new(scene).globals(clip, t),
            weights,
        }
    }
}

/// Cross-fade reference: skins with per-joint matrices mixed between two
/// poses, `M = (1 - fade) · M_prev + fade · M_cur`, matching the shader's
/// matrix blend, and morph weights mixed the same way.
pub fn sample_cross_fade(
    scene: &Scene,
    prev: &Pose,
    cur: &Pose,
    fade: f32,
) -> Vec<SkinnedPrimitive> {
    let mixed: Vec<Mat4> = prev
        .globals
        .iter()
        .zip(&cur.globals)
        .map(|(p, c)| *p * (1.0 - fade) + *c * fade)
        .collect();
    let weights: Vec<f32> = prev
        .weights
        .iter()
        .zip(&cur.weights)
        .map(|(p, c)| p * (1.0 - fade) + c * fade)
        .collect();
    // Mixing globals node-by-node then multiplying by IBM equals mixing the
    // joint matrices, since `(a·P + b·C)·IBM = a·P·IBM + b·C·IBM`.
    skin_scene(scene, &mixed, &weights)
}

/// The joint matrices `G(joint) · IBM` of a mesh instance's skin, in joint
/// order (none for an instance without a skin).
pub fn joint_matrices<'a>(
    scene: &'a Scene,
    inst: &MeshInstance,
    globals: &'a [Mat4],
) -> impl Iterator<Item = Mat4> + 'a {
    inst.skin
        .map(|s| &scene.skins[s as usize])
        .into_iter()
        .flat_map(move |skin| {
            skin.joints
                .iter()
                .zip(&skin.inverse_binds)
                .map(move |(&j, ibm)| globals[j as usize] * *ibm)
        })
}

/// Skins every mesh instance of `scene` given node global matrices and
/// morph slot weights (`weights`: one per slot, as
/// [`crate::morph::weights_at`] gives them).
///
/// Output order: scene instances in order, primitives in mesh order.
pub fn skin_scene(scene: &Scene, globals: &[Mat4], weights: &[f32]) -> Vec<SkinnedPrimitive> {
    let mut out = Vec::new();
    let (firsts, _) = crate::morph::first_slots(scene);
    for (inst, first) in scene.instances.iter().zip(firsts) {
        let mesh = &scene.meshes[inst.mesh as usize];
        let w = &weights[first as usize..first as usize + crate::morph::target_count(mesh)];
        let joint_mats: Vec<Mat4> = joint_matrices(scene, inst, globals).collect();
        for prim in &mesh.primitives {
            let n = prim.vertex_count();
            let mut positions = Vec::with_capacity(n);
            let mut normals = Vec::with_capacity(if prim.normals.is_some() { n } else { 0 });
            for v in 0..n {
                let m = if inst.skin.is_some() {
                    blend_joints(&joint_mats, prim.influences(v))
                } else {
                    globals[inst.node as usize]
                };
                let rows: Rows3x4 = mat4_to_rows(&m);
                let normal = prim.normals.as_ref().map_or(Vec3::ZERO, |src| src[v]);
                let (p, nrm) = crate::morph::morph_source(prim, v, normal, w);
                positions.push(rows_transform_point(&rows, p));
                if prim.normals.is_some() {
                    normals.push(rows_transform_normal(&rows, nrm));
                }
            }
            out.push(SkinnedPrimitive {
                node: inst.node,
                mesh: inst.mesh,
                primitive: prim.index,
                positions,
                normals,
            });
        }
    }
    out
}

/// Positions only of [`skin_scene`], written into `out` (one `Vec` per
/// primitive, in the same order; reused between calls) with `joints` as
/// scratch: the same arithmetic in 3×4 rows, without normals or
/// allocations, for callers that skin thousands of poses (the bake's error
/// measurement). Agrees with [`skin_scene`]'s positions to f32 rounding.
pub fn skin_positions(
    scene: &Scene,
    globals: &[Mat4],
    weights: &[f32],
    joints: &mut Vec<Rows3x4>,
    out: &mut Vec<Vec<Vec3>>,
) {
    let mut slot = 0;
    let mut first = 0usize;
    for inst in &scene.instances {
        let mesh = &scene.meshes[inst.mesh as usize];
        let targets = crate::morph::target_count(mesh);
        let w = &weights[first..first + targets];
        first += targets;
        joints.clear();
        joints.extend(joint_matrices(scene, inst, globals).map(|m| mat4_to_rows(&m)));
        let rigid = mat4_to_rows(&globals[inst.node as usize]);
        for prim in &mesh.primitives {
            if out.len() <= slot {
                out.push(Vec::new());
            }
            let positions = &mut out[slot];
            slot += 1;
            positions.clear();
            positions.extend((0..prim.vertex_count()).map(|v| {
                let m = if inst.skin.is_some() {
                    blend_joint_rows(joints, prim.influences(v))
                } else {
                    rigid
                };
                let p = if targets == 0 {
                    prim.positions[v]
                } else {
                    crate::morph::morph_source(prim, v, Vec3::ZERO, w).0
                };
                rows_transform_point(&m, p)
            }));
        }
    }
    out.truncate(slot);
}

/// [`blend_joints`] in 3×4 rows.
fn blend_joint_rows(joints: &[Rows3x4], influences: impl Iterator<Item = (u16, f32)>) -> Rows3x4 {
    let mut sum = [glam::Vec4::ZERO; 3];
    let mut total = 0.0f32;
    for (j, w) in influences {
        if w > 0.0 {
            let m = &joints[j as usize];
            for r in 0..3 {
                sum[r] += m[r] * w;
            }
            total += w;
        }
    }
    if total > 0.0 {
        let k = 1.0 / total;
        sum.map(|r| r * k)
    } else {
        joints[0]
    }
}

/// `Σ wᵢ Jᵢ / Σ wᵢ`, or `J₀` when the weights sum to zero.
fn blend_joints(joints: &[Mat4], influences: impl Iterator<Item = (u16, f32)>) -> Mat4 {
    let mut sum = Mat4::ZERO;
    let mut total = 0.0f32;
    for (j, w) in influences {
        if w > 0.0 {
            sum += joints[j as usize] * w;
            total += w;
        }
    }
    if total > 0.0 {
        sum * (1.0 / total)
    } else {
        joints[0]
    }
}
