//! The clip time nearest a pose: where a demoted character whose pose the
//! game changed (its animation stopped, bones moved by IK, a ragdoll)
//! rejoins its crowd. Every baked frame of every clip is compared with the
//! character's joints in model space ([`Joints`]: the entities below the
//! character named as the model's bones), by the sum of squared distances
//! of the joints both have; the nearest frame's clip and time win.

use bevy::ecs::system::SystemParam;
use bevy::prelude::{Children, Entity, GlobalTransform, Name, Query};
use glam::{Mat4, Vec3};
use throng_core::BakedModel;
use throng_core::layout::frame_time;
use throng_core::math::rows_to_mat4;

/// The clip and clip time (seconds) of the baked frame nearest `joints`
/// (per bone of `model`, its joint's model-space position, `None` where
/// the character has no such joint); `bind` is each bone's
/// `inverse(inverse_bind)`. `None` when no joint is known or the model
/// has no clip.
pub fn nearest_clip_time(
    model: &BakedModel,
    bind: &[Mat4],
    joints: &[Option<Vec3>],
) -> Option<(usize, f32)> {
    if joints.iter().all(Option::is_none) {
        return None;
    }
    let mut best: Option<(f32, usize, f32)> = None;
    for (c, clip) in model.clips.iter().enumerate() {
        for k in 0..clip.frame_count {
            let frame = clip.first_frame + k;
            let d = distance(model, bind, joints, frame);
            if best.is_none_or(|(b, _, _)| d < b) {
                let time = frame_time(k, clip.frame_count, clip.duration);
                best = Some((d, c, time));
            }
        }
    }
    best.map(|(_, c, t)| (c, t))
}

/// Sum of squared distances between `joints` and the bones of global
/// frame `frame`.
fn distance(model: &BakedModel, bind: &[Mat4], joints: &[Option<Vec3>], frame: u32) -> f32 {
    joints
        .iter()
        .enumerate()
        .filter_map(|(b, j)| Some((b, (*j)?)))
        .map(|(b, j)| {
            let at = rows_to_mat4(&model.palette_rows(b as u32, frame)) * bind[b];
            at.transform_point3(Vec3::ZERO).distance_squared(j)
        })
        .sum()
}

/// What finding a character's joints reads.
#[derive(SystemParam)]
pub struct Joints<'w, 's> {
    children: Query<'w, 's, &'static Children>,
    named: Query<'w, 's, (&'static Name, &'static GlobalTransform)>,
    roots: Query<'w, 's, &'static GlobalTransform>,
}

impl Joints<'_, '_> {
    /// Per bone of `model`, the model-space position of the joint of
    /// that name below `character` (as drawn last frame).
    pub fn model_space(
        &self,
        character: Entity,
        model: &BakedModel,
    ) -> Option<Vec<Option<glam::Vec3>>> {
        let root = self.roots.get(character).ok()?.affine().inverse();
        let mut out = vec![None; model.bones.len()];
        for e in self.children.iter_descendants(character) {
            let Ok((name, at)) = self.named.get(e) else {
                continue;
            };
            if let Some(b) = model.bones.iter().position(|b| b.name == name.as_str()) {
                let p = root.transform_point3(at.translation());
                out[b] = Some(glam::Vec3::new(p.x, p.y, p.z));
            }
        }
        Some(out)
    }
}
