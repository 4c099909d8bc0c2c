//! The GPU-driven path's motion pass against the CPU twin: for random
//! crowds with every kind of analytic motion (velocities straight and
//! turning, paths with every end behaviour, speeds either way and turning
//! distances, root motion looping, ping-ponging and playing once, straight
//! and turning), re-targeted between frames, the transforms the motion pass
//! writes equal [`Crowd::world_transform`] within [`RELATIVE_EPS`] — up to
//! ten simulated hours later. And the pictures of a walking crowd drawn by
//! the GPU-driven path equal the CPU path's within the golden tolerance.

use glam::{Mat4, Quat, Vec3, Vec4};
use throng_core::gpu::GpuTransform;
use throng_crowd::crowd::{
    Crowd, InstanceId, ModelHandle, Motion, PathEnd, PathId, Spawn, WrapMode,
};
use throng_render::Gpu;
use throng_render::cull::CullPass;
use throng_render::mirror::CrowdMirror;
use throng_tests::readback::read_buffer;
use throng_tests::require_gpu;
use throng_tests::rng::Rng;
use throng_tests::scenes::{BesideCpu, View};
use throng_tests::walker::bake_walker;

/// Largest difference between a GPU and a CPU transform element, relative
/// to the larger of 1 and the instance's distance from the origin.
pub(crate) const RELATIVE_EPS: f32 = 1e-5;

fn random_path(rng: &mut Rng, crowd: &mut Crowd) -> PathId {
    let n = 2 + rng.below(6);
    let mut p = Vec3::new(rng.range(-30.0, 30.0), 0.0, rng.range(-30.0, 30.0));
    let points: Vec<Vec3> = (0..n)
        .map(|_| {
            p += Vec3::new(
                rng.range(-8.0, 8.0),
                rng.range(-0.5, 0.5),
                rng.range(-8.0, 8.0),
            );
            p
        })
        .collect();
    crowd.add_path(&points).unwrap()
}

pub(crate) fn random_motion(rng: &mut Rng, paths: &[PathId], root: bool) -> Motion {
    if root && rng.below(2) == 0 {
        return Motion::RootMotion;
    }
    match rng.below(3) {
        0 => Motion::Velocity {
            velocity: Vec3::new(
                rng.range(-2.0, 2.0),
                rng.range(-0.1, 0.1),
                rng.range(-2.0, 2.0),
            ),
            yaw_rate: if rng.below(2) == 0 {
                0.0
            } else {
                rng.range(-1.5, 1.5)
            },
        },
        1 => Motion::Path {
            path: paths[rng.below(paths.len())],
            speed: rng.range(-3.0, 3.0),
            start: rng.range(0.0, 20.0),
            end: [PathEnd::Stop, PathEnd::Loop, PathEnd::PingPong][rng.below(3)],
            turn: if rng.below(2) == 0 {
                0.0
            } else {
                rng.range(0.1, 3.0)
            },
        },
        _ => Motion::Still,
    }
}

/// A crowd of walkers (root motion straight and turning) and Foxes, every
/// instance with a random motion.
pub(crate) fn moving_crowd(
    rng: &mut Rng,
    models: &[(ModelHandle, bool)],
    n: usize,
) -> (Crowd, Vec<PathId>) {
    let mut crowd = Crowd::new();
    let ids: Vec<_> = models.iter().map(|(h, _)| crowd.add_model(h)).collect();
    let paths: Vec<PathId> = (0..6).map(|_| random_path(rng, &mut crowd)).collect();
    let wraps = [WrapMode::Loop, WrapMode::Once, WrapMode::PingPong];
    for i in 0..n {
        let k = i % models.len();
        let (handle, root) = &models[k];
        let clips = handle.model().clips.len();
        let transform = Mat4::from_scale_rotation_translation(
            Vec3::splat(rng.range(0.5, 1.5)),
            Quat::from_rotation_y(rng.range(0.0, std::f32::consts::TAU)),
            Vec3::new(rng.range(-40.0, 40.0), 0.0, rng.range(-40.0, 40.0)),
        );
        let id = crowd
            .spawn(
                ids[k],
                Spawn {
                    transform,
                    clip: Some(rng.below(clips)),
                    time: rng.range(0.0, 2.0),
                    speed: rng.range(-1.5, 2.0),
                    wrap: wraps[rng.below(3)],
                    ..Spawn::default()
                },
            )
            .unwrap();
        let motion = random_motion(rng, &paths, *root);
        crowd.set_motion(id, motion).unwrap();
    }
    (crowd, paths)
}

/// The mirror's transforms after a sync (the motion pass included)
/// against the CPU twin; the worst relative difference.
pub(crate) fn compare(
    gpu: &Gpu,
    pass: &CullPass,
    mirror: &mut CrowdMirror,
    crowd: &Crowd,
) -> (f32, String) {
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    mirror
        .sync(&gpu.device, &gpu.queue, &mut encoder, pass, crowd)
        .unwrap();
    gpu.queue.submit([encoder.finish()]);
    let bytes = crowd.len() as u64 * std::mem::size_of::<GpuTransform>() as u64;
    let got: Vec<GpuTransform> =
        bytemuck::cast_slice(&read_buffer(gpu, mirror.transforms(), bytes)).to_vec();
    let mut worst = (0.0f32, String::new());
    for (d, id) in crowd.ids().enumerate() {
        let want = crowd.world_transform(id).unwrap().transpose();
        let want = [want.x_axis, want.y_axis, want.z_axis];
        let scale = 1.0f32.max(Vec3::new(want[0].w, want[1].w, want[2].w).length());
        for (r, want_row) in want.iter().enumerate() {
            let diff = (Vec4::from(got[d].rows[r]) - *want_row).abs().max_element() / scale;
            if diff > worst.0 || diff.is_nan() {
                worst = (
                    if diff.is_nan() { f32::INFINITY } else { diff },
                    format!(
                        "{id:?} ({:?}) row {r}: GPU {:?}, CPU {}",
                        crowd.motion(id).unwrap(),
                        got[d].rows[r],
                        want_row
                    ),
                );
            }
        }
    }
    worst
}

#[test]
fn the_gpu_motion_pass_equals_the_cpu_twin_for_ten_hours() {
    let gpu = require_gpu("motion");
    let (_, straight) = bake_walker([0.0, 0.0, 1.5], 0.0);
    let (_, turning) = bake_walker([0.2, 0.0, 1.2], 0.35);
    let models = [(straight, true), (turning, true)];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut crowd, paths) = moving_crowd(&mut rng, &models, 400);
    let pass = CullPass::new(&gpu.device);
    let mut mirror = CrowdMirror::new(&gpu.device);
    let mut overall = 0.0f32;
    for (frame, dt) in [0.0f32, 1.0 / 60.0, 5.3, 3600.5, 32_400.25, 0.5]
        .into_iter()
        .enumerate()
    {
        if dt > 0.0 {
            crowd.update(dt);
        }
        let (worst, at) = compare(&gpu, &pass, &mut mirror, &crowd);
        eprintln!(
            "frame {frame} at {:.2} s: worst relative GPU-CPU difference {worst:.2e} ({at})",
            crowd.seconds()
        );
        assert!(
            worst <= RELATIVE_EPS,
            "frame {frame} at {:.2} s: {worst:.3e} > {RELATIVE_EPS:e}: {at}",
            crowd.seconds()
        );
        overall = overall.max(worst);
        // Re-targets, new instances and a despawn before the next frame:
        // the mirror must pick them up.
        let ids: Vec<InstanceId> = crowd.ids().collect();
        for _ in 0..25 {
            let id = ids[rng.below(ids.len())];
            crowd
                .set_motion(id, random_motion(&mut rng, &paths, true))
                .unwrap();
        }
        crowd.despawn(ids[rng.below(ids.len())]).unwrap();
        let id = crowd
            .spawn(
                throng_crowd::crowd::ModelId(1),
                Spawn {
                    clip: Some(0),
                    ..Spawn::default()
                },
            )
            .unwrap();
        crowd.set_motion(id, Motion::RootMotion).unwrap();
        let id = ids[rng.below(ids.len())];
        if crowd.contains(id) {
            crowd
                .set_transform(id, Mat4::from_translation(Vec3::new(1.0, 0.0, 2.0)))
                .unwrap();
        }
    }
    assert!(crowd.seconds() > 36_000.0, "ten hours simulated");
    eprintln!("overall worst {overall:.2e}");
}

/// A walking crowd of Foxes (paths, velocities, speed-matched playback)
/// drawn by the GPU-driven path and by the CPU's unbounded path, over
/// frames with re-targets between them: equal within the golden tolerance.
#[test]
fn walking_pictures_equal_the_cpu_paths() {
    use throng_render::{GpuModel, RendererOptions};
    let gpu = require_gpu("motion");
    let handle = throng_tests::bake_asset("khronos_Fox.glb");
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let paths: Vec<PathId> = (0..4).map(|_| random_path(&mut rng, &mut crowd)).collect();
    let walk = crowd.clip_index(m, "Walk").unwrap();
    for _ in 0..200 {
        let id = crowd
            .spawn(
                m,
                Spawn {
                    transform: Mat4::from_scale_rotation_translation(
                        Vec3::splat(0.02),
                        Quat::IDENTITY,
                        Vec3::new(rng.range(-40.0, 40.0), 0.0, rng.range(-40.0, 40.0)),
                    ),
                    clip: Some(walk),
                    time: rng.range(0.0, 1.0),
                    ..Spawn::default()
                },
            )
            .unwrap();
        let motion = random_motion(&mut rng, &paths, false);
        crowd.set_motion_matched(id, motion, 1.2).unwrap();
    }
    let mut beside = BesideCpu::new(&gpu, RendererOptions::default(), "throng-motion");
    let camera = View {
        eye: Vec3::new(0.0, 30.0, 75.0),
        target: Vec3::ZERO,
        fov: 0.9,
        depth: (0.5, 300.0),
    }
    .camera((192, 192));
    let mut first = None;
    for frame in 0..4 {
        let name = format!("walking_{frame}");
        let (a, _) = beside.frame(&gpu, &name, (192, 192), &camera, &[&crowd], &[&model]);
        match &first {
            None => first = Some(a),
            Some(f) => assert_ne!(f, &a, "frame {frame}: the crowd moved"),
        }
        crowd.update(0.7);
        let ids: Vec<InstanceId> = crowd.ids().collect();
        for _ in 0..20 {
            let motion = random_motion(&mut rng, &paths, false);
            crowd.set_motion(ids[rng.below(ids.len())], motion).unwrap();
        }
    }
}
