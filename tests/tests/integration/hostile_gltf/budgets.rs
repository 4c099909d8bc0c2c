//! Sizes refused before the work: buffers read up to their `byteLength`,
//! images over `MAX_IMAGE_BYTES`, a bake over the byte budget (naming the
//! clip) and more than `MAX_CLIPS` clips.

use std::time::Instant;

use serde_json::{Value, json};
use throng_bake::{BakeOptions, bake, import_slice};
use throng_core::limits::{DEFAULT_MAX_BAKE_BYTES, MAX_CLIPS, MAX_IMAGE_BYTES};
use throng_tests::assert_mentions;
use throng_tests::gltf_builder::{gltf_bytes, long_clip};

use super::{
    PNG_MAGIC, POSITION, base, folders, import_guarded, options, refused, with_buffer_uri,
    with_image_uri, write_model,
};

#[test]
fn buffers_are_read_up_to_their_byte_length() {
    let (_, model) = folders("buffer_length");
    let bin = base().bin().to_vec();
    // Longer than byteLength (padding): read, and only byteLength of it.
    let mut long = bin.clone();
    long.extend_from_slice(&[0xAB; 1000]);
    std::fs::write(model.join("long.bin"), &long).unwrap();
    let path = write_model(&model, &with_buffer_uri("long.bin"));
    import_guarded(&path, options(false)).unwrap_or_else(|e| panic!("long: {e}"));
    // An accessor reaching into the padding is out of the buffer.
    let mut doc = with_buffer_uri("long.bin");
    doc["bufferViews"][POSITION]["byteLength"] = json!(bin.len() + 500);
    let path = write_model(&model, &doc);
    let msg = refused("view into padding", &path, options(false));
    assert_mentions(
        "view into padding",
        &msg,
        &[
            "bufferViews[0]",
            &format!("buffers[0] has {} bytes", bin.len()),
        ],
    );
    // Shorter than byteLength: an error naming the buffer.
    std::fs::write(model.join("short.bin"), &bin[..bin.len() - 4]).unwrap();
    let path = write_model(&model, &with_buffer_uri("short.bin"));
    let msg = refused("short", &path, options(false));
    assert_mentions("short", &msg, &["buffers[0]", "byteLength"]);
}

#[test]
fn an_image_over_the_limit_is_refused_without_reading_it() {
    let (_, model) = folders("image_limit");
    let big = model.join("big.png");
    std::fs::write(&big, PNG_MAGIC).unwrap();
    // A sparse file: as large as the limit allows plus one, nothing written.
    std::fs::File::options()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(MAX_IMAGE_BYTES + 1)
        .unwrap();
    let path = write_model(&model, &with_image_uri("big.png"));
    let msg = refused("big image", &path, options(false));
    assert_mentions(
        "big image",
        &msg,
        &[
            "images[0].uri",
            "big.png",
            &format!("{} bytes", MAX_IMAGE_BYTES + 1),
            &format!("{MAX_IMAGE_BYTES}-byte limit"),
        ],
    );
}

#[test]
fn a_bake_over_the_budget_is_refused_before_sampling_naming_the_clip() {
    // 10⁶ s at 30 fps: 3·10⁷ frames, 1.4 GB of f32 texels for one bone.
    let imported = import_slice(&long_clip(1e6), None, "forever").unwrap();
    let start = Instant::now();
    let err = bake(&imported.scene, &BakeOptions::default(), &|_, _| {})
        .expect_err("forever: baked 3·10⁷ frames");
    let msg = err.to_string();
    println!("forever: {msg} ({:?})", start.elapsed());
    assert_mentions(
        "forever",
        &msg,
        &[
            "\"forever\"",
            "1000000 s",
            "30000001 frames",
            &format!("({DEFAULT_MAX_BAKE_BYTES} bytes) bake budget"),
            "--max-bake-bytes",
        ],
    );

    // The budget is exact: a model baked with its own estimate as the budget
    // passes, one byte less is refused.
    let imported = import_slice(&base().to_gltf(), None, "base").unwrap();
    let (_, report) = bake(&imported.scene, &BakeOptions::default(), &|_, _| {}).unwrap();
    let estimate = report.estimated_bytes;
    assert!(estimate > 0);
    let at = |max_bake_bytes| BakeOptions {
        max_bake_bytes,
        ..BakeOptions::default()
    };
    bake(&imported.scene, &at(estimate), &|_, _| {}).unwrap();
    let msg = bake(&imported.scene, &at(estimate - 1), &|_, _| {})
        .expect_err("one byte under the estimate")
        .to_string();
    println!("tight: {msg}");
    assert_mentions("tight", &msg, &["\"move\"", "1 s", "31 frames"]);
    let msg = bake(&imported.scene, &at(0), &|_, _| {})
        .expect_err("a budget of 0")
        .to_string();
    assert_mentions("zero budget", &msg, &["--max-bake-bytes 0"]);
}

#[test]
fn too_many_clips_are_refused_before_building_them() {
    // 70,000 copies of the base animation, sharing its accessors.
    let clips = 70_000;
    let mut doc = base().to_json();
    let anim = doc["animations"][0].clone();
    doc["animations"] = Value::Array(
        (0..clips)
            .map(|i| {
                let mut a = anim.clone();
                a["name"] = json!(format!("clip{i}"));
                a
            })
            .collect(),
    );
    let start = Instant::now();
    let msg = import_slice(&gltf_bytes(&doc), None, "many")
        .expect_err("many: imported 70,000 clips")
        .to_string();
    println!("many: {msg} ({:?})", start.elapsed());
    assert_mentions(
        "many",
        &msg,
        &[
            "animations",
            &format!("{clips} animations"),
            &MAX_CLIPS.to_string(),
        ],
    );

    // A scene built in code is refused by the bake, before sampling.
    let mut imported = import_slice(&base().to_gltf(), None, "base").unwrap();
    let clip = imported.scene.clips[0].clone();
    imported.scene.clips = (0..clips)
        .map(|i| throng_bake::scene::Clip {
            name: format!("clip{i}"),
            ..clip.clone()
        })
        .collect();
    let start = Instant::now();
    let msg = bake(&imported.scene, &BakeOptions::default(), &|_, _| {})
        .expect_err("many: baked 70,000 clips")
        .to_string();
    println!("many, baked: {msg} ({:?})", start.elapsed());
    assert_mentions(
        "many, baked",
        &msg,
        &[&format!("{clips} clips"), &MAX_CLIPS.to_string(), "--clips"],
    );
}
