//! The pose cache against per-vertex skinning, on the adapter the tests
//! run on (lavapipe; again on llvmpipe GL from `tools/test.sh`).
//!
//! * **Readback**: every cached pose of every LOD (Fox with two meshopt
//!   LODs, CesiumMan, RiggedFigure) equals the CPU mirror of the shader
//!   (`throng_core::baked`) at that frame within `GPU_TOLERANCE` × radius;
//!   blends of cached poses — halfway between frames and mid-cross-fade,
//!   the arithmetic of `pose_cache.wgsl` done on the read-back poses —
//!   equal the mirror's matrix blend within the same bound (linearity).
//!   Normals within the 16-bit octahedral code's precision at frames, and
//!   within `BETWEEN_FRAMES_NORMAL_TOLERANCE` blended.
//! * **Pictures**: with the cache on, the unbounded and GPU-driven paths
//!   draw what they draw with it off (shadows on, cross-fades, every LOD):
//!   at most `MAX_DIFFERING_PIXELS` pixels beyond the golden level
//!   tolerance.
//! * **Budget**: a budget too small for a model falls back to per-vertex
//!   skinning and counts it, never an error; one that fits only the coarse
//!   LODs caches those.

use throng_tests::golden as common;

use glam::{Mat4, Vec3};
use throng_bake::{BakeOptions, bake, import_file};
use throng_bench::demo::{GridOptions, framing_camera, grid_crowd};
use throng_core::baked::skin_vertex;
use throng_core::gpu::FrameBlend;
use throng_core::layout::FramePair;
use throng_core::math::Aabb;
use throng_crowd::crowd::{Crowd, ModelHandle, Spawn};
use throng_render::{
    FrameStats, Gpu, GpuModel, PathChoice, PoseCacheOptions, Renderer, RendererOptions,
};
use throng_tests::require_gpu;

/// Largest difference of a cached position from the CPU mirror, × the
/// bounding radius: f32 arithmetic in another order (as `gpu_readback`).
const GPU_TOLERANCE: f32 = 1e-5;

/// Largest difference of a cached normal at a baked frame from the mirror's
/// (unit vectors): the 2 × snorm16 octahedral code, ~1e-4 rad.
const NORMAL_CODE_TOLERANCE: f32 = 2e-4;

/// Largest difference of a blended cached normal (normalised) from the
/// normalised cofactor of the blended matrix: the cofactor is quadratic in
/// the matrix, so blending normals differs from it by the square of the
/// angle between the two poses' normals; adjacent baked frames (and the
/// bake's error bound) keep that angle small. Measured worst: see the
/// printout.
const BETWEEN_FRAMES_NORMAL_TOLERANCE: f32 = 0.02;

/// The same mid-cross-fade, whose two poses come from different clips and
/// so differ far more than adjacent frames.
const CROSS_FADE_NORMAL_TOLERANCE: f32 = 0.5;

/// Pixels allowed to differ beyond the golden level tolerance between the
/// cached and per-vertex pictures. 0 expected; a sub-ulp vertex shift can
/// flip an MSAA sample on a silhouette (docs/DESIGN.md, tolerances).
const MAX_DIFFERING_PIXELS: usize = 16;

const SIZE: (u32, u32) = (256, 256);

/// A bundled model baked with meshopt LODs at 0.5 and 0.2 (no impostor:
/// the cache serves mesh LODs only), switched at screen sizes that put a
/// framed grid of 25 on several LODs.
fn baked_with_lods(name: &str) -> ModelHandle {
    let imported = import_file(&common::asset(name)).expect("import");
    let options = BakeOptions {
        lod_ratios: vec![0.5, 0.2],
        lod_screen_sizes: Some(vec![0.25, 0.19, 0.0]),
        ..BakeOptions::default()
    };
    let (model, _) = bake(&imported.scene, &options, &|_, _| {}).expect("bake");
    ModelHandle::new(model).expect("validates")
}

#[test]
fn cached_poses_equal_the_cpu_mirror_at_and_between_frames() {
    let gpu = require_gpu("pose cache readback");
    let models = [
        ("khronos_Fox.glb", baked_with_lods("khronos_Fox.glb")),
        (
            "khronos_CesiumMan.gltf",
            common::baked("khronos_CesiumMan.gltf").1,
        ),
        (
            "khronos_RiggedFigure.glb",
            common::baked("khronos_RiggedFigure.glb").1,
        ),
    ];
    for (name, handle) in &models {
        let model = handle.model();
        let radius = model.bounding_radius;
        let gpu_model = GpuModel::upload(&gpu.device, &gpu.queue, handle).expect("upload");
        let mut renderer = Renderer::headless(
            &gpu,
            RendererOptions {
                path: PathChoice::Unbounded,
                ..RendererOptions::default()
            },
        )
        .expect("renderer");
        // One empty frame makes the renderer meet (and cache) the model.
        let camera = framing_camera(&model.bounds, 1.0);
        let stats = renderer
            .render_image(&gpu, (8, 8), &camera, &[&Crowd::new()], &[&gpu_model])
            .expect("frame")
            .1;
        let frames = model.frame_count() as usize;
        let lod_count = model.lods.len();
        assert_eq!(
            stats.cached_poses,
            (frames * lod_count) as u64,
            "{name}: every frame of every LOD cached"
        );
        let mut worst = [0f32; 6]; // (position, normal) at frames, between frames, mid-cross-fade
        let mut failures = Vec::new();
        for lod in 0..lod_count {
            let cached = renderer
                .pose_cache()
                .read(&gpu.device, &gpu.queue, &gpu_model, lod)
                .expect("readback")
                .unwrap_or_else(|| panic!("{name} LOD {lod} is not cached"));
            let vertices = &model.lods[lod].vertices;
            let n = vertices.len();
            assert_eq!(
                cached.len(),
                frames * n,
                "{name} LOD {lod}: poses × vertices"
            );
            let pose = |f: usize, v: usize| cached[f * n + v];
            let mut check = |what: &str,
                             blend: &FrameBlend,
                             got: &dyn Fn(usize) -> (Vec3, Vec3),
                             kind: usize| {
                for (v, vertex) in vertices.iter().enumerate() {
                    let (p, nrm) = skin_vertex(model, vertex, blend);
                    let (gp, gn) = got(v);
                    let dp = (p - gp).length() / radius;
                    let dn = (nrm - gn.normalize_or_zero()).length();
                    let k = 2 * kind;
                    worst[k] = worst[k].max(dp);
                    worst[k + 1] = worst[k + 1].max(dn);
                    let normal_tol = [
                        NORMAL_CODE_TOLERANCE,
                        BETWEEN_FRAMES_NORMAL_TOLERANCE,
                        CROSS_FADE_NORMAL_TOLERANCE,
                    ][kind];
                    if (dp > GPU_TOLERANCE || dn > normal_tol) && failures.len() < 10 {
                        failures.push(format!(
                            "{name} LOD {lod} {what} vertex {v}: position {dp:.3e} × radius (mirror {p}, cache {gp}), normal {dn:.3e}"
                        ));
                    }
                }
            };
            for f in 0..frames {
                let pair = FramePair {
                    frame0: f as u32,
                    frame1: f as u32,
                    t: 0.0,
                };
                check(
                    &format!("frame {f}"),
                    &FrameBlend::single(pair),
                    &|v| pose(f, v),
                    0,
                );
            }
            let lerp = |a: (Vec3, Vec3), b: (Vec3, Vec3), t: f32| {
                (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t)
            };
            for clip in &model.clips {
                let (first, count) = (clip.first_frame as usize, clip.frame_count as usize);
                for k in [0, count / 3, count.saturating_sub(2)] {
                    if k + 1 >= count {
                        continue;
                    }
                    let (f0, f1) = (first + k, first + k + 1);
                    let pair = FramePair {
                        frame0: f0 as u32,
                        frame1: f1 as u32,
                        t: 0.37,
                    };
                    check(
                        &format!("{:?} between frames {k} and {}", clip.name, k + 1),
                        &FrameBlend::single(pair),
                        &|v| lerp(pose(f0, v), pose(f1, v), 0.37),
                        1,
                    );
                }
            }
            // Mid-cross-fade: the first clip's frames into the last clip's.
            let (a, b) = (&model.clips[0], model.clips.last().expect("a clip"));
            let (pa0, pb0) = (
                a.first_frame as usize + a.frame_count as usize / 2,
                b.first_frame as usize,
            );
            let (pa1, pb1) = ((pa0 + 1).min(frames - 1), (pb0 + 1).min(frames - 1));
            let blend = FrameBlend {
                current: FramePair {
                    frame0: pb0 as u32,
                    frame1: pb1 as u32,
                    t: 0.25,
                },
                previous: FramePair {
                    frame0: pa0 as u32,
                    frame1: pa1 as u32,
                    t: 0.6,
                },
                fade: 0.4,
            };
            check(
                "mid-cross-fade",
                &blend,
                &|v| {
                    let previous = lerp(pose(pa0, v), pose(pa1, v), 0.6);
                    let current = lerp(pose(pb0, v), pose(pb1, v), 0.25);
                    lerp(previous, current, 0.4)
                },
                2,
            );
        }
        println!(
            "{name}: {lod_count} LODs × {frames} poses on {}; worst (position × radius, normal): at frames {:.2e}, {:.2e}; between frames {:.2e}, {:.2e}; mid-cross-fade {:.2e}, {:.2e}",
            gpu.adapter_summary(),
            worst[0],
            worst[1],
            worst[2],
            worst[3],
            worst[4],
            worst[5]
        );
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

/// The crowds the pictures compare: a grid of Foxes on three LODs, and
/// Foxes mid-cross-fade from Walk to Run.
fn scenes() -> Vec<(&'static str, ModelHandle, Crowd, Aabb)> {
    let fox = baked_with_lods("khronos_Fox.glb");
    let fox_fading = fox.clone();
    let (grid, _, grid_bounds) = grid_crowd(
        &fox,
        &GridOptions {
            count: 25,
            ..GridOptions::default()
        },
    )
    .expect("grid");

    let mut fading = Crowd::new();
    let id = fading.add_model(&fox);
    let walk = fading.clip_index(id, "Walk").expect("Walk");
    let run = fading.clip_index(id, "Run").expect("Run");
    let b = fox.model().bounds;
    let step = (b.max.x - b.min.x) * 1.1;
    let mut bounds = Aabb::EMPTY;
    for i in 0..3 {
        let transform = Mat4::from_translation(Vec3::new((i as f32 - 1.0) * step, 0.0, 0.0));
        let instance = fading
            .spawn(
                id,
                Spawn {
                    transform,
                    clip: Some(walk),
                    time: 0.1 + 0.2 * i as f32,
                    ..Spawn::default()
                },
            )
            .expect("spawn");
        fading.cross_fade(instance, run, 1.0).expect("fade");
        bounds = bounds.union(&b.transformed(&transform));
    }
    fading.update(0.45);
    vec![
        ("Fox grid on three LODs", fox, grid, grid_bounds),
        ("Foxes mid-cross-fade", fox_fading, fading, bounds),
    ]
}

fn render(
    gpu: &Gpu,
    path: PathChoice,
    pose_cache: Option<PoseCacheOptions>,
    handle: &ModelHandle,
    crowd: &Crowd,
    bounds: &Aabb,
) -> (image::RgbaImage, FrameStats, Vec<u32>) {
    let options = RendererOptions {
        path,
        sample_count: 4,
        pose_cache,
        ..RendererOptions::default()
    };
    let mut renderer = Renderer::headless(gpu, options).expect("renderer");
    let model = GpuModel::upload(&gpu.device, &gpu.queue, handle).expect("upload");
    let camera = framing_camera(bounds, SIZE.0 as f32 / SIZE.1 as f32);
    let (image, stats) = renderer
        .render_image(gpu, SIZE, &camera, &[crowd], &[&model])
        .expect("frame");
    let mut lods: Vec<u32> = renderer
        .draw_lists()
        .iter()
        .flat_map(|l| l.groups.iter().map(|g| g.lod))
        .collect();
    lods.sort();
    lods.dedup();
    (image, stats, lods)
}

#[test]
fn cached_pictures_equal_per_vertex_skinning() {
    let gpu = require_gpu("pose cache pictures");
    for (label, handle, crowd, bounds) in scenes() {
        for path in [PathChoice::Unbounded, PathChoice::GpuDriven] {
            let what = format!("{label}, {}", path.name());
            let (skinned, off, lods) = render(&gpu, path, None, &handle, &crowd, &bounds);
            let (cached, on, _) = render(
                &gpu,
                path,
                Some(PoseCacheOptions::default()),
                &handle,
                &crowd,
                &bounds,
            );
            assert_eq!(
                (off.cached_poses, off.pose_cache_bytes),
                (0, 0),
                "{what}: cache off"
            );
            assert!(
                on.cached_poses > 0 && on.pose_cache_bytes > 0,
                "{what}: {on:?}"
            );
            assert_eq!(on.pose_fallback_draws, 0, "{what}: everything fits");
            if path == PathChoice::Unbounded && label.starts_with("Fox grid") {
                assert_eq!(lods, [0, 1, 2], "{what}: the grid shows every LOD");
            }
            let d = common::diff(&skinned, &cached);
            println!(
                "{what}: LODs {lods:?}, {} poses ({} KiB), fill {:.1} ms; {} pixels beyond {} levels (worst {} levels)",
                on.cached_poses,
                on.pose_cache_bytes >> 10,
                on.pose_fill_ms,
                d.differing,
                common::PIXEL_LEVEL_TOLERANCE,
                d.worst.2
            );
            assert!(
                d.differing <= MAX_DIFFERING_PIXELS,
                "{what}: {} pixels differ by more than {} levels (worst {} levels)",
                d.differing,
                common::PIXEL_LEVEL_TOLERANCE,
                d.worst.2
            );
        }
    }
}

#[test]
fn a_small_budget_falls_back_and_counts_it() {
    let gpu = require_gpu("pose cache budget");
    let (label, handle, crowd, bounds) = scenes().swap_remove(0);
    let model = handle.model();
    let bytes = |lod: usize| {
        throng_core::pose_cache::lod_bytes(
            model.lods[lod].vertices.len() as u32,
            model.frame_count(),
        )
        .expect("fits u64")
    };
    // Budgets of 256 MiB (everything), 1 byte and the two coarsest LODs.
    let with_budget = |budget| {
        render(
            &gpu,
            PathChoice::Unbounded,
            Some(PoseCacheOptions { budget }),
            &handle,
            &crowd,
            &bounds,
        )
    };
    let (full, all, _) = with_budget(PoseCacheOptions::DEFAULT_BUDGET);
    assert_eq!(
        all.pose_cache_bytes,
        (0..model.lods.len()).map(bytes).sum::<u64>(),
        "{label}"
    );

    // Room for nothing: per-vertex skinning everywhere, counted.
    let (none, tiny, _) = with_budget(1);
    assert_eq!(
        (tiny.cached_poses, tiny.pose_cache_bytes),
        (0, 0),
        "{label}"
    );
    assert_eq!(
        tiny.pose_fallback_draws,
        tiny.draws + tiny.shadow_draws,
        "{label}: {tiny:?}"
    );

    // Room for the two coarsest LODs: they are cached, LOD 0 falls back.
    let coarse = bytes(1) + bytes(2);
    let (part, some, _) = with_budget(coarse);
    assert_eq!(some.pose_cache_bytes, coarse, "{label}: {some:?}");
    assert!(
        some.pose_fallback_draws > 0 && some.pose_fallback_draws < some.draws + some.shadow_draws,
        "{label}: only LOD 0's draws fall back: {some:?}"
    );
    for (what, image) in [("no room", &none), ("coarse LODs", &part)] {
        let d = common::diff(&full, image);
        assert!(
            d.differing <= MAX_DIFFERING_PIXELS,
            "{label}, {what}: {} pixels differ from the fully cached picture",
            d.differing
        );
    }
}
