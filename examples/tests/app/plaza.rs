//! The plaza example's code path, headless (GPU test): [`Scene::plaza`]
//! steered by Throng's built-in hook (`navigate.wgsl`) over its plaza, as
//! the viewer and the web page steer their crowds, drawn by the
//! application's frame for three seconds of frames:
//!
//! * every agent is stepped and stays finite and on the ground; three in
//!   four have left their start (the herd starts packed), none stands inside an obstacle and fewer than
//!   [`MAX_OVERLAP_SHARE`] overlap another (centres nearer than 0.8 × the
//!   two radii);
//! * their clips follow their speed: the plaza's gaits (Survey, Walk, Run)
//!   are all that play, and walking is among them;
//! * the picture shows Foxes and changes as they walk.

use glam::{Vec2, Vec3};
use throng::crowd::crowd::InstanceId;
use throng::render::OFFSCREEN_FORMAT;
use throng_examples::plaza::plaza_crowd;
use throng_examples::{Scene, bake_fox};
use throng_tests::require_gpu;

use crate::frames::run_frames;

const SIZE: (u32, u32) = (256, 192);
const AGENTS: u32 = 800;
/// Frames of 1/30 s.
const FRAMES: u32 = 60;
/// Agents overlapping another, at most (the navigation test's bar).
const MAX_OVERLAP_SHARE: f64 = 0.01;

#[test]
fn the_plaza_walks_around_its_obstacles_and_each_other_on_the_gpu() {
    let gpu = require_gpu("plaza");
    let fox = bake_fox().expect("the Fox bakes");
    let app = throng_examples::AppGpu {
        adapter: &gpu.adapter,
        device: &gpu.device,
        queue: &gpu.queue,
    };
    let mut scene = Scene::plaza(app, OFFSCREEN_FORMAT, &fox, AGENTS).expect("the plaza builds");
    // What plaza_crowd hands over (the same seed: the same crowd).
    let (_, steered) = plaza_crowd(&fox, AGENTS).unwrap();
    let ids: Vec<InstanceId> = scene.crowd.ids().collect();
    assert_eq!(scene.crowd.simulated_count(), AGENTS as usize);
    let run = run_frames(&gpu, &mut scene, &ids, SIZE, FRAMES);

    let plaza = &steered.plaza;
    let radius = plaza.agent_radius;
    let clips: Vec<String> = fox.model().clips.iter().map(|c| c.name.clone()).collect();
    let (mut moved, mut points, mut playing) =
        (0usize, Vec::new(), std::collections::BTreeSet::new());
    for (a, b) in run.first.iter().zip(&run.last) {
        assert_eq!(a.id, b.id);
        let p0 = Vec3::from(a.agent.expect("stepped").position);
        let agent = b.agent.expect("stepped");
        let p1 = Vec3::from(agent.position);
        assert!(
            p1.is_finite() && Vec3::from(agent.velocity).is_finite(),
            "{:?}",
            b.id
        );
        assert!(p1.y.abs() < 1e-3, "{:?} left the ground: {p1}", b.id);
        let p = Vec2::new(p1.x, p1.z);
        assert!(
            !plaza.grid.is_blocked(p),
            "{:?} stands inside an obstacle at {p}",
            b.id
        );
        if (p1 - p0).length() > radius {
            moved += 1;
        }
        points.push(p);
        playing.insert(clips[(b.state.current.clip & 0xffff) as usize].clone());
    }
    let limit = 0.8 * 2.0 * radius;
    let overlapping = throng_tests::crowd_overlap::overlapping(&points, limit);
    let share = overlapping as f64 / points.len() as f64;
    println!(
        "plaza: {AGENTS} agents, {} s: {moved} moved more than a radius, {overlapping} overlapping ({:.2} %), clips playing {playing:?}",
        FRAMES as f32 / 30.0,
        share * 100.0
    );
    // The herd starts packed: those inside it wait for room at first.
    assert!(moved * 4 >= AGENTS as usize * 3, "only {moved} moved");
    assert!(share <= MAX_OVERLAP_SHARE, "{:.2} % overlap", share * 100.0);
    assert!(
        playing.iter().any(|c| c.to_lowercase().contains("walk")),
        "{playing:?}"
    );
    assert!(
        playing.iter().all(|c| ["survey", "walk", "run"]
            .iter()
            .any(|g| c.to_lowercase().contains(g))),
        "a clip that is no gait plays: {playing:?}"
    );
    let orange = |img: &image::RgbaImage| {
        img.pixels()
            .filter(|p| {
                let [r, g, b, _] = p.0.map(i32::from);
                r > g + 30 && g > b + 10 && r > 120
            })
            .count()
    };
    assert!(orange(&run.last_image) > 50, "no Foxes in the picture");
    assert_ne!(
        run.first_image, run.last_image,
        "the picture did not change"
    );
}
