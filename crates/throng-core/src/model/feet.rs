//! Each clip's feet and when they touch the ground, as the bake measured
//! them and the file stores them ([`BakedModel::contacts`]; measured by
//! [`crate::contacts`], stored in format 10's `FEET` and `PHAS`): the
//! types and their validity rules.

use super::BakedModel;
use crate::error::FormatError;

/// One foot in one clip.
#[derive(Clone, Debug, PartialEq)]
pub struct FootContacts {
    /// The foot's palette index.
    pub bone: u32,
    /// Its lowest height above the clip's ground, model units.
    pub lift: f32,
    /// Its contact phases, clip seconds (start, end), in order.
    pub phases: Vec<(f32, f32)>,
}

/// One clip's feet.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipContacts {
    /// The clip's ground: its feet's lowest height, model units.
    pub ground: f32,
    /// Per foot (in [`crate::contacts::feet`]'s order).
    pub feet: Vec<FootContacts>,
}

impl BakedModel {
    /// The stored contacts: none (not measured), or one entry per clip,
    /// every clip with the same feet (distinct bones of the palette),
    /// finite grounds, finite lifts ≥ 0, and each foot's phases in order,
    /// not overlapping, within the clip's duration, at most one per frame.
    pub(super) fn validate_contacts(&self) -> Result<(), FormatError> {
        let bad = |msg: String| Err(FormatError::Invalid(msg));
        let Some(first) = self.contacts.first() else {
            return Ok(());
        };
        if self.contacts.len() != self.clips.len() {
            return bad(format!(
                "contacts for {} clips, the model has {}",
                self.contacts.len(),
                self.clips.len()
            ));
        }
        let feet: Vec<u32> = first.feet.iter().map(|f| f.bone).collect();
        if let Some(&b) = feet.iter().find(|&&b| b as usize >= self.bones.len()) {
            return bad(format!(
                "a foot is bone {b}; the palette has {}",
                self.bones.len()
            ));
        }
        if (1..feet.len()).any(|i| feet[..i].contains(&feet[i])) {
            return bad(format!("the feet {feet:?} name a bone twice"));
        }
        for (c, (clip, info)) in self.contacts.iter().zip(&self.clips).enumerate() {
            let bones: Vec<u32> = clip.feet.iter().map(|f| f.bone).collect();
            if bones != feet {
                return bad(format!(
                    "clip {c} ({}) has feet {bones:?}, clip 0 has {feet:?}",
                    info.name
                ));
            }
            if !clip.ground.is_finite() {
                return bad(format!("clip {c} ({}): ground {}", info.name, clip.ground));
            }
            for f in &clip.feet {
                let what = || format!("clip {c} ({}), foot bone {}", info.name, f.bone);
                if !(f.lift.is_finite() && f.lift >= 0.0) {
                    return bad(format!("{}: lift {}", what(), f.lift));
                }
                if f.phases.len() > info.frame_count as usize {
                    return bad(format!(
                        "{}: {} phases in {} frames",
                        what(),
                        f.phases.len(),
                        info.frame_count
                    ));
                }
                let end = info.duration * (1.0 + 1e-6) + 1e-6;
                let mut after = 0.0;
                for &(s, e) in &f.phases {
                    if !(s >= after && s <= e && e <= end) {
                        return bad(format!(
                            "{}: phase ({s}, {e}) is out of order or outside 0..{} s",
                            what(),
                            info.duration
                        ));
                    }
                    after = e;
                }
            }
        }
        Ok(())
    }
}
