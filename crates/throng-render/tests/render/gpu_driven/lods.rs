//! The LOD hysteresis state the GPU keeps per instance survives the crowd
//! growing past its buffers, as on the CPU.

use glam::{Mat4, Vec3};
use throng_core::gpu::DRAWN_WORDS;
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, DrawList, DrawView, Spawn};
use throng_render::cull::{CullList, CullPass};
use throng_tests::culling::Culling;
use throng_tests::readback::read_buffer;
use throng_tests::require_gpu;

use super::{fox_with_lods, stand_in_draws};

/// Instances per LOD (non-fading groups) in the CPU's draw list.
/// `list` carries the LOD hysteresis state from its previous build.
fn cpu_lods(crowd: &Crowd, list: &mut DrawList, view: DrawView) -> Vec<u32> {
    crowd.build_draw_list(view, list);
    let mut lods = vec![0; 3];
    for g in &list.groups {
        lods[g.lod as usize] += g.count;
    }
    lods
}

/// The LOD hysteresis state the GPU keeps per instance survives the crowd
/// growing past its buffers: instances that came from a coarser LOD into
/// the hysteresis band stay there, as on the CPU, instead of starting over
/// at LOD 0.
#[test]
fn lod_hysteresis_survives_the_crowd_growing() {
    let gpu = require_gpu("gpu_driven");
    let handle = fox_with_lods();
    let pass = CullPass::new(&gpu.device);
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let n = 8u32;
    for i in 0..n {
        let at = Vec3::new(i as f32 - 3.5, 0.0, 0.0);
        let spawn = Spawn {
            transform: Mat4::from_translation(at) * Mat4::from_scale(Vec3::splat(0.02)),
            clip: Some(0),
            ..Spawn::default()
        };
        crowd.spawn(m, spawn).unwrap();
    }
    let view_at = |z: f32| {
        let camera = Camera::look_at(
            Vec3::new(0.0, 1.0, z),
            Vec3::ZERO,
            Vec3::Y,
            1.0,
            1.5,
            0.1,
            1e4,
        );
        DrawView::from_camera(&camera, true)
    };
    let far = view_at(400.0);
    let mut cpu_list = DrawList::default();
    assert_eq!(
        cpu_lods(&crowd, &mut cpu_list, far)[0],
        0,
        "far away, no instance at LOD 0"
    );
    // A distance in the hysteresis band of LOD 0: coming from far they stay
    // coarser, a fresh crowd would pick LOD 0.
    let band = (0..4000)
        .map(|k| 400.0 - k as f32 * 0.1)
        .find(|&z| {
            let mut came = cpu_list.clone();
            let mut fresh = DrawList::default();
            cpu_lods(&crowd, &mut came, view_at(z))[1] == n
                && cpu_lods(&crowd, &mut fresh, view_at(z))[0] == n
        })
        .expect("a camera distance inside the hysteresis band");
    let band = view_at(band);

    let tables = crowd.gpu_tables();
    let draws = stand_in_draws(&tables);
    let mut culling = Culling::new(&gpu.device);
    let gpu_lods = |list: &CullList| -> Vec<u32> {
        let header = DRAWN_WORDS as usize;
        let words = read_buffer(&gpu, list.counts(), (header + draws.len()) as u64 * 4);
        let counts: &[u32] = bytemuck::cast_slice(&words);
        // Groups are 2·LOD + fading.
        (0..3).map(|lod| counts[header + 2 * lod]).collect()
    };
    culling.frame(&gpu, &pass, &crowd, far, &draws);
    culling.frame(&gpu, &pass, &crowd, band, &draws);
    let cpu = cpu_lods(&crowd, &mut cpu_list, band);
    assert_eq!(
        cpu,
        vec![0, n, 0],
        "the CPU keeps the coarser LOD in the band"
    );
    assert_eq!(gpu_lods(&culling.list), cpu, "GPU before growing");

    // Grow the crowd well past the LOD state buffer, behind the camera.
    for i in 0..1000 {
        let at = Vec3::new(i as f32, 0.0, 1000.0);
        let spawn = Spawn {
            transform: Mat4::from_translation(at) * Mat4::from_scale(Vec3::splat(0.02)),
            ..Spawn::default()
        };
        crowd.spawn(m, spawn).unwrap();
    }
    culling.frame(&gpu, &pass, &crowd, band, &draws);
    assert_eq!(
        cpu_lods(&crowd, &mut cpu_list, band),
        cpu,
        "the CPU after growing"
    );
    assert_eq!(
        gpu_lods(&culling.list),
        cpu,
        "the GPU after growing: LOD state carried into the grown buffer"
    );
}
