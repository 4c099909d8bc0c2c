//! The models a mixed crowd's arguments name (`throng render A B …`, the
//! viewer's repeated `--model`): a model file as it is, or a folder — its
//! baked `.throng` files in name order (what `throng bake … --shared-clips
//! -o OUTDIR` writes), else the glTF/GLB files below it as the bake takes
//! them (`throng_pipeline::model_files`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow};
use throng_pipeline::PipelineError;

/// Every model `paths` name, each folder replaced by its models (see the
/// module docs); a folder with none is an error naming it.
pub fn expand(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for path in paths {
        if !path.is_dir() {
            out.push(path.clone());
            continue;
        }
        let baked = baked_in(path)?;
        if !baked.is_empty() {
            out.extend(baked);
            continue;
        }
        // The pipeline refuses a folder with no glTF in it; this one had
        // no .throng either, which its message would not say.
        let sources =
            throng_pipeline::model_files(std::slice::from_ref(path)).map_err(|e| match e {
                PipelineError::EmptyFolder(dir) => {
                    anyhow!(
                        "{}: the folder holds no .throng, .gltf or .glb file",
                        dir.display()
                    )
                }
                e => e.into(),
            })?;
        out.extend(sources);
    }
    Ok(out)
}

/// The `.throng` files directly in `dir`, in name order.
fn baked_in(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry
            .with_context(|| format!("reading {}", dir.display()))?
            .path();
        let baked = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("throng"));
        if baked && path.is_file() {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_give_their_baked_models_else_their_sources() {
        let dir = std::env::temp_dir().join(format!("throng-args-models-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (baked, sources, empty) = (dir.join("baked"), dir.join("sources"), dir.join("empty"));
        for d in [&baked, &sources, &empty] {
            std::fs::create_dir_all(d).unwrap();
        }
        for f in ["b.throng", "a.THRONG", "notes.txt"] {
            std::fs::write(baked.join(f), b"").unwrap();
        }
        std::fs::write(sources.join("x.glb"), b"").unwrap();
        let file = dir.join("one.throng");
        std::fs::write(&file, b"").unwrap();

        let got = expand(&[file.clone(), baked.clone(), sources.clone()]).unwrap();
        assert_eq!(
            got,
            [
                file,
                baked.join("a.THRONG"),
                baked.join("b.throng"),
                sources.join("x.glb")
            ]
        );
        let err = expand(std::slice::from_ref(&empty)).unwrap_err();
        assert!(format!("{err:#}").contains("empty"), "{err:#}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
