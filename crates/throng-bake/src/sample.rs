//! Clip sampling and pose evaluation, following the glTF 2.0 specification.
//!
//! * Before a channel's first key its first value holds; after its last key,
//!   its last value.
//! * STEP holds the previous key; LINEAR interpolates (rotations by spherical
//!   linear interpolation along the shortest path); CUBICSPLINE is the Hermite
//!   spline of glTF Appendix C with tangents scaled by the key interval.
//! * Every sampled rotation is normalised.
//! * Channels absent from a clip leave the node at its rest value.

use glam::{Mat4, Quat, Vec3, Vec4};

use crate::scene::{Channel, Clip, Interpolation, LocalTransform, Property, Scene};
use throng_core::math::Trs;

/// Samples one channel at time `t` (seconds). Vec3 properties come back in
/// xyz; rotations as a normalised quaternion in xyzw.
///
/// The channel must satisfy [`Scene::validate`] rule 5 (non-empty, increasing
/// times, matching value count).
pub fn sample_channel(ch: &Channel, t: f32) -> Vec4 {
    let cubic = ch.interpolation == Interpolation::CubicSpline;
    // For cubic splines the value of key k is element 3k+1.
    let value = |k: usize| {
        if cubic {
            ch.values[3 * k + 1]
        } else {
            ch.values[k]
        }
    };
    let times = &ch.times;
    let last = times.len() - 1;
    let raw = if t <= times[0] {
        value(0)
    } else if t >= times[last] {
        value(last)
    } else {
        // times[k] <= t < times[k + 1]
        let k = times.partition_point(|&x| x <= t) - 1;
        let (t0, t1) = (times[k], times[k + 1]);
        let dt = t1 - t0;
        let s = (t - t0) / dt;
        match ch.interpolation {
            Interpolation::Step => value(k),
            Interpolation::Linear => {
                if ch.property == Property::Rotation {
                    let a = Quat::from_vec4(value(k));
                    let b = Quat::from_vec4(value(k + 1));
                    Vec4::from(slerp_shortest(a, b, s))
                } else {
                    value(k).lerp(value(k + 1), s)
                }
            }
            Interpolation::CubicSpline => {
                let v0 = ch.values[3 * k + 1];
                let b0 = ch.values[3 * k + 2]; // out-tangent of key k
                let a1 = ch.values[3 * (k + 1)]; // in-tangent of key k+1
                let v1 = ch.values[3 * (k + 1) + 1];
                hermite(v0, b0, v1, a1, s, dt)
            }
        }
    };
    if ch.property == Property::Rotation {
        normalize_quat(raw)
    } else {
        raw
    }
}

/// glTF's cubic spline between key values `v0` and `v1` with `v0`'s
/// out-tangent `b0` and `v1`'s in-tangent `a1`, at `s` in `[0, 1]` of a key
/// interval `dt` long (Appendix C); for transforms and morph weights alike.
pub(crate) fn hermite<T>(v0: T, b0: T, v1: T, a1: T, s: f32, dt: f32) -> T
where
    T: Copy + std::ops::Mul<f32, Output = T> + std::ops::Add<Output = T>,
{
    let s2 = s * s;
    let s3 = s2 * s;
    v0 * (2.0 * s3 - 3.0 * s2 + 1.0)
        + b0 * (dt * (s3 - 2.0 * s2 + s))
        + v1 * (-2.0 * s3 + 3.0 * s2)
        + a1 * (dt * (s3 - s2))
}

/// Spherical linear interpolation taking the shortest path (negating `b` when
/// the quaternions lie in opposite hemispheres).
pub fn slerp_shortest(a: Quat, b: Quat, s: f32) -> Quat {
    let mut d = a.dot(b);
    let b = if d < 0.0 {
        d = -d;
        -b
    } else {
        b
    };
    if d > 0.9995 {
        // Nearly parallel: normalised lerp avoids dividing by sin(≈0).
        return Quat::from_vec4(Vec4::from(a).lerp(Vec4::from(b), s)).normalize();
    }
    let theta = d.clamp(-1.0, 1.0).acos();
    let sin = theta.sin();
    let wa = ((1.0 - s) * theta).sin() / sin;
    let wb = (s * theta).sin() / sin;
    Quat::from_vec4(Vec4::from(a) * wa + Vec4::from(b) * wb)
}

fn normalize_quat(v: Vec4) -> Vec4 {
    let len = v.length();
    if len > 0.0 && len.is_finite() {
        v / len
    } else {
        Vec4::W
    }
}

/// Evaluates node transforms of a [`Scene`]: rest pose or a clip at a time.
///
/// Build once per scene; it caches the topological order and the rest values.
#[derive(Clone, Debug)]
pub struct PoseEvaluator {
    order: Vec<u32>,
    parents: Vec<Option<u32>>,
    rest: Vec<LocalTransform>,
}

impl PoseEvaluator {
    /// Prepares evaluation of `scene` (which must satisfy [`Scene::validate`]).
    pub fn new(scene: &Scene) -> Self {
        Self {
            order: scene.topological_order(),
            parents: scene.nodes.iter().map(|n| n.parent).collect(),
            rest: scene.nodes.iter().map(|n| n.rest).collect(),
        }
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.rest.len()
    }

    /// Local matrices of every node for `clip` at time `t`, or the rest pose
    /// when `clip` is `None`.
    pub fn locals(&self, clip: Option<&Clip>, t: f32, out: &mut Vec<Mat4>) {
        out.clear();
        out.extend(self.rest.iter().map(LocalTransform::to_mat4));
        let Some(clip) = clip else { return };
        // Gather the animated properties per node, starting from rest values.
        let mut animated: Vec<(u32, Trs)> = Vec::new();
        for ch in &clip.channels {
            let node = ch.node;
            let slot = match animated.iter().position(|(n, _)| *n == node) {
                Some(i) => i,
                None => {
                    animated.push((node, self.rest[node as usize].to_trs()));
                    animated.len() - 1
                }
            };
            let v = sample_channel(ch, t);
            let trs = &mut animated[slot].1;
            match ch.property {
                Property::Translation => trs.translation = v.truncate(),
                Property::Rotation => trs.rotation = Quat::from_vec4(v),
                Property::Scale => trs.scale = v.truncate(),
            }
        }
        for (node, trs) in animated {
            out[node as usize] = trs.to_mat4();
        }
    }

    /// Global (model-space) matrices from local matrices:
    /// `global[n] = global[parent] * local[n]`.
    pub fn globals_from_locals(&self, locals: &[Mat4], out: &mut Vec<Mat4>) {
        out.clear();
        out.resize(self.rest.len(), Mat4::IDENTITY);
        for &n in &self.order {
            let n = n as usize;
            out[n] = match self.parents[n] {
                Some(p) => out[p as usize] * locals[n],
                None => locals[n],
            };
        }
    }

    /// Global matrices of every node for `clip` at `t` (rest pose if `None`).
    pub fn globals(&self, clip: Option<&Clip>, t: f32) -> Vec<Mat4> {
        let mut locals = Vec::new();
        let mut globals = Vec::new();
        self.locals(clip, t, &mut locals);
        self.globals_from_locals(&locals, &mut globals);
        globals
    }
}

/// Convenience: rest-pose global matrices of a scene.
pub fn rest_globals(scene: &Scene) -> Vec<Mat4> {
    PoseEvaluator::new(scene).globals(None, 0.0)
}

/// Translation part of a matrix.
pub fn translation_of(m: &Mat4) -> Vec3 {
    m.w_axis.truncate()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn channel(
        property: Property,
        interpolation: Interpolation,
        times: &[f32],
        values: &[Vec4],
    ) -> Channel {
        Channel {
            node: 0,
            property,
            interpolation,
            times: times.to_vec(),
            values: values.to_vec(),
        }
    }

    #[test]
    fn step_holds_previous_key_and_clamps_outside() {
        let ch = channel(
            Property::Translation,
            Interpolation::Step,
            &[1.0, 2.0],
            &[Vec4::X, Vec4::Y],
        );
        assert_eq!(sample_channel(&ch, 0.0), Vec4::X); // before first key
        assert_eq!(sample_channel(&ch, 1.999), Vec4::X);
        assert_eq!(sample_channel(&ch, 2.0), Vec4::Y);
        assert_eq!(sample_channel(&ch, 9.0), Vec4::Y);
    }

    #[test]
    fn linear_rotation_takes_shortest_path() {
        // 350° about z is -10°: halfway from 0° to 350° must be -5°, not 175°.
        let a = Quat::IDENTITY;
        let b = Quat::from_rotation_z(350f32.to_radians());
        let ch = channel(
            Property::Rotation,
            Interpolation::Linear,
            &[0.0, 1.0],
            &[Vec4::from(a), Vec4::from(b)],
        );
        let q = Quat::from_vec4(sample_channel(&ch, 0.5));
        let expected = Quat::from_rotation_z((-5f32).to_radians());
        assert!(q.dot(expected).abs() > 1.0 - 1e-6, "{q:?}");
    }

    #[test]
    fn cubic_spline_matches_hermite_by_hand() {
        // One dimension, keys at 0 and 2: v0 = 0, out-tangent 1; v1 = 1, in-tangent 0.
        let v = |x: f32| Vec4::new(x, 0.0, 0.0, 0.0);
        let ch = channel(
            Property::Translation,
            Interpolation::CubicSpline,
            &[0.0, 2.0],
            &[v(9.0), v(0.0), v(1.0), v(0.0), v(1.0), v(9.0)],
        );
        // s = 0.5, dt = 2: h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = -0.125.
        // p = 0.5*0 + 0.125*2*1 + 0.5*1 + (-0.125)*2*0 = 0.75
        let p = sample_channel(&ch, 1.0).x;
        assert!((p - 0.75).abs() < 1e-6, "{p}");
        // Keys themselves return the value element, not a tangent.
        assert_eq!(sample_channel(&ch, 0.0).x, 0.0);
        assert_eq!(sample_channel(&ch, 2.0).x, 1.0);
    }

    #[test]
    fn sampled_rotations_are_normalised() {
        let ch = channel(
            Property::Rotation,
            Interpolation::Step,
            &[0.0],
            &[Vec4::new(0.0, 0.0, 0.0, 1.02)],
        );
        assert!((sample_channel(&ch, 0.0).length() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn slerp_endpoints_and_midpoint() {
        let a = Quat::from_rotation_y(0.2);
        let b = Quat::from_rotation_y(1.4);
        assert!(slerp_shortest(a, b, 0.0).dot(a) > 1.0 - 1e-6);
        assert!(slerp_shortest(a, b, 1.0).dot(b) > 1.0 - 1e-6);
        assert!(slerp_shortest(a, b, 0.5).dot(Quat::from_rotation_y(0.8)) > 1.0 - 1e-6);
    }
}
