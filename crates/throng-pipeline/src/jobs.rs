//! [`plan`]: what a bake of some paths bakes, and where each output goes —
//! a model file, every glTF/GLB under a folder (recursively, in name
//! order), or the files a glob pattern matches (for shells that do not
//! expand it); each output is named before anything is baked, and two
//! inputs that would write the same output are refused by name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use throng_bake::ModelKind;

use crate::error::PipelineError;

type Result<T> = std::result::Result<T, PipelineError>;

/// One model to bake and the file it is baked to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The glTF or GLB.
    pub model: PathBuf,
    /// The `.throng` to write.
    pub output: PathBuf,
}

/// The jobs of one bake.
#[derive(Debug)]
pub struct Plan {
    /// In the order given (a folder's files in name order).
    pub jobs: Vec<Job>,
    /// One model file was named (not a folder or pattern): `-o` names the
    /// output file, and the detailed summary is printed.
    pub single: bool,
}

/// Whether `s` holds glob metacharacters.
fn is_pattern(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// Plans the jobs of `paths`; `output` is the output file for a single
/// model, else the output folder [default: the working directory]. A
/// folder's models keep their place below it in the output folder.
pub fn plan(paths: &[PathBuf], output: Option<&Path>) -> Result<Plan> {
    if paths.is_empty() {
        return Err(PipelineError::NoInputs);
    }
    // One path that is neither a folder nor a pattern is one model (a
    // missing one fails in the bake, with the system's message).
    let pattern = |p: &Path| !p.exists() && p.to_str().is_some_and(is_pattern);
    let single = paths.len() == 1 && !paths[0].is_dir() && !pattern(&paths[0]);
    if single {
        let model = &paths[0];
        if let Ok(ModelKind::Throng) = ModelKind::of(model) {
            return Err(PipelineError::AlreadyBaked(model.display().to_string()));
        }
        let output = match output {
            Some(o) => o.to_path_buf(),
            None => {
                let stem = model
                    .file_stem()
                    .ok_or_else(|| PipelineError::NoFileName(model.clone()))?;
                PathBuf::from(stem).with_extension("throng")
            }
        };
        return Ok(Plan {
            jobs: vec![Job {
                model: model.clone(),
                output,
            }],
            single: true,
        });
    }
    let out_dir = output.map(Path::to_path_buf).unwrap_or_default();
    if out_dir.is_file() {
        return Err(PipelineError::OutputIsFile(out_dir));
    }
    let found = expand(paths)?;
    let mut outputs: BTreeMap<PathBuf, PathBuf> = BTreeMap::new();
    let mut jobs = Vec::with_capacity(found.len());
    for (model, below) in found {
        let output = out_dir.join(below.with_extension("throng"));
        if let Some(first) = outputs.get(&output) {
            if throng_core::fsio::same_file(first, &model) {
                continue; // Named twice (a folder and a file in it): bake once.
            }
            return Err(PipelineError::Collision {
                first: first.clone(),
                second: model,
                output,
            });
        }
        outputs.insert(output.clone(), model.clone());
        jobs.push(Job { model, output });
    }
    Ok(Plan {
        jobs,
        single: false,
    })
}

fn file_name(path: &Path) -> PathBuf {
    path.file_name().map(PathBuf::from).unwrap_or_default()
}

/// The models `paths` name: a model file, every glTF/GLB under a folder
/// (recursively, in name order), or the files a glob pattern matches —
/// the bake's inputs as [`plan`] takes them; for options that take models
/// the same way (`--clips-from`).
pub fn model_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    Ok(expand(paths)?.into_iter().map(|(m, _)| m).collect())
}

/// Each model `paths` name, with its path below the output folder.
fn expand(paths: &[PathBuf]) -> Result<Vec<(PathBuf, PathBuf)>> {
    let mut found: Vec<(PathBuf, PathBuf)> = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut models = Vec::new();
            walk(path, &mut models)?;
            if models.is_empty() {
                return Err(PipelineError::EmptyFolder(path.clone()));
            }
            for m in models {
                let below = m.strip_prefix(path).unwrap_or(&m).to_path_buf();
                found.push((m, below));
            }
        } else if path.is_file() {
            if !matches!(ModelKind::of(path), Ok(ModelKind::Gltf)) {
                return Err(PipelineError::NotAModel(path.clone()));
            }
            found.push((path.clone(), file_name(path)));
        } else if let Some(pattern) = path.to_str().filter(|s| is_pattern(s)) {
            let mut any = false;
            let entries = glob::glob(pattern).map_err(|source| PipelineError::Pattern {
                pattern: pattern.to_owned(),
                source,
            })?;
            for entry in entries {
                let m = entry.map_err(|e| PipelineError::Io {
                    what: "reading, while expanding a pattern,",
                    path: e.path().to_path_buf(),
                    source: e.into(),
                })?;
                if m.is_file() && matches!(ModelKind::of(&m), Ok(ModelKind::Gltf)) {
                    any = true;
                    found.push((m.clone(), file_name(&m)));
                }
            }
            if !any {
                return Err(PipelineError::NoMatch(pattern.to_owned()));
            }
        } else {
            return Err(PipelineError::Missing(path.clone()));
        }
    }
    Ok(found)
}

/// Every `.gltf`/`.glb` below `dir`, in name order, not following symbolic
/// links to folders (no cycles).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .and_then(|entries| entries.collect::<std::io::Result<_>>())
        .map_err(PipelineError::io("reading the folder", dir))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let kind = entry
            .file_type()
            .map_err(PipelineError::io("reading", &path))?;
        if kind.is_dir() {
            walk(&path, out)?;
        } else if path.is_file() && matches!(ModelKind::of(&path), Ok(ModelKind::Gltf)) {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(p: &Path) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, b"{}").unwrap();
    }

    #[test]
    fn folders_keep_their_layout_and_collisions_are_refused() {
        let dir = std::env::temp_dir().join(format!("throng-jobs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        touch(&dir.join("b.glb"));
        touch(&dir.join("a/x.gltf"));
        touch(&dir.join("a/notes.txt"));
        let plan = plan(std::slice::from_ref(&dir), Some(Path::new("out"))).unwrap();
        assert!(!plan.single);
        let outs: Vec<_> = plan.jobs.iter().map(|j| j.output.clone()).collect();
        assert_eq!(
            outs,
            [
                PathBuf::from("out/a/x.throng"),
                PathBuf::from("out/b.throng")
            ]
        );
        // The same stem twice in one output folder.
        touch(&dir.join("c/b.gltf"));
        let e = plan_err(&[dir.join("b.glb"), dir.join("c/b.gltf")]);
        assert!(e.contains("would both be baked to"), "{e}");
        // A pattern.
        let pattern = dir.join("*.glb");
        let p = super::plan(&[pattern], None).unwrap();
        assert_eq!(p.jobs.len(), 1);
        assert_eq!(p.jobs[0].output, PathBuf::from("b.throng"));
        assert!(plan_err(&[dir.join("*.fbx")]).contains("matches no"));
        assert!(plan_err(&[dir.join("missing.glb"), dir.join("b.glb")]).contains("no such file"));
        assert!(plan_err(&[dir.join("a/notes.txt"), dir.join("b.glb")]).contains("not a .gltf"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn plan_err(paths: &[PathBuf]) -> String {
        plan(paths, None).unwrap_err().to_string()
    }
}
