//! The packaged (downlevel) path: 450 instances of one model and submesh
//! make three packages (`PACKAGE_WIDTH`, `PACKAGE_WIDTH` and the rest) and
//! three draws on the packaged path, and the picture equals the unbounded
//! path's.

use throng_tests::golden as common;

use throng_bench::demo::{GridOptions, framing_camera, grid_crowd};
use throng_core::limits::PACKAGE_WIDTH;
use throng_render::supports_unbounded;
use throng_render::{
    GpuModel, Lighting, PathChoice, RecordPath, Renderer, RendererOptions, Shading,
};
use throng_tests::require_gpu;

const SIZE: (u32, u32) = (160, 160);

/// More than two packages, less than three.
const COUNT: u32 = 450;
const _: () = assert!(COUNT > 2 * PACKAGE_WIDTH && COUNT < 3 * PACKAGE_WIDTH);

#[test]
fn four_hundred_fifty_instances_make_three_packages_and_the_same_picture() {
    let gpu = require_gpu("packages");
    let (_, handle) = common::baked("khronos_Fox.glb");
    assert_eq!(
        handle.model().lods[0].submeshes.len(),
        1,
        "the test needs one submesh"
    );
    let (crowd, _, bounds) = grid_crowd(
        &handle,
        &GridOptions {
            count: COUNT,
            ..GridOptions::default()
        },
    )
    .unwrap();
    let camera = framing_camera(&bounds, 1.0);
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &handle).unwrap();

    let draw = |path: PathChoice| {
        // Lambert shading: this compares record paths, and PBR's specular
        // turns a last-bit difference in a vertex position (each path's
        // vertex stage is its own pipeline, whose float contractions the
        // driver's compiler may choose apart) into a level of colour.
        let options = RendererOptions {
            path,
            sample_count: 1,
            lighting: Lighting {
                shading: Shading::Lambert,
                ..Lighting::default()
            },
            ..RendererOptions::default()
        };
        let mut renderer = Renderer::headless(&gpu, options).unwrap();
        let (image, stats) = renderer
            .render_image(&gpu, SIZE, &camera, &[&crowd], &[&model])
            .unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let packages: Vec<u32> = renderer.draw_lists()[0]
            .groups
            .iter()
            .flat_map(|g| g.packages(PACKAGE_WIDTH).map(|p| p.1))
            .collect();
        (renderer.path(), stats, packages, image)
    };

    let (path, stats, packages, packaged) = draw(PathChoice::Packaged);
    assert_eq!(path, RecordPath::Packaged);
    assert_eq!(stats.visible, COUNT, "all instances in view");
    assert_eq!(
        packages,
        vec![PACKAGE_WIDTH, PACKAGE_WIDTH, COUNT - 2 * PACKAGE_WIDTH]
    );
    assert_eq!(stats.packages, 3);
    assert_eq!(stats.draws, 3, "one draw per package");
    assert_eq!(
        stats.triangles,
        COUNT as u64 * handle.model().lods[0].indices.len() as u64 / 3
    );

    if !supports_unbounded(&gpu.adapter, &gpu.device) {
        eprintln!(
            "unbounded path unsupported on {}; compared packaged only",
            gpu.adapter_summary()
        );
        return;
    }
    let (path, stats, _, unbounded) = draw(PathChoice::Unbounded);
    assert_eq!(path, RecordPath::Unbounded);
    assert_eq!(
        (stats.packages, stats.draws),
        (1, 1),
        "one draw for the whole group"
    );
    let d = common::diff(&packaged, &unbounded);
    println!(
        "packaged vs unbounded on {}: {} pixels differ by more than {} levels, worst {}",
        gpu.adapter_summary(),
        d.differing,
        common::PIXEL_LEVEL_TOLERANCE,
        d.worst.2
    );
    // Same records, same shader arithmetic: the pictures must be identical.
    assert_eq!(
        d.worst.2, 0,
        "packaged and unbounded pictures differ: worst pixel {:?}",
        d.worst
    );
}
