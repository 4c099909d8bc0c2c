//! Morph targets at the source, above the scene model: the weight
//! channels' sampling (glTF §3.11, per weight), the slot table that turns
//! (mesh instance, target) into the baked model's slots, and the morphing
//! the CPU reference and the baker apply before skinning. The targets and
//! channels themselves, their counts and rule 6 of [`Scene::validate`] are
//! the scene model's ([`crate::scene`]), re-exported here.
//!
//! # Weights of an instance at a time
//! A weight channel on the instance's node, sampled at `t` (step, linear or
//! cubic spline, each weight on its own; before the first key the first
//! value, after the last the last); else the node's `weights`; else the
//! mesh's `weights`; else zeros.

use glam::Vec3;
use throng_core::morph::MorphSlot;

pub use crate::scene::targets::{first_slots, target_count};
pub use crate::scene::validate::morph_rules as validate;
use crate::scene::{Clip, Interpolation, Primitive, Scene};
pub use crate::scene::{MorphTarget, WeightChannel};

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
pub fn morph_source(prim: &Primitive, v: usize, normal: Vec3, weights: &[f32]) -> (Vec3, Vec3) {
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
