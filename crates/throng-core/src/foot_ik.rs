//! Feet planted on real ground by two-bone IK: the CPU twin of the GPU's
//! IK pass (`throng-render/src/passes/foot_ik.wgsl`), operation for
//! operation, and the legs it bends.
//!
//! * **Legs** ([`legs`]): each foot of [`crate::contacts::feet`] (a leaf
//!   joint near the bottom of the model) with its parent as the knee and
//!   its grandparent as the hip (the Fox's hind legs bend at the hock, its
//!   forelegs at the elbow); a foot whose chain is shorter, or whose
//!   segments have no length, is no leg. At most [`MAX_LEGS`].
//! * **Targets**: in the baked clip each foot stands `y − ground` above the
//!   clip's ground (`ground`: [`crate::contacts::ClipContacts::ground`],
//!   the clip's lowest foot). On real ground the same foot is put that
//!   high above the ground under it: a planted foot (at its contact phase,
//!   `y − ground` is its lift, its sole on the plane) meets the terrain, a
//!   swinging one keeps its clearance. Heights are world heights, scaled
//!   by the instance's vertical scale.
//! * **Pelvis**: the whole pose is lowered by the most any foot must go
//!   down (never raised), at most half the shortest leg, so the leg that
//!   reaches furthest down can.
//! * **Two bones**: the hip turns by the shortest rotation taking the knee
//!   to where the law of cosines puts it, in the plane of the hip, the
//!   target and the knee's present bend (the knee's plane); then the knee
//!   turns the foot onto the target (out of reach: the leg straightens
//!   toward it). Every bone below a turned joint turns with it.

use glam::{Mat4, Quat, Vec3, Vec4};

use crate::ground::Ground;
use crate::model::BakedModel;

/// Most legs a model's IK bends.
pub const MAX_LEGS: usize = 4;

/// One leg: its three joints (palette indices) and its segments' rest
/// lengths.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leg {
    /// The hip (the foot's grandparent).
    pub hip: u32,
    /// The knee (the foot's parent).
    pub knee: u32,
    /// The foot (a leaf).
    pub foot: u32,
}

/// The model's legs (see the module docs).
pub fn legs(model: &BakedModel) -> Vec<Leg> {
    let joint = |b: u32| model.bones[b as usize].rest_global.w_axis.truncate();
    crate::contacts::feet(model)
        .into_iter()
        .filter_map(|foot| {
            let knee = model.bones[foot as usize].parent?;
            let hip = model.bones[knee as usize].parent?;
            let long = |a: u32, b: u32| joint(a).distance(joint(b)) > 1e-6;
            (long(hip, knee) && long(knee, foot)).then_some(Leg { hip, knee, foot })
        })
        .take(MAX_LEGS)
        .collect()
}

/// The skeleton IK reads: each bone's parent and bind matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct IkSkeleton {
    /// Per bone, its parent.
    pub parents: Vec<Option<u32>>,
    /// Per bone, the bind matrix (inverse of the inverse bind).
    pub bind: Vec<Mat4>,
    /// The legs.
    pub legs: Vec<Leg>,
}

impl IkSkeleton {
    /// `model`'s.
    pub fn of(model: &BakedModel) -> Self {
        Self {
            parents: model.bones.iter().map(|b| b.parent).collect(),
            bind: model
                .bones
                .iter()
                .map(|b| b.inverse_bind.inverse())
                .collect(),
            legs: legs(model),
        }
    }

    /// True if `bone` is `joint` or below it.
    pub fn under(&self, bone: u32, joint: u32) -> bool {
        let mut b = Some(bone);
        for _ in 0..=self.parents.len() {
            match b {
                Some(x) if x == joint => return true,
                Some(x) => b = self.parents.get(x as usize).copied().flatten(),
                None => return false,
            }
        }
        false
    }

    /// Joint `b`'s model-space position under `palette`.
    pub fn joint(&self, palette: &[Mat4], b: u32) -> Vec3 {
        (palette[b as usize] * self.bind[b as usize]).transform_point3(Vec3::ZERO)
    }
}

/// The rotation taking direction `from` to direction `to` (shortest arc;
/// identity for a degenerate pair).
pub fn arc(from: Vec3, to: Vec3) -> Quat {
    let (a, b) = (from.normalize_or_zero(), to.normalize_or_zero());
    let d = a.dot(b);
    let axis = a.cross(b);
    if a == Vec3::ZERO || b == Vec3::ZERO || axis.length_squared() < 1e-14 || d > 1.0 - 1e-7 {
        return Quat::IDENTITY;
    }
    Quat::from_xyzw(axis.x, axis.y, axis.z, 1.0 + d).normalize()
}

/// The turn about `pivot` by `q`, as a matrix.
fn about(pivot: Vec3, q: Quat) -> Mat4 {
    Mat4::from_translation(pivot) * Mat4::from_quat(q) * Mat4::from_translation(-pivot)
}

/// Where the knee goes for hip `h`, target `t`, segment lengths `a`
/// (hip–knee) and `b` (knee–foot), bending toward `bend` (a direction
/// away from the hip–target line): the law of cosines, the reach clamped
/// just inside `[|a − b|, a + b]`.
pub fn knee_at(h: Vec3, t: Vec3, a: f32, b: f32, bend: Vec3) -> Vec3 {
    let to = t - h;
    let dir = to.normalize_or(Vec3::NEG_Y);
    let d = to
        .length()
        .clamp((a - b).abs() + 1e-4 * (a + b), (a + b) * (1.0 - 1e-4));
    let side = (bend - dir * bend.dot(dir)).normalize_or(dir.any_orthonormal_vector());
    let cos = ((a * a + d * d - b * b) / (2.0 * a * d)).clamp(-1.0, 1.0);
    h + a * (dir * cos + side * (1.0 - cos * cos).max(0.0).sqrt())
}

/// Plants `palette`'s feet (model-space skinning matrices of one
/// instance, one per bone) on `ground`: the instance's world transform
/// `world` (rows of a 3×4 affine), the played clip's ground height
/// `clip_ground`. Returns how far the pose was lowered (model units, ≤ 0).
pub fn plant_feet(
    skeleton: &IkSkeleton,
    palette: &mut [Mat4],
    world: [Vec4; 3],
    clip_ground: f32,
    ground: &Ground,
) -> f32 {
    if skeleton.legs.is_empty() || palette.len() < skeleton.parents.len() {
        return 0.0;
    }
    let w = crate::math::rows_to_mat4(&world);
    let inverse = w.inverse();
    let scale = w.y_axis.truncate().length().max(1e-12);
    // Each foot's target, model space.
    let targets: Vec<Vec3> = skeleton
        .legs
        .iter()
        .map(|leg| {
            let f = skeleton.joint(palette, leg.foot);
            let fw = w.transform_point3(f);
            let h = ground.height_at(glam::Vec2::new(fw.x, fw.z));
            let y = h + (f.y - clip_ground) * scale;
            inverse.transform_point3(Vec3::new(fw.x, y, fw.z))
        })
        .collect();
    let shortest = skeleton
        .legs
        .iter()
        .map(|l| {
            let (h, k, f) = (
                skeleton.joint(palette, l.hip),
                skeleton.joint(palette, l.knee),
                skeleton.joint(palette, l.foot),
            );
            h.distance(k) + k.distance(f)
        })
        .fold(f32::MAX, f32::min);
    let drop = skeleton
        .legs
        .iter()
        .zip(&targets)
        .map(|(l, t)| t.y - skeleton.joint(palette, l.foot).y)
        .fold(0.0f32, f32::min)
        .max(-0.5 * shortest);
    let lower = Mat4::from_translation(Vec3::new(0.0, drop, 0.0));
    for m in palette.iter_mut() {
        *m = lower * *m;
    }
    for (leg, &t) in skeleton.legs.iter().zip(&targets) {
        let h = skeleton.joint(palette, leg.hip);
        let k = skeleton.joint(palette, leg.knee);
        let f = skeleton.joint(palette, leg.foot);
        let (a, b) = (h.distance(k), k.distance(f));
        // The knee's present bend: its offset from the hip–foot line.
        let u = (f - h).normalize_or(Vec3::NEG_Y);
        let bend = (k - h) - u * (k - h).dot(u);
        let k2 = knee_at(h, t, a, b, bend);
        let hip_turn = about(h, arc(k - h, k2 - h));
        let f1 = hip_turn.transform_point3(f);
        let knee_turn = about(k2, arc(f1 - k2, t - k2));
        for (bone, m) in palette.iter_mut().enumerate() {
            let bone = bone as u32;
            if skeleton.under(bone, leg.knee) {
                *m = knee_turn * hip_turn * *m;
            } else if skeleton.under(bone, leg.hip) {
                *m = hip_turn * *m;
            }
        }
    }
    drop
}
