//! Hidden parts culled on the GPU-driven path (`throng_crowd`'s look
//! classes), on the adapter the tests run on (lavapipe; again on llvmpipe
//! GL from `tools/test.sh`): an instance whose hidden mask is one of its model's look
//! classes is drawn without the submeshes it hides — their vertices never
//! shaded — where the other paths draw them and move them out of view.
//!
//! The model is the Fox's finest LOD cut into parts (each a run of its
//! triangles, drawn from a glTF primitive of its own, so each its own bit
//! of `Look::hidden`): an outfit per part. On the GPU-driven path:
//!
//! * the picture equals the packaged path's (which hides by moving
//!   vertices), within the golden tolerances;
//! * the frame's vertices are exactly the parts each instance shows, and
//!   `parts_culled` the parts it hides — where without look classes every
//!   part of every instance would be shaded;
//! * with `RendererOptions::cull_hidden_parts` off, every part of every
//!   instance is drawn (the same picture, all the vertices);
//! * with more distinct masks than `MAX_LOOK_CLASSES`, the first masks
//!   worn get classes, the rest are drawn whole with their parts moved out
//!   of view, and the picture still equals the packaged path's.

use throng_bench::demo::{GridOptions, framing_camera, grid_crowd};
use throng_core::BakedModel;
use throng_core::limits::MAX_LOOK_CLASSES;
use throng_core::math::Aabb;
use throng_core::variety::Look;
use throng_crowd::crowd::{Crowd, ModelHandle, ModelId};
use throng_render::{FrameStats, GpuModel, PathChoice, RendererOptions};
use throng_tests::golden::{self as common, assert_images_match};
use throng_tests::require_gpu;
use throng_tests::scenes;

const SIZE: (u32, u32) = (256, 160);

/// The Fox's finest LOD alone, its one submesh cut into `n` runs of
/// triangles, each drawn from a primitive of its own.
fn outfits(fox: &ModelHandle, n: u32) -> ModelHandle {
    let mut m: BakedModel = fox.model().clone();
    m.name = format!("Fox in {n} parts");
    m.lods.truncate(1);
    m.impostor = None;
    let lod = &mut m.lods[0];
    let whole = lod.submeshes[0].clone();
    let triangles = whole.index_count / 3;
    lod.submeshes = (0..n)
        .map(|i| {
            let first = triangles * i / n;
            let end = triangles * (i + 1) / n;
            let first_index = whole.first_index + 3 * first;
            let index_count = 3 * (end - first);
            let used = &lod.indices[first_index as usize..(first_index + index_count) as usize];
            throng_core::model::Submesh {
                first_index,
                index_count,
                vertex_count: used.iter().max().map_or(0, |&v| v + 1),
                source_primitive: whole.source_primitive + i,
                ..whole.clone()
            }
        })
        .collect();
    ModelHandle::new(m).expect("validates")
}

/// A grid of `count` of `model`, instance `i` wearing `looks(i)`.
fn dressed_grid(
    model: &ModelHandle,
    count: u32,
    looks: impl Fn(usize) -> u32,
) -> (Crowd, ModelId, Aabb) {
    let opts = GridOptions {
        count,
        tints: false,
        ..GridOptions::default()
    };
    let (mut crowd, id, bounds) = grid_crowd(model, &opts).expect("grid");
    let ids: Vec<_> = crowd.dense_ids().collect();
    for (i, instance) in ids.into_iter().enumerate() {
        let look = Look {
            variant: 0,
            hidden: looks(i),
        };
        crowd.set_look(instance, look).expect("look");
    }
    crowd.update(0.0);
    (crowd, id, bounds)
}

/// The picture and statistics of `crowd` on `path`, hidden parts culled
/// or not.
fn draw(
    gpu: &throng_render::Gpu,
    (path, cull_hidden_parts): (PathChoice, bool),
    crowd: &Crowd,
    model: &GpuModel,
    bounds: &Aabb,
) -> (image::RgbaImage, FrameStats) {
    let options = RendererOptions {
        path,
        cull_hidden_parts,
        ..RendererOptions::default()
    };
    let mut renderer = scenes::renderer(gpu, options);
    let camera = framing_camera(bounds, SIZE.0 as f32 / SIZE.1 as f32);
    scenes::draw(&mut renderer, gpu, SIZE, &camera, &[crowd], &[model])
}

/// The vertices shaded and the parts culled if each instance of `crowd`
/// in a look class is drawn with the parts it shows and every other with
/// all of them.
fn expected(model: &ModelHandle, id: ModelId, crowd: &Crowd) -> (u64, u64) {
    let subs = &model.model().lods[0].submeshes;
    let classes = crowd.look_classes(id);
    let (mut vertices, mut culled) = (0u64, 0u64);
    for id in crowd.dense_ids() {
        let hidden = crowd.look(id).unwrap().hidden;
        let classed = classes.contains(&hidden);
        for (i, s) in subs.iter().enumerate() {
            if classed && hidden & (1 << i) != 0 {
                culled += 1;
            } else {
                vertices += s.vertex_count as u64;
            }
        }
    }
    (vertices, culled)
}

fn check(what: &str, n: u32, looks: impl Fn(usize) -> u32, count: u32) {
    let gpu = require_gpu("hidden parts");
    let (_, fox) = common::baked("khronos_Fox.glb");
    let model = outfits(&fox, n);
    let (crowd, id, bounds) = dressed_grid(&model, count, looks);
    let gpu_model = scenes::upload(&gpu, &[&model]).remove(0);
    let packaged = (PathChoice::Packaged, true);
    let (packaged, _) = draw(&gpu, packaged, &crowd, &gpu_model, &bounds);
    let driven = (PathChoice::GpuDriven, true);
    let (driven, stats) = draw(&gpu, driven, &crowd, &gpu_model, &bounds);
    let shaded = (PathChoice::GpuDriven, false);
    let (shaded, shaded_stats) = draw(&gpu, shaded, &crowd, &gpu_model, &bounds);
    let dir = std::env::temp_dir().join("throng-hidden-parts");
    assert_images_match(&format!("{what}-gpu-driven"), &packaged, &driven, &dir);
    assert_images_match(&format!("{what}-shaded"), &packaged, &shaded, &dir);
    let (vertices, culled) = expected(&model, id, &crowd);
    let all: u64 = count as u64
        * model.model().lods[0]
            .submeshes
            .iter()
            .map(|s| s.vertex_count as u64)
            .sum::<u64>();
    println!(
        "{what}: {count} instances, {} look classes: {} vertices shaded ({all} with every part), {} parts culled",
        crowd.look_classes(id).len(),
        stats.vertices,
        stats.parts_culled
    );
    assert_eq!(stats.visible, count, "{what}: every instance in view");
    assert_eq!(
        (stats.vertices, stats.parts_culled),
        (vertices, culled),
        "{what}: vertices shaded and parts culled"
    );
    assert!(stats.vertices < all, "{what}: hidden parts were shaded");
    assert_eq!(
        (shaded_stats.vertices, shaded_stats.parts_culled),
        (all, 0),
        "{what}: with cull_hidden_parts off, every part is drawn"
    );
}

#[test]
fn each_instance_shades_only_the_outfit_it_wears() {
    // Eight outfits; instance i wears outfit i % 8 (hides the seven others).
    let all = (1u32 << 8) - 1;
    check("one-outfit", 8, |i| all & !(1 << (i % 8)), 24);
}

#[test]
fn masks_past_the_classes_are_drawn_whole_and_hidden_in_the_vertex_stage() {
    // Five parts, 32 masks: 31 that hide something, more than the classes.
    const { assert!(31 > MAX_LOOK_CLASSES) };
    check("many-masks", 5, |i| (i as u32 % 32) ^ 0b10101, 40);
}
