//! Loading the model to show: a `.throng` as is, a glTF baked once and
//! cached.
//!
//! A glTF's bake is kept under the cache directory (by default
//! `target/throng-cache/` of the build that made the binary) as
//! `<stem>-<hash of the source path, the bake options and the format
//! version>.throng`. It is rebuilt when it is
//! missing, older than its source, or fails to load (a newer format version,
//! a truncated write). Writes go to a temporary file renamed into place, so
//! two viewers starting at once never read half a file. A cache that cannot
//! be written is not an error: the model is used from memory. Something
//! other than a regular file at the cache's path (a FIFO, socket, device,
//! directory) is neither read — every read goes through
//! [`throng_core::input_file`] — nor replaced.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result};
use throng_bake::{BakeOptions, ModelKind};
use throng_core::BakedModel;

/// Environment variable naming the cache directory.
pub const CACHE_DIR_ENV: &str = "THRONG_CACHE_DIR";

/// The bundled default model, relative to the repository root.
pub const DEFAULT_MODEL: &str = "assets/khronos_Fox.glb";

/// How the model was obtained.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Read from the `.throng` given.
    File,
    /// Read from a fresh cached bake.
    Cache(PathBuf),
    /// Baked now (and cached there, if the path is given).
    Baked(Option<PathBuf>),
}

impl Origin {
    /// A few words for the HUD (no paths).
    pub fn short(&self) -> &'static str {
        match self {
            Origin::File => "from file",
            Origin::Cache(_) => "cached bake",
            Origin::Baked(_) => "baked now",
        }
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::File => write!(f, "file"),
            Origin::Cache(p) => write!(f, "cached bake {}", p.display()),
            Origin::Baked(Some(p)) => write!(f, "baked now, cached as {}", p.display()),
            Origin::Baked(None) => write!(f, "baked now (not cached)"),
        }
    }
}

/// The repository root this binary was built from.
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The bundled default model: in the repository the binary was built from,
/// else under the working directory.
pub fn default_model_path() -> Result<PathBuf> {
    let candidates = [
        repo_root().join(DEFAULT_MODEL),
        PathBuf::from(DEFAULT_MODEL),
    ];
    candidates
        .iter()
        .find(|p| p.is_file())
        .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
        .with_context(|| {
            format!(
                "the default model {DEFAULT_MODEL} is not at {} nor under the working directory; \
                 pass --model PATH",
                candidates[0].display()
            )
        })
}

/// The cache directory: `$THRONG_CACHE_DIR`, else `throng-cache/` in the
/// cargo target directory holding this binary, else in the repository's
/// `target/`, else in the system's temporary directory.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os(CACHE_DIR_ENV).filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let target = std::env::current_exe().ok().and_then(|exe| {
        exe.ancestors()
            .skip(1)
            .find(|d| d.join("CACHEDIR.TAG").is_file())
            .map(Path::to_path_buf)
    });
    let repo_target = repo_root().join("target");
    target
        .or_else(|| repo_target.is_dir().then_some(repo_target))
        .unwrap_or_else(std::env::temp_dir)
        .join("throng-cache")
}

/// FNV-1a, a stable hash for cache names.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The options the viewer bakes with, the default chain's
/// ([`throng_pipeline::Settings::default`]): two simplified LODs, so that a
/// big crowd shows level of detail (L colours instances by LOD); the
/// default impostor is added after the bake ([`IMPOSTOR`]).
pub fn bake_options() -> BakeOptions {
    throng_pipeline::Settings::default().opts
}

/// Where the bake of `source` is cached in `dir`.
pub fn cache_path(dir: &Path, source: &Path) -> PathBuf {
    let absolute = source
        .canonicalize()
        .unwrap_or_else(|_| source.to_path_buf());
    let stem = source
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model".into());
    // A change of options or of the format version makes a new cache name.
    let key = format!(
        "{}|{:?}|{IMPOSTOR}|v{}",
        absolute.to_string_lossy(),
        bake_options(),
        throng_core::format::VERSION
    );
    let hash = fnv1a(key.as_bytes());
    dir.join(format!("{stem}-{hash:016x}.throng"))
}

/// True if a cache written at `cached` is at least as new as its source
/// modified at `source`.
pub fn is_fresh(source: SystemTime, cached: SystemTime) -> bool {
    cached >= source
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Loads the model at `path`: a `.throng` directly, a glTF through the cache
/// in `cache_dir` (baking with default options when the cache is stale).
/// `log` receives one line per step taken.
pub fn load_model(
    path: &Path,
    cache_dir: &Path,
    log: &mut dyn FnMut(&str),
) -> Result<(BakedModel, Origin)> {
    match ModelKind::of(path)? {
        ModelKind::Throng => {
            let model = throng_core::format::read_file(path)
                .with_context(|| format!("loading {}", path.display()))?;
            Ok((model, Origin::File))
        }
        ModelKind::Gltf => load_gltf(path, cache_dir, log),
    }
}

fn load_gltf(
    path: &Path,
    cache_dir: &Path,
    log: &mut dyn FnMut(&str),
) -> Result<(BakedModel, Origin)> {
    let source_time = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .with_context(|| format!("cannot read {}", path.display()))?;
    let cached = cache_path(cache_dir, path);
    match modified(&cached) {
        Some(t) if is_fresh(source_time, t) => match throng_core::format::read_file(&cached) {
            Ok(model) => return Ok((model, Origin::Cache(cached))),
            Err(e) => log(&format!(
                "cached bake {} does not load ({}); baking again",
                cached.display(),
                throng_core::error::Chain(&e)
            )),
        },
        Some(_) => log(&format!(
            "{} changed since it was cached; baking again",
            path.display()
        )),
        None => {}
    }
    log(&format!("baking {} …", path.display()));
    let (model, report) = throng_bake::bake_file(path, &bake_options(), &|_, _| {})
        .with_context(|| format!("baking {}", path.display()))?;
    for w in &report.warnings {
        log(&format!("bake warning: {w}"));
    }
    let model = add_impostor(model, log);
    match write_atomically(&model, &cached) {
        Ok(()) => Ok((model, Origin::Baked(Some(cached)))),
        Err(e) => {
            log(&format!("not caching the bake: {e:#}"));
            Ok((model, Origin::Baked(None)))
        }
    }
}

/// What the viewer's bakes end in (part of the cache name): the default
/// impostor, as a plain `throng bake` makes it.
const IMPOSTOR: &str = "default impostor";

/// `model` with the default impostor captured on a headless adapter, or as
/// it is (logged) where that fails or it has no clips.
fn add_impostor(model: BakedModel, log: &mut dyn FnMut(&str)) -> BakedModel {
    if model.clips.is_empty() {
        return model;
    }
    log("capturing the impostor …");
    let i = throng_pipeline::ImpostorSettings::default();
    match throng_impostor::with_impostor(model.clone(), i.budget, i.request, i.screen_size) {
        Ok(with) => with,
        Err(e) => {
            log(&format!(
                "no impostor ({}); the far LOD stays a mesh",
                throng_core::error::Chain(&e)
            ));
            model
        }
    }
}

/// Writes `model` to `path` through a temporary file in the same directory
/// ([`throng_core::fsio`]).
fn write_atomically(model: &BakedModel, path: &Path) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    throng_core::fsio::check_not_input(path, &[])?;
    Ok(throng_core::format::write_file(model, path)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("throng-viewer-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn cache_names() {
        let dir = Path::new("/cache");
        let a = cache_path(dir, Path::new("/one/Fox.glb"));
        let b = cache_path(dir, Path::new("/two/Fox.glb"));
        assert_ne!(a, b, "same name, different sources");
        assert!(a.file_name().unwrap().to_string_lossy().starts_with("Fox-"));
        assert_eq!(a.extension().unwrap(), "throng");
    }

    #[test]
    fn freshness() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1000);
        assert!(is_fresh(t, t));
        assert!(is_fresh(t, t + Duration::from_secs(1)));
        assert!(!is_fresh(t + Duration::from_secs(1), t));
    }

    #[test]
    fn bakes_once_then_reads_the_cache_and_rebakes_a_broken_one() {
        let dir = temp_dir("cache");
        let source = repo_root().join("assets/khronos_RiggedSimple.glb");
        let mut lines = Vec::new();
        let (first, origin) = load_model(&source, &dir, &mut |l| lines.push(l.to_owned())).unwrap();
        let Origin::Baked(Some(cached)) = origin else {
            panic!("first load bakes and caches: {origin:?}")
        };
        assert!(cached.is_file());
        let (second, origin) = load_model(&source, &dir, &mut |_| {}).unwrap();
        assert_eq!(origin, Origin::Cache(cached.clone()));
        assert_eq!(first.clips.len(), second.clips.len());
        // A corrupt cache (as after a format change) is baked again.
        std::fs::write(&cached, b"not a throng file").unwrap();
        lines.clear();
        let (_, origin) = load_model(&source, &dir, &mut |l| lines.push(l.to_owned())).unwrap();
        assert_eq!(origin, Origin::Baked(Some(cached.clone())));
        assert!(
            lines.iter().any(|l| l.contains("does not load")),
            "{lines:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A FIFO, socket, directory or device where the cache's file should
    /// be: the viewer neither blocks on it nor replaces it, and shows the
    /// model baked now.
    #[cfg(unix)]
    #[test]
    fn special_files_at_the_cache_path_are_neither_read_nor_replaced() {
        let source = repo_root().join("assets/khronos_SimpleSkin.gltf");
        for kind in ["a FIFO", "a socket", "a directory", "a character device"] {
            let dir = temp_dir(&format!("special-{}", kind.replace(' ', "-")));
            let cached = cache_path(&dir, &source);
            let _listener;
            match kind {
                "a FIFO" => {
                    let ok = std::process::Command::new("mkfifo")
                        .arg(&cached)
                        .status()
                        .unwrap();
                    assert!(ok.success());
                }
                "a socket" => {
                    _listener = std::os::unix::net::UnixListener::bind(&cached).unwrap();
                }
                "a directory" => std::fs::create_dir(&cached).unwrap(),
                _ => std::os::unix::fs::symlink("/dev/zero", &cached).unwrap(),
            }
            let mut lines = Vec::new();
            let (model, origin) =
                load_model(&source, &dir, &mut |l| lines.push(l.to_owned())).unwrap();
            assert_eq!(origin, Origin::Baked(None), "{kind}: {lines:?}");
            assert!(!model.clips.is_empty());
            assert!(
                lines
                    .iter()
                    .any(|l| l.contains("not caching") && l.contains(kind)),
                "{kind}: {lines:?}"
            );
            let still = std::fs::symlink_metadata(&cached).unwrap().file_type();
            assert!(!still.is_file(), "{kind}: replaced by a file");
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    #[test]
    fn missing_and_broken_models_are_errors_with_the_path() {
        let dir = temp_dir("missing");
        let e = load_model(&dir.join("nope.glb"), &dir, &mut |_| {}).unwrap_err();
        assert!(format!("{e:#}").contains("nope.glb"), "{e:#}");
        let bad = dir.join("bad.throng");
        std::fs::write(&bad, b"garbage").unwrap();
        let e = load_model(&bad, &dir, &mut |_| {}).unwrap_err();
        assert!(format!("{e:#}").contains("bad.throng"), "{e:#}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
