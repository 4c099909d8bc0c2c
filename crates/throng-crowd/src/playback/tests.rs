//! Playback's arithmetic against its definitions: clip time, the kept
//! phase, event crossings by enumeration of the event's places, root
//! motion walked step by step.

use super::*;

#[test]
fn loop_events_fire_once_per_crossing_including_both_ends() {
    let d = 1.0;
    // Forward from 0.5 to 1.0: an event at 1.0 (= the loop point) fires, one at 0 too.
    assert_eq!(crossings(1.0, d, WrapMode::Loop, 0.5, 1.0, false), 1);
    assert_eq!(crossings(0.0, d, WrapMode::Loop, 0.5, 1.0, false), 1);
    // …and not again on the next update starting there.
    assert_eq!(crossings(0.0, d, WrapMode::Loop, 0.0, 0.3, false), 0);
    assert_eq!(crossings(1.0, d, WrapMode::Loop, 0.0, 0.3, false), 0);
    // A fresh start at 0 fires the event at 0, not the one at the end.
    assert_eq!(crossings(0.0, d, WrapMode::Loop, 0.0, 0.3, true), 1);
    assert_eq!(crossings(1.0, d, WrapMode::Loop, 0.0, 0.3, true), 0);
    // Three and a half loops in one step: three or four crossings.
    assert_eq!(crossings(0.25, d, WrapMode::Loop, 0.5, 4.0, false), 3);
    assert_eq!(crossings(0.75, d, WrapMode::Loop, 0.5, 4.0, false), 4);
    // Backwards.
    assert_eq!(crossings(0.25, d, WrapMode::Loop, 0.5, -1.0, false), 2);
    assert_eq!(
        crossings(0.5, d, WrapMode::Loop, 0.5, 0.0, false),
        0,
        "the start is not a crossing"
    );
    assert_eq!(
        crossings(0.0, d, WrapMode::Loop, 0.5, 0.0, false),
        1,
        "reaching 0 backwards"
    );
}

#[test]
fn ping_pong_turns_fire_once() {
    let d = 1.0;
    // 0.5 → 1.5: up to the end (D fires once) and back to 0.5.
    assert_eq!(crossings(1.0, d, WrapMode::PingPong, 0.5, 1.5, false), 1);
    assert_eq!(
        crossings(0.8, d, WrapMode::PingPong, 0.5, 1.5, false),
        2,
        "passed going up and coming down"
    );
    assert_eq!(
        crossings(0.0, d, WrapMode::PingPong, 0.5, 2.5, false),
        1,
        "bounced off the start once"
    );
    assert_eq!(crossings(0.2, d, WrapMode::PingPong, 0.5, 1.5, false), 0);
}

#[test]
fn once_stops_at_the_end() {
    let d = 1.0;
    assert_eq!(crossings(1.0, d, WrapMode::Once, 0.5, 7.0, false), 1);
    assert_eq!(
        crossings(1.0, d, WrapMode::Once, 1.0, 7.0, false),
        0,
        "already at the end"
    );
    assert_eq!(crossings(0.0, d, WrapMode::Once, 0.0, 0.5, true), 1);
}

/// The general formula, without the within-one-period shortcut.
fn crossings_by_division(t: f32, d: f32, u0: f32, u1: f32) -> u64 {
    between(t, d, u0, u1)
}

#[test]
fn within_one_period_shortcut_equals_the_division() {
    let d = 0.7;
    let mut checked = 0;
    for i in 0..=70 {
        let t = d * i as f32 / 70.0;
        for a in 0..60 {
            for len in 0..25 {
                let u0 = d * a as f32 / 60.0;
                let u1 = u0 + len as f32 * 0.013;
                if u1 >= d {
                    continue;
                }
                let fast = crossings(t, d, WrapMode::Loop, u0, u1, false);
                assert_eq!(
                    fast,
                    crossings_by_division(t, d, u0, u1),
                    "event {t}, {u0} -> {u1}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000);
}

#[test]
fn between_is_inverse_then() {
    let a = RootDelta {
        translation: Vec3::new(1.0, 0.5, -2.0),
        yaw: 0.9,
    };
    let b = RootDelta {
        translation: Vec3::new(-0.3, 0.1, 4.0),
        yaw: -1.7,
    };
    let slow = a.inverse().then(&b);
    let fast = RootDelta::between(&a, &b);
    assert!((slow.translation - fast.translation).length() < 1e-6);
    assert!((slow.yaw - fast.yaw).abs() < 1e-6);
}

#[test]
fn root_delta_group_laws() {
    let a = RootDelta {
        translation: Vec3::new(1.0, 0.0, 2.0),
        yaw: 0.7,
    };
    let m = a.then(&a.inverse());
    assert!(m.translation.length() < 1e-6 && m.yaw.abs() < 1e-6);
    let p = a.pow(5).to_mat4();
    let mut q = Mat4::IDENTITY;
    for _ in 0..5 {
        q *= a.to_mat4();
    }
    assert!(p.abs_diff_eq(q, 1e-4), "{p} vs {q}");
    assert!(a.pow(-3).then(&a.pow(3)).translation.length() < 1e-5);
}

/// Durations, and phases on a grid of eighths of each: every value and
/// every sum or product below is exact in f32, so the references may
/// compare with `==`.
const DURATIONS: [f32; 3] = [1.0, 2.5, 4.0];

fn grid(d: f32) -> impl Iterator<Item = f32> {
    (-24..=24).map(move |i| d * i as f32 / 8.0)
}

/// Clip time by the definitions: a loop repeats `[0, D)`; ping-pong
/// runs `[0, D]` forward then back over `2D`; once is clamped.
fn clip_time_by_definition(u: f32, d: f32, wrap: WrapMode) -> f32 {
    let k = (u / d).floor();
    match wrap {
        WrapMode::Once => u.max(0.0).min(d),
        WrapMode::Loop => u - k * d,
        WrapMode::PingPong if k.rem_euclid(2.0) == 0.0 => u - k * d,
        WrapMode::PingPong => d - (u - k * d),
    }
}

#[test]
fn clip_time_and_the_kept_phase_follow_their_definitions() {
    for d in DURATIONS {
        for u in grid(d) {
            for wrap in [WrapMode::Once, WrapMode::Loop, WrapMode::PingPong] {
                let want = clip_time_by_definition(u, d, wrap);
                assert_eq!(clip_time(u, d, wrap), want, "clip_time({u}, {d}, {wrap:?})");
                let kept = reduce_phase(u, d, wrap);
                let period = if wrap == WrapMode::PingPong {
                    2.0 * d
                } else {
                    d
                };
                match wrap {
                    WrapMode::Once => assert_eq!(kept, want),
                    _ => {
                        assert!((0.0..period).contains(&kept), "{wrap:?} {u}: {kept}");
                        assert_eq!((kept - u).rem_euclid(period), 0.0, "{wrap:?} {u}");
                    }
                }
                assert_eq!(
                    clip_time(kept, d, wrap),
                    want,
                    "{wrap:?} {u}: same clip time"
                );
            }
            let w = wrap_into(u, d);
            assert!(
                (0.0..d).contains(&w) && (w - u).rem_euclid(d) == 0.0,
                "{u}: {w}"
            );
        }
        assert_eq!(clip_time(1.0, 0.0, WrapMode::Loop), 0.0);
        assert_eq!(reduce_phase(1.0, 0.0, WrapMode::PingPong), 0.0);
    }
    // Just under a period, where rem_euclid rounds up to the period.
    assert_eq!(wrap_into(-f32::EPSILON / 4.0, 1.0), 0.0);
}

/// Crossings by enumeration: every place the event's clip time occurs
/// on the unwrapped phase axis, counted in `(u0, u1]` forward or
/// `[u1, u0)` backward (once: the phases clamped), plus the start's own
/// clip time on a fresh start.
fn crossings_by_enumeration(
    t: f32,
    d: f32,
    wrap: WrapMode,
    u0: f32,
    u1: f32,
    include_start: bool,
) -> u64 {
    let places: Vec<f32> = match wrap {
        WrapMode::Once => vec![t],
        WrapMode::Loop => (-8..=8).map(|k| t + k as f32 * d).collect(),
        WrapMode::PingPong => (-8..=8)
            .flat_map(|k| {
                let base = 2.0 * d * k as f32;
                let back = (t != 0.0 && t != d).then_some(base + 2.0 * d - t);
                std::iter::once(base + t).chain(back)
            })
            .collect(),
    };
    let (a, b) = match wrap {
        WrapMode::Once => (u0.max(0.0).min(d), u1.max(0.0).min(d)),
        _ => (u0, u1),
    };
    let passed = places
        .iter()
        .filter(|&&p| {
            if b >= a {
                p > a && p <= b
            } else {
                p >= b && p < a
            }
        })
        .count() as u64;
    passed + u64::from(include_start && t == clip_time_by_definition(u0, d, wrap))
}

#[test]
fn crossings_equal_an_enumeration_of_the_events_places() {
    let mut checked = 0u64;
    for d in DURATIONS {
        for t in [0.0, d / 8.0, d / 2.0, 7.0 * d / 8.0, d] {
            for wrap in [WrapMode::Once, WrapMode::Loop, WrapMode::PingPong] {
                for u0 in grid(d) {
                    for u1 in grid(d) {
                        for start in [false, true] {
                            assert_eq!(
                                crossings(t, d, wrap, u0, u1, start),
                                crossings_by_enumeration(t, d, wrap, u0, u1, start),
                                "event at {t} of {d} s, {wrap:?}, {u0} -> {u1}, fresh start {start}"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 100_000);
    // A single-pose clip fires its events at 0 once, on a fresh start.
    assert_eq!(crossings(0.0, 0.0, WrapMode::Loop, 0.0, 3.0, true), 1);
    assert_eq!(crossings(0.0, 0.0, WrapMode::Loop, 0.0, 3.0, false), 0);
    assert_eq!(crossings(0.5, 0.0, WrapMode::Loop, 0.0, 3.0, true), 0);
}

/// A clip of 2 s baked at 4 frames a second (frames 2–10 of the
/// texture) walking at `velocity` and turning at `turn` rad/s.
fn walking(velocity: Vec3, turn: f32) -> (Vec<RootMotionKey>, FrameMap) {
    let map = FrameMap::new(2, 9, 2.0);
    let mut keys = vec![
        RootMotionKey {
            translation: [9.0, 9.0, 9.0],
            yaw: 9.0,
        };
        2
    ];
    // Each frame's key is the walk so far: the quarter-second steps
    // composed.
    let step = RootDelta {
        translation: velocity * 0.25,
        yaw: turn * 0.25,
    };
    for i in 0..9 {
        let d = step.pow(i);
        keys.push(RootMotionKey {
            translation: d.translation.into(),
            yaw: d.yaw,
        });
    }
    (keys, map)
}

/// The motion from `u0` to `u1` on a looping clip, walked in steps of
/// a quarter second (the grid's), each step's motion from the clip's
/// own keys within its period.
fn loop_motion_by_steps(keys: &[RootMotionKey], map: &FrameMap, u0: f32, u1: f32) -> RootDelta {
    if u1 < u0 {
        return loop_motion_by_steps(keys, map, u1, u0).inverse();
    }
    let d = map.duration;
    let mut acc = RootDelta::IDENTITY;
    let mut a = u0;
    while a < u1 {
        let b = a + 0.25;
        let k = (a / d).floor();
        let (ra, rb) = (a - k * d, b - k * d);
        let step = RootDelta::between(&motion_at(keys, map, ra), &motion_at(keys, map, rb));
        acc = acc.then(&step);
        a = b;
    }
    acc
}

#[test]
fn root_motion_follows_the_clip_across_loops_turns_and_clamps() {
    let near = |a: RootDelta, b: RootDelta, what: &str| {
        assert!(
            (a.translation - b.translation).length() < 1e-3 && (a.yaw - b.yaw).abs() < 1e-4,
            "{what}: {a:?} against {b:?}"
        );
    };
    let velocity = Vec3::new(1.0, 0.0, -2.0);
    let (straight, map) = walking(velocity, 0.0);
    let (turning, _) = walking(velocity, 0.6);
    let d = map.duration;
    for u0 in grid(d) {
        for u1 in grid(d) {
            let case = format!("{u0} -> {u1}");
            // Walking straight: the distance is the phase's advance on
            // a loop, the clip time's on ping-pong and once.
            let along = |du: f32| RootDelta {
                translation: velocity * du,
                yaw: 0.0,
            };
            near(
                root_delta(&straight, &map, WrapMode::Loop, u0, u1),
                along(u1 - u0),
                &format!("loop {case}"),
            );
            for wrap in [WrapMode::PingPong, WrapMode::Once] {
                let ct = |u| clip_time_by_definition(u, d, wrap);
                near(
                    root_delta(&straight, &map, wrap, u0, u1),
                    along(ct(u1) - ct(u0)),
                    &format!("{wrap:?} {case}"),
                );
            }
            // Turning while it walks: each loop continues from where
            // the last one ended, turned.
            near(
                root_delta(&turning, &map, WrapMode::Loop, u0, u1),
                loop_motion_by_steps(&turning, &map, u0, u1),
                &format!("turning loop {case}"),
            );
        }
    }
    // A single-pose clip does not move.
    let still = FrameMap::new(2, 1, 0.0);
    let m = root_delta(&straight, &still, WrapMode::Loop, 0.0, 5.0);
    assert_eq!((m.translation, m.yaw), (Vec3::ZERO, 0.0));
}

#[test]
fn a_delta_blends_component_wise_and_is_the_matrix_t_times_r() {
    let a = RootDelta {
        translation: Vec3::new(1.0, 0.0, 2.0),
        yaw: 0.5,
    };
    let b = RootDelta {
        translation: Vec3::new(3.0, 1.0, -2.0),
        yaw: 1.5,
    };
    let m = RootDelta::lerp(&a, &b, 0.25);
    assert_eq!(m.translation, Vec3::new(1.5, 0.25, 1.0));
    assert_eq!(m.yaw, 0.75);
    // T · R_y: a point is turned about +y, then moved.
    let p = a.to_mat4().transform_point3(Vec3::X);
    let want = a.translation + Vec3::new(0.5f32.cos(), 0.0, -(0.5f32.sin()));
    assert!((p - want).length() < 1e-6, "{p} against {want}");
}
