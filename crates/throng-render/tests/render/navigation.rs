//! Throng's built-in steering on the GPU (`navigate.wgsl`: flow field,
//! contact, walls; not anticipation, which this course does not need:
//! `anticipation.rs` tests it) over an obstacle course (GPU tests):
//! 2,000 Foxes cross through two columns of pillars around a central
//! block to goal points of their own on the far side, 30 simulated seconds
//! at 20 steps a second. From 2 s on, at every checked step (each half
//! second): at most [`MAX_OVERLAP_SHARE`] of the agents overlap another
//! (centres nearer than [`OVERLAP`] × the two radii); no agent's centre is
//! in an obstacle; each agent's clip is the gait its speed calls for
//! (within the hysteresis band). At the end at least [`MIN_ARRIVED`] have
//! arrived. The same scene walked by straight-line analytic walkers (what
//! the viewer's crowd did before: no avoidance) is measured on the CPU and
//! printed for comparison.

use glam::{Mat4, Quat, Vec2, Vec3};
use throng_core::simulation::NavigateParams;
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, InstanceId, Motion, Spawn};
use throng_crowd::navigation::{FlowField, Goal, ObstacleGrid};
use throng_render::simulation::gaits::Gaits;
use throng_render::simulation::navigate::{goal_data, navigate_params, navigate_simulation};
use throng_render::{Gpu, GpuModel, PathChoice, ReadPose, Renderer, RendererOptions, Simulation};
use throng_tests::crowd_overlap::overlapping;
use throng_tests::require_gpu;
use throng_tests::scenes::View;

/// Agents.
const AGENTS: u32 = 2000;
/// An agent's radius, world units.
pub(crate) const RADIUS: f32 = 0.3;
/// Overlap: centres nearer than this times the sum of the radii.
pub(crate) const OVERLAP: f32 = 0.8;
/// The bar: at most 1 % of agents overlapping at any checked step.
pub(crate) const MAX_OVERLAP_SHARE: f64 = 0.01;
/// At least 95 % arrived after 30 s.
pub(crate) const MIN_ARRIVED: f64 = 0.95;
/// An agent within this distance of its goal point has arrived.
pub(crate) const ARRIVE: f32 = 0.8;
/// Cruising speed, world units per second.
pub(crate) const SPEED: f32 = 3.5;
/// Simulated seconds (`THRONG_NAV_SECONDS` shortens a debugging run), and
/// steps a second.
const SECONDS: u32 = 30;
pub(crate) const STEPS_PER_SECOND: u32 = 20;
/// Half-width of the course (x), and its half-depth (z).
pub(crate) const HALF_X: f32 = 44.0;
pub(crate) const HALF_Z: f32 = 36.0;
/// Columns and rows of the start and goal lattices (x ahead, z across).
const COLUMNS: u32 = 29;
const ROWS: u32 = 70;

/// A GPU-driven renderer stepping a simulation frame by frame, its camera
/// looking away: the frames step the simulation, and what they draw is not
/// what is measured (shared with `anticipation.rs`).
pub(crate) struct Stepper {
    renderer: Renderer,
    camera: Camera,
}

impl Stepper {
    /// The picture size of the frames.
    const SIZE: (u32, u32) = (16, 16);

    pub(crate) fn new(gpu: &Gpu, sim: Simulation) -> Self {
        let mut renderer = Renderer::headless(
            gpu,
            RendererOptions {
                path: PathChoice::GpuDriven,
                ..RendererOptions::default()
            },
        )
        .unwrap();
        renderer.set_simulation(0, Some(sim)).unwrap();
        let camera = View {
            eye: Vec3::new(0.0, 2.0, 0.0),
            target: Vec3::new(0.0, 50.0, 1.0),
            fov: 0.9,
            depth: (0.5, 300.0),
        }
        .camera(Self::SIZE);
        Self { renderer, camera }
    }

    /// One frame of `crowd`: the simulation takes its step.
    pub(crate) fn frame(&mut self, gpu: &Gpu, crowd: &Crowd, model: &GpuModel) {
        self.renderer
            .render_image(gpu, Self::SIZE, &self.camera, &[crowd], &[model])
            .unwrap();
    }

    /// The poses of `ids` as the last frame left them, waiting for the GPU.
    pub(crate) fn poses(&self, gpu: &Gpu, crowd: &Crowd, ids: &[InstanceId]) -> Vec<ReadPose> {
        let readback = self.renderer.read_poses(0, crowd, ids).unwrap();
        loop {
            if let Some(poses) = readback.poll(&gpu.device) {
                break poses.unwrap();
            }
            std::thread::yield_now();
        }
    }
}

/// The course: pillars in two staggered columns and a block in the middle.
pub(crate) fn course() -> ObstacleGrid {
    let mut grid =
        ObstacleGrid::covering(Vec2::new(-HALF_X, -HALF_Z), Vec2::new(HALF_X, HALF_Z), 0.5)
            .unwrap();
    for (column, x) in [-5.0f32, 5.0].into_iter().enumerate() {
        for k in -6..=5 {
            let z = k as f32 * 6.0 + column as f32 * 3.0 - 1.5;
            grid.block_circle(Vec2::new(x, z), 0.8);
        }
    }
    grid.block_rect(Vec2::new(-1.0, -4.0), Vec2::new(1.0, 4.0));
    grid
}

/// A lattice of COLUMNS × ROWS points `across` apart in z, `step` apart
/// in x from x = `x0` (column 0) toward `x0 - step·COLUMNS`, in order of
/// column, then row.
pub(crate) fn lattice(x0: f32, step: f32, across: f32) -> Vec<Vec2> {
    let mut points = Vec::new();
    for c in 0..COLUMNS {
        for r in 0..ROWS {
            points.push(Vec2::new(
                x0 - c as f32 * step,
                (r as f32 - (ROWS - 1) as f32 * 0.5) * across,
            ));
        }
    }
    points
}

/// A top view of `grid` (all of it, 10 pixels a unit) and `points`, blue
/// where `arrived`, red where still walking (debugging:
/// `THRONG_NAV_PLOT=dir`).
pub(crate) fn plot(grid: &ObstacleGrid, points: &[Vec2], arrived: &[bool], path: &str) {
    let scale = 10.0;
    // The grid's own extent: the course's, or a test's other ground.
    let (min, size) = (grid.origin(), grid.max() - grid.origin());
    let (w, h) = ((size.x * scale) as u32, (size.y * scale) as u32);
    let mut img = image::RgbImage::from_pixel(w, h, image::Rgb([255, 255, 255]));
    for y in 0..h {
        for x in 0..w {
            let p = min + Vec2::new(x as f32, y as f32) / scale;
            if grid.is_blocked(p) {
                img.put_pixel(x, y, image::Rgb([90, 90, 90]));
            }
        }
    }
    for (p, &done) in points.iter().zip(arrived) {
        let c = if done { [30, 30, 200] } else { [200, 30, 30] };
        let (cx, cy) = ((p.x - min.x) * scale, (p.y - min.y) * scale);
        for dy in -2i32..=2 {
            for dx in -2i32..=2 {
                let (x, y) = (cx as i32 + dx, cy as i32 + dy);
                if x >= 0 && y >= 0 && (x as u32) < w && (y as u32) < h && dx * dx + dy * dy <= 5 {
                    img.put_pixel(x as u32, y as u32, image::Rgb(c));
                }
            }
        }
    }
    img.save(path).unwrap();
}

#[test]
fn agents_cross_an_obstacle_course_without_overlapping_and_arrive() {
    let gpu = require_gpu("navigation");
    let handle = throng_tests::bake_asset("khronos_Fox.glb");
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let grid = course();
    let goals = [Goal::Rect {
        min: Vec2::new(8.0, -HALF_Z),
        max: Vec2::new(HALF_X, HALF_Z),
    }];
    let field = FlowField::compute(&grid, &goals).unwrap();

    // Each to its own point on the far side: the front of the crowd to the
    // back of the goal region, so that early arrivals stand out of the way.
    // Column c of the crowd (0 in front) goes to column c of the goals
    // (0 at the back).
    let starts = lattice(-7.0, 0.75, 0.8);
    let goal_points = lattice(HALF_X - 2.0, 1.2, 1.0);
    assert!(
        starts.len() >= AGENTS as usize,
        "{} start points",
        starts.len()
    );
    let (starts, goal_points) = (&starts[..AGENTS as usize], &goal_points[..AGENTS as usize]);
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let walk = crowd.clip_index(m, "Walk").unwrap();
    // The Fox is about 150 units long: scaled to 0.7 world units.
    let body = {
        let b = handle.model().bounds;
        (b.max - b.min).max_element()
    };
    let scale = 0.7 / body;
    for (i, (&p, &q)) in starts.iter().zip(goal_points).enumerate() {
        let id = crowd
            .spawn(
                m,
                Spawn {
                    transform: Mat4::from_scale_rotation_translation(
                        Vec3::splat(scale),
                        Quat::from_rotation_y(1.57),
                        Vec3::new(p.x, 0.0, p.y),
                    ),
                    clip: Some(walk),
                    time: (i as f32 * 0.37).fract(),
                    ..Spawn::default()
                },
            )
            .unwrap();
        crowd
            .set_motion(
                id,
                Motion::Simulated {
                    velocity: Vec3::ZERO,
                    ground_speed: 0.0,
                    data: goal_data(0, Some(q)),
                },
            )
            .unwrap();
    }
    let ids: Vec<InstanceId> = crowd.ids().collect();

    // Arrived: within 0.8 of its own point (two thirds of an agent's
    // width beyond it), where the goal lattice leaves gaps of 0.4.
    let params = NavigateParams {
        dwell: -1.0,
        arrive: ARRIVE,
        ..navigate_params(RADIUS, SPEED)
    };
    let mut sim = navigate_simulation(&gpu.device, &params).unwrap();
    sim.set_navigation(&gpu.device, &field).unwrap();
    let gaits = Gaits::by_name(&crowd, m, 1.2, 3.0).unwrap();
    sim.set_gaits(&crowd, m, Some(&gaits)).unwrap();
    let mut stepper = Stepper::new(&gpu, sim);

    let seconds = std::env::var("THRONG_NAV_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(SECONDS);
    let dt = 1.0 / STEPS_PER_SECOND as f32;
    let limit = OVERLAP * 2.0 * RADIUS;
    let (mut worst_share, mut worst_at) = (0.0f64, 0.0f32);
    let mut checks = 0;
    let mut arrived = 0usize;
    let (mut gait_checked, mut clips_seen) = (0usize, [0usize; 3]);
    stepper.frame(&gpu, &crowd, &model);
    for step in 1..=seconds * STEPS_PER_SECOND {
        crowd.update(dt);
        stepper.frame(&gpu, &crowd, &model);
        let t = step as f32 * dt;
        if step % (STEPS_PER_SECOND / 2) != 0 || t < 2.0 {
            continue;
        }
        let poses = stepper.poses(&gpu, &crowd, &ids);
        let mut points = Vec::with_capacity(poses.len());
        let mut here = Vec::with_capacity(poses.len());
        arrived = 0;
        for pose in &poses {
            let a = pose
                .agent
                .unwrap_or_else(|| panic!("{:?}: no agent at {t} s", pose.id));
            let p = Vec2::new(a.position[0], a.position[2]);
            assert!(
                !grid.is_blocked(p),
                "{:?} at {t} s: its centre {p} is inside an obstacle (clearance {:?})",
                pose.id,
                field.clearance_at(p)
            );
            points.push(p);
            here.push(a.data[3] > 0.0);
            arrived += usize::from(a.data[3] > 0.0);
            // Its clip is the gait its speed calls for, within hysteresis.
            let speed = Vec2::new(a.velocity[0], a.velocity[2]).length();
            let clip = (pose.state.current.clip & 0xffff) as usize;
            let h = gaits.hysteresis;
            let band_ok = if Some(clip) == gaits.idle {
                clips_seen[0] += 1;
                speed <= gaits.idle_below * (1.0 + h) + 1e-4
            } else if clip == gaits.walk {
                clips_seen[1] += 1;
                speed >= gaits.idle_below * (1.0 - h) - 1e-4
                    && speed <= gaits.run_above * (1.0 + h) + 1e-4
            } else if Some(clip) == gaits.run {
                clips_seen[2] += 1;
                speed >= gaits.run_above * (1.0 - h) - 1e-4
            } else {
                false
            };
            assert!(
                band_ok,
                "{:?} at {t} s: clip {clip} at speed {speed} (gaits {gaits:?})",
                pose.id
            );
            gait_checked += 1;
        }
        if let Ok(dir) = std::env::var("THRONG_NAV_PLOT") {
            plot(&grid, &points, &here, &format!("{dir}/nav-{t:05.1}.png"));
        }
        let share = overlapping(&points, limit) as f64 / points.len() as f64;
        if share > worst_share {
            worst_share = share;
            worst_at = t;
        }
        checks += 1;
    }
    // The analytic walkers of the same scene: straight to their goal
    // points at the agents' cruising speed, through each other and the
    // obstacles alike, measured at the same steps.
    // Each at its own speed in SPEED ± 15 %, as the hook's agents.
    let (mut analytic_worst, mut analytic_inside) = (0.0f64, 0usize);
    for half in 4..=2 * seconds {
        let t = half as f32 * 0.5;
        let points: Vec<Vec2> = starts
            .iter()
            .zip(goal_points)
            .enumerate()
            .map(|(i, (&s, &g))| {
                let speed =
                    SPEED * (1.0 + 0.15 * (2.0 * throng_demo::walkers::unit_hash(i as u32) - 1.0));
                let d = g - s;
                let l = d.length();
                s + d * (speed * t).min(l) / l.max(1e-6)
            })
            .collect();
        analytic_worst =
            analytic_worst.max(overlapping(&points, limit) as f64 / points.len() as f64);
        analytic_inside =
            analytic_inside.max(points.iter().filter(|&&p| grid.is_blocked(p)).count());
    }
    let arrived_share = arrived as f64 / ids.len() as f64;
    println!(
        "navigation: {} agents, {checks} checks from 2 s to {SECONDS} s: worst overlap share {:.3} % (at {worst_at} s; bar {:.1} %), analytic walkers {:.1} % with up to {analytic_inside} inside obstacles; arrived {:.1} %; gaits checked {gait_checked} (idle {}, walk {}, run {})",
        ids.len(),
        worst_share * 100.0,
        MAX_OVERLAP_SHARE * 100.0,
        analytic_worst * 100.0,
        arrived_share * 100.0,
        clips_seen[0],
        clips_seen[1],
        clips_seen[2],
    );
    assert!(
        worst_share <= MAX_OVERLAP_SHARE,
        "worst overlap share {:.3} % at {worst_at} s > {:.1} %",
        worst_share * 100.0,
        MAX_OVERLAP_SHARE * 100.0
    );
    assert!(
        arrived_share >= MIN_ARRIVED,
        "{:.1} % arrived after {SECONDS} s, fewer than {:.0} %",
        arrived_share * 100.0,
        MIN_ARRIVED * 100.0
    );
    assert!(
        clips_seen[0] > 0 && clips_seen[1] > 0,
        "gaits seen: idle {}, walk {}, run {}",
        clips_seen[0],
        clips_seen[1],
        clips_seen[2]
    );
}
