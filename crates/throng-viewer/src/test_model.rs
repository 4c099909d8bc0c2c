//! The bundled Fox, baked for the viewer's unit tests.

use throng_crowd::crowd::ModelHandle;

/// The bundled Fox, baked with the default options.
pub(crate) fn fox() -> ModelHandle {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/khronos_Fox.glb");
    let (model, _) =
        throng_bake::bake_file(&path, &throng_bake::BakeOptions::default(), &|_, _| {})
            .expect("the bundled Fox bakes");
    ModelHandle::new(model).expect("valid")
}
