//! Shared clips (`Settings::shared_clips`, `throng bake --shared-clips`):
//! bodies of one build baked together get each clip at one frame count,
//! and so the same frames, texel for texel — what lets the runtime bind
//! one bone texture for all of them (`throng_render::SharedFrames`).
//!
//! The bodies are the bundled Fox with its mesh (not its rig) stretched:
//! one as it is, one 1.5 times as long, one 1.6 times as wide. Baked apart,
//! the long one needs more frames of a clip than the others (the
//! error-bounded search measures the mesh); baked together, each clip
//! takes the most any body needs, every body's error stays within the
//! bound, the three refer to one frames file (`shared_files`) instead of
//! holding a copy each, and the bake run again finds every output up to
//! date and writes nothing; a body whose frames file is gone is baked
//! again.

use std::path::{Path, PathBuf};

use throng_core::BakedModel;
use throng_pipeline::{JobResult, Outcome, Settings, bake_all, plan};
use throng_tests::asset;
use throng_tests::gltf_builder::edit::{position_accessors, scale_accessor};
use throng_tests::gltf_builder::{glb_bytes, glb_parts};

/// The Fox with every POSITION accessor's component `axis` times `k`.
fn stretched(dir: &Path, name: &str, axis: usize, k: f32) -> PathBuf {
    let (mut doc, mut bin) = glb_parts(&std::fs::read(asset("khronos_Fox.glb")).unwrap());
    let positions: Vec<usize> = position_accessors(&doc);
    for a in positions {
        scale_accessor(&mut doc, &mut bin, a, 3, &[axis], k);
    }
    let path = dir.join(name);
    std::fs::write(&path, glb_bytes(&doc, &bin)).unwrap();
    path
}

fn models(results: &[JobResult]) -> Vec<(String, &BakedModel, f32)> {
    results
        .iter()
        .map(|r| {
            let name = r
                .job
                .model
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            match &r.result {
                Ok(Outcome::Baked(b)) => (name, &b.model, b.worst_error()),
                other => panic!("{name}: {other:?}"),
            }
        })
        .collect()
}

fn counts(model: &BakedModel) -> Vec<(String, u32)> {
    model
        .clips
        .iter()
        .map(|c| (c.name.clone(), c.frame_count))
        .collect()
}

#[test]
fn bodies_baked_together_bake_each_clip_at_one_frame_count() {
    let dir = std::env::temp_dir().join(format!("throng-shared-clips-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let bodies = vec![
        stretched(&dir, "fox.glb", 2, 1.0),
        stretched(&dir, "long.glb", 2, 1.5),
        stretched(&dir, "wide.glb", 0, 1.6),
    ];
    let jobs = plan(&bodies, Some(&dir.join("out"))).unwrap().jobs;
    let apart = Settings {
        impostor: None,
        ..Settings::default()
    };
    let max_error = apart.opts.max_error;

    // Apart: the long body needs more frames of some clip than the Fox.
    let results = bake_all(jobs.clone(), &apart, &());
    let baked = models(&results);
    let apart_counts: Vec<Vec<(String, u32)>> = baked.iter().map(|(_, m, _)| counts(m)).collect();
    for ((name, ..), c) in baked.iter().zip(&apart_counts) {
        println!("apart     {name:10} {c:?}");
    }
    assert_ne!(
        apart_counts[0], apart_counts[1],
        "the test needs bodies whose own bakes differ"
    );
    let most: Vec<u32> = (0..apart_counts[0].len())
        .map(|c| apart_counts.iter().map(|b| b[c].1).max().unwrap())
        .collect();

    // Together: every clip at the most any body needed, the same frames.
    let together = Settings {
        shared_clips: true,
        ..apart.clone()
    };
    let results = bake_all(jobs.clone(), &together, &());
    let baked = models(&results);
    let reference = baked[0].1;
    for (name, model, worst) in &baked {
        let c = counts(model);
        println!("together  {name:10} {c:?}, worst error {worst:.2e}");
        let frames: Vec<u32> = c.iter().map(|&(_, n)| n).collect();
        assert_eq!(frames, most, "{name}");
        assert!(
            model.texture.texels == reference.texture.texels,
            "{name}: its frames differ from {}'s",
            baked[0].0
        );
        assert!(
            *worst <= max_error,
            "{name}: worst error {worst:e} over the bound {max_error:e}"
        );
    }

    let files = on_disk(&dir.join("out"));
    let shared = one_frames_file(&results, &baked);

    // Again: nothing to bake, nothing written.
    let results = bake_all(jobs.clone(), &together, &());
    for r in &results {
        assert!(
            matches!(r.result, Ok(Outcome::UpToDate { .. })),
            "{}: {:?}",
            r.job.model.display(),
            r.result.as_ref().map(|_| ())
        );
    }
    assert_eq!(
        on_disk(&dir.join("out")),
        files,
        "a second run rewrote files"
    );

    // The frames file deleted: its bodies are baked again and refer to it again.
    std::fs::remove_file(&shared).unwrap();
    let results = bake_all(jobs, &together, &());
    assert!(
        results
            .iter()
            .all(|r| matches!(r.result, Ok(Outcome::Baked(_)))),
        "bodies whose frames file is gone are baked again"
    );
    assert_eq!(on_disk(&dir.join("out")), files);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every file in `out`, by name, with its bytes.
fn on_disk(out: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// Checks that the bodies of `results` (baked as `baked`) refer to one
/// frames file holding their frames, none of them holding a copy, and each
/// reading back as baked; prints the bytes on disk against a copy each.
fn one_frames_file(results: &[JobResult], baked: &[(String, &BakedModel, f32)]) -> PathBuf {
    let shared = results[0]
        .frames_file
        .clone()
        .expect("the bodies share a frames file");
    let texel_bytes = baked[0].1.texture.texels.as_bytes().len() as u64;
    let mut bodies_bytes = 0;
    for (r, (name, model, _)) in results.iter().zip(baked) {
        assert_eq!(r.frames_file.as_ref(), Some(&shared), "{name}");
        let bytes = std::fs::read(&r.job.output).unwrap();
        bodies_bytes += bytes.len() as u64;
        assert_eq!(
            throng_core::format::frames_file(&bytes).unwrap().as_deref(),
            shared.file_name().and_then(|n| n.to_str()),
            "{name}'s file refers to the frames file"
        );
        let own = throng_core::format::write_model(model).unwrap().len() as u64;
        assert!(
            bytes.len() as u64 + texel_bytes <= own + 128,
            "{name}: {} bytes, {own} with its own {texel_bytes} bytes of frames",
            bytes.len()
        );
        let read = throng_core::format::read_file(&r.job.output).unwrap();
        assert!(read == **model, "{name} reads back as baked");
    }
    let frames_bytes = std::fs::metadata(&shared).unwrap().len();
    println!(
        "on disk: {} bodies {bodies_bytes} B + frames {frames_bytes} B, against {} B with a copy each",
        baked.len(),
        bodies_bytes + baked.len() as u64 * texel_bytes
    );
    shared
}
