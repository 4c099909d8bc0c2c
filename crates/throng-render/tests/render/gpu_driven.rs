//! The GPU-driven path's cull pass against the CPU's draw list: for random
//! crowds (positions, rotations, scales, clips, times, speeds, wrap modes,
//! cross-fades, pauses, LODs) seen by random cameras over several frames
//! (so LOD hysteresis carries over), the GPU's groups hold the same
//! instances with the same records as `Crowd::build_draw_list`, and the
//! indirect draws name them. Also: the GPU's clip time after ten simulated
//! hours equals the CPU's.
//!
//! Tolerances: frame weights and fade weights within [`WEIGHT_EPS`] (the GPU
//! may round `u32 → f32` and fused multiply-adds differently); an instance
//! whose bounding sphere lies within [`BOUNDARY_EPS`] of a frustum plane, or
//! whose projected size is within that relative distance of a LOD threshold,
//! may land on either side (counted and bounded, never silently).

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};
use throng_bake::{BakeOptions, bake_file};
use throng_core::gpu::{DRAWN_WORDS, DrawSpec, InstanceRecord};
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, DrawList, DrawView, ModelHandle, Spawn, WrapMode};
use throng_render::cull::{CullList, CullPass};
use throng_render::require_gpu;
use throng_tests::culling::Culling;
use throng_tests::readback::read_buffer;
use throng_tests::rng::Rng;
use throng_tests::scenes::{BesideCpu, View};

/// Largest difference allowed in a frame or fade weight.
const WEIGHT_EPS: f32 = 1e-4;
/// Relative closeness to a cull plane or LOD threshold within which either
/// answer is right.
const BOUNDARY_EPS: f32 = 1e-4;

fn fox_with_lods() -> ModelHandle {
    let options = BakeOptions {
        lod_ratios: vec![0.5, 0.2],
        ..BakeOptions::default()
    };
    let (model, _) = bake_file(
        &throng_tests::asset("khronos_Fox.glb"),
        &options,
        &|_, _| {},
    )
    .unwrap();
    ModelHandle::new(model).unwrap()
}

fn random_crowd(rng: &mut Rng, handle: &ModelHandle, n: usize) -> Crowd {
    let mut crowd = Crowd::new();
    let m = crowd.add_model(handle);
    let clips = handle.model().clips.len();
    let wraps = [WrapMode::Loop, WrapMode::Once, WrapMode::PingPong];
    for _ in 0..n {
        let transform = Mat4::from_scale_rotation_translation(
            Vec3::splat(rng.range(0.005, 0.03)),
            Quat::from_rotation_y(rng.range(0.0, std::f32::consts::TAU)),
            Vec3::new(rng.range(-60.0, 60.0), 0.0, rng.range(-60.0, 60.0)),
        );
        let id = crowd
            .spawn(
                m,
                Spawn {
                    transform,
                    clip: (rng.below(8) != 0).then(|| rng.below(clips)),
                    time: rng.range(-3.0, 3.0),
                    speed: rng.range(-2.0, 2.0),
                    wrap: wraps[rng.below(3)],
                    ..Spawn::default()
                },
            )
            .unwrap();
        if rng.below(3) == 0 {
            crowd
                .cross_fade(id, rng.below(clips), rng.range(0.1, 2.0))
                .unwrap();
        }
        if rng.below(10) == 0 {
            crowd.pause(id).unwrap();
        }
    }
    crowd
}

/// One indirect draw per draw group of `tables`, of a stand-in submesh.
fn stand_in_draws(tables: &throng_crowd::crowd::GpuTables) -> Vec<DrawSpec> {
    (0..tables.group_count)
        .map(|g| DrawSpec {
            group: g,
            index_count: 3,
            first_index: 0,
            base_vertex: 0,
        })
        .collect()
}

/// A record's identity: its transform, bit for bit (unique per instance
/// in these crowds).
fn key(r: &InstanceRecord) -> [u32; 12] {
    let mut k = [0; 12];
    for (i, v) in r.world_from_model.iter().flatten().enumerate() {
        k[i] = v.to_bits();
    }
    k
}

/// How close the instance's sphere is to deciding differently: the smallest
/// relative margin to a frustum plane.
fn near_boundary(crowd: &Crowd, r: &InstanceRecord, view: &DrawView) -> bool {
    let _ = crowd;
    let c = Vec3::new(
        r.world_from_model[0][3],
        r.world_from_model[1][3],
        r.world_from_model[2][3],
    );
    match &view.frustum {
        Some(f) => f.planes.iter().any(|p| {
            let d = p.truncate().dot(c) + p.w;
            d.abs() < 50.0 * BOUNDARY_EPS * (1.0 + c.length())
        }),
        None => false,
    }
}

#[test]
fn gpu_cull_equals_the_cpu_draw_list() {
    let gpu = require_gpu("gpu_driven");
    let handle = fox_with_lods();
    assert_eq!(handle.model().lods.len(), 3);
    let pass = CullPass::new(&gpu.device);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut worst_weight = 0.0f32;
    let mut boundary_cases = 0usize;
    let mut compared = 0usize;
    for scene in 0..4 {
        let n = [1, 37, 500, 2_000][scene];
        let mut crowd = random_crowd(&mut rng, &handle, n);
        let mut culling = Culling::new(&gpu.device);
        let mut cpu = DrawList::default();
        let eye = Vec3::new(
            rng.range(-80.0, 80.0),
            rng.range(2.0, 40.0),
            rng.range(-80.0, 80.0),
        );
        for frame in 0..6 {
            // Move the camera towards the crowd so LODs change, with hysteresis.
            let t = frame as f32 / 5.0;
            let camera = Camera::look_at(
                eye * (1.0 - 0.8 * t),
                Vec3::new(rng.range(-20.0, 20.0), 0.0, rng.range(-20.0, 20.0)),
                Vec3::Y,
                rng.range(0.5, 1.4),
                1.5,
                0.1,
                200.0,
            );
            let view = DrawView {
                lod_tints: scene == 1,
                ..DrawView::from_camera(&camera, scene != 0)
            };
            crowd.update(rng.range(0.0, 0.5));
            // Changes after the first upload: a few (written in place), and
            // many scattered ones (packed and scattered by a dispatch), of
            // states (speed, tint) and of transforms alone.
            let (states, transforms) = match frame {
                3 => (1, 1),
                4 => (n / 20, 0),
                5 => (0, n / 20),
                _ => (0, 0),
            };
            let ids: Vec<_> = crowd.ids().collect();
            for k in 0..states {
                let id = ids[(k * 17 + frame) % n];
                crowd.set_speed(id, 3.0 - k as f32 * 0.01).unwrap();
                crowd
                    .set_tint(id, glam::Vec4::new(1.0, 0.5, 0.25, 1.0))
                    .unwrap();
            }
            // Logged out of order (the mirror sorts them); the states above
            // are logged twice each (speed, tint), so many of them go
            // through the mirror's bitset.
            for k in (0..transforms).rev() {
                let id = ids[(k * 17 + frame + 5) % n];
                let moved = crowd.state(id).unwrap().world_from_model
                    * glam::Mat4::from_rotation_y(0.3 + k as f32 * 0.01)
                    * glam::Mat4::from_translation(Vec3::new(0.5, 0.0, -0.25));
                crowd.set_transform(id, moved).unwrap();
            }
            crowd.build_draw_list(view, &mut cpu);
            let tables = crowd.gpu_tables();
            let draws = stand_in_draws(&tables);
            let sync = culling.frame(&gpu, &pass, &crowd, view, &draws);
            if frame > 0 {
                assert_eq!(
                    (sync.states, sync.transforms),
                    (states as u64, transforms as u64),
                    "{sync:?}"
                );
                // Slots 17 apart make a run each.
                assert_eq!(sync.scattered, states.max(transforms) > 16, "{sync:?}");
            }

            let header = DRAWN_WORDS as usize;
            let counts: Vec<u32> = bytemuck::cast_slice::<u8, u32>(&read_buffer(
                &gpu,
                culling.list.counts(),
                (header as u64 + tables.group_count as u64) * 4,
            ))[header..]
                .to_vec();
            let args: Vec<[u32; 5]> = bytemuck::cast_slice(&read_buffer(
                &gpu,
                culling.list.indirect(),
                draws.len() as u64 * 20,
            ))
            .to_vec();
            let total: u32 = counts.iter().sum();
            let records: Vec<InstanceRecord> = bytemuck::cast_slice(&read_buffer(
                &gpu,
                culling.list.records(),
                total as u64 * std::mem::size_of::<InstanceRecord>() as u64,
            ))
            .to_vec();
            // The GPU's records by group, via the indirect draws.
            let mut gpu_by_key: HashMap<[u32; 12], (u32, InstanceRecord)> = HashMap::new();
            for (g, a) in args.iter().enumerate() {
                assert_eq!(a[1], counts[g], "draw {g}'s instance count is its group's");
                for r in &records[a[4] as usize..(a[4] + a[1]) as usize] {
                    gpu_by_key.insert(key(r), (g as u32, *r));
                }
            }
            assert_eq!(gpu_by_key.len() as u32, total, "each instance once");
            let mut cpu_by_key: HashMap<[u32; 12], (u32, InstanceRecord)> = HashMap::new();
            for grp in &cpu.groups {
                let g = 2 * grp.lod + grp.cross_fade as u32;
                for r in &cpu.records[grp.first as usize..(grp.first + grp.count) as usize] {
                    cpu_by_key.insert(key(r), (g, *r));
                }
            }
            let what = format!("scene {scene} ({n} instances) frame {frame}");
            for (k, (g, c)) in &cpu_by_key {
                let Some((gg, r)) = gpu_by_key.get(k) else {
                    assert!(
                        near_boundary(&crowd, c, &view),
                        "{what}: visible on the CPU only: {c:?}"
                    );
                    boundary_cases += 1;
                    continue;
                };
                compared += 1;
                if g != gg {
                    // A LOD threshold between them: same fading bit, next LOD.
                    assert_eq!(g % 2, gg % 2, "{what}: fading differs: {c:?} vs {r:?}");
                    assert_eq!(
                        (*g as i32 / 2 - *gg as i32 / 2).abs(),
                        1,
                        "{what}: LOD {g} vs {gg}"
                    );
                    boundary_cases += 1;
                    continue;
                }
                assert_eq!(
                    (c.frame0, c.prev0, c.tint),
                    (r.frame0, r.prev0, r.tint),
                    "{what}: frames differ: CPU {c:?} GPU {r:?}"
                );
                assert_eq!((c.frame1, c.prev1), (r.frame1, r.prev1), "{what}");
                for (a, b) in [(c.t, r.t), (c.prev_t, r.prev_t), (c.fade, r.fade)] {
                    worst_weight = worst_weight.max((a - b).abs());
                    assert!(
                        (a - b).abs() <= WEIGHT_EPS,
                        "{what}: weight {a} vs {b}: CPU {c:?} GPU {r:?}"
                    );
                }
            }
            for (k, (_, r)) in &gpu_by_key {
                if !cpu_by_key.contains_key(k) {
                    assert!(
                        near_boundary(&crowd, r, &view),
                        "{what}: visible on the GPU only: {r:?}"
                    );
                    boundary_cases += 1;
                }
            }
        }
    }
    eprintln!(
        "{compared} records compared, worst weight difference {worst_weight:.2e}, {boundary_cases} boundary cases"
    );
    assert!(compared > 5_000, "the scenes exercise the pass: {compared}");
    assert!(
        boundary_cases * 100 <= compared,
        "boundary cases stay rare: {boundary_cases} of {compared}"
    );
}

/// After ten simulated hours (36,000 updates of about a second, plus the
/// odd fraction), the clip time the GPU derives from the clock equals the
/// CPU's within 1e-4 s, for every wrap mode and speeds either way.
#[test]
fn ten_hours_later_the_gpu_clip_time_equals_the_cpu_one() {
    let gpu = require_gpu("gpu_driven");
    let handle = fox_with_lods();
    let mut crowd = Crowd::new();
    let m = crowd.add_model(&handle);
    let clips = handle.model().clips.len();
    let mut ids = Vec::new();
    for (i, wrap) in [WrapMode::Loop, WrapMode::PingPong, WrapMode::Once]
        .into_iter()
        .cycle()
        .take(12)
        .enumerate()
    {
        let id = crowd
            .spawn(
                m,
                Spawn {
                    transform: Mat4::from_translation(Vec3::new(i as f32, 0.0, 0.0)),
                    clip: Some(i % clips),
                    time: 0.1 * i as f32,
                    speed: [1.0, -0.37, 1.913, 0.5][i % 4],
                    wrap,
                    ..Spawn::default()
                },
            )
            .unwrap();
        ids.push(id);
    }
    for step in 0..36_000u32 {
        crowd.update(1.0 + (step % 7) as f32 * 1e-3);
    }
    assert!(crowd.seconds() > 36_000.0);
    let pass = CullPass::new(&gpu.device);
    let mut culling = Culling::new(&gpu.device);
    culling.frame(&gpu, &pass, &crowd, DrawView::default(), &[]);
    let records: Vec<InstanceRecord> = bytemuck::cast_slice(&read_buffer(
        &gpu,
        culling.list.records(),
        ids.len() as u64 * std::mem::size_of::<InstanceRecord>() as u64,
    ))
    .to_vec();
    let mut worst = 0.0f32;
    for id in &ids {
        let state = crowd.state(*id).unwrap();
        let (clip, cpu_time) = state.current.unwrap();
        let map = handle.model().clips[clip].frame_map();
        let x = state.world_from_model.w_axis.x;
        let r = records
            .iter()
            .find(|r| r.world_from_model[0][3] == x)
            .expect("every instance drawn (no culling)");
        let gpu_time = ((r.frame0 - map.first_frame) as f32 + r.t) / map.frames_per_second;
        worst = worst.max((gpu_time - cpu_time).abs());
        assert!(
            (gpu_time - cpu_time).abs() < 1e-4,
            "instance at x = {x}: GPU {gpu_time} s, CPU {cpu_time} s"
        );
    }
    eprintln!(
        "after {:.0} s: worst GPU-CPU clip time difference {worst:.2e} s",
        crowd.seconds()
    );
}

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

/// The light fitted on the GPU (`shaders/light_fit.wgsl`) to what the
/// camera's cull drew equals the CPU paths' fit (`Camera::directional_light`
/// with `Shadow::fit_light`'s margins) to the same box, for random crowds,
/// cameras and light directions (straight down included), within
/// [`LIGHT_EPS`] of the matrices' and planes' largest element; with nothing
/// in view there is no light and its planes reject everything.
#[test]
fn the_gpu_light_fit_equals_the_cpu_one() {
    use throng_core::gpu::LightFit;
    use throng_core::math::Aabb;
    use throng_render::light_fit::LightFitPass;
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
