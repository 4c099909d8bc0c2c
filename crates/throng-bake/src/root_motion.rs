//! Root motion: which node's motion it is, and its extraction clip by
//! clip (the horizontal motion since frame 0, removed from the poses so
//! that clips are baked in place); [`clip_globals`], the in-place pose that
//! both the rate search (`rate.rs`) and the sampling (`measure.rs`) take.

use crate::sample::PoseEvaluator;
use crate::scene::{Clip, Scene};
use glam::{Mat4, Vec3};
use throng_core::model::RootMotionKey;

use crate::error::BakeError;
use crate::options::RootMotionSource;

/// Resolves the root-motion node.
pub(crate) fn root_motion_node(scene: &Scene, src: &RootMotionSource) -> Result<u32, BakeError> {
    match src {
        RootMotionSource::Node(name) => scene
            .nodes
            .iter()
            .position(|n| &n.name == name)
            .map(|i| i as u32)
            .ok_or_else(|| BakeError::RootMotion(format!("no node named {name:?}"))),
        RootMotionSource::SkeletonRoot => {
            let skin = scene.skins.first().ok_or_else(|| {
                BakeError::RootMotion(
                    "the model has no skin, so no skeleton root; name the node: --root-motion NODE"
                        .into(),
                )
            })?;
            skin.joints
                .iter()
                .copied()
                .find(|&j| {
                    // No ancestor of j is a joint of this skin.
                    let mut p = scene.nodes[j as usize].parent;
                    while let Some(a) = p {
                        if skin.joints.contains(&a) {
                            return false;
                        }
                        p = scene.nodes[a as usize].parent;
                    }
                    true
                })
                .ok_or_else(|| BakeError::RootMotion("the first skin has no root joint".into()))
        }
    }
}

/// Extracts root motion clip by clip: the root's horizontal position `p` and
/// its heading (yaw about +y) relative to the clip's first frame.
///
/// Key `k` is `E_k = T(p_k − R_y(θ_k)·p₀) · R_y(θ_k)`, the motion since the
/// first frame pivoting about the root's start; the in-place correction
/// `C_k = T(p₀) · R_y(−θ_k) · T(−p_k)` keeps the root's horizontal position
/// and heading at their first-frame values, so `E_k · C_k = I` and
/// `world · E_k · (C_k · G_k) = world · G_k` reproduces the original motion.
#[derive(Clone, Debug)]
pub(crate) struct RootExtractor {
    pub(crate) p0: Vec3,
    /// Which column of the root's matrix serves as its heading.
    pub(crate) axis: usize,
    pub(crate) heading0: f32,
    pub(crate) last_yaw: f32,
}

impl RootExtractor {
    pub(crate) fn new(g0: &Mat4) -> Self {
        let cols = [g0.x_axis, g0.y_axis, g0.z_axis];
        let flat = |v: glam::Vec4| Vec3::new(v.x, 0.0, v.z).length();
        let axis = (0..3)
            .max_by(|&a, &b| flat(cols[a]).total_cmp(&flat(cols[b])))
            .unwrap_or(2);
        let heading0 = heading(&cols[axis]);
        Self {
            p0: horizontal(g0),
            axis,
            heading0,
            last_yaw: 0.0,
        }
    }

    pub(crate) fn frame(&mut self, g: &Mat4) -> (RootMotionKey, Mat4) {
        let col = [g.x_axis, g.y_axis, g.z_axis][self.axis];
        let mut yaw = if Vec3::new(col.x, 0.0, col.z).length() > 1e-6 {
            heading(&col) - self.heading0
        } else {
            self.last_yaw // the heading axis is vertical: keep the last yaw
        };
        // Continuous: no jump of 2π between frames.
        while yaw - self.last_yaw > std::f32::consts::PI {
            yaw -= std::f32::consts::TAU;
        }
        while yaw - self.last_yaw < -std::f32::consts::PI {
            yaw += std::f32::consts::TAU;
        }
        self.last_yaw = yaw;
        let p = horizontal(g);
        let rot = glam::Quat::from_rotation_y(yaw);
        let key = RootMotionKey {
            translation: (p - rot * self.p0).to_array(),
            yaw,
        };
        let correction = Mat4::from_translation(self.p0)
            * Mat4::from_quat(rot.inverse())
            * Mat4::from_translation(-p);
        (key, correction)
    }
}

/// Node globals of `clip` at time `t`; with a root-motion node, made in
/// place by `extractor` (created at the first call), returning the key.
pub(crate) fn clip_globals(
    eval: &PoseEvaluator,
    clip: &Clip,
    t: f32,
    root: Option<u32>,
    extractor: &mut Option<RootExtractor>,
    locals: &mut Vec<Mat4>,
    globals: &mut Vec<Mat4>,
) -> (RootMotionKey, Mat4) {
    eval.locals(Some(clip), t, locals);
    eval.globals_from_locals(locals, globals);
    let Some(r) = root else {
        return (RootMotionKey::default(), Mat4::IDENTITY);
    };
    let x = extractor.get_or_insert_with(|| RootExtractor::new(&globals[r as usize]));
    let (key, correction) = x.frame(&globals[r as usize]);
    for g in globals.iter_mut() {
        *g = correction * *g;
    }
    (key, correction)
}

pub(crate) fn horizontal(g: &Mat4) -> Vec3 {
    Vec3::new(g.w_axis.x, 0.0, g.w_axis.z)
}

/// Heading of a direction about +y: the angle `θ` with `R_y(θ)·ẑ` along it.
pub(crate) fn heading(v: &glam::Vec4) -> f32 {
    v.x.atan2(v.z)
}
