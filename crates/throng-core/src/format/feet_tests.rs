//! Stored contacts that do not fit their model (`model/feet.rs`'s rules),
//! refused by name, on the committed sample with two feet added.

use crate::BakedModel;
use crate::model::{ClipContacts, FootContacts};

/// The committed sample with two feet measured on its one clip.
fn with_feet() -> BakedModel {
    let mut m = super::tests::sample_model();
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
