//! The view the JavaScript API drives ([`throng_web::view`]), natively:
//! batches checked whole with errors naming the argument at fault, and
//! the page's occlusion culling — hidden instances counted, the picture
//! unchanged.

use throng_render::image_diff::diff;
use throng_web::query::PageQuery;
use throng_web::scene::{ModelFile, build, load_models, view_options};
use throng_web::view::batch::SpawnBatch;
use throng_web::view::{View, ViewOptions};

fn fox_file() -> ModelFile {
    let (_, handle) = throng_tests::golden::baked("khronos_Fox.glb");
    ModelFile {
        url: "fox.throng".to_owned(),
        bytes: throng_core::format::write_model(handle.model()).unwrap(),
        frames: None,
    }
}

fn app(gpu: &throng_render::Gpu) -> throng_examples::AppGpu<'_> {
    throng_examples::AppGpu {
        adapter: &gpu.adapter,
        device: &gpu.device,
        queue: &gpu.queue,
    }
}

/// The page's scene for `query`, drawn three times at `size`: the last
/// picture and its exact statistics.
fn page_picture(
    gpu: &throng_render::Gpu,
    query: &str,
    size: (u32, u32),
) -> (image::RgbaImage, throng_render::FrameStats) {
    let query = PageQuery::parse(query).unwrap();
    let handles = load_models(&[fox_file()], &query).unwrap();
    let format = throng_render::OFFSCREEN_FORMAT;
    let mut view = View::new(app(gpu), format, view_options(&query)).unwrap();
    build(app(gpu), &mut view, &handles, &query).unwrap();
    let target = throng_render::Offscreen::new(&gpu.device, size).unwrap();
    let mut stats = Default::default();
    for _ in 0..3 {
        stats = view
            .render(&gpu.device, &gpu.queue, &target.view, size)
            .unwrap();
    }
    view.scene.wait_stats(&mut stats).unwrap();
    (target.read(&gpu.device, &gpu.queue).unwrap(), stats)
}

/// The eye camera looks along the herd from its front edge: occlusion
/// culling leaves hidden Foxes undrawn, and the picture is the one drawn
/// without it.
#[test]
fn the_page_culls_what_the_front_rows_hide_and_the_picture_stays() {
    let gpu = throng_tests::require_gpu("page occlusion");
    let query = "instances=2000&time=1.25&seed=1&ground=flat&camera=eye";
    let size = (320, 200);
    let (on, with) = page_picture(&gpu, query, size);
    let (off, without) = page_picture(&gpu, &format!("{query}&occlusion=0"), size);
    println!(
        "{}: occlusion on: {} visible, {} occluded; off: {} visible, {} occluded",
        gpu.adapter_summary(),
        with.visible,
        with.occluded,
        without.visible,
        without.occluded
    );
    assert_eq!(without.occluded, 0);
    let d = diff(&off, &on);
    let pixels = (size.0 * size.1) as usize;
    println!("on against off: {}", d.summary(pixels));
    assert!(d.within_tolerance(pixels), "{}", d.summary(pixels));
    let gpu_driven = with.visible + with.occluded == without.visible;
    if gpu_driven {
        assert!(with.occluded > 0, "nothing occluded from the eye camera");
    }
}

/// Bad batches change nothing and say what is wrong where.
#[test]
fn bad_batches_are_refused_whole_and_named() {
    let gpu = throng_tests::require_gpu("view batches");
    let format = throng_render::OFFSCREEN_FORMAT;
    let mut view = View::new(app(&gpu), format, ViewOptions::default()).unwrap();
    let handle = throng_web::scene::load_model(&fox_file()).unwrap();
    let fox = view.add_model(app(&gpu), handle, "fox.throng").unwrap();
    let clips = view.clip_names(fox).unwrap();
    assert_eq!(clips, ["Survey", "Walk", "Run"]);
    let one = glam::Mat4::IDENTITY.to_cols_array();
    let two: Vec<f32> = [one, one].concat();
    let ids = view
        .spawn(
            fox,
            SpawnBatch {
                matrices: &two,
                clips: &[1, -1],
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(ids, [0, 1]);
    let mut nan = two.clone();
    nan[17] = f32::NAN;
    let refusals: Vec<(&str, anyhow::Error)> = vec![
        (
            "matrix 1",
            view.spawn(
                fox,
                SpawnBatch {
                    matrices: &nan,
                    ..Default::default()
                },
            )
            .unwrap_err(),
        ),
        (
            "17 floats",
            view.spawn(
                fox,
                SpawnBatch {
                    matrices: &two[..17],
                    ..Default::default()
                },
            )
            .unwrap_err(),
        ),
        (
            "clips[1] = 3",
            view.spawn(
                fox,
                SpawnBatch {
                    matrices: &two,
                    clips: &[0, 3],
                    ..Default::default()
                },
            )
            .unwrap_err(),
        ),
        (
            "1 values for 2",
            view.spawn(
                fox,
                SpawnBatch {
                    matrices: &two,
                    times: &[0.5],
                    ..Default::default()
                },
            )
            .unwrap_err(),
        ),
        (
            "looks[0] = 4",
            view.spawn(
                fox,
                SpawnBatch {
                    matrices: &two,
                    looks: &[4, 0],
                    ..Default::default()
                },
            )
            .unwrap_err(),
        ),
        (
            "model 1 is not loaded",
            view.spawn(
                1,
                SpawnBatch {
                    matrices: &two,
                    ..Default::default()
                },
            )
            .unwrap_err(),
        ),
        (
            "ids[1] = 7",
            view.set_transforms(&[0, 7], &two).unwrap_err(),
        ),
        (
            "clips[0] = 9",
            view.play(&[0, 1], &[9, 0], &[]).unwrap_err(),
        ),
        (
            "seconds[1] = -1",
            view.cross_fade(&[0, 1], &[2, 2], &[0.5, -1.0]).unwrap_err(),
        ),
        (
            "ids[1] = 0 is given twice",
            view.despawn(&[0, 0]).unwrap_err(),
        ),
    ];
    for (expect, e) in &refusals {
        let e = format!("{e:#}");
        assert!(e.contains(expect), "want “{expect}” in: {e}");
    }
    assert_eq!(view.len(), 2, "a refused batch spawned nothing");
    let state = view
        .scene
        .crowd
        .ids()
        .map(|id| view.scene.crowd.state(id).unwrap().current.map(|c| c.0))
        .collect::<Vec<_>>();
    assert_eq!(state, [Some(1), None], "a refused batch played nothing");
    // Good batches do what they say.
    let moved = glam::Mat4::from_translation(glam::Vec3::new(3.0, 0.0, -2.0));
    let to: Vec<f32> = [moved.to_cols_array(), one].concat();
    view.set_transforms(&[0, 1], &to).unwrap();
    let first = view.scene.crowd.ids().next().unwrap();
    assert_eq!(
        view.scene.crowd.state(first).unwrap().world_from_model,
        moved
    );
    view.play(&[1], &[2], &[0.75]).unwrap();
    let second = view.scene.crowd.ids().nth(1).unwrap();
    assert_eq!(
        view.scene.crowd.state(second).unwrap().current,
        Some((2, 0.75))
    );
    view.cross_fade(&[0, 1], &[2, 0], &[0.5, 0.0]).unwrap();
    view.advance(0.25).unwrap();
    let s0 = view
        .scene
        .crowd
        .state(view.scene.crowd.ids().next().unwrap())
        .unwrap();
    assert_eq!(s0.current.map(|c| c.0), Some(2));
    assert_eq!(s0.previous.map(|c| c.0), Some(1));
    assert!((s0.fade - 0.5).abs() < 1e-4, "fade {}", s0.fade);
    view.despawn(&[0]).unwrap();
    assert_eq!(view.len(), 1);
    let e = format!("{:#}", view.play(&[0], &[1], &[]).unwrap_err());
    assert!(e.contains("ids[0] = 0 is not a live instance"), "{e}");
}

/// The page's default crowd, steered across the plaza, read back from the
/// GPU through the view as the page reads it: over 10 s (200 frames at
/// 20 Hz; the browser test runs the page 600 frames) no more than 1 % of
/// the agents overlap (centres nearer than 0.8
/// of the sum of their radii), the native navigation tests' bound.
#[test]
fn the_pages_steered_crowd_keeps_apart() {
    let gpu = throng_tests::require_gpu("steered page");
    let query = PageQuery::parse("instances=150&seed=1&ground=flat").unwrap();
    assert!(query.steer, "steering is the page's default");
    let handles = load_models(&[fox_file()], &query).unwrap();
    let format = throng_render::OFFSCREEN_FORMAT;
    let mut view = View::new(app(&gpu), format, view_options(&query)).unwrap();
    let page = build(app(&gpu), &mut view, &handles, &query).unwrap();
    if view.scene.renderer.path() != throng_render::RecordPath::GpuDriven {
        assert!(
            !page.steered && page.walkers.is_some(),
            "not GPU-driven: loops"
        );
        return;
    }
    assert!(page.steered);
    let radius = view.agent_radius().unwrap();
    let size = (160, 100);
    let target = throng_render::Offscreen::new(&gpu.device, size).unwrap();
    let (mut worst, mut worst_at, mut checks) = (0.0f64, 0, 0);
    let mut travelled = 0.0f32;
    let mut first: Option<Vec<f32>> = None;
    for frame in 1..=200 {
        view.advance(1.0 / 20.0).unwrap();
        view.render(&gpu.device, &gpu.queue, &target.view, size)
            .unwrap();
        if frame % 20 != 0 {
            continue;
        }
        let poses = view.read_positions().unwrap().wait(&gpu.device).unwrap();
        let p = throng_web::view::steer::positions(&poses);
        assert_eq!(p.len(), 3 * 150);
        assert!(p.iter().all(|v| v.is_finite()), "a position is not finite");
        let points: Vec<glam::Vec2> = p
            .chunks_exact(3)
            .map(|c| glam::Vec2::new(c[0], c[2]))
            .collect();
        let limit = 0.8 * 2.0 * radius;
        let share = throng_tests::crowd_overlap::overlapping(&points, limit) as f64 / 150.0;
        if share > worst {
            (worst, worst_at) = (share, frame);
        }
        if let Some(f) = &first {
            travelled = f
                .chunks_exact(3)
                .zip(p.chunks_exact(3))
                .map(|(a, b)| glam::Vec2::new(a[0] - b[0], a[2] - b[2]).length())
                .sum::<f32>()
                / 150.0;
        } else {
            first = Some(p);
        }
        checks += 1;
    }
    println!(
        "{}: 150 agents, {checks} checks over 200 frames: worst overlap {:.2} % (frame {worst_at}), mean travel {:.1} agent radii",
        gpu.adapter_summary(),
        100.0 * worst,
        travelled / radius
    );
    assert!(
        travelled > 5.0 * radius,
        "the agents hardly moved: {travelled}"
    );
    assert!(
        worst <= 0.01,
        "worst overlap {:.2} % at frame {worst_at}",
        100.0 * worst
    );
}
