//! Morph targets in the source scene: the targets' offsets, the weight
//! channels, their sampling (glTF §3.11, per weight), the slot table that
//! turns (mesh instance, target) into the baked model's slots, and the
//! morphing the CPU reference and the baker apply before skinning.
//!
//! # Weights of an instance at a time
//! A weight channel on the instance's node, sampled at `t` (step, linear or
//! cubic spline, each weight on its own; before the first key the first
//! value, after the last the last); else the node's `weights`; else the
//! mesh's `weights`; else zeros.
//!
//! # Validity rules ([`validate`], rule 6 of [`Scene::validate`])
//! Every primitive of a mesh has as many targets as the mesh has target
//! names and default weights; every target has one offset per vertex (and
//! normals, if any, likewise), all finite. A node's `weights` has the
//! count of its mesh's targets. A weight channel names a node that shows
//! a mesh with targets, has strictly increasing finite non-negative key
//! times and `keys × (1 or 3) × targets` finite values.

use glam::Vec3;
use throng_core::limits::MAX_MORPH_SLOTS;
use throng_core::morph::MorphSlot;

use crate::error::SceneError;
use crate::scene::{Clip, Interpolation, Mesh, Scene};

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
    /// Writes the weights at time `t` into `out` (`targets` long).
    pub fn sample(&self, t: f32, out: &mut [f32]) {
        let n = self.targets as usize;
        let cubic = self.interpolation == Interpolation::CubicSpline;
        let stride = if cubic { 3 * n } else { n };
        // Element `part` (0: in-tangent, 1: value, 2: out-tangent for cubic
        // splines) of key k, weight i.
        let at = |k: usize, part: usize, i: usize| {
            let part = if cubic { part } else { 0 };
            self.values[k * stride + part * n + i]
        };
        let times = &self.times;
        let last = times.len() - 1;
        if t <= times[0] || t >= times[last] {
            let k = if t <= times[0] { 0 } else { last };
            for (i, o) in out.iter_mut().enumerate().take(n) {
                *o = at(k, 1, i);
            }
            return;
        }
        let k = times.partition_point(|&x| x <= t) - 1;
        let (t0, t1) = (times[k], times[k + 1]);
        let dt = t1 - t0;
        let s = (t - t0) / dt;
        for (i, o) in out.iter_mut().enumerate().take(n) {
            *o = match self.interpolation {
                Interpolation::Step => at(k, 1, i),
                Interpolation::Linear => at(k, 1, i) + (at(k + 1, 1, i) - at(k, 1, i)) * s,
                Interpolation::CubicSpline => crate::sample::hermite(
                    at(k, 1, i),
                    at(k, 2, i),
                    at(k + 1, 1, i),
                    at(k + 1, 0, i),
                    s,
                    dt,
                ),
            };
        }
    }

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

/// The baked model's slots: one per (mesh instance, target), named after
/// the target (prefixed by the node where two instances would clash).
pub fn slots(scene: &Scene) -> Vec<MorphSlot> {
    let shown: Vec<u32> = scene.instances.iter().map(|i| i.mesh).collect();
    let mut out = Vec::new();
    for inst in &scene.instances {
        let mesh = &scene.meshes[inst.mesh as usize];
        let shared = shown.iter().filter(|&&m| m == inst.mesh).count() > 1;
        for (t, name) in mesh.target_names.iter().enumerate() {
            out.push(MorphSlot {
                name: if shared {
                    format!("{}/{name}", scene.nodes[inst.node as usize].name)
                } else {
                    name.clone()
                },
                node: inst.node,
                mesh: inst.mesh,
                target: t as u32,
            });
        }
    }
    out
}

/// Every slot's weight for clip `clip` (`None`: the rest pose, default
/// weights) at time `t`, written into `out` (resized to the slot count).
pub fn weights_at(scene: &Scene, clip: Option<&Clip>, t: f32, out: &mut Vec<f32>) {
    out.clear();
    for inst in &scene.instances {
        let mesh = &scene.meshes[inst.mesh as usize];
        let n = target_count(mesh);
        if n == 0 {
            continue;
        }
        let start = out.len();
        out.resize(start + n, 0.0);
        let dst = &mut out[start..];
        if let Some(ch) = clip.and_then(|c| c.weights.iter().find(|w| w.node == inst.node)) {
            ch.sample(t, dst);
        } else if let Some(w) = &scene.nodes[inst.node as usize].weights {
            dst.copy_from_slice(&w[..n]);
        } else {
            for (d, w) in dst.iter_mut().zip(&mesh.weights) {
                *d = *w;
            }
        }
    }
}

/// Position and normal of vertex `v` of a primitive with its targets'
/// offsets weighted by `weights` (the instance's, one per target), in
/// target order: the reference's morph, before skinning.
pub fn morph_source(
    prim: &crate::scene::Primitive,
    v: usize,
    normal: Vec3,
    weights: &[f32],
) -> (Vec3, Vec3) {
    let mut p = prim.positions[v];
    let mut n = normal;
    for (target, &w) in prim.targets.iter().zip(weights) {
        p += target.positions[v] * w;
        if let Some(dn) = &target.normals {
            n += dn[v] * w;
        }
    }
    (p, n)
}

/// Rule 6 of [`Scene::validate`] (module docs).
pub fn validate(scene: &Scene) -> Result<(), SceneError> {
    for (m, mesh) in scene.meshes.iter().enumerate() {
        let n = target_count(mesh);
        let at = || format!("mesh {m} ({})", mesh.name);
        if mesh.weights.len() != n {
            return Err(SceneError::Length {
                what: "default morph weights",
                at: at(),
                expected: n,
                found: mesh.weights.len(),
            });
        }
        if mesh.weights.iter().any(|w| !w.is_finite()) {
            return Err(SceneError::NotFinite(format!(
                "default morph weights of {}",
                at()
            )));
        }
        for prim in &mesh.primitives {
            let at = || format!("mesh {m} primitive {}", prim.index);
            if prim.targets.len() != n {
                return Err(SceneError::Length {
                    what: "morph targets",
                    at: at(),
                    expected: n,
                    found: prim.targets.len(),
                });
            }
            let verts = prim.vertex_count();
            for (t, target) in prim.targets.iter().enumerate() {
                let what = |x: &str| format!("{x} of morph target {t} of {}", at());
                if target.positions.len() != verts
                    || target.normals.as_ref().is_some_and(|v| v.len() != verts)
                {
                    return Err(SceneError::Invalid(format!(
                        "{}: {} position and {} normal offsets for {verts} vertices",
                        what("offsets"),
                        target.positions.len(),
                        target.normals.as_ref().map_or(0, Vec::len)
                    )));
                }
                let finite = target.positions.iter().all(|v| v.is_finite())
                    && target
                        .normals
                        .as_ref()
                        .is_none_or(|n| n.iter().all(|v| v.is_finite()));
                if !finite {
                    return Err(SceneError::NotFinite(what("offsets")));
                }
            }
        }
    }
    let (_, total) = first_slots(scene);
    if total > MAX_MORPH_SLOTS {
        return Err(SceneError::Invalid(format!(
            "{total} morph slots (targets over mesh instances), more than {MAX_MORPH_SLOTS}"
        )));
    }
    for (i, node) in scene.nodes.iter().enumerate() {
        let Some(w) = &node.weights else { continue };
        let at = format!("node {i} ({})", node.name);
        if w.iter().any(|x| !x.is_finite()) {
            return Err(SceneError::NotFinite(format!("morph weights of {at}")));
        }
        for inst in scene.instances.iter().filter(|x| x.node as usize == i) {
            let n = target_count(&scene.meshes[inst.mesh as usize]);
            if w.len() != n {
                return Err(SceneError::Length {
                    what: "morph weights",
                    at,
                    expected: n,
                    found: w.len(),
                });
            }
        }
    }
    for (c, clip) in scene.clips.iter().enumerate() {
        for (k, ch) in clip.weights.iter().enumerate() {
            validate_channel(scene, c, clip, k, ch)?;
        }
    }
    Ok(())
}

fn validate_channel(
    scene: &Scene,
    c: usize,
    clip: &Clip,
    k: usize,
    ch: &WeightChannel,
) -> Result<(), SceneError> {
    let at = || format!("clip {c} ({}) weight channel {k}", clip.name);
    let Some(inst) = scene.instances.iter().find(|i| i.node == ch.node) else {
        return Err(SceneError::Invalid(format!(
            "{}: node {} shows no mesh",
            at(),
            ch.node
        )));
    };
    let n = target_count(&scene.meshes[inst.mesh as usize]);
    if n == 0 || ch.targets as usize != n {
        return Err(SceneError::Length {
            what: "morph weights per key",
            at: at(),
            expected: n,
            found: ch.targets as usize,
        });
    }
    crate::scene::validate_key_times(&ch.times, &at)?;
    let per_key = if ch.interpolation == Interpolation::CubicSpline {
        3
    } else {
        1
    };
    let expected = ch.times.len() * per_key * n;
    if ch.values.len() != expected {
        return Err(SceneError::Length {
            what: "morph weight values",
            at: at(),
            expected,
            found: ch.values.len(),
        });
    }
    if let Some(i) = ch.values.iter().position(|v| !v.is_finite()) {
        return Err(SceneError::NotFinite(format!(
            "morph weight {} of key {} of {}",
            i % n,
            i / (per_key * n),
            at()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(interpolation: Interpolation, values: Vec<f32>) -> WeightChannel {
        WeightChannel {
            node: 0,
            interpolation,
            times: vec![0.0, 1.0],
            values,
            targets: 2,
        }
    }

    #[test]
    fn weights_sample_per_target_with_each_interpolation() {
        let mut w = [0.0; 2];
        let lin = channel(Interpolation::Linear, vec![0.0, 1.0, 1.0, 0.0]);
        lin.sample(0.25, &mut w);
        assert_eq!(w, [0.25, 0.75]);
        lin.sample(-1.0, &mut w);
        assert_eq!(w, [0.0, 1.0]);
        lin.sample(9.0, &mut w);
        assert_eq!(w, [1.0, 0.0]);
        let step = channel(Interpolation::Step, vec![0.0, 1.0, 1.0, 0.0]);
        step.sample(0.99, &mut w);
        assert_eq!(w, [0.0, 1.0]);
        // Cubic with zero tangents: smoothstep between the values.
        let cubic = channel(
            Interpolation::CubicSpline,
            vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
        );
        cubic.sample(0.5, &mut w);
        assert_eq!(w, [0.5, 0.5]);
        cubic.sample(0.25, &mut w);
        assert!(
            (w[0] - 0.15625).abs() < 1e-6 && (w[1] - 0.84375).abs() < 1e-6,
            "{w:?}"
        );
    }
}
