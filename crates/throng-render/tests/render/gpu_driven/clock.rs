//! After ten simulated hours, the clip time the GPU derives from the clock
//! equals the CPU's, for every wrap mode and speeds either way.

use glam::{Mat4, Vec3};
use throng_core::gpu::InstanceRecord;
use throng_crowd::crowd::{Crowd, DrawView, Spawn, WrapMode};
use throng_render::cull::CullPass;
use throng_tests::culling::Culling;
use throng_tests::readback::read_buffer;
use throng_tests::require_gpu;

use super::fox_with_lods;

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
