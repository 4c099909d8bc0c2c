//! The flock example's code path, headless (GPU test): [`Scene::flock`]
//! steered by `flock.wgsl` through Throng's simulation hook, drawn by the
//! application's frame ([`Scene::render`]) for two seconds of frames:
//!
//! * its agents move (read back from the GPU: every one walks, nearly all
//!   have left their start, and the flock's mean speed is near its
//!   cruising speed), stay finite
//!   and on the ground, and stay near the disc they are kept in;
//! * each Fox's walk plays at its agent's speed over the walk's ground
//!   speed (the playback rate read back from the GPU);
//! * the picture is not empty: Fox-orange pixels over the ground, and it
//!   changes as they walk.

use glam::Vec3;
use throng::core::clock::TICKS_PER_SECOND;
use throng::crowd::crowd::InstanceId;
use throng::render::OFFSCREEN_FORMAT;
use throng_examples::flock::flock_crowd;
use throng_examples::{Scene, bake_fox};
use throng_tests::require_gpu;

use crate::frames::run_frames;

const SIZE: (u32, u32) = (256, 192);
const AGENTS: u32 = 3000;
/// Frames of 1/30 s.
const FRAMES: u32 = 60;
/// Largest relative difference between the playback speed the GPU set and
/// the agent's speed over the walk's ground speed (the rate is rounded to
/// 24 bits; the speed read back is the one it was set from).
const SPEED_EPS: f64 = 1e-5;

fn orange_fraction(img: &image::RgbaImage) -> f64 {
    let orange = img
        .pixels()
        .filter(|p| {
            let [r, g, b, _] = p.0.map(i32::from);
            r > g + 30 && g > b + 10 && r > 120
        })
        .count();
    orange as f64 / img.pixels().len() as f64
}

#[test]
fn the_flock_moves_on_the_gpu_with_playback_following_speed() {
    let gpu = require_gpu("flock");
    let fox = bake_fox().expect("the Fox bakes");
    let mut scene = Scene::flock(
        throng_examples::AppGpu {
            adapter: &gpu.adapter,
            device: &gpu.device,
            queue: &gpu.queue,
        },
        OFFSCREEN_FORMAT,
        &fox,
        AGENTS,
    )
    .expect("the flock scene builds");
    // What flock_crowd hands over (the same seed: the same crowd).
    let expected = flock_crowd(&fox, AGENTS).unwrap();
    let params = expected.params;
    let ids: Vec<InstanceId> = scene.crowd.ids().collect();
    assert_eq!(ids.len(), AGENTS as usize);
    assert_eq!(scene.crowd.simulated_count(), AGENTS as usize);
    let run = run_frames(&gpu, &mut scene, &ids, SIZE, FRAMES);
    let seconds = FRAMES as f32 / 30.0;

    let duration = fox
        .model()
        .clips
        .iter()
        .find(|c| c.name.to_lowercase().contains("walk"))
        .unwrap()
        .duration as f64;
    let (mut still, mut speed_sum, mut worst_speed) = (0usize, 0.0f32, 0.0f64);
    let mut slowest = f32::INFINITY;
    let mut farthest = 0.0f32;
    for (a, b) in run.first.iter().zip(&run.last) {
        assert_eq!(a.id, b.id);
        let (pa, pb) = (
            a.agent.expect("stepped").position,
            b.agent.expect("stepped"),
        );
        let (p0, p1) = (Vec3::from(pa), Vec3::from(pb.position));
        assert!(
            p1.is_finite() && Vec3::from(pb.velocity).is_finite(),
            "{:?}",
            b.id
        );
        assert!(p1.y.abs() < 1e-3, "{:?} left the ground: {p1}", b.id);
        assert!(
            (b.world.w_axis.truncate() - p1).length() < 1e-3 * p1.length().max(1.0),
            "{:?}: the transform is not at the agent",
            b.id
        );
        if (p1 - p0).length() < 0.05 * params.cruise * seconds {
            still += 1;
        }
        speed_sum += Vec3::from(pb.velocity).length();
        slowest = slowest.min(Vec3::from(pb.velocity).length());
        farthest = farthest.max(p1.length());
        let rate = (b.state.current.rate_lo as u64 | (b.state.current.rate_hi as u64) << 32) as f64;
        let playback = rate / 2f64.powi(64) * TICKS_PER_SECOND as f64 * duration;
        let want = (Vec3::from(pb.velocity).length() / expected.ground_speed) as f64;
        worst_speed = worst_speed.max((playback - want).abs() / want.max(1e-3));
    }
    let mean_speed = speed_sum / run.last.len() as f32;
    println!(
        "{AGENTS} agents, {seconds} s: mean speed {mean_speed:.2} (cruise {:.2}), {still} barely moved, farthest {farthest:.1} of a {:.1} disc, worst playback speed error {worst_speed:e}",
        params.cruise, params.world_radius
    );
    // Every agent walks (the hook keeps each above half of its cruising
    // speed, whose factor is at least 0.6); nearly all have left their
    // start (a few may have turned back to it).
    assert!(
        slowest >= 0.29 * params.cruise,
        "an agent walks at {slowest}, cruise {}",
        params.cruise
    );
    assert!(
        still * 100 <= AGENTS as usize,
        "{still} of {AGENTS} agents are near their start"
    );
    assert!(
        mean_speed > 0.5 * params.cruise && mean_speed < 1.6 * params.cruise,
        "mean speed {mean_speed} against a cruise of {}",
        params.cruise
    );
    assert!(
        farthest < 1.5 * params.world_radius,
        "an agent at {farthest}, the disc is {}",
        params.world_radius
    );
    assert!(
        worst_speed <= SPEED_EPS,
        "worst playback speed error {worst_speed:e} > {SPEED_EPS:e}"
    );
    let orange = orange_fraction(&run.last_image);
    assert!(orange > 0.01, "the picture shows no Foxes ({orange})");
    let moved = run
        .first_image
        .pixels()
        .zip(run.last_image.pixels())
        .filter(|(p, q)| p.0.iter().zip(q.0).any(|(x, y)| x.abs_diff(y) > 8))
        .count() as f64
        / run.first_image.pixels().len() as f64;
    assert!(moved > 0.01, "the picture did not change ({moved})");
}

/// The example itself, in a window under Xvfb: `flock --agents 500
/// --frames 10` draws its frames and exits 0 (cargo builds the examples of
/// a package beside its tests, in `target/<profile>/examples/`); and with
/// its device destroyed after frame 4 it builds it again and goes on.
#[test]
fn the_flock_example_runs_under_xvfb() {
    let out = run_flock(&[]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("building it again"));
    let out = run_flock(&["--lose-device-after", "4"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the GPU device was destroyed; building it again")
            && stderr.contains("recovered on a new device"),
        "{stderr}"
    );
}

/// Runs `flock --agents 500 --frames 10 EXTRA` under Xvfb; it must exit 0.
fn run_flock(extra: &[&str]) -> std::process::Output {
    let exe = std::env::current_exe().unwrap();
    let example = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|profile| profile.join("examples").join("flock"))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| panic!("the flock example is not built beside {}", exe.display()));
    let xvfb = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("xvfb-run"))
        .find(|p| p.is_file())
        .expect("xvfb-run is needed to run the example's window (./tools/test.sh installs it)");
    let runtime = std::env::temp_dir().join(format!("throng-flock-{}", std::process::id()));
    std::fs::create_dir_all(&runtime).unwrap();
    let out = std::process::Command::new(xvfb)
        .args(["-a", "-s", "-screen 0 1024x640x24"])
        .arg(&example)
        .args(["--agents", "500", "--frames", "10"])
        .args(extra)
        .env("XDG_RUNTIME_DIR", &runtime)
        .output()
        .expect("xvfb-run starts");
    assert!(
        out.status.success(),
        "flock failed: exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
