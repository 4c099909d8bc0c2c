//! Criterion: the GPU-driven path's CPU work per frame for one crowd of
//! 10k, 100k and 1M Foxes, idle and with 1 % and 10 % of the instances
//! changed each frame (a new transform): the crowd's update, the mirror's
//! upload of what changed (in place or scattered), and the cull pass's
//! uniforms, bind groups and commands. Only that CPU work is timed
//! (`iter_custom`); the submission and the GPU's execution are not (on
//! lavapipe the GPU is this same CPU, which would measure the driver's
//! compute instead; see docs/BENCHMARKS.md). A second figure per size is
//! the cull pass itself, from submission to idle: the GPU's time for it (on
//! lavapipe, the host's).

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use glam::{Mat4, Vec3};
use throng_core::gpu::DrawSpec;
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, DrawView, ModelHandle, Spawn};
use throng_render::cull::CullPass;
use throng_render::{Gpu, wgpu};
use throng_tests::culling::Culling;

fn crowd(handle: &ModelHandle, n: u32) -> Crowd {
    let mut crowd = Crowd::new();
    let id = crowd.add_model(handle);
    crowd.try_reserve(n as usize).unwrap();
    let side = (n as f32).sqrt().ceil() as u32;
    for i in 0..n {
        let pos = Vec3::new((i % side) as f32 * 2.0, 0.0, (i / side) as f32 * 2.0);
        crowd
            .spawn(
                id,
                Spawn {
                    transform: Mat4::from_translation(pos) * Mat4::from_scale(Vec3::splat(0.01)),
                    clip: Some(i as usize % 3),
                    time: (i % 97) as f32 * 0.01,
                    ..Spawn::default()
                },
            )
            .unwrap();
    }
    crowd
}

fn benches(c: &mut Criterion) {
    let gpu = Gpu::headless().expect("a GPU adapter (lavapipe will do)");
    let (_, handle) = throng_tests::golden::baked("khronos_Fox.glb");
    let pass = CullPass::new(&gpu.device);
    let mut g = c.benchmark_group("gpu-driven CPU per frame");
    g.sample_size(10);
    for n in [10_000u32, 100_000, 1_000_000] {
        let mut crowd = crowd(&handle, n);
        let ids: Vec<_> = crowd.ids().collect();
        let mut culling = Culling::new(&gpu.device);
        let camera = Camera::look_at(
            Vec3::new(0.0, 50.0, -50.0),
            Vec3::ZERO,
            Vec3::Y,
            1.0,
            16.0 / 9.0,
            0.1,
            1e4,
        );
        let view = DrawView::from_camera(&camera, true);
        let draws = [DrawSpec {
            group: 0,
            index_count: 3,
            first_index: 0,
            base_vertex: 0,
        }];
        let mut frame = |crowd: &mut Crowd, changed: usize, next: &mut usize| -> Duration {
            let start = Instant::now();
            for _ in 0..changed {
                let t = Mat4::from_translation(Vec3::new(*next as f32, 0.0, 1.0));
                crowd.set_transform(ids[*next], t).unwrap();
                *next = (*next + 1) % ids.len();
            }
            crowd.update(1.0 / 60.0);
            let mut encoder = gpu.device.create_command_encoder(&Default::default());
            culling.encode(&gpu, &mut encoder, &pass, crowd, view, &draws);
            let commands = encoder.finish();
            let cpu = start.elapsed();
            gpu.queue.submit([commands]);
            let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
            culling.list.after_submit(&gpu.device);
            cpu
        };
        let mut next = 0;
        frame(&mut crowd, 0, &mut next); // the first, full upload
        for percent in [0usize, 1, 10] {
            let changed = n as usize * percent / 100;
            let id = BenchmarkId::new(format!("{percent}% changed"), n);
            g.bench_with_input(id, &n, |b, _| {
                b.iter_custom(|iters| {
                    (0..iters)
                        .map(|_| frame(&mut crowd, changed, &mut next))
                        .sum()
                })
            });
        }
        // The cull pass itself, idle (no upload): submit to idle. On
        // lavapipe this is the CPU running the compute shader.
        let cull = BenchmarkId::new("cull pass, submit to idle", n);
        g.bench_with_input(cull, &n, |b, _| {
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| {
                        let mut encoder = gpu.device.create_command_encoder(&Default::default());
                        culling.list.encode(&mut encoder, &pass, None);
                        let start = Instant::now();
                        gpu.queue.submit([encoder.finish()]);
                        let _ = gpu.device.poll(wgpu::PollType::wait_indefinitely());
                        let t = start.elapsed();
                        culling.list.after_submit(&gpu.device);
                        t
                    })
                    .sum()
            })
        });
    }
    g.finish();
}

criterion_group!(gpu_driven, benches);
criterion_main!(gpu_driven);
