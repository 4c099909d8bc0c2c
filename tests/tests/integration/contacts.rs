//! Feet and their contacts read from the baked Fox (`throng_core::contacts`):
//! its four paws are its feet (the head and the tail tip, leaves too, are
//! not); standing (Survey) every paw is planted throughout; walking, each
//! paw is planted for part of the loop and lifted for part of it, at every
//! baked frame a paw is down (a walk has no flight), and the two hind paws
//! take turns. (The glTF's stylised walk lifts its paws early: with the
//! contact band at 5 % of the height one paw is down at the loop's least
//! supported frame, none at 3 %.)

use throng_core::contacts::{contacts, feet};
use throng_core::layout::frame_time;

/// The Fox's paws: front (hands) and hind (second foot joints).
const PAWS: [&str; 4] = [
    "b_RightHand_08",
    "b_LeftHand_011",
    "b_LeftFoot02_018",
    "b_RightFoot02_022",
];

#[test]
fn the_foxs_paws_are_its_feet_planted_in_turn_as_it_walks() {
    let handle = throng_tests::bake_asset("khronos_Fox.glb");
    let model = handle.model();
    let names: Vec<&str> = feet(model)
        .iter()
        .map(|&b| model.bones[b as usize].name.as_str())
        .collect();
    assert_eq!(names, PAWS, "the Fox's feet");
    let clips = contacts(model);
    let clip = |name: &str| model.clips.iter().position(|c| c.name == name).unwrap();
    let survey = &clips[clip("Survey")];
    let whole = model.clips[clip("Survey")].duration;
    for f in &survey.feet {
        assert_eq!(
            f.phases,
            vec![(0.0, whole)],
            "standing, bone {} is always planted",
            f.bone
        );
    }
    let w = clip("Walk");
    let (walk, info) = (&clips[w], &model.clips[w]);
    let n = info.frame_count;
    let down = |k: u32, phases: &[(f32, f32)]| {
        let t = frame_time(k, n, info.duration);
        phases.iter().any(|&(a, b)| a <= t && t <= b)
    };
    let mut fewest = 4;
    for f in &walk.feet {
        let planted = (0..n).filter(|&k| down(k, &f.phases)).count() as f32 / n as f32;
        println!(
            "Walk: bone {} planted {:.0} % of the loop, phases {:?}, lift {:.2}",
            f.bone,
            planted * 100.0,
            f.phases,
            f.lift
        );
        assert!(
            (0.2..=0.9).contains(&planted),
            "walking, bone {} is planted {:.0} % of the loop",
            f.bone,
            planted * 100.0
        );
    }
    for k in 0..n {
        let planted = walk.feet.iter().filter(|f| down(k, &f.phases)).count();
        fewest = fewest.min(planted);
    }
    assert!(fewest >= 1, "at some frame of Walk no paw is down");
    // The hind paws take turns: some frames have one down and not the other.
    let (left, right) = (&walk.feet[2].phases, &walk.feet[3].phases);
    let alone = (0..n).filter(|&k| down(k, left) != down(k, right)).count();
    assert!(
        alone * 4 >= n as usize,
        "the hind paws are down together too much: apart in {alone} of {n} frames"
    );
}

/// The bake measures each clip's contacts and stores them in the file
/// (format 10's `FEET` and `PHAS`, the ground in `CLIP`): what it stores
/// is what `contacts` measures from the frames, and it reads back equal.
#[test]
fn the_bake_stores_the_contacts_it_measures() {
    let handle = throng_tests::bake_asset("khronos_Fox.glb");
    let model = handle.model();
    assert_eq!(model.contacts.len(), model.clips.len(), "one entry a clip");
    assert!(
        model.contacts == contacts(model),
        "stored: {:?}\nmeasured: {:?}",
        model.contacts,
        contacts(model)
    );
    let bytes = throng_core::format::write_model(model).unwrap();
    let back = throng_core::format::read_model(&bytes).unwrap();
    assert!(
        back.contacts == model.contacts,
        "read back: {:?}",
        back.contacts
    );
    assert!(
        matches!(
            throng_core::contacts::clip_contacts(&back),
            std::borrow::Cow::Borrowed(_)
        ),
        "a baked model's contacts are read, not measured again"
    );
}
