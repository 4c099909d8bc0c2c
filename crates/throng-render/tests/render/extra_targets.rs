//! Extra colour targets (`RendererOptions::extra_targets`): one pass whose
//! custom fragment writes two images gives, pixel for pixel, what two
//! renders of one image each give (the impostor capture relies on it), on
//! every record path; a renderer with extra targets and no custom fragment,
//! or a render with the wrong number of views, is an error naming it.

use throng_crowd::crowd::{Crowd, Spawn};
use throng_render::{
    CustomFragment, OFFSCREEN_FORMAT, Offscreen, PathChoice, RenderError, Renderer,
    RendererOptions, wgpu,
};
use throng_tests::golden as common;
use throng_tests::require_gpu;

/// Two outputs: shaded-free tint at 0, the world normal at 1.
const BOTH: &str = "// #import draw
struct Two { @location(0) a: vec4<f32>, @location(1) b: vec4<f32> }
@fragment fn fs_both(in: VertexOut) -> Two {
    var o: Two;
    o.a = vec4<f32>(in.tint.rgb * 0.5 + 0.25, 1.0);
    o.b = vec4<f32>(normalize(in.world_normal) * 0.5 + 0.5, 1.0);
    return o;
}
@fragment fn fs_a(in: VertexOut) -> @location(0) vec4<f32> {
    return vec4<f32>(in.tint.rgb * 0.5 + 0.25, 1.0);
}
@fragment fn fs_b(in: VertexOut) -> @location(0) vec4<f32> {
    return vec4<f32>(normalize(in.world_normal) * 0.5 + 0.5, 1.0);
}
";

const SIZE: (u32, u32) = (96, 64);

#[test]
fn one_pass_into_two_targets_equals_two_passes() {
    let gpu = require_gpu("extra targets");
    let (_, fox) = common::baked("khronos_Fox.glb");
    let mut crowd = Crowd::new();
    let id = crowd.add_model(&fox);
    for i in 0..6 {
        crowd
            .spawn(
                id,
                Spawn {
                    transform: glam::Mat4::from_translation(glam::Vec3::new(
                        (i as f32 - 2.5) * 60.0,
                        0.0,
                        0.0,
                    )),
                    clip: Some(i % fox.model().clips.len()),
                    time: 0.3 * i as f32,
                    ..Spawn::default()
                },
            )
            .unwrap();
    }
    let model = throng_render::GpuModel::upload(&gpu.device, &gpu.queue, &fox).unwrap();
    let mut bounds = fox.model().bounds;
    bounds.min.x -= 160.0;
    bounds.max.x += 160.0;
    let camera = throng_bench::demo::framing_camera(&bounds, SIZE.0 as f32 / SIZE.1 as f32);
    let linear = wgpu::TextureFormat::Rgba8Unorm;
    let options = |entry: &str, path, extra: Vec<wgpu::TextureFormat>| RendererOptions {
        path,
        sample_count: 4,
        shadows: None,
        fragment: Some(CustomFragment {
            file: "two.wgsl".into(),
            source: BOTH.into(),
            entry: entry.into(),
        }),
        extra_targets: extra,
        ..RendererOptions::default()
    };
    let new = |o| Renderer::new(&gpu.adapter, &gpu.device, &gpu.queue, OFFSCREEN_FORMAT, o);
    for path in [
        PathChoice::Packaged,
        PathChoice::Unbounded,
        PathChoice::Auto,
    ] {
        let a = Offscreen::new(&gpu.device, SIZE).unwrap();
        let b = Offscreen::with_format(&gpu.device, SIZE, linear).unwrap();
        let mut both = new(options("fs_both", path, vec![linear])).unwrap();
        both.render_targets(&[&a.view, &b.view], SIZE, &camera, &[&crowd], &[&model])
            .unwrap();
        let (a_mrt, b_mrt) = (
            a.read(&gpu.device, &gpu.queue).unwrap(),
            b.read(&gpu.device, &gpu.queue).unwrap(),
        );
        let mut only_a = new(options("fs_a", path, vec![])).unwrap();
        only_a
            .render(&a.view, SIZE, &camera, &[&crowd], &[&model])
            .unwrap();
        let b_single = Offscreen::with_format(&gpu.device, SIZE, linear).unwrap();
        let mut only_b = Renderer::new(
            &gpu.adapter,
            &gpu.device,
            &gpu.queue,
            linear,
            options("fs_b", path, vec![]),
        )
        .unwrap();
        only_b
            .render(&b_single.view, SIZE, &camera, &[&crowd], &[&model])
            .unwrap();
        let a_one = a.read(&gpu.device, &gpu.queue).unwrap();
        let b_one = b_single.read(&gpu.device, &gpu.queue).unwrap();
        let covered = a_one
            .pixels()
            .filter(|p| p.0[3] > 0 && p.0 != [0, 0, 0, 0])
            .count();
        let differing = |x: &image::RgbaImage, y: &image::RgbaImage| {
            x.pixels().zip(y.pixels()).filter(|(p, q)| p != q).count()
        };
        let (da, db) = (differing(&a_mrt, &a_one), differing(&b_mrt, &b_one));
        println!(
            "{path:?}: {da} and {db} of {} pixels differ",
            SIZE.0 * SIZE.1
        );
        assert!(
            a_one != b_one && covered > 0,
            "{path:?}: the two images show something different"
        );
        assert_eq!(
            (da, db),
            (0, 0),
            "{path:?}: one pass into two targets differs from two passes"
        );
    }
}

#[test]
fn extra_targets_need_a_custom_fragment_and_matching_views() {
    let gpu = require_gpu("extra targets: bad use");
    let linear = wgpu::TextureFormat::Rgba8Unorm;
    let err = Renderer::new(
        &gpu.adapter,
        &gpu.device,
        &gpu.queue,
        OFFSCREEN_FORMAT,
        RendererOptions {
            extra_targets: vec![linear],
            ..RendererOptions::default()
        },
    )
    .err()
    .expect("refused");
    println!("{err}");
    assert!(
        matches!(err, RenderError::Unsupported(_)) && err.to_string().contains("custom fragment")
    );
    let (_, fox) = common::baked("khronos_Fox.glb");
    let mut crowd = Crowd::new();
    let id = crowd.add_model(&fox);
    crowd.spawn(id, Spawn::default()).unwrap();
    let model = throng_render::GpuModel::upload(&gpu.device, &gpu.queue, &fox).unwrap();
    let mut r = Renderer::new(
        &gpu.adapter,
        &gpu.device,
        &gpu.queue,
        OFFSCREEN_FORMAT,
        RendererOptions {
            fragment: Some(CustomFragment {
                file: "two.wgsl".into(),
                source: BOTH.into(),
                entry: "fs_both".into(),
            }),
            extra_targets: vec![linear],
            ..RendererOptions::default()
        },
    )
    .unwrap();
    let a = Offscreen::new(&gpu.device, (8, 8)).unwrap();
    let camera = throng_bench::demo::framing_camera(&fox.model().bounds, 1.0);
    let err = r
        .render(&a.view, (8, 8), &camera, &[&crowd], &[&model])
        .unwrap_err();
    println!("{err}");
    assert!(
        err.to_string()
            .contains("1 target views for a renderer of 2"),
        "{err}"
    );
}
