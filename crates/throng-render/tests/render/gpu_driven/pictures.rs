//! Pictures of the GPU-driven path against the CPU's unbounded path, within
//! the golden-image tolerance: one random crowd over changing frames, and
//! several crowds of different models in one frame.

use glam::{Mat4, Vec3};
use throng_crowd::crowd::{Crowd, Spawn};
use throng_tests::require_gpu;
use throng_tests::rng::Rng;
use throng_tests::scenes::{BesideCpu, View};

use super::{fox_with_lods, random_crowd};

/// The same frames drawn by the GPU-driven path and by the CPU's unbounded
/// path: a random crowd with fades, LOD tints, shadows and culling, over
/// several frames with changes between them (spawn, despawn, transform,
/// play), equal within the golden-image tolerance every frame.
#[test]
fn gpu_driven_pictures_equal_the_cpu_paths() {
    use throng_render::{GpuModel, RendererOptions};
    let gpu = require_gpu("gpu_driven");
    let handle = fox_with_lods();
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut crowd = random_crowd(&mut rng, &handle, 300);
    let options = RendererOptions {
        lod_tints: true,
        ..RendererOptions::default()
    };
    let mut beside = BesideCpu::new(&gpu, options, "throng-gpu-driven");
    for frame in 0..4 {
        // Further left, frame by frame.
        let camera = View {
            eye: Vec3::new(40.0 - 15.0 * frame as f32, 25.0, 70.0),
            target: Vec3::ZERO,
            fov: 0.9,
            depth: (0.5, 300.0),
        }
        .camera((192, 192));
        let name = format!("gpu_driven_{frame}");
        let (_, sa) = beside.frame(&gpu, &name, (192, 192), &camera, &[&crowd], &[&model]);
        assert!(
            sa.visible > 0 && sa.visible < sa.instances,
            "frame {frame}: some culled"
        );
        // Changes before the next frame, which the mirror must pick up.
        crowd.update(0.3);
        let ids: Vec<_> = crowd.ids().collect();
        crowd.despawn(ids[frame * 7]).unwrap();
        crowd
            .set_transform(
                ids[frame * 11 + 1],
                Mat4::from_translation(Vec3::new(0.0, 0.0, 5.0 * frame as f32)),
            )
            .unwrap();
        crowd.play(ids[frame * 13 + 2], 0).unwrap();
        crowd
            .spawn(
                throng_crowd::crowd::ModelId(0),
                Spawn {
                    transform: Mat4::from_scale(Vec3::splat(0.02)),
                    clip: Some(1),
                    ..Spawn::default()
                },
            )
            .unwrap();
    }
}

/// Several crowds in one frame, one of them empty and two of different
/// models (the Fox with LODs, and without), with shadows: the GPU-driven
/// path's counts and pictures equal the unbounded path's. The light is
/// fitted to the union of every crowd's drawn box, on the GPU for the one,
/// on the CPU for the other.
#[test]
fn several_crowds_draw_as_on_the_cpu_paths() {
    use throng_render::{GpuModel, RendererOptions};
    let gpu = require_gpu("gpu_driven");
    let with_lods = fox_with_lods();
    let plain = throng_tests::bake_asset("khronos_Fox.glb");
    let models = [
        GpuModel::upload(&gpu.device, &gpu.queue, &with_lods).unwrap(),
        GpuModel::upload(&gpu.device, &gpu.queue, &plain).unwrap(),
    ];
    let mut rng = Rng(0x5851_f42d_4c95_7f2d);
    let mut a = random_crowd(&mut rng, &with_lods, 150);
    let empty = Crowd::new();
    let mut b = random_crowd(&mut rng, &plain, 120);
    // Crowd b stands apart, so the light must cover both boxes.
    let ids: Vec<_> = b.ids().collect();
    for id in ids {
        let m = b.state(id).unwrap().world_from_model;
        b.set_transform(id, Mat4::from_translation(Vec3::new(90.0, 0.0, 0.0)) * m)
            .unwrap();
    }
    let mut beside = BesideCpu::new(&gpu, RendererOptions::default(), "throng-gpu-driven");
    let model_refs = [&models[0], &models[1]];
    for frame in 0..2 {
        // Lower, frame by frame.
        let camera = View {
            eye: Vec3::new(45.0, 60.0 - 20.0 * frame as f32, 110.0),
            target: Vec3::new(45.0, 0.0, 0.0),
            fov: 0.9,
            depth: (0.5, 400.0),
        }
        .camera((240, 160));
        let crowds = [&a, &empty, &b];
        let name = format!("gpu_driven_crowds_{frame}");
        let (_, sa) = beside.frame(&gpu, &name, (240, 160), &camera, &crowds, &model_refs);
        assert!(
            sa.visible > 0 && sa.shadow_casters > 0,
            "frame {frame}: something drawn"
        );
        a.update(0.25);
        b.update(0.25);
    }
}
