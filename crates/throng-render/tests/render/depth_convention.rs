//! A crowd drawn with a reverse-Z camera (`DepthConvention::Reversed`,
//! Bevy's convention: an infinite far plane, depth 1 at the near plane,
//! cleared to 0, nearer is greater) equals the same crowd drawn with the
//! standard camera, within the golden tolerances, on every record path.
//! The Foxes stand in overlapping rows, so a depth test that counted the
//! wrong way would show the far ones in front.

use glam::{Mat4, Vec3};
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, Spawn};
use throng_render::{DepthConvention, GpuModel, Offscreen, PathChoice, Renderer, RendererOptions};
use throng_tests::golden::{self as common, assert_images_match};
use throng_tests::require_gpu;

const SIZE: (u32, u32) = (160, 96);

#[test]
fn a_reverse_z_camera_draws_what_the_standard_one_draws() {
    let gpu = require_gpu("depth_convention");
    let (_, fox) = common::baked("khronos_Fox.glb");
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &fox).unwrap();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&fox);
    for row in 0..4 {
        for col in 0..5 {
            let at = Vec3::new(
                col as f32 * 45.0 - 90.0 + row as f32 * 20.0,
                0.0,
                row as f32 * -35.0,
            );
            crowd
                .spawn(
                    m,
                    Spawn {
                        transform: Mat4::from_translation(at),
                        clip: Some((row + col) % fox.model().clips.len()),
                        time: 0.1 * col as f32,
                        ..Spawn::default()
                    },
                )
                .unwrap();
        }
    }
    crowd.update(0.0);
    let aspect = SIZE.0 as f32 / SIZE.1 as f32;
    let (fov, near) = (50f32.to_radians(), 1.0);
    let standard = Camera::look_at(
        Vec3::new(0.0, 120.0, 260.0),
        Vec3::new(0.0, 30.0, -50.0),
        Vec3::Y,
        fov,
        aspect,
        near,
        5000.0,
    );
    let reversed = Camera {
        clip_from_view: glam::camera::rh::proj::directx::perspective_infinite_reverse(
            fov, aspect, near,
        ),
        ..standard
    };
    let target = Offscreen::new(&gpu.device, SIZE).unwrap();
    let dir = std::env::temp_dir().join("throng-depth-convention");
    for path in [
        PathChoice::Packaged,
        PathChoice::Unbounded,
        PathChoice::GpuDriven,
    ] {
        let draw = |depth, camera: &Camera| {
            let options = RendererOptions {
                path,
                depth,
                ..RendererOptions::default()
            };
            let mut renderer = Renderer::headless(&gpu, options).unwrap();
            renderer
                .render(&target.view, SIZE, camera, &[&crowd], &[&model])
                .unwrap();
            target.read(&gpu.device, &gpu.queue).unwrap()
        };
        let expected = draw(DepthConvention::Standard, &standard);
        let actual = draw(DepthConvention::Reversed, &reversed);
        let background = expected.get_pixel(0, 0).0;
        let covered = expected.pixels().filter(|p| p.0 != background).count();
        assert!(covered > 500, "{path:?}: the crowd covers {covered} pixels");
        assert_images_match(&format!("reverse-z-{path:?}"), &expected, &actual, &dir);
    }
}
