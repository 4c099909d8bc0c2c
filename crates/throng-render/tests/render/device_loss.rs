//! Device loss (issue #26, item 2) on every record path the adapter has:
//! after `Device::destroy` mid-run, the next frame — drawn into a new
//! target or into one made before the loss, read back or not — is
//! `RenderError::DeviceLost`, never a panic, a hang or a silent empty
//! picture; and the documented recovery (a new device, the models uploaded
//! again from the same handles, a new renderer drawing the same CPU
//! `Crowd`) draws what was drawn before the loss, within the golden
//! tolerance.

use glam::{Mat4, Vec3};
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, ModelHandle, Spawn};
use throng_render::{GpuModel, Offscreen, PathChoice, RenderError, Renderer, RendererOptions};
use throng_tests::golden::assert_images_match;
use throng_tests::require_gpu;

fn fox() -> ModelHandle {
    throng_tests::bake_asset("khronos_Fox.glb")
}

#[test]
fn a_lost_device_is_an_error_and_a_new_one_draws_the_same_crowd() {
    let handle = fox();
    let mut crowd = Crowd::new();
    let id = crowd.add_model(&handle);
    let r = handle.model().bounding_radius;
    for i in 0..9 {
        let (x, z) = ((i % 3) as f32 - 1.0, (i / 3) as f32 - 1.0);
        crowd
            .spawn(
                id,
                Spawn {
                    transform: Mat4::from_translation(Vec3::new(x, 0.0, z) * r * 2.5),
                    clip: Some(i % handle.model().clips.len()),
                    time: i as f32 * 0.13,
                    ..Spawn::default()
                },
            )
            .unwrap();
    }
    crowd.update(0.25);
    let camera = Camera::look_at(
        Vec3::new(0.0, r * 4.0, r * 8.0),
        Vec3::ZERO,
        Vec3::Y,
        0.8,
        1.0,
        r * 0.1,
        r * 40.0,
    );
    let size = (160, 160);
    let probe = require_gpu("device loss");
    let paths: Vec<PathChoice> = [
        PathChoice::Packaged,
        PathChoice::Unbounded,
        PathChoice::GpuDriven,
    ]
    .into_iter()
    .filter(|&p| {
        Renderer::headless(
            &probe,
            RendererOptions {
                path: p,
                ..RendererOptions::default()
            },
        )
        .is_ok()
    })
    .collect();
    drop(probe);
    for path in paths {
        let options = || RendererOptions {
            path,
            ..RendererOptions::default()
        };
        let gpu = require_gpu("device loss");
        let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
        let mut renderer = Renderer::headless(&gpu, options()).unwrap();
        let (before, _) = renderer
            .render_image(&gpu, size, &camera, &[&crowd], &[&model])
            .unwrap();
        let bg = *before.get_pixel(0, 0);
        let covered = before.pixels().filter(|p| **p != bg).count();
        assert!(
            covered > 500,
            "{}: the crowd covers {covered} pixels",
            path.name()
        );
        let target = Offscreen::new(&gpu.device, size).unwrap();

        // wgpu reports the loss in the next poll, which the renderer's
        // frame makes.
        gpu.device.destroy();
        for what in ["a frame read back", "a frame into an older target"] {
            let result = if what == "a frame read back" {
                renderer
                    .render_image(&gpu, size, &camera, &[&crowd], &[&model])
                    .map(|_| ())
            } else {
                renderer
                    .render(&target.view, size, &camera, &[&crowd], &[&model])
                    .map(|_| ())
            };
            match result {
                Err(RenderError::DeviceLost(why)) => {
                    println!("{}: {what}: {}", path.name(), RenderError::DeviceLost(why));
                }
                other => panic!("{}: {what} after the loss: {other:?}", path.name()),
            }
        }

        assert!(
            gpu.loss.lost().is_some(),
            "{}: the loss is recorded",
            path.name()
        );

        // Recovery: a new device, the models again, a new renderer, the same
        // crowd.
        let gpu = require_gpu("device loss recovery");
        let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
        let mut renderer = Renderer::headless(&gpu, options()).unwrap();
        let (after, _) = renderer
            .render_image(&gpu, size, &camera, &[&crowd], &[&model])
            .unwrap();
        assert_images_match(
            &format!("device-loss-{}", path.name()),
            &before,
            &after,
            &std::env::temp_dir(),
        );
        // And it goes on: the crowd steps, the new renderer draws it.
        crowd.update(0.1);
        renderer
            .render_image(&gpu, size, &camera, &[&crowd], &[&model])
            .unwrap();
    }
}
