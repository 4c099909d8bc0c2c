//! Feet and when they touch the ground, read from a model's baked frames:
//! what foot planting (IK on the near crowd) needs to know of each clip.
//!
//! * **Feet** ([`feet`]): the leaf joints of the palette (no bone below
//!   them) that stand in the rest pose within [`FOOT_BAND`] of the model's
//!   height from the bottom of its box — a biped's toes, a quadruped's four
//!   paws; a head or a tail tip is a leaf too, but higher up.
//! * **A clip's ground**: the lowest height any foot reaches in it (in the
//!   clip's own model space: a clip baked in place walks on the plane its
//!   feet touch).
//! * **Contact** ([`contacts`]): a foot is planted in the frames where it is
//!   within [`CONTACT_BAND`] of the model's height above its own lowest
//!   point in the clip; each run of such frames is a phase, in clip
//!   seconds. A phase running across a looping clip's end is two (one at
//!   each end). [`FootContacts::lift`] is the foot's lowest point above the
//!   clip's ground (0 for the foot that defines it).
//!
//! Measured by the bake from the baked frames and stored in the file
//! ([`BakedModel::contacts`], format `FEET`/`PHAS`); a model without them
//! (built by hand) is measured when asked ([`clip_contacts`]): bones ×
//! frames joint positions, microseconds for the Fox's 514 frames.

use glam::{Mat4, Vec3};

use crate::layout::frame_time;
use crate::math::rows_to_mat4;
use crate::model::BakedModel;

/// A leaf joint is a foot when its rest position is within this share of
/// the model's height above the bottom of its box.
pub const FOOT_BAND: f32 = 0.15;
/// A foot is planted while within this share of the model's height above
/// its lowest point in the clip (5 %: about a paw's thickness on the Fox,
/// whose stylised walk lifts a paw early; at 3 % no paw of it is down at
/// the loop's least supported frame).
pub const CONTACT_BAND: f32 = 0.05;

pub use crate::model::{ClipContacts, FootContacts};

/// The model's contacts: those the bake stored
/// ([`BakedModel::contacts`]), else measured now ([`contacts`]).
pub fn clip_contacts(model: &BakedModel) -> std::borrow::Cow<'_, [ClipContacts]> {
    if model.contacts.is_empty() && !model.clips.is_empty() {
        std::borrow::Cow::Owned(contacts(model))
    } else {
        std::borrow::Cow::Borrowed(&model.contacts)
    }
}

/// The model's feet (see the module docs), by palette index.
pub fn feet(model: &BakedModel) -> Vec<u32> {
    let bottom = model.bounds.min.y;
    let height = (model.bounds.max.y - bottom).max(0.0);
    let has_child = |b: usize| model.bones.iter().any(|o| o.parent == Some(b as u32));
    (0..model.bones.len())
        .filter(|&b| !has_child(b))
        .filter(|&b| {
            let at = model.bones[b].rest_global.w_axis.y;
            at - bottom <= FOOT_BAND * height
        })
        .map(|b| b as u32)
        .collect()
}

/// Per clip, its ground and its feet's contact phases (see the module
/// docs); empty feet lists when the model has none.
pub fn contacts(model: &BakedModel) -> Vec<ClipContacts> {
    let feet = feet(model);
    let band = CONTACT_BAND * (model.bounds.max.y - model.bounds.min.y).max(0.0);
    let bind: Vec<Mat4> = model
        .bones
        .iter()
        .map(|b| b.inverse_bind.inverse())
        .collect();
    model
        .clips
        .iter()
        .map(|clip| {
            // Per foot, its height at each of the clip's frames.
            let heights: Vec<Vec<f32>> = feet
                .iter()
                .map(|&b| {
                    (0..clip.frame_count)
                        .map(|k| joint(model, &bind, b, clip.first_frame + k).y)
                        .collect()
                })
                .collect();
            let lowest = |h: &[f32]| h.iter().copied().fold(f32::INFINITY, f32::min);
            let ground = heights
                .iter()
                .map(|h| lowest(h))
                .fold(f32::INFINITY, f32::min);
            let feet = feet
                .iter()
                .zip(&heights)
                .map(|(&bone, h)| {
                    let low = lowest(h);
                    let planted: Vec<bool> = h.iter().map(|&y| y - low <= band).collect();
                    FootContacts {
                        bone,
                        lift: low - ground,
                        phases: phases(&planted, clip.duration),
                    }
                })
                .collect();
            ClipContacts {
                ground: if ground.is_finite() { ground } else { 0.0 },
                feet,
            }
        })
        .collect()
}

/// Bone `b`'s joint in model space at global frame `frame`.
fn joint(model: &BakedModel, bind: &[Mat4], b: u32, frame: u32) -> Vec3 {
    let at = rows_to_mat4(&model.palette_rows(b, frame)) * bind[b as usize];
    at.transform_point3(Vec3::ZERO)
}

/// The runs of `planted` frames as clip-time intervals over `duration`.
fn phases(planted: &[bool], duration: f32) -> Vec<(f32, f32)> {
    let n = planted.len() as u32;
    let t = |k: usize| frame_time(k as u32, n, duration);
    let mut out = Vec::new();
    let mut start = None;
    for (k, &p) in planted.iter().enumerate() {
        match (p, start) {
            (true, None) => start = Some(k),
            (false, Some(s)) => {
                out.push((t(s), t(k - 1)));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((t(s), t(planted.len() - 1)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_of_planted_frames_are_phases_in_clip_seconds() {
        // Five frames over 1 s: 0, 0.25, 0.5, 0.75, 1.
        let p = phases(&[true, true, false, false, true], 1.0);
        assert_eq!(p, vec![(0.0, 0.25), (1.0, 1.0)]);
        assert!(phases(&[false; 4], 1.0).is_empty());
        assert_eq!(phases(&[true; 3], 2.0), vec![(0.0, 2.0)]);
    }
}
