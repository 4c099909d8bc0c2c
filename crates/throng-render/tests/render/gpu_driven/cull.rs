//! The GPU's cull against `Crowd::build_draw_list`, over random crowds,
//! cameras and frames: the same instances in the same groups with the same
//! records (weights within `WEIGHT_EPS`), instances near a frustum plane
//! counted and bounded, and indirect draws that name them.

use std::collections::HashMap;

use glam::Vec3;
use throng_core::gpu::{DRAWN_WORDS, InstanceRecord};
use throng_crowd::camera::Camera;
use throng_crowd::crowd::{Crowd, DrawList, DrawView};
use throng_render::cull::CullPass;
use throng_tests::culling::Culling;
use throng_tests::readback::read_buffer;
use throng_tests::require_gpu;
use throng_tests::rng::Rng;

use super::{BOUNDARY_EPS, WEIGHT_EPS, fox_with_lods, random_crowd, stand_in_draws};

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
