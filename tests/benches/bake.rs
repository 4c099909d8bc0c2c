//! Criterion: importing and baking Woman (10 clips, 41 joints, 30 fps), the
//! bake issue's reference workload, plus clip sampling and palette
//! evaluation on their own.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use throng_bake::sample::PoseEvaluator;
use throng_bake::{BakeOptions, bake, import_file};

fn benches(c: &mut Criterion) {
    let path = throng_tests::asset("gszauer_Woman.gltf");
    let mut g = c.benchmark_group("woman");
    g.sample_size(20);
    g.bench_function("import", |b| {
        b.iter(|| import_file(black_box(&path)).unwrap())
    });
    let scene = import_file(&path).unwrap().scene;
    g.bench_function("bake (10 clips, 41 joints, 30 fps, f32)", |b| {
        b.iter(|| bake(black_box(&scene), &BakeOptions::default(), &|_, _| {}).unwrap())
    });
    let eval = PoseEvaluator::new(&scene);
    let clip = &scene.clips[0];
    let mut locals = Vec::new();
    let mut globals = Vec::new();
    g.bench_function("sample one clip at one time (43 nodes)", |b| {
        b.iter(|| eval.locals(Some(clip), black_box(0.37), &mut locals))
    });
    eval.locals(Some(clip), 0.37, &mut locals);
    g.bench_function("evaluate global transforms (43 nodes)", |b| {
        b.iter(|| eval.globals_from_locals(black_box(&locals), &mut globals))
    });
    g.finish();
}

criterion_group!(bake_benches, benches);
criterion_main!(bake_benches);
