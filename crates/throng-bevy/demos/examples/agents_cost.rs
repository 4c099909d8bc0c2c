//! `agents_cost`: what an entity per character costs the CPU. N Foxes as
//! `ThrongAgent` entities whose `Transform`s a game system moves every
//! frame, against the same N Foxes in a `ThrongCrowd` moved in bulk
//! (`Crowd::set_transforms` from the same system), and against the game
//! system alone moving N plain entities (the floor: Bevy's own cost of N
//! changed `Transform`s). No window and no GPU: Bevy's minimal plugins,
//! assets and transforms, and `ThrongPlugin` without a render world, so
//! the figure is the main world's frame (`App::update`) on the CPU.
//!
//! ```text
//! cargo +1.97.1 run --release --manifest-path crates/throng-bevy/Cargo.toml \
//!     -p throng-bevy-demos --example agents_cost -- [--counts 1000,10000,100000] [--frames 60]
//! ```

use std::time::{Duration, Instant};

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use bevy::transform::TransformPlugin;
use throng_bevy::throng_crowd::crowd::{InstanceId, Spawn};
use throng_bevy::{ThrongAgent, ThrongCrowd, ThrongModel, ThrongPlugin};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Way {
    /// Entities with a `Transform` only: the floor.
    Plain,
    /// `ThrongAgent` entities.
    Agents,
    /// One `ThrongCrowd`, moved in bulk.
    Bulk,
}

/// Marks the moved entities.
#[derive(Component)]
struct Mover(f32);

/// The bulk crowd's ids, in spawn order.
#[derive(Resource, Default)]
struct Ids(Vec<InstanceId>, Vec<glam::Mat4>);

fn place(phase: f32, t: f32) -> Vec3 {
    let i = phase as u32;
    Vec3::new(
        (i % 300) as f32 * 150.0 + (t + phase).sin() * 20.0,
        0.0,
        (i / 300) as f32 * 150.0,
    )
}

fn move_entities(time: Res<Time>, mut q: Query<(&Mover, &mut Transform)>) {
    let t = time.elapsed_secs();
    for (m, mut tr) in &mut q {
        tr.translation = place(m.0, t);
    }
}

fn move_bulk(time: Res<Time>, mut ids: ResMut<Ids>, mut crowd: Single<&mut ThrongCrowd>) {
    let t = time.elapsed_secs();
    let Ids(ids, mats) = &mut *ids;
    mats.clear();
    mats.extend((0..ids.len()).map(|i| {
        glam::Mat4::from_translation(glam::Vec3::from_array(place(i as f32, t).to_array()))
    }));
    crowd
        .crowd
        .set_transforms(ids, mats)
        .expect("finite transforms");
}

/// Median `App::update` time over `frames` frames of `n` Foxes moved `way`.
fn measure(way: Way, n: usize, frames: usize, dir: &std::path::Path) -> Duration {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: dir.to_string_lossy().into_owned(),
            ..default()
        },
        TransformPlugin,
        ThrongPlugin,
    ));
    let fox: Handle<ThrongModel> = app.world().resource::<AssetServer>().load("fox.throng");
    while app
        .world()
        .resource::<Assets<ThrongModel>>()
        .get(&fox)
        .is_none()
    {
        app.update();
    }
    match way {
        Way::Plain | Way::Agents => {
            let agent = ThrongAgent::new(fox.clone()).playing(2);
            for i in 0..n {
                let mut e = app
                    .world_mut()
                    .spawn((Mover(i as f32), Transform::default()));
                if way == Way::Agents {
                    e.insert(agent.clone());
                }
            }
            app.add_systems(Update, move_entities);
        }
        Way::Bulk => {
            let model = fox_model(&app, &fox);
            let mut crowd = ThrongCrowd::default();
            let m = crowd.crowd.add_model(&model);
            let ids = (0..n)
                .map(|_| {
                    let spawn = Spawn {
                        clip: Some(2),
                        ..Spawn::default()
                    };
                    crowd.crowd.spawn(m, spawn).expect("a spawn")
                })
                .collect();
            app.world_mut().spawn(crowd);
            app.insert_resource(Ids(ids, Vec::new()));
            app.add_systems(Update, move_bulk);
        }
    }
    for _ in 0..5 {
        app.update();
    }
    let mut times: Vec<Duration> = (0..frames)
        .map(|_| {
            let start = Instant::now();
            app.update();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn fox_model(
    app: &App,
    fox: &Handle<ThrongModel>,
) -> throng_bevy::throng_crowd::crowd::ModelHandle {
    app.world()
        .resource::<Assets<ThrongModel>>()
        .get(fox)
        .expect("loaded")
        .0
        .clone()
}

fn main() {
    let mut counts = vec![1000, 10_000, 100_000];
    let mut frames = 60;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_default();
        let parsed = match flag.as_str() {
            "--counts" => value
                .split(',')
                .map(|c| {
                    c.trim()
                        .parse::<usize>()
                        .ok()
                        .filter(|&n| n > 0 && n <= 1_000_000)
                })
                .collect::<Option<Vec<_>>>()
                .map(|c| counts = c),
            "--frames" => value.parse().ok().filter(|&n| n > 0).map(|n| frames = n),
            _ => None,
        };
        if parsed.is_none() {
            eprintln!(
                "agents_cost: bad {flag} {value:?} (--counts 1000,10000 with counts in 1..=1000000, --frames N)"
            );
            std::process::exit(2);
        }
    }
    let dir = throng_bevy_demos::fox_assets("throng-agents-cost", throng_bevy_demos::Chain::Bare);
    println!(
        "| Foxes | plain entities, ms | ThrongAgent entities, ms | ThrongCrowd in bulk, ms | agents over plain, µs per agent |"
    );
    println!("|---|---|---|---|---|");
    for &n in &counts {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let plain = measure(Way::Plain, n, frames, &dir);
        let agents = measure(Way::Agents, n, frames, &dir);
        let bulk = measure(Way::Bulk, n, frames, &dir);
        println!(
            "| {n} | {:.3} | {:.3} | {:.3} | {:.3} |",
            ms(plain),
            ms(agents),
            ms(bulk),
            (ms(agents) - ms(plain)) * 1e3 / n as f64
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
