//! The GPU simulation hook (GPU tests):
//!
//! * a hook that drifts its agents at their velocity moves them exactly
//!   there (within [`RELATIVE_EPS`] of `p₀ + v·t` after the frames'
//!   steps), keeps their hand-over orientation, counts time in its own
//!   data word, and sets each looping clip's playback speed to the agent's
//!   speed over the ground speed; instances around them, still or walking
//!   analytically, are where the CPU says; despawning others (which moves
//!   dense slots) does not mix agents up; the CPU answers `GpuAuthority`
//!   for a simulated instance's pose instead of a stale one; the picture
//!   changes as they move;
//! * bad hooks and bad hand-overs are refused with errors naming what and
//!   where, and the CPU paths refuse simulated crowds.

use glam::{Mat4, Quat, Vec3, Vec4};
use throng_core::clock::TICKS_PER_SECOND;
use throng_crowd::crowd::{Crowd, CrowdError, InstanceId, ModelHandle, Motion, Spawn};
use throng_render::{
    GpuModel, PathChoice, RecordPath, RenderError, Renderer, RendererOptions, Simulation,
    SimulationHook, wgpu,
};
use throng_tests::require_gpu;
use throng_tests::scenes::View;

/// Largest difference between a GPU agent's position and `p₀ + v·t`,
/// relative to the larger of 1 and its distance from the origin (ten
/// f32 additions).
const RELATIVE_EPS: f32 = 1e-5;

/// Largest relative difference between the playback speed the GPU set and
/// the agent's speed over the ground speed (the rate is rounded to 24
/// bits).
const SPEED_EPS: f64 = 1e-5;

/// Drifts each agent at its velocity and counts its time in `data.x`.
const DRIFT: &str = "// #import simulation
fn steer(agent: Agent, slot: u32) -> Agent {
    var next = agent;
    next.position = agent.position + agent.velocity * sim_dt();
    next.data.x = agent.data.x + sim_dt();
    return next;
}
";

const GROUND_SPEED: f32 = 1.2;

fn fox() -> ModelHandle {
    throng_tests::bake_asset("khronos_Fox.glb")
}

fn renderer(gpu: &throng_render::Gpu, path: PathChoice) -> Renderer {
    let options = RendererOptions {
        path,
        ..RendererOptions::default()
    };
    Renderer::headless(gpu, options).unwrap()
}

fn hook<'a>(file: &'a str, source: &'a str) -> SimulationHook<'a> {
    SimulationHook {
        file,
        source,
        cell_size: 2.0,
        layout: None,
    }
}

#[test]
fn a_drifting_hook_moves_agents_exactly_and_playback_follows_their_speed() {
    let gpu = require_gpu("simulation");
    let handle = fox();
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let walk = crowd.clip_index(m, "Walk").unwrap();
    let duration = handle.model().clips[walk].duration as f64;
    // 15 × 15 Foxes; every other one simulated with its own velocity, every
    // fifth of the rest walking analytically.
    let mut simulated = Vec::new();
    let mut velocity = std::collections::HashMap::new();
    let mut start = std::collections::HashMap::new();
    for i in 0..225u32 {
        let (x, z) = ((i % 15) as f32 - 7.0, (i / 15) as f32 - 7.0);
        let yaw = i as f32 * 0.7;
        let id = crowd
            .spawn(
                m,
                Spawn {
                    transform: Mat4::from_scale_rotation_translation(
                        Vec3::splat(0.02),
                        Quat::from_rotation_y(yaw),
                        Vec3::new(x * 4.0, 0.0, z * 4.0),
                    ),
                    clip: Some(walk),
                    time: (i as f32 * 0.37).fract(),
                    ..Spawn::default()
                },
            )
            .unwrap();
        if i % 2 == 1 {
            let v = Vec3::new((i as f32 * 1.3).sin(), 0.0, (i as f32 * 0.9).cos()) * 1.5;
            start.insert(id, crowd.world_transform(id).unwrap());
            crowd
                .set_motion(
                    id,
                    Motion::Simulated {
                        velocity: v,
                        ground_speed: GROUND_SPEED,
                        data: Vec4::ZERO,
                    },
                )
                .unwrap();
            simulated.push(id);
            velocity.insert(id, v);
        } else if i % 5 == 0 {
            let motion = Motion::Velocity {
                velocity: Vec3::new(0.5, 0.0, 0.0),
                yaw_rate: 0.3,
            };
            crowd.set_motion(id, motion).unwrap();
        }
    }
    assert_eq!(crowd.simulated_count(), simulated.len());
    // The CPU does not answer for the GPU.
    let id = simulated[0];
    assert!(matches!(
        crowd.world_transform(id),
        Err(CrowdError::GpuAuthority(_))
    ));
    assert!(matches!(crowd.state(id), Err(CrowdError::GpuAuthority(_))));
    assert!(matches!(
        crowd.bone_world_transform(id, 0),
        Err(CrowdError::GpuAuthority(_))
    ));

    let mut r = renderer(&gpu, PathChoice::GpuDriven);
    assert_eq!(r.path(), RecordPath::GpuDriven);
    let sim = Simulation::new(&gpu.device, &hook("drift.wgsl", DRIFT)).unwrap();
    r.set_simulation(0, Some(sim)).unwrap();
    let size = (160, 160);
    let camera = View {
        eye: Vec3::new(0.0, 25.0, 60.0),
        target: Vec3::ZERO,
        fov: 0.9,
        depth: (0.5, 300.0),
    }
    .camera(size);
    let (first, _) = r
        .render_image(&gpu, size, &camera, &[&crowd], &[&model])
        .unwrap();
    // Ten steps of 0.1 s; the first frame's step is 0 s (it starts the
    // agents). Despawning a still instance half way moves the last
    // instance (simulated) into its dense slot.
    let mut elapsed = 0.0f64;
    for frame in 0..10 {
        crowd.update(0.1);
        elapsed += 0.1;
        if frame == 5 {
            let victim = crowd.ids().next().unwrap();
            assert!(!simulated.contains(&victim));
            crowd.despawn(victim).unwrap();
        }
        r.render_image(&gpu, size, &camera, &[&crowd], &[&model])
            .unwrap();
    }
    let (last, _) = r
        .render_image(&gpu, size, &camera, &[&crowd], &[&model])
        .unwrap();
    assert_ne!(first, last, "the simulated Foxes moved");

    let ids: Vec<InstanceId> = crowd.ids().collect();
    let readback = r.read_poses(0, &crowd, &ids).unwrap();
    let poses = loop {
        // Asynchronous: poll as a frame loop would.
        if let Some(poses) = readback.poll(&gpu.device) {
            break poses.unwrap();
        }
        std::thread::yield_now();
    };
    assert!(readback.poll(&gpu.device).unwrap().is_err(), "taken once");
    let (mut worst, mut worst_at) = (0.0f32, String::new());
    let mut worst_speed = 0.0f64;
    for pose in &poses {
        let Some(&v) = velocity.get(&pose.id) else {
            // Not simulated: where the CPU says, to the bit for the still
            // ones and within the motion test's tolerance for walkers.
            let cpu = crowd.world_transform(pose.id).unwrap();
            let scale = cpu.w_axis.truncate().length().max(1.0);
            let d = (pose.world - cpu).abs().to_cols_array();
            let e = d.iter().fold(0.0f32, |a, &b| a.max(b)) / scale;
            assert!(
                e <= RELATIVE_EPS,
                "{:?}: GPU {} vs CPU {}",
                pose.id,
                pose.world,
                cpu
            );
            assert!(pose.agent.is_none());
            continue;
        };
        let agent = pose
            .agent
            .unwrap_or_else(|| panic!("{:?}: no agent", pose.id));
        let p0 = start[&pose.id].w_axis.truncate();
        let expected = p0 + v * elapsed as f32;
        let got = Vec3::from(agent.position);
        let e = (got - expected).length() / expected.length().max(1.0);
        if e > worst {
            worst = e;
            worst_at = format!("{:?}: agent at {got}, expected {expected}", pose.id);
        }
        assert!(
            (agent.data[0] as f64 - elapsed).abs() < 1e-5,
            "{:?}: the hook's own clock {} after {elapsed} s",
            pose.id,
            agent.data[0]
        );
        // The transform: the agent's position, the hand-over's rotation
        // and scale (the agent kept its heading).
        let mut expected_world = start[&pose.id];
        expected_world.w_axis = got.extend(1.0);
        let d = (pose.world - expected_world).abs().to_cols_array();
        let e = d.iter().fold(0.0f32, |a, &b| a.max(b)) / got.length().max(1.0);
        assert!(
            e <= RELATIVE_EPS,
            "{:?}: world {} vs {}",
            pose.id,
            pose.world,
            expected_world
        );
        // Playback speed = agent speed / ground speed.
        let rate =
            (pose.state.current.rate_lo as u64 | (pose.state.current.rate_hi as u64) << 32) as f64;
        let speed = rate / 2f64.powi(64) * TICKS_PER_SECOND as f64 * duration;
        let want = (v.length() / GROUND_SPEED) as f64;
        worst_speed = worst_speed.max((speed - want).abs() / want);
    }
    assert!(
        worst <= RELATIVE_EPS,
        "worst agent position error {worst:e} > {RELATIVE_EPS:e}: {worst_at}"
    );
    assert!(
        worst_speed <= SPEED_EPS,
        "worst playback speed error {worst_speed:e} > {SPEED_EPS:e}"
    );
    println!(
        "{} agents after {elapsed:.1} s: worst position error {worst:e}, worst playback speed error {worst_speed:e}",
        simulated.len()
    );
}

#[test]
fn bad_hooks_and_hand_overs_are_refused_naming_what() {
    let gpu = require_gpu("simulation");
    let device = &gpu.device;
    let err = |h: SimulationHook<'_>| match Simulation::new(device, &h) {
        Ok(_) => panic!("{}: accepted", h.file),
        Err(e) => e.to_string(),
    };
    let e = err(hook(
        "syntax.wgsl",
        "// #import simulation\nfn steer(agent: Agent, slot: u32) -> Agent { return agent }\n",
    ));
    assert!(e.contains("syntax.wgsl"), "{e}");
    let e = err(hook(
        "lonely.wgsl",
        "fn steer(x: u32) -> u32 { return x; }\n",
    ));
    assert!(e.contains("lonely.wgsl") && e.contains("simulation"), "{e}");
    let e = err(hook("unknown.wgsl", "// #import boids\n"));
    assert!(e.contains("unknown.wgsl") && e.contains("boids"), "{e}");
    let e = err(hook("nosteer.wgsl", "// #import simulation\n"));
    assert!(e.contains("nosteer.wgsl"), "{e}");
    // A group 1 the hook binds but no layout describes.
    let unbound = "// #import simulation
@group(1) @binding(0) var<uniform> goal: vec4<f32>;
fn steer(agent: Agent, slot: u32) -> Agent {
    var a = agent;
    a.position = goal.xyz;
    return a;
}
";
    let e = err(hook("unbound.wgsl", unbound));
    assert!(e.contains("unbound.wgsl"), "{e}");
    // A layout that does not match what the hook declares.
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: None,
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: true },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }],
    });
    let e = err(SimulationHook {
        layout: Some(&layout),
        ..hook("mislaid.wgsl", unbound)
    });
    assert!(e.contains("mislaid.wgsl"), "{e}");
    // Throng's group 0 taken over.
    let hijack = "// #import simulation
@group(0) @binding(5) var<storage, read_write> mine: array<f32>;
fn steer(agent: Agent, slot: u32) -> Agent {
    mine[0] = 1.0;
    return agent;
}
";
    let e = err(hook("hijack.wgsl", hijack));
    assert!(e.contains("hijack.wgsl"), "{e}");
    let e = err(SimulationHook {
        cell_size: f32::NAN,
        ..hook("grid.wgsl", DRIFT)
    });
    assert!(e.contains("cell size"), "{e}");

    // Bad hand-overs.
    let handle = fox();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let id = crowd.spawn(m, Spawn::default()).unwrap();
    let bad = |crowd: &mut Crowd, velocity: Vec3, ground_speed: f32| {
        crowd
            .set_motion(
                id,
                Motion::Simulated {
                    velocity,
                    ground_speed,
                    data: Vec4::ZERO,
                },
            )
            .unwrap_err()
            .to_string()
    };
    assert!(bad(&mut crowd, Vec3::NAN, 1.0).contains("finite"));
    assert!(bad(&mut crowd, Vec3::X, f32::INFINITY).contains("finite"));
    assert!(bad(&mut crowd, Vec3::X * 1e9, 1.0).contains("absurd"));
    assert!(bad(&mut crowd, Vec3::X, -1.0).contains("absurd"));
    let prop = crowd.attach(id, m, 0, Mat4::IDENTITY).unwrap();
    assert!(bad(&mut crowd, Vec3::X, 1.0).contains("attachment"));
    crowd.despawn(prop).unwrap();
    let id = crowd.spawn(m, Spawn::default()).unwrap();
    let fine = Motion::Simulated {
        velocity: Vec3::X,
        ground_speed: 0.0,
        data: Vec4::ZERO,
    };
    crowd.set_motion(id, fine).unwrap();
    let e = crowd.attach(id, m, 0, Mat4::IDENTITY).unwrap_err();
    assert!(matches!(e, CrowdError::GpuAuthority(_)), "{e}");
    let layer = throng_crowd::crowd::Layer::new(0);
    let e = crowd.set_layers(id, &[layer]).unwrap_err();
    assert!(matches!(e, CrowdError::GpuAuthority(_)), "{e}");
    let layered = crowd.spawn(m, Spawn::default()).unwrap();
    crowd.set_layers(layered, &[layer]).unwrap();
    let e = crowd.set_motion(layered, fine).unwrap_err().to_string();
    assert!(e.contains("layers"), "{e}");

    // The CPU paths cannot draw what only the GPU knows.
    let model = GpuModel::upload(device, &gpu.queue, &handle).unwrap();
    for path in [PathChoice::Unbounded, PathChoice::Packaged] {
        let mut r = renderer(&gpu, path);
        let sim = Simulation::new(device, &hook("drift.wgsl", DRIFT)).unwrap();
        let e = r.set_simulation(0, Some(sim)).unwrap_err();
        assert!(matches!(e, RenderError::Simulation(_)), "{path:?}: {e}");
        let view = View {
            eye: Vec3::new(0.0, 5.0, 10.0),
            target: Vec3::ZERO,
            fov: 0.9,
            depth: (0.1, 100.0),
        };
        let e = r
            .render_image(&gpu, (32, 32), &view.camera((32, 32)), &[&crowd], &[&model])
            .unwrap_err();
        assert!(
            e.to_string().contains("simulated on the GPU"),
            "{path:?}: {e}"
        );
    }
}
