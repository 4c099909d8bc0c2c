//! Criterion: the CPU side of a crowd frame — `Crowd::update` plus frustum
//! culling and record building (`Crowd::build_draw_list`) — per instance, at
//! 10k, 100k and 1M Foxes with mixed clips, with 30 % and 50 % of them
//! cross-fading, as two calls and as the fused `Crowd::tick`. Criterion
//! reports time per frame and elements per second; ns per instance is the
//! time divided by the instance count.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::{Mat4, Vec3};
use std::hint::black_box;
use throng_bake::{BakeOptions, bake_file};
use throng_core::camera::Camera;
use throng_core::crowd::{Crowd, DrawList, ModelHandle, Spawn};

fn crowd(handle: &ModelHandle, n: u32, fading_percent: u32) -> (Crowd, Camera) {
    let mut crowd = Crowd::new();
    let id = crowd.add_model(handle);
    let clips = handle.model().clips.len();
    let side = (n as f32).sqrt().ceil() as u32;
    let spacing = 200.0;
    for i in 0..n {
        let pos = Vec3::new(
            (i % side) as f32 * spacing,
            0.0,
            (i / side) as f32 * spacing,
        );
        let clip = i as usize % clips;
        let inst = crowd
            .spawn(
                id,
                Spawn {
                    transform: Mat4::from_translation(pos),
                    clip: Some(clip),
                    time: (i % 97) as f32 * 0.01,
                    ..Spawn::default()
                },
            )
            .unwrap();
        if i % 100 < fading_percent {
            // A fade long enough to last the whole benchmark.
            crowd.cross_fade(inst, (clip + 1) % clips, 1.0e6).unwrap();
        }
    }
    let extent = side as f32 * spacing;
    let center = Vec3::new(extent * 0.5, 0.0, extent * 0.5);
    // Sees the whole grid: every instance passes culling and writes a record.
    let camera = Camera::look_at(
        center + Vec3::new(0.0, extent, extent),
        center,
        Vec3::Y,
        1.2,
        16.0 / 9.0,
        1.0,
        extent * 4.0,
    );
    (crowd, camera)
}

fn benches(c: &mut Criterion) {
    let (model, _) = bake_file(
        &throng_tests::asset("khronos_Fox.glb"),
        &BakeOptions::default(),
        &mut |_, _| {},
    )
    .unwrap();
    let handle = ModelHandle::new(model).unwrap();
    let mut g = c.benchmark_group("crowd frame: update + cull + records");
    g.sample_size(20);
    for (n, fading) in [(10_000, 30), (100_000, 30), (100_000, 50), (1_000_000, 30)] {
        let (mut crowd, camera) = crowd(&handle, n, fading);
        let frustum = camera.frustum();
        let mut list = DrawList::default();
        crowd.build_draw_list(Some(&frustum), &mut list);
        assert_eq!(list.visible(), n, "the camera sees every instance");
        g.throughput(Throughput::Elements(n as u64));
        let id = BenchmarkId::new(format!("update + build_draw_list, {fading}% fading"), n);
        g.bench_with_input(id, &n, |b, _| {
            b.iter(|| {
                crowd.update(black_box(1.0 / 60.0));
                crowd.build_draw_list(Some(&frustum), &mut list);
                black_box(list.records.len())
            })
        });
        let id = BenchmarkId::new(format!("tick (fused), {fading}% fading"), n);
        g.bench_with_input(id, &n, |b, _| {
            b.iter(|| {
                crowd.tick(black_box(1.0 / 60.0), Some(&frustum), &mut list);
                black_box(list.records.len())
            })
        });
    }
    g.finish();
}

criterion_group!(crowd_benches, benches);
criterion_main!(crowd_benches);
