//! `throng_pipeline::bake_dir`, the library entry point of folder bakes:
//! every model baked in place below the output folder, an observer that
//! sees each job's phases and end, a broken model failing alone with its
//! path, and an untouched folder found up to date.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use throng_pipeline::{Job, Observer, Outcome, Phase, PipelineError, Settings, bake_dir};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every call, as text.
#[derive(Default)]
struct Log(Mutex<Vec<String>>);

impl Observer for Log {
    fn phase(&self, job: &Job, phase: Phase) {
        self.push(job, &phase.to_string());
    }

    fn finished(&self, job: &Job, outcome: Result<&Outcome, &PipelineError>, _: f64) {
        let what = match outcome {
            Ok(Outcome::Baked(_)) => "baked",
            Ok(Outcome::UpToDate { .. }) => "up to date",
            Err(_) => "failed",
        };
        self.push(job, what);
    }
}

impl Log {
    fn push(&self, job: &Job, what: &str) {
        let name = job.model.file_name().unwrap().to_string_lossy();
        self.0.lock().unwrap().push(format!("{name}: {what}"));
    }

    fn of(&self, name: &str) -> Vec<String> {
        let prefix = format!("{name}: ");
        let lines = self.0.lock().unwrap();
        lines
            .iter()
            .filter_map(|l| l.strip_prefix(&prefix).map(str::to_owned))
            .collect()
    }
}

#[test]
fn a_folder_bakes_in_place_and_a_broken_model_fails_alone() {
    let dir = std::env::temp_dir().join(format!("throng-pipeline-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("rigs")).unwrap();
    std::fs::copy(
        repo_root().join("assets/khronos_RiggedSimple.glb"),
        src.join("rigs/simple.glb"),
    )
    .unwrap();
    std::fs::write(src.join("broken.gltf"), b"{ not json").unwrap();
    let out = dir.join("out");
    let settings = Settings {
        impostor: None,
        ..Settings::default()
    };

    let log = Log::default();
    let results = bake_dir(&src, &out, &settings, &log).unwrap();
    let names: Vec<_> = results.iter().map(|r| r.job.output.clone()).collect();
    assert_eq!(
        names,
        [out.join("broken.throng"), out.join("rigs/simple.throng")],
        "name order, each model in its place below the output folder"
    );
    match &results[0].result {
        Err(e @ PipelineError::Bake { model, .. }) => {
            assert_eq!(model, &src.join("broken.gltf"), "{e}");
            assert!(e.to_string().contains("broken.gltf"), "{e}");
        }
        other => panic!("the broken model fails in its bake: {other:?}"),
    }
    assert!(!out.join("broken.throng").exists());
    let Ok(Outcome::Baked(baked)) = &results[1].result else {
        panic!("the good model bakes: {:?}", results[1].result)
    };
    let written = std::fs::read(out.join("rigs/simple.throng")).unwrap();
    assert_eq!(written.len() as u64, baked.file_bytes);
    assert_eq!(
        log.of("simple.glb"),
        ["checking", "frames", "writing", "baked"],
        "no impostor phase when none is asked for"
    );
    assert_eq!(log.of("broken.gltf"), ["checking", "frames", "failed"]);

    // Nothing changed: up to date, nothing written.
    let again = bake_dir(&src, &out, &settings, &()).unwrap();
    assert!(
        matches!(again[1].result, Ok(Outcome::UpToDate { file_bytes }) if file_bytes == written.len() as u64),
        "{:?}",
        again[1].result
    );
    // Other options: baked again, and the same options again are found up
    // to date (the record names the options).
    let mut half = settings.clone();
    half.opts.precision = throng_core::model::TexelFormat::F16;
    let third = bake_dir(&src, &out, &half, &()).unwrap();
    assert!(matches!(third[1].result, Ok(Outcome::Baked(_))));
    let fourth = bake_dir(&src, &out, &half, &()).unwrap();
    assert!(matches!(fourth[1].result, Ok(Outcome::UpToDate { .. })));

    // A file is not a folder; an empty folder holds no model.
    assert!(bake_dir(&src.join("broken.gltf"), &out, &settings, &()).is_err());
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    let e = bake_dir(&dir.join("empty"), &out, &settings, &()).unwrap_err();
    assert!(matches!(e, PipelineError::EmptyFolder(_)), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
