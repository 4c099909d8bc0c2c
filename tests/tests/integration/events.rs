//! Events, end to end (bake → crowd): they come from a sidecar file and from
//! the glTF extras, fire once per crossing (start, end and every loop), and
//! any split of a playback path fires the same events; the bake validates
//! root-motion and event rules.

use proptest::prelude::*;
use throng_bake::{BakeOptions, bake_file};
use throng_core::BakedModel;
use throng_crowd::crowd::{Crowd, CrowdEvent, ModelHandle, Spawn, WrapMode};
use throng_tests::one_instance;
use throng_tests::walker::{bake_walker, walker};

/// The walker with events in a sidecar and in the glTF extras (baked once).
fn evented() -> BakedModel {
    static MODEL: std::sync::OnceLock<BakedModel> = std::sync::OnceLock::new();
    MODEL.get_or_init(bake_evented).clone()
}

fn bake_evented() -> BakedModel {
    let dir = std::env::temp_dir().join(format!("throng-events-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut gltf: serde_json::Value =
        serde_json::from_slice(&walker([0.0, 1.0, 0.0], 0.0)).unwrap();
    gltf["animations"][1]["extras"] =
        serde_json::json!({"events": [{"time": 0.5, "name": "yawn", "data": {"volume": 2}}]});
    let model = dir.join("walker.gltf");
    std::fs::write(&model, serde_json::to_vec(&gltf).unwrap()).unwrap();
    std::fs::write(
        dir.join("walker.events.json"),
        r#"{"walk": [{"time": 0.0, "name": "start"}, {"time": 0.25, "name": "step"}, {"time": 1.0, "name": "end"}]}"#,
    )
    .unwrap();
    let (baked, report) = bake_file(&model, &BakeOptions::default(), &|_, _| {}).unwrap();
    assert_eq!(report.events, 4);
    baked
}

#[test]
fn events_come_from_the_sidecar_and_the_gltf_extras() {
    let model = evented();
    let names: Vec<(u32, f32, &str)> = model
        .events
        .iter()
        .map(|e| (e.clip, e.time, e.name.as_str()))
        .collect();
    assert_eq!(
        names,
        vec![
            (0, 0.0, "start"),
            (0, 0.25, "step"),
            (0, 1.0, "end"),
            (1, 0.5, "yawn")
        ]
    );
    assert_eq!(model.events[3].data, r#"{"volume":2}"#);
    // And they survive the file.
    let bytes = throng_core::format::write_model(&model).unwrap();
    assert_eq!(
        throng_core::format::read_model(&bytes).unwrap().events,
        model.events
    );
}

#[test]
fn each_event_fires_once_per_crossing_including_start_end_and_every_loop() {
    let handle = ModelHandle::new(evented()).unwrap();
    let (mut crowd, _, id) = one_instance(
        &handle,
        Spawn {
            clip: Some(0),
            ..Spawn::default()
        },
    );
    let mut seen: Vec<&str> = Vec::new();
    for _ in 0..25 {
        crowd.update(0.1); // 2.5 s: loops 0..1, 1..2, and half of a third
        for e in crowd.drain_events() {
            assert_eq!(e.instance, id);
            for _ in 0..e.count {
                seen.push(&handle.model().events[e.event].name);
            }
        }
    }
    // start fires at 0 (the fresh start), then at each loop point with "end".
    assert_eq!(
        seen.iter().filter(|n| **n == "start").count(),
        3,
        "{seen:?}"
    );
    assert_eq!(seen.iter().filter(|n| **n == "end").count(), 2, "{seen:?}");
    assert_eq!(seen.iter().filter(|n| **n == "step").count(), 3, "{seen:?}");
    // One huge step across 100 loops reports counts, not 100 entries each.
    crowd.update(100.0);
    let burst: Vec<CrowdEvent> = crowd.drain_events().collect();
    assert!(burst.len() <= 3, "{burst:?}");
    let total: u32 = burst.iter().map(|e| e.count).sum();
    assert_eq!(total, 300, "100 loops × 3 events: {burst:?}");
}

/// Total crossings of every event for a path cut into the given steps.
fn fire_counts(
    handle: &ModelHandle,
    wrap: WrapMode,
    speed: f32,
    start: f32,
    steps: &[f32],
) -> Vec<u64> {
    let mut crowd = Crowd::new();
    let m = crowd.add_model(handle);
    crowd
        .spawn(
            m,
            Spawn {
                clip: Some(0),
                time: start,
                speed,
                wrap,
                ..Spawn::default()
            },
        )
        .unwrap();
    let mut counts = vec![0u64; handle.model().events.len()];
    for &dt in steps {
        crowd.update(dt);
        for e in crowd.drain_events() {
            counts[e.event] += e.count as u64;
        }
    }
    counts
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Cutting a path into any steps fires exactly the events one step does.
    #[test]
    fn any_split_of_a_path_fires_the_same_events(
        wrap in prop_oneof![Just(WrapMode::Loop), Just(WrapMode::PingPong), Just(WrapMode::Once)],
        speed in prop_oneof![-3.0f32..-0.1, 0.1f32..3.0],
        start in 0.0f32..1.0,
        steps in proptest::collection::vec(0.001f32..0.7, 1..40),
    ) {
        let handle = ModelHandle::new(evented()).unwrap();
        let total: f32 = steps.iter().sum();
        let split = fire_counts(&handle, wrap, speed, start, &steps);
        let whole = fire_counts(&handle, wrap, speed, start, &[total]);
        // Float sums of many small steps can land a hair away from an event
        // exactly on a boundary: allow that one crossing, never more.
        for (s, w) in split.iter().zip(&whole) {
            prop_assert!(s.abs_diff(*w) <= 1, "split {split:?} vs whole {whole:?}");
        }
    }

    /// With steps that sum exactly (multiples of 1/64 s), the counts are the
    /// exact number of crossings of each event on the unwrapped path.
    #[test]
    fn counts_equal_the_crossings_of_the_unwrapped_path(
        speed_n in prop_oneof![-128i32..-1, 1i32..128],
        steps in proptest::collection::vec(1u32..48, 1..30),
    ) {
        let handle = ModelHandle::new(evented()).unwrap();
        let speed = speed_n as f32 / 64.0;
        let dts: Vec<f32> = steps.iter().map(|&k| k as f32 / 64.0).collect();
        let counts = fire_counts(&handle, WrapMode::Loop, speed, 0.0, &dts);
        let distance: f32 = dts.iter().sum::<f32>() * speed;
        for (e, count) in handle.model().events.iter().zip(&counts).filter(|(e, _)| e.clip == 0) {
            // Positions t_e + k (k integer) strictly after the start up to the
            // end of the path (in its direction), plus the event that sits
            // exactly at the start's clip time (0): the documented rule.
            let crossed = if distance >= 0.0 {
                (distance - e.time).floor() - (0.0 - e.time).floor()
            } else {
                (0.0 - e.time).ceil() - (distance - e.time).ceil()
            };
            let expected = crossed.max(0.0) as u64 + u64::from(e.time == 0.0);
            prop_assert_eq!(*count, expected, "event {} at {} over {}", e.name, e.time, distance);
        }
    }
}

#[test]
fn root_motion_and_event_rules_are_validated() {
    let (_, handle) = bake_walker([0.0, 1.0, 2.0], 0.5);
    let mut with_events = handle.model().clone();
    with_events.events = evented().events;
    assert!(with_events.validate().is_ok());
    let bytes = throng_core::format::write_model(&with_events).unwrap();
    assert_eq!(
        throng_core::format::read_model(&bytes).unwrap(),
        with_events,
        "root motion and events round-trip"
    );
    let expect = |m: BakedModel, what: &str| {
        let e = m.validate().unwrap_err().to_string();
        println!("{e}");
        assert!(e.contains(what), "{e} should mention {what}");
    };
    let mut m = with_events.clone();
    m.root_motion.pop();
    expect(m, "root-motion keys");
    let mut m = with_events.clone();
    m.root_motion[3].yaw = f32::NAN;
    expect(m, "not finite");
    let mut m = with_events.clone();
    m.root_motion[m.clips[0].first_frame as usize].translation[0] = 1.0;
    expect(m, "start at zero");
    let mut m = with_events.clone();
    m.events.swap(0, 1);
    expect(m, "sorted");
    let mut m = with_events.clone();
    m.events[0].time = 9.0;
    expect(m, "outside clip");
    let mut m = with_events.clone();
    m.events[0].clip = 7;
    expect(m, "names clip 7");
}
