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
    let legs = GpuLegs::new(&gpu.device, &skeleton);
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
            let gpu_palette: Vec<Mat4> = pose.palette.iter().map(|r| rows_to_mat4(r)).collect();
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
