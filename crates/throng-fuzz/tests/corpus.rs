//! CPU-only: every committed seed and every regression input of each fuzz
//! target (`fuzz/seeds/TARGET/`, `fuzz/regressions/TARGET/`) runs through
//! the target's body without a panic, and every seed not named `reject_*`
//! is accepted (reaches past the parser into use), so the seeds keep the
//! fuzzer's start deep. Regressions are the inputs that once crashed a
//! target; each is named after what it found.

use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut files = Vec::new();
    for dir in ["seeds", "regressions"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir).join(target)) else {
            continue;
        };
        files.extend(entries.map(|e| e.expect("a readable folder").path()));
    }
    files.sort();
    files
}

#[test]
fn every_seed_and_regression_runs_clean() {
    let mut ran = Vec::new();
    for (name, body) in throng_fuzz::TARGETS {
        let files = inputs(name);
        assert!(!files.is_empty(), "target {name} has no seeds");
        for f in &files {
            let data = std::fs::read(f).expect("a readable input");
            let caught = std::panic::catch_unwind(|| body(&data));
            let Ok(accepted) = caught else {
                panic!("target {name} panicked on {}", f.display());
            };
            let seed = f
                .parent()
                .is_some_and(|d| d.ends_with(Path::new("seeds").join(name)));
            let reject = f
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("reject_"));
            if seed {
                assert_eq!(
                    accepted,
                    !reject,
                    "target {name}: seed {} was {}",
                    f.display(),
                    if accepted { "accepted" } else { "refused" }
                );
            }
        }
        ran.push(format!("{name}: {}", files.len()));
    }
    println!("inputs per target: {}", ran.join(", "));
}
