//! The bake the page runs ([`throng_web::bake`]), natively: a `.glb`'s
//! bytes baked into a `.throng` file equal to the native bake of the same
//! file with the same options (the browser test compares the wasm build's
//! frames with the native bake's through `throng sample`); what is not
//! glTF, and a truncated file, refused by name.

use throng_web::bake::{bake_gltf, is_gltf};

#[test]
fn the_web_bake_of_the_fox_is_the_native_bake() {
    let path = throng_tests::asset("khronos_Fox.glb");
    let bytes = std::fs::read(&path).unwrap();
    assert!(is_gltf(&bytes));
    let heard = std::sync::atomic::AtomicU64::new(0);
    let baked = bake_gltf(&bytes, "fox.glb", &|done, total| {
        assert!(done <= total);
        heard.store(done, std::sync::atomic::Ordering::Relaxed);
    })
    .unwrap();
    assert!(heard.into_inner() > 0, "no progress reported");
    let web = throng_core::format::read_model(&baked.throng).unwrap();
    let (native, _) =
        throng_bake::bake_file(&path, &throng_bake::BakeOptions::default(), &|_, _| {}).unwrap();
    assert_eq!(web.source, "fox.glb");
    assert_eq!(web.clips, native.clips);
    assert!(web.texture == native.texture, "the bone textures differ");
    assert!(web.lods == native.lods, "the meshes differ");
}

#[test]
fn what_is_not_gltf_is_refused_by_name() {
    assert!(is_gltf(b"  {\"asset\":{}}") && !is_gltf(b"THRONG\0\0") && !is_gltf(b""));
    let e = format!(
        "{:#}",
        bake_gltf(b"THRONG..", "a.throng", &|_, _| {})
            .err()
            .unwrap()
    );
    assert!(e.contains("a.throng is not glTF"), "{e}");
    let glb = std::fs::read(throng_tests::asset("khronos_Fox.glb")).unwrap();
    let e = format!(
        "{:#}",
        bake_gltf(&glb[..5000], "cut.glb", &|_, _| {})
            .err()
            .unwrap()
    );
    assert!(e.contains("cut.glb"), "{e}");
}
