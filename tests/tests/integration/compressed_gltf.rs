//! glTF as pipelines ship it (docs/GLTF.md): the
//! bundled Fox and CesiumMan, and a morphed bar, run through gltfpack 1.3
//! (`tests/data/compressed/README.md`) — quantized
//! (`KHR_mesh_quantization`, morph targets included), meshopt-compressed with
//! `EXT_meshopt_compression` (every filter gltfpack emits for it:
//! octahedral normals, quaternion rotations, exponential translations and
//! scales) and with `KHR_meshopt_compression`, and through gltf-transform's
//! Draco (`KHR_draco_mesh_compression`, skinned: joints and weights in the
//! stream) — bake, and their baked
//! skinned vertices match the bake of the uncompressed source within the
//! quantization's error, every clip at several times. gltfpack re-orders
//! and welds vertices, so the vertices are compared as point sets: the
//! distance from each vertex of one to the nearest of the other, both ways
//! (the Hausdorff distance), against the model's bounding radius.

use std::path::PathBuf;

use glam::Vec3;
use throng_bake::{BakeOptions, bake_file};
use throng_core::baked::skin_lod;
use throng_core::gpu::FrameBlend;
use throng_core::model::BakedModel;
use throng_tests::{asset, repo_root};

/// gltfpack's default precision — 14-bit positions, 8-bit joint weights,
/// 12-bit rotations, 16-bit translations — moves a skinned vertex by
/// about a thousandth of the model's radius at most: 2⁻¹⁴ of the mesh's
/// extent from the position, up to 1/510 of the spread between a vertex's
/// bones from a rounded weight, about 2⁻¹¹ rad × a limb's length from a
/// rotation; gltf-transform's Draco defaults (14-bit positions, 12-bit
/// texture coordinates, 10-bit normals, 8-bit generic attributes) are
/// finer or equal. Measured (printed): 0.00055 of the radius for the
/// gltfpack Foxes, 0.00074 for CesiumMan. The fixtures keep the source's key times
/// (`-af 0`): gltfpack's default resampling at 30 Hz moves a clip's end
/// to a whole 30th of a second and its poses by up to 8 % of the radius
/// between keys, which is the pipeline's choice, not the decoder's.
const TOLERANCE: f32 = 0.002;

fn fixture(name: &str) -> PathBuf {
    repo_root().join("tests/data/compressed").join(name)
}

fn bake(path: &std::path::Path) -> BakedModel {
    bake_file(path, &BakeOptions::default(), &|_, _| {})
        .unwrap_or_else(|e| panic!("{}: {e:#}", path.display()))
        .0
}

/// Skinned positions of LOD 0, every clip but those named in `skip` at
/// several times.
fn poses(model: &BakedModel, skip: &[&str]) -> Vec<Vec<Vec3>> {
    let mut out = Vec::new();
    for clip in model
        .clips
        .iter()
        .filter(|c| !skip.contains(&c.name.as_str()))
    {
        for share in [0.0, 0.31, 0.72, 1.0] {
            let blend = FrameBlend::single(clip.frames_at(clip.duration * share));
            let skinned = skin_lod(model, 0, &blend);
            out.push(skinned.into_iter().flat_map(|p| p.positions).collect());
        }
    }
    out
}

/// The largest distance from a point of `a` to its nearest in `b`.
fn farthest_nearest(a: &[Vec3], b: &[Vec3]) -> f32 {
    a.iter()
        .map(|p| {
            b.iter()
                .map(|q| p.distance_squared(*q))
                .fold(f32::INFINITY, f32::min)
        })
        .fold(0.0, f32::max)
        .sqrt()
}

fn compare(source: &str, compressed: &[&str]) {
    compare_with(&bake(&asset(source)), compressed, &[]);
}

/// Each of `compressed` (fixtures) bakes to `reference`'s poses, the clips
/// named in `skip` left out.
fn compare_with(reference: &BakedModel, compressed: &[&str], skip: &[&str]) {
    let expected = poses(reference, skip);
    let radius = reference.bounding_radius;
    for name in compressed {
        let model = bake(&fixture(name));
        let names = |m: &BakedModel| m.clips.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&model), names(reference), "{name}: the clips");
        let got = poses(&model, skip);
        let mut worst = (0.0f32, 0);
        for (k, (e, g)) in expected.iter().zip(&got).enumerate() {
            let d = farthest_nearest(e, g).max(farthest_nearest(g, e));
            if d > worst.0 {
                worst = (d, k);
            }
        }
        let (clip, time) = (worst.1 / 4, [0.0, 0.31, 0.72, 1.0][worst.1 % 4]);
        eprintln!(
            "{name}: {} vertices against {}; worst distance {:.5} ({:.5} of the radius {radius:.3}) at clip {clip}, {time} of its duration",
            got[0].len(),
            expected[0].len(),
            worst.0,
            worst.0 / radius
        );
        assert!(
            worst.0 <= TOLERANCE * radius,
            "{name}: a skinned vertex lies {:.5} from the source's ({:.5} of the radius, over {TOLERANCE}) at clip {clip}, {time} of its duration",
            worst.0,
            worst.0 / radius
        );
    }
}

#[test]
fn quantized_morph_targets_bake_to_the_sources_poses() {
    // A skinned bar with two morph targets and a rigid triangle with one
    // (the morph tests' `morph_bar`, tests/data/compressed/README.md)
    // through gltfpack: the targets' position offsets as 16-bit integers,
    // their normal offsets as normalized bytes, the weights' keys as
    // normalized bytes. The morphed and skinned vertices within the
    // quantization error of the float source's, every clip but `blink`:
    // its cubic spline has an in-tangent of 2, which gltfpack's unsigned
    // normalized bytes clamp to 1 (the pipeline's loss, not the
    // decoder's: that clip's vertices then differ by 0.8 % of the radius).
    let reference = bake(&fixture("morph_bar.gltf"));
    assert!(
        !reference.morphs.is_empty(),
        "the source has no morphs baked"
    );
    compare_with(&reference, &["morph_bar_q.glb"], &["blink"]);
}

#[test]
fn quantized_and_meshopt_foxes_bake_to_the_sources_poses() {
    compare(
        "khronos_Fox.glb",
        &["fox_q.glb", "fox_c.glb", "fox_cz.glb", "fox_draco.glb"],
    );
}

#[test]
fn a_meshopt_cesium_man_with_every_filter_and_a_draco_one_bake_to_the_sources_poses() {
    compare("khronos_CesiumMan.gltf", &["cm_cc.glb", "cm_draco.glb"]);
}

/// A fixture's JSON and binary chunk.
fn glb_parts(name: &str) -> (serde_json::Value, Vec<u8>) {
    throng_tests::gltf_builder::glb_parts(&std::fs::read(fixture(name)).unwrap())
}

/// `name` with its JSON edited by `edit`: the message of its refusal.
fn refusal(name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let (mut doc, bin) = glb_parts(name);
    edit(&mut doc);
    let bytes = throng_tests::gltf_builder::glb_bytes(&doc, &bin);
    throng_tests::expect_refusal(name, throng_bake::import_slice(&bytes, None, "model.glb"))
}

/// The first view compressed in `mode` (with `filter`, if given).
fn view_of(doc: &serde_json::Value, mode: &str, filter: Option<&str>) -> usize {
    doc["bufferViews"]
        .as_array()
        .unwrap()
        .iter()
        .position(|v| {
            let e = &v["extensions"]["EXT_meshopt_compression"];
            e["mode"] == mode && filter.is_none_or(|f| e["filter"] == f)
        })
        .unwrap_or_else(|| panic!("a {mode} view"))
}

#[test]
fn a_required_extension_the_baker_does_not_read_is_refused_by_name() {
    let msg = refusal("fox_c.glb", |d| {
        d["extensionsRequired"]
            .as_array_mut()
            .unwrap()
            .push("EXT_foo".into());
    });
    assert_eq!(
        msg,
        format!(
            "requires EXT_foo, which this baker does not read; it reads: {}",
            throng_bake::extensions::read_list()
        )
    );
}

/// A case: its name, the mode (and filter) of the view it edits, the edit
/// of the view's extension object, and what the message must say.
type LyingCase = (
    &'static str,
    &'static str,
    Option<&'static str>,
    fn(&mut serde_json::Value),
    String,
);

#[test]
fn compressed_streams_that_lie_are_refused_by_name() {
    let ext = "extensions.EXT_meshopt_compression";
    let cases: [LyingCase; 7] = [
        (
            "a count past the stream",
            "ATTRIBUTES",
            None,
            |e| e["count"] = (e["count"].as_u64().unwrap() * 4).into(),
            "is not the view's byteLength".into(),
        ),
        (
            "a stride not a multiple of 4",
            "ATTRIBUTES",
            None,
            |e| e["byteStride"] = 6.into(),
            "ATTRIBUTES byteStride 6 is not a multiple of 4 in 4..=256".into(),
        ),
        (
            "an unknown filter",
            "ATTRIBUTES",
            None,
            |e| e["filter"] = "SHUFFLE".into(),
            "unknown filter \"SHUFFLE\"".into(),
        ),
        (
            "a quaternion filter on 4-byte elements",
            "ATTRIBUTES",
            Some("QUATERNION"),
            |e| {
                e["byteStride"] = 4.into();
                e["count"] = (e["count"].as_u64().unwrap() * 2).into();
            },
            "filter QUATERNION with byteStride 4".into(),
        ),
        (
            "triangles not in threes",
            "TRIANGLES",
            None,
            |e| e["count"] = (e["count"].as_u64().unwrap() - 1).into(),
            "is not a multiple of 3".into(),
        ),
        (
            "bytes past the buffer",
            "TRIANGLES",
            None,
            |e| e["byteOffset"] = (1u64 << 40).into(),
            "are not in the file".into(),
        ),
        (
            "an unknown mode",
            "TRIANGLES",
            None,
            |e| e["mode"] = "STRIPS".into(),
            "unknown mode \"STRIPS\"".into(),
        ),
    ];
    for (case, mode, filter, edit, says) in cases {
        let name = if filter.is_some() {
            "cm_cc.glb"
        } else {
            "fox_c.glb"
        };
        let mut at = 0;
        let msg = refusal(name, |d| {
            at = view_of(d, mode, filter);
            edit(&mut d["bufferViews"][at]["extensions"]["EXT_meshopt_compression"]);
        });
        let path = format!("bufferViews[{at}].{ext}");
        assert!(
            msg.contains(&path) && msg.contains(&says),
            "{case}: the message should name {path} and say {says:?}: {msg}"
        );
    }
}

#[test]
fn views_claiming_more_than_the_budget_are_refused_before_decoding() {
    // 2²⁶ vertices of 8 bytes (512 MiB) from a few hundred bytes.
    let (doc, _) = glb_parts("fox_c.glb");
    let at = view_of(&doc, "ATTRIBUTES", None);
    let count = 1u64 << 26;
    let msg = refusal("fox_c.glb", |d| {
        let view = &mut d["bufferViews"][at];
        let stride = view["extensions"]["EXT_meshopt_compression"]["byteStride"]
            .as_u64()
            .unwrap();
        view["extensions"]["EXT_meshopt_compression"]["count"] = count.into();
        view["byteLength"] = (count * stride).into();
    });
    assert!(
        msg.contains(&format!(
            "bufferViews[{at}].extensions.EXT_meshopt_compression: the compressed views decode to more than {} bytes together",
            throng_core::limits::MAX_DECODED_VIEW_BYTES
        )),
        "{msg}"
    );
}

#[test]
fn a_stream_that_decodes_to_fewer_vertices_than_declared_is_refused() {
    // The stream cut short: the decoder runs out of bytes.
    let (doc, _) = glb_parts("fox_c.glb");
    let at = view_of(&doc, "ATTRIBUTES", None);
    let e = &doc["bufferViews"][at]["extensions"]["EXT_meshopt_compression"];
    let length = e["byteLength"].as_u64().unwrap();
    let msg = refusal("fox_c.glb", |d| {
        d["bufferViews"][at]["extensions"]["EXT_meshopt_compression"]["byteLength"] =
            (length / 2).into();
    });
    assert!(
        msg.contains(&format!("bufferViews[{at}]"))
            && msg.contains("the ATTRIBUTES stream of")
            && msg.contains("does not decode"),
        "{msg}"
    );
}

#[test]
fn a_webp_image_cut_short_drops_its_texture_with_a_warning() {
    let (mut doc, bin) = glb_parts("fox_webp.glb");
    let view = doc["images"][0]["bufferView"].as_u64().unwrap() as usize;
    let length = doc["bufferViews"][view]["byteLength"].as_u64().unwrap();
    doc["bufferViews"][view]["byteLength"] = (length / 2).into();
    let bytes = throng_tests::gltf_builder::glb_bytes(&doc, &bin);
    let imported = throng_bake::import_slice(&bytes, None, "model.glb")
        .unwrap_or_else(|e| panic!("a broken image is not a broken model: {e}"));
    assert!(
        imported
            .warnings
            .iter()
            .any(|w| w.contains("images[0]") && w.contains("cannot be decoded")),
        "{:?}",
        imported.warnings
    );
    assert!(imported.scene.images.is_empty());
}

#[test]
fn draco_streams_that_lie_are_refused_by_name() {
    let ext = "meshes[0].primitives[0].extensions.KHR_draco_mesh_compression";
    let draco = |d: &mut serde_json::Value| -> serde_json::Value {
        d["meshes"][0]["primitives"][0]["extensions"]["KHR_draco_mesh_compression"].clone()
    };
    // The stream cut short.
    let msg = refusal("fox_draco.glb", |d| {
        let view = draco(d)["bufferView"].as_u64().unwrap() as usize;
        let length = d["bufferViews"][view]["byteLength"].as_u64().unwrap();
        d["bufferViews"][view]["byteLength"] = (length / 2).into();
    });
    assert!(
        msg.contains(ext) && msg.contains("Draco stream does not decode"),
        "{msg}"
    );
    // More vertices declared than the stream holds.
    let mut position = 0;
    let msg = refusal("fox_draco.glb", |d| {
        position = d["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
            .as_u64()
            .unwrap() as usize;
        let count = d["accessors"][position]["count"].as_u64().unwrap();
        d["accessors"][position]["count"] = (count + 1).into();
    });
    assert!(
        msg.contains(ext)
            && msg.contains(&format!(
                "the stream decodes to 434 vertices; accessors[{position}] (POSITION) has 435"
            )),
        "{msg}"
    );
    // An attribute id the stream does not have.
    let msg = refusal("fox_draco.glb", |d| {
        d["meshes"][0]["primitives"][0]["extensions"]["KHR_draco_mesh_compression"]["attributes"]
            ["WEIGHTS_0"] = 9.into();
    });
    assert!(
        msg.contains(ext) && msg.contains("the stream has no attribute 9 (WEIGHTS_0)"),
        "{msg}"
    );
    // Counts claiming more than the budget, refused before decoding.
    let msg = refusal("fox_draco.glb", |d| {
        let position = d["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
            .as_u64()
            .unwrap() as usize;
        d["accessors"][position]["count"] = (1u64 << 26).into();
    });
    assert!(
        msg.contains(ext) && msg.contains("decode to more than"),
        "{msg}"
    );
}
