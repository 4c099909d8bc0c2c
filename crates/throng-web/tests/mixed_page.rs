//! The page's mixed crowd, natively (the scene the page builds in the
//! browser): `?model=` repeated loads models that share the first one's
//! clips — refusing, with both URLs, models that do not — and
//! `?outfits=1` wears them as outfits; the scene drawn on the GPU-driven
//! path binds one bone texture for the two bodies and leaves the hidden
//! outfits out of the draws, as its statistics line reports.

use throng_core::format::{write_frames, write_model, write_model_referring};
use throng_web::query::PageQuery;
use throng_web::scene::{ModelFile, build, load_model, load_models, view_options};
use throng_web::view::View;

fn file(name: &str) -> ModelFile {
    let (_, handle) = throng_tests::golden::baked(name);
    ModelFile {
        url: name.to_owned(),
        bytes: write_model(handle.model()).unwrap(),
        frames: None,
    }
}

/// A body baked with `--shared-clips` is fetched with the frames file
/// beside it; without it, the error names that file.
#[test]
fn a_body_referring_to_a_frames_file_loads_with_it() {
    let (_, handle) = throng_tests::golden::baked("khronos_Fox.glb");
    let name = "frames-0123.throng-frames";
    let mut body = ModelFile {
        url: "https://example.com/bodies/fox.throng?v=2".to_owned(),
        bytes: write_model_referring(handle.model(), name).unwrap(),
        frames: None,
    };
    assert_eq!(
        ModelFile::beside(&body.url, name),
        "https://example.com/bodies/frames-0123.throng-frames"
    );
    assert_eq!(ModelFile::beside("fox.throng", name), name);
    let err = match load_model(&body) {
        Ok(_) => panic!("a body without its frames file loaded"),
        Err(e) => format!("{e:#}"),
    };
    assert!(err.contains(name) && err.contains("fox.throng"), "{err}");
    body.frames = Some(write_frames(&handle.model().texture));
    let loaded = load_model(&body).unwrap();
    assert!(
        loaded.model().texture == handle.model().texture,
        "the frames come from the frames file"
    );
}

#[test]
fn a_mixed_page_shares_frames_and_culls_hidden_outfits() {
    let query = PageQuery::parse("model=a&model=b&outfits=1&instances=40&time=0.5&walk=0").unwrap();
    let fox = file("khronos_Fox.glb");
    let man = file("khronos_CesiumMan.gltf");
    let err = load_models(&[fox.clone(), man], &query)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("khronos_CesiumMan.gltf") && err.contains("khronos_Fox.glb"),
        "{err}"
    );
    let handles = load_models(&[fox.clone(), fox], &query).unwrap();
    assert_eq!(handles.len(), 2);
    assert!(
        handles
            .iter()
            .all(|(_, h)| h.model().lods[0].submeshes.len() == 8)
    );

    let gpu = throng_tests::require_gpu("mixed page");
    let app = throng_examples::AppGpu {
        adapter: &gpu.adapter,
        device: &gpu.device,
        queue: &gpu.queue,
    };
    let format = throng_render::OFFSCREEN_FORMAT;
    let mut view = View::new(app, format, view_options(&query)).unwrap();
    build(app, &mut view, &handles, &query).unwrap();
    assert_eq!(view.scene.models().len(), 2);
    let target = throng_render::Offscreen::new(&gpu.device, (256, 160)).unwrap();
    let mut stats = Default::default();
    for _ in 0..3 {
        stats = view
            .render(&gpu.device, &gpu.queue, &target.view, (256, 160))
            .unwrap();
    }
    let scene = &mut view.scene;
    scene.renderer.wait_gpu_stats(&mut stats).unwrap();
    println!(
        "{} path: {} visible, bone textures {} KiB ({} KiB shared), {} parts culled",
        scene.renderer.path(),
        stats.visible,
        stats.bone_bytes >> 10,
        stats.shared_bone_bytes >> 10,
        stats.parts_culled
    );
    assert!(stats.bone_bytes > 0);
    assert_eq!(
        stats.shared_bone_bytes, stats.bone_bytes,
        "two bodies, one texture"
    );
    if scene.renderer.path() == throng_render::RecordPath::GpuDriven {
        assert!(stats.visible > 0);
        assert_eq!(stats.parts_culled, 7 * stats.visible as u64);
    }
}
