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

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed sample with two feet measured on its one clip.
    fn with_feet() -> BakedModel {
        let mut m = crate::format::tests::sample_model();
        let d = m.clips[0].duration;
        let foot = |bone, phases| FootContacts {
            bone,
            lift: 0.0,
            phases,
        };
        m.contacts = vec![ClipContacts {
            ground: 0.0,
            feet: vec![foot(1, vec![(0.0, 0.5 * d)]), foot(0, vec![(0.5 * d, d)])],
        }];
        m
    }

    /// A change to a model with feet, given its clip's duration.
    type Edit = fn(&mut BakedModel, f32);

    fn refused(m: &BakedModel) -> String {
        match m.validate() {
            Ok(()) => panic!("accepted: {:?}", m.contacts),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn contacts_that_do_not_fit_the_model_are_refused_by_name() {
        assert!(with_feet().validate().is_ok());
        let d = with_feet().clips[0].duration;
        let cases: [(&str, Edit, &str); 7] = [
            (
                "two entries",
                |m, _| m.contacts.push(m.contacts[0].clone()),
                "contacts for 2 clips",
            ),
            (
                "bone 9",
                |m, _| m.contacts[0].feet[0].bone = 9,
                "a foot is bone 9",
            ),
            (
                "a bone twice",
                |m, _| m.contacts[0].feet[1].bone = 1,
                "name a bone twice",
            ),
            (
                "ground NaN",
                |m, _| m.contacts[0].ground = f32::NAN,
                "ground NaN",
            ),
            (
                "negative lift",
                |m, _| m.contacts[0].feet[0].lift = -1.0,
                "lift -1",
            ),
            (
                "past the end",
                |m, d| m.contacts[0].feet[0].phases[0].1 = 2.0 * d,
                "outside 0..",
            ),
            (
                "out of order",
                |m, d| m.contacts[0].feet[1].phases.insert(0, (0.75 * d, d)),
                "out of order",
            ),
        ];
        for (what, edit, says) in cases {
            let mut m = with_feet();
            edit(&mut m, d);
            let e = refused(&m);
            assert!(e.contains(says), "{what}: {e}");
        }
        // A clip whose feet differ from the first clip's.
        let mut m = with_feet();
        m.clips.push(m.clips[0].clone());
        m.clips[1].name = "again".into();
        m.contacts.push(ClipContacts {
            ground: 0.0,
            feet: Vec::new(),
        });
        let e = refused(&m);
        assert!(e.contains("clip 1 (again) has feet []"), "{e}");
    }
}
