//! Criterion: `FlowField::compute` (signed distance transform, fast
//! marching and directions for each goal) at 256², 1024² and 2048² cells
//! with 4 goals and about 10 % of the ground in round obstacles, on one
//! thread and on every core (`FlowField::compute_on`: one goal's layer per
//! thread). Criterion reports time per field and cells per second (cells ×
//! goals).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::Vec2;
use std::hint::black_box;
use throng_crowd::navigation::field::available_threads;
use throng_crowd::navigation::{FieldOptions, FlowField, Goal, ObstacleGrid};

/// Goals per field.
const GOALS: usize = 4;

/// A `side`² grid of unit cells, about a tenth of it in circles of radius
/// 1 to 1 + side/128 cells (seeded), and a goal disc at each quarter.
fn scene(side: u32) -> (ObstacleGrid, Vec<Goal>) {
    let mut grid = ObstacleGrid::new(Vec2::ZERO, 1.0, side, side).unwrap();
    let mut s = 1u64;
    let mut next = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 40) as f32 / (1u64 << 24) as f32
    };
    let n = side as f32;
    while grid.blocked_count() < (side * side / 10) as usize {
        for _ in 0..16 {
            let centre = Vec2::new(next(), next()) * n;
            grid.block_circle(centre, 1.0 + next() * n / 128.0);
        }
    }
    let goals = [(0.2, 0.2), (0.8, 0.2), (0.2, 0.8), (0.8, 0.8)]
        .into_iter()
        .map(|(x, z)| {
            let centre = Vec2::new(x, z) * n;
            let (cx, cz) = grid.cell_of(centre).unwrap();
            grid.set_blocked_cell(cx, cz, false);
            Goal::Circle {
                centre,
                radius: n / 64.0,
            }
        })
        .collect();
    (grid, goals)
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("flow field");
    g.sample_size(10);
    let cores = available_threads();
    for side in [256u32, 1024, 2048] {
        let (grid, goals) = scene(side);
        assert_eq!(goals.len(), GOALS);
        eprintln!(
            "{side}² cells: {:.1} % blocked, {GOALS} goals",
            100.0 * grid.blocked_count() as f64 / f64::from(side * side)
        );
        g.throughput(Throughput::Elements(u64::from(side * side) * GOALS as u64));
        let options = FieldOptions::default();
        for (name, threads) in [("one thread", 1), ("every core", cores)] {
            g.bench_with_input(
                BenchmarkId::new(format!("compute, {name}"), format!("{side}²")),
                &side,
                |b, _| {
                    b.iter(|| {
                        FlowField::compute_on(
                            black_box(&grid),
                            black_box(&goals),
                            &options,
                            threads,
                        )
                        .unwrap()
                    })
                },
            );
        }
    }
    g.finish();
}

criterion_group!(navigation_benches, benches);
criterion_main!(navigation_benches);
