//! The herd ([`throng_demo::herd`]) of the bundled Fox: round, seeded,
//! every clip used, inside its bounds.

use throng_crowd::crowd::Crowd;
use throng_demo::herd::spawn_crowd;
use throng_tests::bake_asset;

#[test]
fn herd_is_round_deterministic_and_inside_its_bounds() {
    let handle = bake_asset("khronos_Fox.glb");
    let mut crowd = Crowd::new();
    let id = crowd.add_model(&handle);
    let s = spawn_crowd(&mut crowd, id, 1000, 42).unwrap();
    assert_eq!(crowd.len(), 1000);
    assert_eq!(s.ids.len(), 1000);
    let size = s.bounds.max - s.bounds.min;
    let ratio = size.x / size.z;
    assert!((0.75..1.33).contains(&ratio), "herd {size}");
    let clips = handle.model().clips.len();
    let mut used = vec![false; clips];
    for &i in &s.ids {
        let st = crowd.state(i).unwrap();
        let p = st.world_from_model.w_axis.truncate();
        assert!(
            p.cmpge(s.bounds.min).all() && p.cmple(s.bounds.max).all(),
            "{p} outside {:?}",
            s.bounds
        );
        used[st.current.expect("plays a clip").0] = true;
    }
    assert!(used.iter().all(|&u| u), "every clip is used");
    // Same seed, same crowd.
    let mut again = Crowd::new();
    let id2 = again.add_model(&handle);
    let s2 = spawn_crowd(&mut again, id2, 1000, 42).unwrap();
    assert_eq!(s.bounds, s2.bounds);
    let a = crowd.state(s.ids[500]).unwrap();
    let b = again.state(s2.ids[500]).unwrap();
    assert_eq!(a.world_from_model, b.world_from_model);
    assert_eq!(a.current, b.current);
}

#[test]
fn zero_and_one_instance() {
    let handle = bake_asset("khronos_Fox.glb");
    let mut crowd = Crowd::new();
    let id = crowd.add_model(&handle);
    let s = spawn_crowd(&mut crowd, id, 0, 1).unwrap();
    assert!(s.ids.is_empty() && s.bounds.is_empty());
    let s = spawn_crowd(&mut crowd, id, 1, 1).unwrap();
    assert_eq!(s.ids.len(), 1);
    assert!(!s.bounds.is_empty());
}
