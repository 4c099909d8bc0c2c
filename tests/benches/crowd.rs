//! Criterion: the CPU side of a crowd frame — `Crowd::update` plus frustum
//! culling and record building (`Crowd::build_draw_list`) — per instance, at
//! 10k, 100k and 1M Foxes with mixed clips, with 30 % and 50 % of them
//! cross-fading, as two calls and as the fused `Crowd::tick`. Criterion
//! reports time per frame and elements per second; ns per instance is the
//! time divided by the instance count.
//!
//! The `idle and changing` group is the GPU-driven path's CPU side:
//! `Crowd::update` and reading the change log, idle and with 1 % and 10 %
//! of the instances changed (a new transform) each frame; nothing per
//! instance is touched but what changed.
//!
//! A third group prices each runtime feature at 100k instances (30 %
//! fading, every instance in view unless said otherwise) against the same
//! baseline: events, root motion, LOD selection, a prop attached to every
//! instance, culling half the crowd away, and the shadow pass's second draw
//! list (casters culled by the light).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::{Mat4, Vec3};
use std::hint::black_box;
use throng_bake::{BakeOptions, RootMotionSource, bake, bake_file, import_slice};
use throng_core::model::ClipEvent;
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{ChangeCursor, Changes, Crowd, DrawList, DrawView, ModelHandle, Spawn};
use throng_tests::gltf_builder::{GltfBuilder, Node, Primitive};

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
    let handle = throng_tests::bake_asset("khronos_Fox.glb");
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

    let mut g = c.benchmark_group("idle and changing: update + change log");
    g.sample_size(20);
    for n in [10_000u32, 100_000, 1_000_000] {
        let (mut crowd, _) = crowd(&handle, n, 30);
        let ids: Vec<_> = crowd.ids().collect();
        let mut cursor = ChangeCursor::default();
        let _ = crowd.changes(&mut cursor);
        for percent in [0u32, 1, 10] {
            let per_frame = (n as usize * percent as usize) / 100;
            let mut next = 0usize;
            let id = BenchmarkId::new(format!("{percent}% changed per frame"), n);
            g.bench_with_input(id, &n, |b, _| {
                b.iter(|| {
                    for _ in 0..per_frame {
                        let t = Mat4::from_translation(Vec3::new(next as f32, 0.0, 1.0));
                        crowd.set_transform(ids[next], t).unwrap();
                        next = (next + 1) % ids.len();
                    }
                    crowd.update(black_box(1.0 / 60.0));
                    match crowd.changes(&mut cursor) {
                        Changes::All => usize::MAX,
                        Changes::Slots(s) => black_box(s.len()),
                    }
                })
            });
        }
    }
    g.finish();
    batched_writes(&handle);
}

/// `Crowd::set_transforms` over every instance (an ECS writing back its
/// positions), at 100k and 1M: Throng's share per changed instance is the
/// time over the instance count (the caller's matrices are built once,
/// outside the timing).
fn batched_writes(handle: &ModelHandle) {
    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("batched writes");
    g.sample_size(10);
    for n in [100_000u32, 1_000_000] {
        let (mut crowd, _) = crowd(handle, n, 0);
        let ids: Vec<_> = crowd.ids().collect();
        let mats: Vec<Mat4> = (0..n)
            .map(|i| Mat4::from_translation(Vec3::new(i as f32, 0.0, 2.0)))
            .collect();
        let mut cursor = ChangeCursor::default();
        let _ = crowd.changes(&mut cursor);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("set_transforms, all", n), &n, |b, _| {
            b.iter(|| {
                crowd.set_transforms(&ids, black_box(&mats)).unwrap();
                match crowd.changes(&mut cursor) {
                    Changes::All => usize::MAX,
                    Changes::Slots(s) => black_box(s.len()),
                }
            })
        });
        // The same transforms written in place: the caller's rows copied
        // into the crowd's (what an ECS writing its positions does), the
        // check, re-anchoring and log in one pass, no spheres.
        let rows: Vec<[glam::Vec4; 3]> = mats
            .iter()
            .map(|m| {
                let t = m.transpose();
                [t.x_axis, t.y_axis, t.z_axis]
            })
            .collect();
        g.bench_with_input(
            BenchmarkId::new("write_transforms in place, all", n),
            &n,
            |b, _| {
                b.iter(|| {
                    crowd
                        .write_transforms(0..n as usize, |r| r.copy_from_slice(black_box(&rows)))
                        .unwrap();
                    match crowd.changes(&mut cursor) {
                        Changes::All => usize::MAX,
                        Changes::Slots(s) => black_box(s.len()),
                    }
                })
            },
        );
    }
    g.finish();
}

fn fox(options: &BakeOptions) -> ModelHandle {
    let (model, _) =
        bake_file(&throng_tests::asset("khronos_Fox.glb"), options, &|_, _| {}).unwrap();
    ModelHandle::new(model).unwrap()
}

/// A rigid box with no skin: the prop of the attachment case.
fn prop() -> ModelHandle {
    let mut b = GltfBuilder::new();
    let p = [
        [-1., -1., -1.],
        [1., -1., -1.],
        [1., 1., -1.],
        [-1., 1., -1.],
        [0., 0., 1.],
    ];
    let idx = [0, 2, 1, 0, 3, 2, 0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4];
    let mesh = b.mesh("prop", vec![Primitive::new(&p).indices(&idx)]);
    let n = b.node(Node::new("prop").mesh(mesh));
    b.scene(&[n]);
    let scene = import_slice(&b.to_gltf(), None, "prop").unwrap().scene;
    ModelHandle::new(bake(&scene, &BakeOptions::default(), &|_, _| {}).unwrap().0).unwrap()
}

fn features(c: &mut Criterion) {
    const N: u32 = 100_000;
    const FADING: u32 = 30;
    let plain = fox(&BakeOptions::default());
    let mut g = c.benchmark_group("crowd features at 100k: update + cull + records");
    g.sample_size(20);
    g.throughput(Throughput::Elements(N as u64));
    let mut run = |name: &str, crowd: &mut Crowd, view: DrawView, shadow: Option<DrawView>| {
        let mut list = DrawList::default();
        let mut casters = DrawList::default();
        g.bench_function(name, |b| {
            b.iter(|| {
                crowd.update(black_box(1.0 / 60.0));
                crowd.build_draw_list(view, &mut list);
                if let Some(light) = shadow {
                    crowd.build_draw_list(light, &mut casters);
                }
                black_box(crowd.drain_events().count());
                black_box(list.records.len() + casters.records.len())
            })
        });
    };

    // Baseline: the view sees every instance; no LOD selection.
    let (mut base, camera) = crowd(&plain, N, FADING);
    let all = DrawView::from(Some(&camera.frustum()));
    run("baseline", &mut base, all, None);

    // Events: four per clip (start, quarter, half, end), drained every frame.
    let mut model = plain.model().clone();
    for (i, clip) in model.clips.iter().enumerate() {
        for k in 0..4 {
            model.events.push(ClipEvent {
                clip: i as u32,
                time: clip.duration * k as f32 / 3.0,
                name: format!("e{k}"),
                data: String::new(),
            });
        }
    }
    let events = ModelHandle::new(model).unwrap();
    let (mut c_events, _) = crowd(&events, N, FADING);
    run("events (4 per clip, drained)", &mut c_events, all, None);

    // Root motion on every instance.
    let rooted = fox(&BakeOptions {
        root_motion: Some(RootMotionSource::SkeletonRoot),
        ..BakeOptions::default()
    });
    let (mut c_root, _) = crowd(&rooted, N, FADING);
    let ids: Vec<_> = c_root.ids().collect();
    for id in ids {
        c_root.set_root_motion(id, true).unwrap();
    }
    // Walkers drift by some metres over a run, inside the framed grid.
    run("root motion (every instance)", &mut c_root, all, None);

    // LOD: two generated LODs, picked per instance by projected size.
    let lods = fox(&BakeOptions {
        lod_ratios: vec![0.5, 0.2],
        ..BakeOptions::default()
    });
    let (mut c_lod, _) = crowd(&lods, N, FADING);
    run(
        "LOD selection (3 LODs)",
        &mut c_lod,
        DrawView::from_camera(&camera, true),
        None,
    );

    // Attachments: a rigid prop on the head bone of every instance.
    let (mut c_prop, _) = crowd(&plain, N, FADING);
    let p = c_prop.add_model(&prop());
    let bone = plain
        .model()
        .bones
        .iter()
        .position(|b| b.name.contains("head") || b.name.contains("Head"))
        .unwrap_or(0);
    let ids: Vec<_> = c_prop.ids().collect();
    for id in ids {
        c_prop.attach(id, p, bone, Mat4::IDENTITY).unwrap();
    }
    run("a prop on every instance", &mut c_prop, all, None);

    // Culling: the camera sees about half of the grid.
    let (mut c_half, _) = crowd(&plain, N, FADING);
    let side = (N as f32).sqrt().ceil() * 200.0;
    let half = Camera::look_at(
        Vec3::new(side * 0.5, side * 0.5, side * 0.5),
        Vec3::new(side * 0.5, 0.0, side * 0.5),
        Vec3::Z,
        0.93,
        2.0,
        1.0,
        side * 4.0,
    );
    let mut list = DrawList::default();
    c_half.build_draw_list(Some(&half.frustum()), &mut list);
    eprintln!(
        "culling case: {} of {} instances in view",
        list.visible(),
        list.instances
    );
    run(
        "culling (about half in view)",
        &mut c_half,
        DrawView::from(Some(&half.frustum())),
        None,
    );

    // Shadows: the renderer builds a second list, casters culled by the light.
    let (mut c_shadow, _) = crowd(&plain, N, FADING);
    run(
        "with the shadow pass's caster list",
        &mut c_shadow,
        all,
        Some(all),
    );
    g.finish();
}

criterion_group!(crowd_benches, benches, features);
criterion_main!(crowd_benches);
