//! The foot IK pass on the GPU (`passes/foot_ik.wgsl`) against its CPU
//! twin (`throng_core::foot_ik::plant_feet`), GPU tests: the baked Fox at
//! every baked frame of its Walk, standing upright at places of a 20°
//! slope and of a stair, its palette evaluated by the pre-pass and its feet
//! planted on the GPU: every joint where the CPU puts it within
//! [`JOINT_EPS`] of the Fox's radius, and the feet moved (the pass did
//! something).

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use throng_core::contacts::contacts;
use throng_core::foot_ik::{IkSkeleton, plant_feet};
use throng_core::gpu::{GpuIkInstance, GpuLayerSet};
use throng_core::ground::{Ground, GroundAlign, Heightfield, Piece};
use throng_core::math::rows_to_mat4;
use throng_render::GpuModel;
use throng_render::foot_ik::{FootIkPass, GpuLegs};
use throng_render::palette::{PalettePass, PaletteTables};
use throng_tests::require_gpu;

/// Largest distance between a joint the GPU placed and the CPU's, as a
/// share of the model's radius.
const JOINT_EPS: f32 = 1e-4;

#[test]
fn the_gpu_plants_the_foxs_feet_where_the_cpu_does() {
    let gpu = require_gpu("foot_ik");
    let handle = throng_tests::bake_asset("khronos_Fox.glb");
    let model = handle.model();
    let gpu_model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let tables = PaletteTables::new(&gpu.device, handle.skeleton(), &[]);
    let skeleton = IkSkeleton::of(model);
    let legs = GpuLegs::new(&gpu.device, &skeleton.legs);
    assert_eq!(legs.count(), 4);
    let walk = model.clips.iter().position(|c| c.name == "Walk").unwrap();
    let clip = &model.clips[walk];
    let clip_ground = contacts(model)[walk].ground;
    let rise = 20f32.to_radians().tan();
    let slope = Heightfield::from_fn(Vec2::splat(-10.0), 0.1, 201, 201, |p| rise * p.x).unwrap();
    let stair = Piece::stairs_along_x(Vec2::new(0.3, -3.0), 0.0, 3, 0.4, 0.06, 6.0, 1.0);
    let bones = model.bones.len() as u32;
    let palette_pass = PalettePass::new(&gpu.device);
    let ik_pass = FootIkPass::new(&gpu.device);
    let radius = model.bounding_radius;
    for (name, ground) in [
        ("20° slope", Ground::new(Some(slope), vec![]).unwrap()),
        ("stair", Ground::new(None, stair).unwrap()),
    ] {
        let mut sets = Vec::new();
        let mut instances = Vec::new();
        let mut cpu = Vec::new();
        let mut before = Vec::new();
        for k in 0..clip.frame_count {
            let frame = clip.first_frame + k;
            let at = Vec2::new(-0.4 + 0.02 * k as f32, 0.1 * (k % 5) as f32);
            let world = Mat4::from_scale_rotation_translation(
                Vec3::splat(0.01),
                Quat::from_rotation_y(std::f32::consts::FRAC_PI_2 + 0.1 * (k % 3) as f32),
                Vec3::new(at.x, ground.height_at(at), at.y),
            )
            .transpose();
            let rows = [world.x_axis, world.y_axis, world.z_axis];
            let palette_index = k * bones;
            let mut set: GpuLayerSet = bytemuck::Zeroable::zeroed();
            set.frame0 = frame;
            set.frame1 = frame;
            set.fade = 1.0;
            set.palette = palette_index;
            sets.push(set.with_foot_ik(clip_ground));
            instances.push(GpuIkInstance {
                world_from_model: rows.map(|r| r.to_array()),
                palette: palette_index,
                clip_ground,
                pad: [0; 2],
            });
            let mut palette: Vec<Mat4> = (0..bones)
                .map(|b| rows_to_mat4(&model.palette_rows(b, frame)))
                .collect();
            before.push(palette.clone());
            plant_feet(&skeleton, &mut palette, rows, clip_ground, &ground);
            cpu.push(palette);
        }
        let words = ground.gpu_words(GroundAlign::Upright);
        let got = ik_pass
            .evaluate(
                &gpu.device,
                &gpu.queue,
                &palette_pass,
                &gpu_model,
                &tables,
                &legs,
                &sets,
                &instances,
                &words,
            )
            .unwrap();
        let (mut worst, mut at, mut moved) = (0.0f32, String::new(), 0.0f32);
        for (k, pose) in got.iter().enumerate() {
            let gpu_palette: Vec<Mat4> = pose.palette.iter().map(rows_to_mat4).collect();
            for b in 0..bones {
                let g = skeleton.joint(&gpu_palette, b);
                let c = skeleton.joint(&cpu[k], b);
                let off = g.distance(c) / radius;
                if off > worst || off.is_nan() {
                    worst = if off.is_nan() { f32::INFINITY } else { off };
                    at = format!(
                        "frame {k}, bone {}: GPU {g}, CPU {c}",
                        model.bones[b as usize].name
                    );
                }
            }
            for leg in &skeleton.legs {
                moved = moved.max(
                    skeleton
                        .joint(&gpu_palette, leg.foot)
                        .distance(skeleton.joint(&before[k], leg.foot))
                        / radius,
                );
            }
        }
        eprintln!(
            "{name}: worst joint GPU-CPU {worst:.2e} of the radius ({at}); feet moved up to {moved:.3} of it"
        );
        assert!(
            worst <= JOINT_EPS,
            "{name}: {worst:.3e} > {JOINT_EPS:e}: {at}"
        );
        assert!(moved > 0.05, "{name}: the feet barely moved ({moved})");
        let _ = Vec4::ZERO;
    }
}

/// A row of five Foxes standing upright on a 20° slope (its ground set on
/// the crowd), walking; the second and the fourth with foot IK or not.
fn slope_row(
    ik: bool,
) -> (
    throng_crowd::crowd::Crowd,
    Vec<throng_crowd::crowd::InstanceId>,
    ModelHandle,
) {
    use throng_crowd::crowd::{Crowd, Spawn};
    let handle = throng_tests::bake_asset("khronos_Fox.glb");
    let rise = 20f32.to_radians().tan();
    let ground = Ground::new(
        Some(Heightfield::from_fn(Vec2::splat(-10.0), 0.1, 201, 201, |p| rise * p.x).unwrap()),
        vec![],
    )
    .unwrap();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let walk = handle.model().clip_index("Walk").unwrap();
    let ids: Vec<_> = (0..5)
        .map(|i| {
            let x = -3.2 + 1.6 * i as f32;
            let at = Vec3::new(x, ground.height_at(Vec2::new(x, 0.0)), 0.0);
            let spawn = Spawn {
                transform: Mat4::from_scale_rotation_translation(
                    Vec3::splat(0.01),
                    Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
                    at,
                ),
                clip: Some(walk),
                time: 0.1 * i as f32,
                speed: 0.0,
                ..Spawn::default()
            };
            crowd.spawn(m, spawn).unwrap()
        })
        .collect();
    crowd.set_ground(Some(std::sync::Arc::new(ground)), GroundAlign::Upright);
    for &i in &[1, 3] {
        crowd.set_foot_ik(ids[i], ik).unwrap();
    }
    (crowd, ids, handle)
}

type ModelHandle = throng_crowd::crowd::ModelHandle;

/// The picture with foot IK differs from the one without exactly at the
/// instances that have it: every pixel over the golden tolerance lies in
/// their boxes on screen, and there are such pixels.
fn ik_changes_only_its_instances(path: throng_render::PathChoice) {
    use throng_render::{Renderer, RendererOptions};
    use throng_tests::golden::PIXEL_LEVEL_TOLERANCE;
    let gpu = require_gpu("foot_ik");
    const SIZE: (u32, u32) = (320, 160);
    let camera = throng_tests::scenes::View {
        eye: Vec3::new(0.0, 0.6, 6.5),
        target: Vec3::new(0.0, 0.3, 0.0),
        fov: 45f32.to_radians(),
        depth: (0.1, 50.0),
    }
    .camera(SIZE);
    let picture = |ik: bool| {
        let (crowd, ids, handle) = slope_row(ik);
        let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
        let options = RendererOptions {
            path,
            shadows: None,
            ..RendererOptions::default()
        };
        let mut renderer = Renderer::headless(&gpu, options).unwrap();
        let (image, _) = renderer
            .render_image(&gpu, SIZE, &camera, &[&crowd], &[&model])
            .unwrap();
        // The screen boxes of the instances with foot IK.
        let boxes: Vec<(Vec2, Vec2)> = [1, 3]
            .iter()
            .map(|&i| {
                let t = crowd.world_transform(ids[i]).unwrap();
                let b = handle.model().bounds;
                let corners = (0..8).map(|k| {
                    let c = Vec3::new(
                        if k & 1 == 0 { b.min.x } else { b.max.x },
                        if k & 2 == 0 { b.min.y } else { b.max.y },
                        if k & 4 == 0 { b.min.z } else { b.max.z },
                    );
                    // Room for the feet the IK moved: a tenth of the box.
                    let p = camera
                        .clip_from_world()
                        .project_point3(t.transform_point3(c));
                    Vec2::new(
                        (p.x + 1.0) * 0.5 * SIZE.0 as f32,
                        (1.0 - p.y) * 0.5 * SIZE.1 as f32,
                    )
                });
                let (lo, hi) = corners.fold(
                    (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN)),
                    |(lo, hi), p| (lo.min(p), hi.max(p)),
                );
                let margin = (hi - lo) * 0.1;
                (lo - margin, hi + margin)
            })
            .collect();
        (image, boxes)
    };
    let (off, _) = picture(false);
    let (on, boxes) = picture(true);
    if let Ok(dir) = std::env::var("THRONG_IK_SHOTS") {
        off.save(format!("{dir}/ik-off-{path:?}.png")).unwrap();
        on.save(format!("{dir}/ik-on-{path:?}.png")).unwrap();
    }
    let (mut inside, mut outside) = (0, Vec::new());
    for (x, y, p) in on.enumerate_pixels() {
        let q = off.get_pixel(x, y);
        let differs =
            p.0.iter()
                .zip(q.0)
                .any(|(a, b)| a.abs_diff(b) > PIXEL_LEVEL_TOLERANCE);
        if !differs {
            continue;
        }
        let at = Vec2::new(x as f32 + 0.5, y as f32 + 0.5);
        if boxes
            .iter()
            .any(|(lo, hi)| at.cmpge(*lo).all() && at.cmple(*hi).all())
        {
            inside += 1;
        } else {
            outside.push((x, y));
        }
    }
    eprintln!(
        "{path:?}: {inside} pixels differ at the instances with foot IK, {} elsewhere",
        outside.len()
    );
    assert!(
        outside.is_empty(),
        "{path:?}: pixels differ away from the IK instances, first at {:?}",
        &outside[..outside.len().min(5)]
    );
    assert!(
        inside > 100,
        "{path:?}: foot IK changed only {inside} pixels"
    );
}

#[test]
fn foot_ik_changes_the_picture_only_at_its_instances_gpu_driven() {
    ik_changes_only_its_instances(throng_render::PathChoice::GpuDriven);
}

#[test]
fn foot_ik_changes_the_picture_only_at_its_instances_unbounded() {
    ik_changes_only_its_instances(throng_render::PathChoice::Unbounded);
}
