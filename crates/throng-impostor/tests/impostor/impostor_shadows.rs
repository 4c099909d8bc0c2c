//! Impostors cast shadows: the texels of the light's map that a crowd of
//! impostors covers against those the same crowd of meshes covers
//! ([`SHADOW_BOUND`]), on every record path. Vulkan only: GL cannot copy a
//! depth texture to a buffer (tools/test.sh).

use crate::common::{fox, grid, paths, variant};
use glam::Vec3;
use throng_crowd::camera::Camera;
use throng_render::{GpuModel, Renderer, RendererOptions};
use throng_tests::require_gpu;

/// Most texels of the shadow map covered by exactly one of the two casts
/// (impostors facing the light, cut out by the nearest view's coverage at
/// the nearer capture, against the meshes), over those the meshes cover: a
/// coarse shadow, and coarser than the colour's silhouette (one view, one
/// capture). Measured 0.167 on lavapipe.
const SHADOW_BOUND: f64 = 0.25;

#[test]
fn impostors_cast_the_meshes_shadows_roughly() {
    let gpu = require_gpu("impostor shadows");
    let model = fox(&gpu);
    let mesh = variant(model, None);
    let imp = variant(model, Some(1.0));
    let (mesh_crowd, imp_crowd) = (grid(&mesh, 4, 2.5), grid(&imp, 4, 2.5));
    let r = model.bounding_radius;
    let camera = Camera::look_at(
        Vec3::new(0.0, 0.5, 0.866) * r * 25.0,
        Vec3::ZERO,
        Vec3::Y,
        0.6,
        1.0,
        r,
        r * 100.0,
    );
    let mut failures = Vec::new();
    for path in paths(&gpu) {
        let mut covered = Vec::new();
        for (handle, crowd) in [(&mesh, &mesh_crowd), (&imp, &imp_crowd)] {
            let mut renderer = Renderer::headless(
                &gpu,
                RendererOptions {
                    path,
                    ..RendererOptions::default()
                },
            )
            .unwrap();
            let gm = GpuModel::upload(&gpu.device, &gpu.queue, handle).unwrap();
            let (_, stats) = renderer
                .render_image(&gpu, (128, 128), &camera, &[crowd], &[&gm])
                .unwrap();
            assert_eq!(stats.shadow_casters, 16, "{path:?}: {stats:?}");
            let (map, _) = renderer.shadow_map().expect("shadows are on by default");
            let depth = throng_render::offscreen::read_depth(&gpu.device, &gpu.queue, map).unwrap();
            covered.push(depth.iter().map(|&d| d < 1.0).collect::<Vec<bool>>());
        }
        let mesh_texels = covered[0].iter().filter(|&&c| c).count();
        let only = covered[0]
            .iter()
            .zip(&covered[1])
            .filter(|(a, b)| a != b)
            .count();
        let mismatch = only as f64 / mesh_texels.max(1) as f64;
        println!(
            "{}: meshes cover {mesh_texels} shadow-map texels, impostors {}; mismatch {mismatch:.3} (bound {SHADOW_BOUND})",
            path.name(),
            covered[1].iter().filter(|&&c| c).count()
        );
        assert!(
            mesh_texels > 500,
            "{path:?}: the meshes cast only {mesh_texels} texels"
        );
        if mismatch > SHADOW_BOUND {
            failures.push(format!("{}: {mismatch:.3}", path.name()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("; "));
}
