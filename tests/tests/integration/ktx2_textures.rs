//! KTX2 textures as pipelines ship them (`KHR_texture_basisu`, docs/GLTF.md):
//! the bundled Fox's texture encoded by the Basis Universal encoder
//! (`tests/data/compressed/README.md`) as UASTC with Zstandard (the
//! extension required, no fallback) and as ETC1S (the extension only used,
//! the PNG kept as `source`). Each imports with its KTX2 image transcoded
//! to the source's texels within the codec's error, and a KTX2 image that
//! lies is dropped with a warning that says why, never a panic.

use throng_bake::import_slice;
use throng_bake::scene::SourceImage;
use throng_core::material::TextureSlot;
use throng_tests::{asset, repo_root};

/// How far each Basis codec's transcode of the Fox's texture may stray
/// from the PNG it was encoded from, over every RGB channel of every
/// texel: the mean absolute error in 8-bit levels, and the share of
/// channels off by more than [`FAR`] levels. UASTC (8 bits a texel, here
/// at RDO λ 1) is near-lossless on the Fox's flat colour fields and gives
/// up tens of levels only at a few block edges; ETC1S (about 1–2 bits a
/// texel, here at quality 128) shares one colour pair per block and is off
/// by a few levels everywhere, by more at the sharp fur-to-eye edges.
/// Measured (printed): UASTC mean 0.01, 0.002 % far, worst 36; ETC1S
/// mean 2.05, 1.04 % far, worst 95. A wrong channel order, block order or
/// transfer function moves the mean by tens of levels.
const UASTC_ERROR: (f64, f64) = (0.25, 0.001);
const ETC1S_ERROR: (f64, f64) = (4.0, 0.03);
/// The error, in levels, beyond which a channel counts as far off.
const FAR: u8 = 16;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(repo_root().join("tests/data/compressed").join(name)).unwrap()
}

/// The Fox's own texture, decoded from its PNG.
fn source_texels() -> image::RgbaImage {
    let bytes = std::fs::read(asset("khronos_Fox.glb")).unwrap();
    let imported = import_slice(&bytes, None, "khronos_Fox.glb").unwrap();
    let png = &imported.scene.images[0];
    image::RgbaImage::from_raw(png.width, png.height, png.rgba.clone()).unwrap()
}

/// The one image `name` imports to (its textures' chosen image).
fn imported_image(name: &str) -> SourceImage {
    let imported =
        import_slice(&fixture(name), None, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        imported.warnings.is_empty(),
        "{name}: {:?}",
        imported.warnings
    );
    let material = &imported.scene.materials[0];
    let slot = material
        .texture(TextureSlot::BaseColor)
        .expect("a base colour texture");
    imported.scene.images[slot.image as usize].clone()
}

/// Mean absolute difference over the RGB channels, the share of them
/// more than [`FAR`] off, and the worst.
fn error(expected: &image::RgbaImage, actual: &SourceImage) -> (f64, f64, u8) {
    assert_eq!((actual.width, actual.height), expected.dimensions());
    let (mut sum, mut far, mut worst, mut n) = (0u64, 0u64, 0u8, 0u64);
    for (a, b) in expected.as_raw().chunks(4).zip(actual.rgba.chunks(4)) {
        for c in 0..3 {
            let d = a[c].abs_diff(b[c]);
            sum += u64::from(d);
            far += u64::from(d > FAR);
            worst = worst.max(d);
            n += 1;
        }
    }
    (sum as f64 / n as f64, far as f64 / n as f64, worst)
}

#[test]
fn ktx2_textures_transcode_to_the_source_texels() {
    let source = source_texels();
    for (name, (mean_bound, far_bound)) in [
        ("fox_uastc.glb", UASTC_ERROR),
        ("fox_etc1s.glb", ETC1S_ERROR),
    ] {
        let image = imported_image(name);
        assert_eq!(
            image.name, "ktx2",
            "{name} read its fallback, not its KTX2 image"
        );
        let (mean, far, worst) = error(&source, &image);
        println!(
            "{name}: mean {mean:.3} levels, {:.3} % over {FAR}, worst {worst}",
            far * 100.0
        );
        assert!(
            mean <= mean_bound && far <= far_bound,
            "{name}: mean {mean:.3} levels (bound {mean_bound}), {far:.5} of the channels over {FAR} (bound {far_bound}); worst {worst}"
        );
    }
}

/// `fox_uastc.glb` with its KTX2 image's bytes edited by `edit`, imported:
/// the import's warnings (the model itself is sound, so it imports).
fn with_ktx2_edited(edit: impl FnOnce(&mut Vec<u8>)) -> (Vec<String>, usize) {
    let (doc, bin) = glb_parts("fox_uastc.glb");
    let view = &doc["bufferViews"][doc["images"][0]["bufferView"].as_u64().unwrap() as usize];
    let (start, len) = (
        view["byteOffset"].as_u64().unwrap() as usize,
        view["byteLength"].as_u64().unwrap() as usize,
    );
    let mut image = bin[start..start + len].to_vec();
    edit(&mut image);
    // The edited image goes at the end of the binary chunk, in a view of
    // its own length.
    let mut doc = doc;
    let mut bin = bin;
    bin.resize(bin.len().next_multiple_of(4), 0);
    let view = doc["images"][0]["bufferView"].as_u64().unwrap() as usize;
    doc["bufferViews"][view]["byteOffset"] = bin.len().into();
    doc["bufferViews"][view]["byteLength"] = image.len().into();
    bin.extend_from_slice(&image);
    doc["buffers"][0]["byteLength"] = bin.len().into();
    let bytes = throng_tests::gltf_builder::glb_bytes(&doc, &bin);
    let imported = import_slice(&bytes, None, "model.glb")
        .unwrap_or_else(|e| panic!("a broken image is not a broken model: {e}"));
    (imported.warnings, imported.scene.images.len())
}

/// A fixture's JSON and binary chunk.
fn glb_parts(name: &str) -> (serde_json::Value, Vec<u8>) {
    throng_tests::gltf_builder::glb_parts(&fixture(name))
}

/// The one warning of an import, which must name the KTX2 image.
fn the_warning(warnings: &[String]) -> &str {
    assert!(
        warnings.len() == 1 && warnings[0].contains("images[0]"),
        "{warnings:?}"
    );
    &warnings[0]
}

#[test]
fn ktx2_images_that_lie_are_dropped_with_a_warning_saying_why() {
    // Cut short: the level index points past the end.
    let (warnings, images) = with_ktx2_edited(|b| b.truncate(b.len() / 2));
    assert!(
        the_warning(&warnings).contains("cannot be decoded as KTX2"),
        "{warnings:?}"
    );
    assert_eq!(images, 0);
    // A size past the limit, read from the header (pixelWidth) before any
    // texel.
    let (warnings, _) = with_ktx2_edited(|b| b[20..24].copy_from_slice(&100_000u32.to_le_bytes()));
    let w = the_warning(&warnings);
    assert!(w.contains("is 100000×1024, outside the 1..="), "{w}");
    // A cube map's face count (faceCount) on a 2D texture's data.
    let (warnings, _) = with_ktx2_edited(|b| b[36..40].copy_from_slice(&6u32.to_le_bytes()));
    let w = the_warning(&warnings);
    assert!(w.contains("is a KTX2 cube map (6 faces)"), "{w}");
    // Not KTX2 at all past the identifier: its header's words read as a
    // size far past the limit.
    let (warnings, _) = with_ktx2_edited(|b| b[12..].fill(0xEE));
    let w = the_warning(&warnings);
    assert!(w.contains("is 4008636142×4008636142, outside"), "{w}");
    // Past the header, a level index that runs out of the file.
    let (warnings, _) = with_ktx2_edited(|b| b[80..88].copy_from_slice(&u64::MAX.to_le_bytes()));
    let w = the_warning(&warnings);
    assert!(
        w.contains("level 0") && w.contains("runs past the file's"),
        "{w}"
    );
}

#[test]
fn ktx2_images_with_any_byte_broken_never_panic() {
    // Every 61st byte of the image (the header, the level index, the data
    // format descriptor, the Zstandard frame), one at a time, set to each
    // of three values: the import answers an image or a warning.
    let doc = glb_parts("fox_uastc.glb").0;
    let view = doc["images"][0]["bufferView"].as_u64().unwrap() as usize;
    let len = doc["bufferViews"][view]["byteLength"].as_u64().unwrap() as usize;
    let mut decoded = 0;
    for at in (0..len).step_by(61) {
        for value in [0x00, 0x7F, 0xFF] {
            let (warnings, images) = with_ktx2_edited(|b| b[at] = value);
            assert!(
                images == 1 || warnings.len() == 1,
                "byte {at}: {warnings:?}"
            );
            decoded += images;
        }
    }
    println!("{decoded} of the broken images still decoded");
    assert!(
        decoded > 0,
        "no image decoded: the transcoder was never reached"
    );
}
