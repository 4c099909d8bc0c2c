//! Compressed glTF draws the pictures of its source (docs/GLTF.md): the
//! Fox run through gltfpack (quantized and meshopt-compressed, its texture
//! coordinates dequantized by `KHR_texture_transform`) and through
//! gltf-transform's lossless WebP (`EXT_texture_webp`) and through the
//! Basis Universal encoder's UASTC KTX2 (`KHR_texture_basisu`), each baked and
//! drawn at three clip times beside the bundled Fox, within the golden
//! tolerance (`PIXEL_LEVEL_TOLERANCE` levels, `MAX_DIFFERING_FRACTION` of
//! the pixels). Lossless WebP decodes to the source's texels exactly, so
//! its pictures may differ only where the bake's texture codec is not
//! deterministic (it is: they match to the level); UASTC is within a
//! hundredth of a level of the source's texels on average
//! (`ktx2_textures` in the integration tests), tens of levels at a few
//! block edges, under a pixel's share here; gltfpack's 14-bit
//! positions move silhouettes by under a thousandth of the radius, a
//! fraction of a pixel here.

use glam::Vec3;
use throng_bake::{BakeOptions, bake_file};
use throng_crowd::crowd::{Crowd, ModelHandle, Spawn};
use throng_render::{Gpu, GpuModel, Renderer, RendererOptions};
use throng_tests::golden::assert_images_match;
use throng_tests::require_gpu;
use throng_tests::{asset, repo_root};

use super::support::camera_on_bounds;

const SIZE: (u32, u32) = (192, 144);

fn baked(path: &std::path::Path) -> ModelHandle {
    let (model, _) = bake_file(path, &BakeOptions::default(), &|_, _| {})
        .unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
    ModelHandle::new(model).unwrap()
}

/// `fox` playing its Walk at `time`, seen from the front and above.
fn picture(gpu: &Gpu, fox: &ModelHandle, time: f32) -> image::RgbaImage {
    let model = GpuModel::upload(&gpu.device, &gpu.queue, fox).unwrap();
    let camera = camera_on_bounds(
        &fox.model().bounds,
        Vec3::new(0.6, 0.5, 1.0),
        2.2,
        1.0,
        SIZE,
    );
    let mut crowd = Crowd::new();
    let m = crowd.add_model(fox);
    let walk = fox.model().clips.iter().position(|c| c.name == "Walk");
    crowd
        .spawn(
            m,
            Spawn {
                clip: walk,
                time,
                ..Spawn::default()
            },
        )
        .unwrap();
    let mut renderer = Renderer::headless(gpu, RendererOptions::default()).unwrap();
    renderer
        .render_image(gpu, SIZE, &camera, &[&crowd], &[&model])
        .unwrap()
        .0
}

#[test]
fn compressed_foxes_draw_the_bundled_foxs_pictures() {
    let gpu = require_gpu("compressed models");
    let source = baked(&asset("khronos_Fox.glb"));
    let dir = std::env::temp_dir().join("throng-compressed-models");
    for name in ["fox_c.glb", "fox_webp.glb", "fox_uastc.glb"] {
        let fox = baked(&repo_root().join("tests/data/compressed").join(name));
        for time in [0.0, 0.23, 0.51] {
            let expected = picture(&gpu, &source, time);
            let actual = picture(&gpu, &fox, time);
            assert_images_match(&format!("{name}_{time}"), &expected, &actual, &dir);
        }
    }
}
