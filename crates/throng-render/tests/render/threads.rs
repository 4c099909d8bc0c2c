//! Which of Throng's types cross threads (checked at compile time), and a
//! crowd driven from a worker thread — spawning, despawning, playing,
//! cross-fading, moving and advancing it — while the main thread renders it
//! every step through a `Mutex`, the way a game's simulation thread would:
//! the last picture equals one of the same steps replayed on one thread.
//!
//! Data races are ruled out by the types (`Crowd` is `Send + Sync` and is
//! only reached through the lock); this test shows the API a user would
//! reach for works across threads and changes nothing in the picture.

use std::sync::{Arc, Mutex, mpsc};

use glam::{Mat4, Vec3};
use throng_core::BakedModel;
use throng_crowd::crowd::{Crowd, InstanceId, ModelHandle, ModelId, Spawn};
use throng_render::{Gpu, GpuModel, Offscreen, Renderer, RendererOptions};
use throng_tests::golden as common;
use throng_tests::require_gpu;
use throng_tests::rng::Rng;

fn send_sync<T: Send + Sync>() {}

#[test]
fn the_types_a_game_shares_between_threads_are_send_and_sync() {
    // The CPU side: a crowd simulated on one thread, read on another.
    send_sync::<Crowd>();
    send_sync::<ModelHandle>();
    send_sync::<BakedModel>();
    // The GPU side: a renderer owned by the render thread, models and the
    // device shared with loaders.
    send_sync::<Renderer>();
    send_sync::<GpuModel>();
    send_sync::<Gpu>();
    // What a frame hands out, or a loader keeps: draw lists built on a job
    // thread, pose readbacks polled from another, the loss flag the
    // device's callback sets, offscreen targets, a simulation hook.
    send_sync::<throng_crowd::crowd::DrawList>();
    send_sync::<throng_crowd::camera::Camera>();
    send_sync::<throng_render::readback::PoseReadback>();
    send_sync::<throng_render::device_loss::DeviceLoss>();
    send_sync::<throng_render::map_state::MapState>();
    send_sync::<Offscreen>();
    send_sync::<throng_render::simulation::Simulation>();
}

const STEPS: usize = 24;
const SIZE: (u32, u32) = (96, 64);

/// Step `step` of the simulation: a few spawns, despawns, clip changes and
/// moves chosen by `rng`, then 1/30 s of time.
fn simulate(
    crowd: &mut Crowd,
    model: ModelId,
    live: &mut Vec<InstanceId>,
    rng: &mut Rng,
    clips: usize,
) {
    for _ in 0..3 {
        let x = (rng.below(9) as f32 - 4.0) * 40.0;
        let z = (rng.below(5) as f32) * -40.0;
        let id = crowd
            .spawn(
                model,
                Spawn {
                    transform: Mat4::from_translation(Vec3::new(x, 0.0, z)),
                    clip: Some(rng.below(clips)),
                    time: rng.below(100) as f32 * 0.01,
                    ..Spawn::default()
                },
            )
            .unwrap();
        live.push(id);
    }
    if live.len() > 12 {
        let gone = live.swap_remove(rng.below(live.len()));
        crowd.despawn(gone).unwrap();
    }
    let some = live[rng.below(live.len())];
    crowd.play(some, rng.below(clips)).unwrap();
    let other = live[rng.below(live.len())];
    crowd.cross_fade(other, rng.below(clips), 0.2).unwrap();
    let moved = live[rng.below(live.len())];
    let x = (rng.below(9) as f32 - 4.0) * 40.0;
    crowd
        .set_transform(moved, Mat4::from_translation(Vec3::new(x, 0.0, -80.0)))
        .unwrap();
    crowd.update(1.0 / 30.0);
}

fn render(
    renderer: &mut Renderer,
    gpu: &Gpu,
    target: &Offscreen,
    crowd: &Crowd,
    model: &GpuModel,
    camera: &throng_crowd::camera::Camera,
) -> image::RgbaImage {
    renderer
        .render(&target.view, SIZE, camera, &[crowd], &[model])
        .unwrap();
    target.read(&gpu.device, &gpu.queue).unwrap()
}

/// A scene for the threaded runs: the Fox on the GPU, a camera that frames
/// where `simulate` puts instances, a target.
struct Scene {
    gpu: Gpu,
    fox: ModelHandle,
    model: GpuModel,
    camera: throng_crowd::camera::Camera,
    target: Offscreen,
}

impl Scene {
    fn new(name: &str) -> Self {
        let gpu = require_gpu(name);
        let (_, fox) = common::baked("khronos_Fox.glb");
        let model = GpuModel::upload(&gpu.device, &gpu.queue, &fox).unwrap();
        let mut bounds = fox.model().bounds;
        bounds.min += Vec3::new(-200.0, 0.0, -200.0);
        bounds.max += Vec3::new(200.0, 0.0, 20.0);
        let camera = throng_bench::demo::framing_camera(&bounds, SIZE.0 as f32 / SIZE.1 as f32);
        let target = Offscreen::new(&gpu.device, SIZE).unwrap();
        Self {
            gpu,
            fox,
            model,
            camera,
            target,
        }
    }

    fn clips(&self) -> usize {
        self.fox.model().clips.len()
    }

    fn render(&self, renderer: &mut Renderer, crowd: &Crowd) -> image::RgbaImage {
        render(
            renderer,
            &self.gpu,
            &self.target,
            crowd,
            &self.model,
            &self.camera,
        )
    }

    /// The same steps on this thread, into a fresh renderer.
    fn single_thread_picture(&self) -> image::RgbaImage {
        let mut crowd = Crowd::new();
        let id = crowd.add_model(&self.fox);
        let (mut live, mut rng) = (Vec::new(), Rng(SEED));
        for _ in 0..STEPS {
            simulate(&mut crowd, id, &mut live, &mut rng, self.clips());
        }
        let mut fresh = Renderer::headless(&self.gpu, RendererOptions::default()).unwrap();
        self.render(&mut fresh, &crowd)
    }
}

const SEED: u64 = 0x7E57_0026;

/// Compares the threaded run's last picture with the single thread's.
fn judge(how: &str, frames: usize, threaded: &image::RgbaImage, single: &image::RgbaImage) {
    let covered = single
        .pixels()
        .filter(|p| p.0 != threaded.get_pixel(0, 0).0)
        .count();
    let differing = threaded
        .pixels()
        .zip(single.pixels())
        .filter(|(a, b)| a != b)
        .count();
    println!(
        "{how}: {frames} frames rendered while the worker stepped; last picture: {differing} of {} pixels differ, {covered} show Foxes",
        SIZE.0 * SIZE.1
    );
    assert!(covered > 0, "the picture shows the crowd");
    assert_eq!(frames, STEPS);
    assert_eq!(
        differing, 0,
        "{how}: the threaded crowd drew something else"
    );
}

#[test]
fn a_crowd_driven_from_a_worker_thread_draws_what_one_thread_draws() {
    let scene = Scene::new("threads");
    let clips = scene.clips();

    // Threaded: the worker owns the simulation, the main thread renders
    // each step under the lock.
    let shared = Arc::new(Mutex::new(Crowd::new()));
    let id = shared.lock().unwrap().add_model(&scene.fox);
    let (done, steps) = mpsc::channel();
    let worker = {
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || {
            let (mut live, mut rng) = (Vec::new(), Rng(SEED));
            for step in 0..STEPS {
                simulate(&mut shared.lock().unwrap(), id, &mut live, &mut rng, clips);
                done.send(step).unwrap();
            }
        })
    };
    let mut renderer = Renderer::headless(&scene.gpu, RendererOptions::default()).unwrap();
    let mut threaded = None;
    let mut frames = 0;
    for step in steps {
        let crowd = shared.lock().unwrap();
        let picture = scene.render(&mut renderer, &crowd);
        frames += 1;
        if step == STEPS - 1 {
            threaded = Some(picture);
        }
    }
    worker.join().expect("the worker thread finished");
    let threaded = threaded.expect("the last step was rendered");
    judge("locked", frames, &threaded, &scene.single_thread_picture());
}

/// Double-buffered: the worker owns its crowd outright and hands the
/// render thread a snapshot (`Crowd::clone`) after each step, through a
/// channel one deep, so it steps the next while this one is drawn. A clone
/// is another crowd to the renderer (`Crowd::identity`), so each snapshot
/// is uploaded whole; the lock keeps uploads to what changed.
#[test]
fn a_crowd_handed_over_in_snapshots_draws_what_one_thread_draws() {
    let scene = Scene::new("threads");
    let clips = scene.clips();
    let mut crowd = Crowd::new();
    let id = crowd.add_model(&scene.fox);
    let (send, snapshots) = mpsc::sync_channel::<Crowd>(1);
    let worker = std::thread::spawn(move || {
        let (mut live, mut rng) = (Vec::new(), Rng(SEED));
        for _ in 0..STEPS {
            simulate(&mut crowd, id, &mut live, &mut rng, clips);
            send.send(crowd.clone()).unwrap();
        }
    });
    let mut renderer = Renderer::headless(&scene.gpu, RendererOptions::default()).unwrap();
    let mut last = None;
    let mut frames = 0;
    for snapshot in snapshots {
        last = Some(scene.render(&mut renderer, &snapshot));
        frames += 1;
    }
    worker.join().expect("the worker thread finished");
    let threaded = last.expect("a snapshot was rendered");
    judge(
        "snapshots",
        frames,
        &threaded,
        &scene.single_thread_picture(),
    );
}
