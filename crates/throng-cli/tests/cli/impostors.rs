//! `throng bake`'s default LOD chain: meshopt LODs and an impostor captured
//! on the GPU, written into the `.throng` with the plan asked for, reported
//! in the summary and by `throng inspect`; `--no-impostors` and `--no-lods`
//! leave them out; impostor options with `--no-impostors`, a screen size
//! out of range and a budget too small for the plan are refused with a
//! reason.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use throng_core::BakedModel;
use throng_core::format::read_file;

/// A fresh scratch directory.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("throng-impostors-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn fox() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/khronos_Fox.glb")
}

fn throng(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .output()
        .expect("running the throng binary")
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

/// `throng bake SOURCE -o OUT EXTRA…`.
fn bake(source: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "bake",
        source.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    throng(&args)
}

/// [`bake`], which must succeed: its report and the model it wrote.
fn baked(source: &Path, out: &Path, extra: &[&str]) -> (String, BakedModel) {
    let run = bake(source, out, extra);
    assert!(run.status.success(), "{}", text(&run.stderr));
    (text(&run.stdout), read_file(out).unwrap())
}

#[test]
fn a_bake_with_impostors_stores_and_reports_the_plan_asked_for() {
    // The capture needs an adapter; in CI a missing one fails here.
    drop(throng_tests::require_gpu("impostor bake"));
    let dir = scratch("bake");
    let out = dir.join("fox.throng");
    let plan = [
        "--impostor-views",
        "3",
        "--impostor-frames",
        "2",
        "--impostor-size",
        "16",
    ];
    let (summary, model) = baked(&fox(), &out, &plan);
    assert!(
        summary
            .contains("impostor    3×3 views, 2 frames a clip, 16² texels a cell: 1 layer of 128²"),
        "{summary}"
    );
    assert_eq!(model.lods.len(), 3, "LOD 0 and the default meshopt LODs");
    let atlas = model.impostor.as_ref().expect("an impostor in the file");
    assert_eq!(
        atlas.screen_size,
        throng_core::impostor::default_screen_size(16)
    );
    assert_eq!(model.impostor_lod(), Some(3));
    assert_eq!(
        (
            atlas.plan.views.side,
            atlas.plan.frames,
            atlas.plan.cell,
            atlas.plan.clips
        ),
        (3, 2, 16, model.clips.len() as u32)
    );
    // Every cell holds something: the fox is in every view.
    assert_eq!(
        atlas.plan.codec,
        throng_core::texture_codec::TextureCodec::Bc3
    );
    let colour = atlas.colour_rgba8();
    let side = atlas.plan.layer_size as usize;
    for cell in 0..atlas.plan.cells() as u32 {
        let (clip, rest) = (cell / 18, cell % 18);
        let (layer, x0, y0) = atlas.plan.cell_origin(clip, rest / 9, rest % 9);
        let covered = (y0..y0 + 16).any(|y| {
            (x0..x0 + 16).any(|x| {
                colour[((layer as usize * side + y as usize) * side + x as usize) * 4 + 3] > 0
            })
        });
        assert!(covered, "cell {cell} is empty");
    }
    let inspect = throng(&["inspect", out.to_str().unwrap()]);
    assert!(
        text(&inspect.stdout).contains("impostor  3×3 views, 2 frames a clip"),
        "{}",
        text(&inspect.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_impostors_and_no_lods_leave_them_out() {
    let dir = scratch("plain");
    let out = dir.join("fox.throng");
    let (report, model) = baked(&fox(), &out, &["--no-impostors", "--no-lods"]);
    assert!(!report.contains("\n  impostor "), "{report}");
    assert!(model.impostor.is_none());
    assert_eq!(model.lods.len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A model whose material has a metallic-roughness map (the textured fuzz
/// seed) captures the surface image by default and is reported so;
/// `--no-impostor-surface` leaves it out, which the output's provenance
/// records, so the second bake is not skipped as up to date.
#[test]
fn the_surface_image_is_captured_where_materials_vary_unless_refused() {
    drop(throng_tests::require_gpu("impostor surface bake"));
    let dir = scratch("surface");
    let out = dir.join("textured.throng");
    let src =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/gltf/textured_skin.gltf");
    let small = ["--no-lods", "--impostor-budget", "64KiB"];
    let (report, model) = baked(&src, &out, &small);
    let atlas = model.impostor.expect("an impostor");
    assert!(atlas.plan.surface, "{:?}", atlas.plan);
    assert_eq!(atlas.surface.len(), atlas.colour.len());
    assert!(
        report.contains("(colour, normal and surface, BC3)"),
        "{report}"
    );
    let (report, model) = baked(
        &src,
        &out,
        &[&small[..], &["--no-impostor-surface"]].concat(),
    );
    let atlas = model.impostor.expect("an impostor");
    assert!(!atlas.plan.surface && atlas.surface.is_empty(), "{report}");
    assert!(report.contains("(colour and normal, BC3)"), "{report}");
    let refused = throng(&[
        "bake",
        src.to_str().unwrap(),
        "--no-impostors",
        "--no-impostor-surface",
    ]);
    assert!(!refused.status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn impostor_options_are_refused_with_no_impostors_out_of_range_or_over_budget() {
    let dir = scratch("refused");
    let out = dir.join("fox.throng");
    let fox = fox();
    let run = bake(&fox, &out, &["--no-impostors", "--impostor-views", "3"]);
    assert!(!run.status.success());
    assert!(
        text(&run.stderr).contains("--no-impostors"),
        "{}",
        text(&run.stderr)
    );
    let run = bake(&fox, &out, &["--impostor-screen-size", "2"]);
    assert!(!run.status.success());
    assert!(
        text(&run.stderr).contains("--impostor-screen-size 2 is not a fraction"),
        "{}",
        text(&run.stderr)
    );
    // Refused before any GPU is asked for: the plan is checked first.
    let run = bake(
        &fox,
        &out,
        &[
            "--impostor-size",
            "64",
            "--impostor-views",
            "12",
            "--impostor-frames",
            "16",
            "--impostor-budget",
            "1MiB",
        ],
    );
    assert!(!run.status.success());
    let err = text(&run.stderr);
    assert!(err.contains("over the budget of 1048576"), "{err}");
    assert!(!out.exists(), "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
}
