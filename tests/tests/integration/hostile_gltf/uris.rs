//! Buffer and image URIs that leave the model's folder (`..`, encoded `..`,
//! absolute paths, `file:` URIs, symbolic links) are refused unless
//! `allow_outside_uris` is set; URIs inside the folder are read.

use std::path::Path;

use throng_tests::assert_mentions;

use super::{
    base, folders, import_guarded, options, refused, with_buffer_uri, with_image_uri, write_model,
};

/// URIs that leave the folder, each naming `outer/secret.bin` (the real
/// buffer, so a read would succeed) or `outer/secret.png`; `None` where the
/// platform cannot make the case.
fn escaping_uris(outer: &Path, model: &Path, name: &str) -> Vec<(String, String)> {
    let secret = outer.join(name);
    let mut uris = vec![
        ("dot-dot".to_owned(), format!("../{name}")),
        ("nested dot-dot".to_owned(), format!("sub/../../{name}")),
        ("encoded dot-dot".to_owned(), format!("%2e%2e%2f{name}")),
        ("absolute".to_owned(), secret.display().to_string()),
        (
            "file URI".to_owned(),
            format!("file://{}", secret.display()),
        ),
    ];
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&secret, model.join(format!("link-{name}"))).unwrap();
        uris.push(("symlink".to_owned(), format!("link-{name}")));
    }
    #[cfg(not(unix))]
    let _ = model;
    uris
}

#[test]
fn buffer_uris_outside_the_model_folder_are_refused_unless_allowed() {
    let (outer, model) = folders("buffer_escape");
    std::fs::create_dir(model.join("sub")).unwrap();
    std::fs::write(outer.join("secret.bin"), base().bin()).unwrap();
    for (case, uri) in escaping_uris(&outer, &model, "secret.bin") {
        let path = write_model(&model, &with_buffer_uri(&uri));
        let msg = refused(&case, &path, options(false));
        assert_mentions(&case, &msg, &["buffers[0].uri", &uri, "model's folder"]);
        // The opt-in reads the same file.
        let imported =
            import_guarded(&path, options(true)).unwrap_or_else(|e| panic!("{case}, allowed: {e}"));
        assert_eq!(imported.scene.meshes.len(), 1, "{case}");
    }
}

#[test]
fn buffer_uris_inside_the_model_folder_are_read() {
    let (_, model) = folders("buffer_inside");
    std::fs::create_dir(model.join("data")).unwrap();
    std::fs::write(model.join("data/my model.bin"), base().bin()).unwrap();
    for uri in [
        "data/my%20model.bin",
        "./data/my model.bin",
        "data/./my model.bin",
    ] {
        let path = write_model(&model, &with_buffer_uri(uri));
        import_guarded(&path, options(false)).unwrap_or_else(|e| panic!("{uri}: {e}"));
    }
}

#[test]
fn image_uris_outside_the_model_folder_are_refused_unless_allowed() {
    let (outer, model) = folders("image_escape");
    std::fs::create_dir(model.join("sub")).unwrap();
    // A real picture: the import decodes it, so its texels show it was read.
    let picture = image::RgbaImage::from_fn(3, 2, |x, y| {
        image::Rgba([x as u8 * 80, y as u8 * 90, 7, 255])
    });
    let secret = throng_tests::material_models::png(&picture);
    std::fs::write(outer.join("secret.png"), &secret).unwrap();
    for (case, uri) in escaping_uris(&outer, &model, "secret.png") {
        let path = write_model(&model, &with_image_uri(&uri));
        let msg = refused(&case, &path, options(false));
        assert_mentions(&case, &msg, &["images[0].uri", &uri, "model's folder"]);
        let imported =
            import_guarded(&path, options(true)).unwrap_or_else(|e| panic!("{case}, allowed: {e}"));
        assert_eq!(imported.scene.images.len(), 1, "{case}");
        assert_eq!(&imported.scene.images[0].rgba, picture.as_raw(), "{case}");
    }
    // Inside the folder, the image is embedded.
    std::fs::write(model.join("tex.png"), &secret).unwrap();
    let path = write_model(&model, &with_image_uri("tex.png"));
    let imported = import_guarded(&path, options(false)).unwrap();
    assert_eq!(&imported.scene.images[0].rgba, picture.as_raw());
}
