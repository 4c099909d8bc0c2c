//! The impostor capture against the CPU: every cell of a small atlas of
//! the Fox (3 clips × 2 frames × 5 × 5 views) shows the silhouette the CPU
//! skinning of that clip, frame and view projects, in its own cell, and its
//! normals face the camera.
//!
//! Tolerance: [`EDGE_TEXELS`] between the box of the CPU's projected
//! vertices and the box of the captured texels of at least half coverage
//! (a texel counts when the triangle covers its centre, so up to half a
//! texel each way, and a thin extremity may cover no centre at all).

use glam::Vec3;
use throng_core::baked::skin_lod;
use throng_core::impostor::AtlasPlan;
use throng_crowd::crowd::{Crowd, Spawn};
use throng_impostor::{capture, cell_transform, frame_time};
use throng_render::GpuModel;
use throng_tests::require_gpu;

/// Largest distance, in texels, between an edge of the captured silhouette's
/// box and the same edge of the CPU's projected box.
const EDGE_TEXELS: f32 = 1.5;

#[test]
fn captured_cells_hold_the_cpu_silhouettes() {
    let gpu = require_gpu("impostor capture");
    let handle = throng_tests::bake_asset("khronos_Fox.glb");
    let gpu_model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();
    let clips = handle.model().clips.len() as u32;
    let plan = AtlasPlan::layout(5, 2, 32, clips);
    let atlas = capture(&gpu, &handle, &gpu_model, &plan).unwrap();
    let side = plan.layer_size as usize;
    assert_eq!(atlas.colour.len(), plan.layers as usize * side * side * 4);
    assert_eq!(atlas.normal.len(), atlas.colour.len());

    let mut worst = 0.0f32;
    let mut facing = (0usize, 0usize);
    for clip in 0..clips {
        let info = &handle.model().clips[clip as usize];
        let s = atlas.spheres[clip as usize];
        let (center, radius) = (Vec3::new(s[0], s[1], s[2]), s[3]);
        for frame in 0..plan.frames {
            // The CPU's skinned pose at the capture's time.
            let mut crowd = Crowd::new();
            let m = crowd.add_model(&handle);
            let id = crowd
                .spawn(
                    m,
                    Spawn {
                        clip: Some(clip as usize),
                        time: frame_time(info.duration, frame, plan.frames),
                        speed: 0.0,
                        ..Spawn::default()
                    },
                )
                .unwrap();
            let pose = skin_lod(handle.model(), 0, &crowd.frame_blend(id).unwrap());
            for view in 0..plan.views.count() {
                let what = format!("clip {clip} frame {frame} view {view}");
                let to_cell = cell_transform(&plan, clip, frame, view, center, radius);
                // The CPU's box, in texels (x right, rows down).
                let (mut lo, mut hi) = (glam::Vec2::splat(f32::MAX), glam::Vec2::splat(f32::MIN));
                for p in pose.iter().flat_map(|s| &s.positions) {
                    let w = to_cell.transform_point3(*p);
                    let t = glam::Vec2::new(w.x, plan.layer_size as f32 - w.y);
                    lo = lo.min(t);
                    hi = hi.max(t);
                }
                // The captured box: texels of at least half coverage.
                let (layer, x0, y0) = plan.cell_origin(clip, frame, view);
                let base = layer as usize * side * side;
                let (mut glo, mut ghi) = (glam::Vec2::splat(f32::MAX), glam::Vec2::splat(f32::MIN));
                for y in 0..side {
                    for x in 0..side {
                        let i = (base + y * side + x) * 4;
                        let a = atlas.colour[i + 3];
                        let inside = (x0 as usize..(x0 + plan.cell) as usize).contains(&x)
                            && (y0 as usize..(y0 + plan.cell) as usize).contains(&y);
                        if !inside {
                            continue;
                        }
                        if a >= 128 {
                            let t = glam::Vec2::new(x as f32, y as f32);
                            glo = glo.min(t);
                            ghi = ghi.max(t + 1.0);
                            // The normal faces the camera (octahedral, +z
                            // inside the diamond), coverage as in colour.
                            let n = &atlas.normal[i..i + 4];
                            let cov = n[3] as f32 / 255.0;
                            let e =
                                glam::Vec2::new(n[0] as f32, n[1] as f32) / 255.0 / cov * 2.0 - 1.0;
                            facing.1 += 1;
                            if e.x.abs() + e.y.abs() <= 1.02 {
                                facing.0 += 1;
                            }
                        }
                    }
                }
                assert!(glo.x < ghi.x, "{what}: nothing captured");
                for (g, c) in [(glo.x, lo.x), (glo.y, lo.y), (ghi.x, hi.x), (ghi.y, hi.y)] {
                    worst = worst.max((g - c).abs());
                    assert!(
                        (g - c).abs() <= EDGE_TEXELS,
                        "{what}: captured box {glo}..{ghi}, CPU box {lo}..{hi}"
                    );
                }
                // The CPU's silhouette stays inside its cell.
                assert!(
                    lo.x >= x0 as f32 - 0.01
                        && lo.y >= y0 as f32 - 0.01
                        && hi.x <= (x0 + plan.cell) as f32 + 0.01
                        && hi.y <= (y0 + plan.cell) as f32 + 0.01,
                    "{what}: {lo}..{hi} outside the cell at ({x0}, {y0})"
                );
            }
        }
    }
    eprintln!(
        "{} cells: worst edge difference {worst:.2} texels; {} of {} covered texels face the camera",
        plan.cells(),
        facing.0,
        facing.1
    );
    assert!(
        facing.0 * 100 >= facing.1 * 95,
        "normals face the camera: {facing:?}"
    );
}
