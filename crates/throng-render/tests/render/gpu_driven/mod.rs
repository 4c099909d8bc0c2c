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
//!
//! - `cull`: the GPU's groups, records and indirect draws against the CPU's
//!   draw list;
//! - `clock`: the clip time after ten simulated hours;
//! - `pictures`: GPU-driven pictures against the CPU paths', one crowd and
//!   several;
//! - `lods`: LOD hysteresis across the crowd growing past its buffers;
//! - `light_fit`: the light fitted on the GPU against the CPU's fit.
//!
//! This file holds the tolerances, the Fox with LODs, the random crowd and
//! the stand-in draws the modules share.

use glam::{Mat4, Quat, Vec3};
use throng_bake::{BakeOptions, bake_file};
use throng_core::gpu::DrawSpec;
use throng_crowd::crowd::{Crowd, ModelHandle, Spawn, WrapMode};
use throng_tests::rng::Rng;

mod clock;
mod cull;
mod light_fit;
mod lods;
mod pictures;

/// Largest difference allowed in a frame or fade weight.
const WEIGHT_EPS: f32 = 1e-4;
/// Relative closeness to a cull plane or LOD threshold within which either
/// answer is right.
const BOUNDARY_EPS: f32 = 1e-4;

pub(crate) fn fox_with_lods() -> ModelHandle {
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
