//! The light fitted on the GPU (`shadow/light_fit.wgsl`) equals the CPU
//! paths' fit to the same box, for random crowds, cameras and light
//! directions; with nothing in view there is no light.

use glam::{Mat4, Vec3};
use throng_crowd::camera::Camera;
use throng_crowd::crowd::DrawView;
use throng_render::cull::CullPass;
use throng_tests::culling::Culling;
use throng_tests::readback::read_buffer;
use throng_tests::require_gpu;
use throng_tests::rng::Rng;

use super::{fox_with_lods, random_crowd, stand_in_draws};

/// The light fitted on the GPU (`shadow/light_fit.wgsl`) to what the
/// camera's cull drew equals the CPU paths' fit (`Camera::directional_light`
/// with `Shadow::fit_light`'s margins) to the same box, for random crowds,
/// cameras and light directions (straight down included), within
/// [`LIGHT_EPS`] of the matrices' and planes' largest element; with nothing
/// in view there is no light and its planes reject everything.
#[test]
fn the_gpu_light_fit_equals_the_cpu_one() {
    use throng_core::gpu::LightFit;
    use throng_core::math::Aabb;
    use throng_render::shadow::light_fit::LightFitPass;
    /// Relative tolerance: f32 rounding of the GPU's divisions and square
    /// roots, which WGSL does not require to be correctly rounded.
    const LIGHT_EPS: f32 = 1e-5;
    let gpu = require_gpu("gpu_driven");
    let handle = fox_with_lods();
    let pass = CullPass::new(&gpu.device);
    let mut fit_pass = LightFitPass::new(&gpu.device);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut worst = 0.0f32;
    for case in 0..12 {
        let crowd = random_crowd(&mut rng, &handle, 200);
        let tables = crowd.gpu_tables();
        let draws = stand_in_draws(&tables);
        // The last case looks away from the crowd: nothing drawn.
        let (eye, target) = if case == 11 {
            (Vec3::new(0.0, 10.0, 300.0), Vec3::new(0.0, 10.0, 600.0))
        } else {
            let eye = Vec3::new(
                rng.range(-80.0, 80.0),
                rng.range(5.0, 60.0),
                rng.range(-80.0, 80.0),
            );
            (
                eye,
                Vec3::new(rng.range(-20.0, 20.0), 0.0, rng.range(-20.0, 20.0)),
            )
        };
        let camera = Camera::look_at(eye, target, Vec3::Y, rng.range(0.4, 1.2), 1.5, 0.1, 200.0);
        let view = DrawView::from_camera(&camera, true);
        let toward_light = match case {
            0 => Vec3::Y,
            1 => Vec3::new(0.0, 0.0, 0.0), // degenerate: straight up
            _ => Vec3::new(
                rng.range(-1.0, 1.0),
                rng.range(0.2, 1.0),
                rng.range(-1.0, 1.0),
            ),
        };
        let mut culling = Culling::new(&gpu.device);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        culling.encode(&gpu, &mut encoder, &pass, &crowd, view, &draws);
        fit_pass
            .encode(
                &gpu.device,
                &gpu.queue,
                &mut encoder,
                toward_light,
                &[&culling.list],
            )
            .unwrap();
        gpu.queue.submit([encoder.finish()]);
        culling.list.after_submit(&gpu.device);
        let drawn = culling
            .list
            .wait_drawn(&gpu.device)
            .unwrap()
            .cloned()
            .unwrap();
        let fit: LightFit = bytemuck::pod_read_unaligned(&read_buffer(
            &gpu,
            fit_pass.fit(),
            std::mem::size_of::<LightFit>() as u64,
        ));
        assert_eq!(fit.visible, drawn.visible, "case {case}: visible");
        if drawn.visible == 0 {
            assert_eq!(case, 11, "only the last case sees nothing");
            for p in fit.planes {
                assert!(
                    p[3] < -1e30,
                    "case {case}: nothing visible, plane {p:?} rejects all"
                );
            }
            continue;
        }
        let boxed: Aabb = drawn.bounds;
        let r = boxed.radius();
        let light = Camera::directional_light(toward_light, &boxed, r * 0.02, r * 4.0);
        let want = light.clip_from_world().to_cols_array();
        let got = Mat4::from_cols_array_2d(&fit.light_clip_from_world).to_cols_array();
        let scale = want.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        for (i, (w, g)) in want.iter().zip(&got).enumerate() {
            let e = (w - g).abs() / scale;
            worst = worst.max(e);
            assert!(
                e <= LIGHT_EPS,
                "case {case}: matrix element {i}: CPU {w} GPU {g}"
            );
        }
        for (k, (w, g)) in light.frustum().planes.iter().zip(&fit.planes).enumerate() {
            let scale = w.abs().max_element().max(1.0);
            for (a, b) in w.to_array().iter().zip(g) {
                let e = (a - b).abs() / scale;
                worst = worst.max(e);
                assert!(e <= LIGHT_EPS, "case {case}: plane {k}: CPU {w} GPU {g:?}");
            }
        }
    }
    eprintln!("GPU light fit vs CPU: worst relative difference {worst:.2e}");
}
