//! Writing output files so that a failure never loses data.
//!
//! Every file Throng writes (`.throng` bakes, PNGs, JSON, the viewer's bake
//! cache) goes through [`write_atomic`] or [`write_atomic_with`]: the bytes go
//! to a temporary file beside the target (`.NAME.tmp-<pid>-<n>`, created
//! exclusively), which is flushed, `sync_all`ed and renamed over the target.
//! A kill, a full disk or an encoder error at any point leaves the old file
//! byte-identical; on an error the temporary file is removed (only a process
//! killed outright can leave one behind, never a truncated target).
//!
//! [`same_file`] tells whether two paths name the same file (device and inode
//! on Unix), so commands can refuse to write over their own input;
//! [`check_output`] and [`check_not_input`] make those refusals before any
//! work.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{OutputError, WriteError};

/// Temporary names tried before giving up on finding a free one.
const TEMP_NAME_ATTEMPTS: u64 = 100;

/// Writes `bytes` to `path` atomically: either the whole new content is in
/// place, or the old file (if any) is untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    write_atomic_with(path, |w| w.write_all(bytes))
}

/// Like [`write_atomic`], with the content produced by `write` (an encoder
/// writing into the file). An error from `write` (map encoder errors with
/// [`io::Error::other`]) aborts the write and leaves the old file untouched.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), WriteError> {
    let fail = |step: &'static str| {
        let path = path.to_path_buf();
        move |source| WriteError { path, step, source }
    };
    let (file, temp) = create_temp(path).map_err(fail("create a temporary file beside it"))?;
    // Removes the temporary file on every early return (and on a panic in
    // `write`) until the rename has succeeded.
    let mut guard = TempGuard(Some(temp));
    let temp = guard.0.as_deref().expect("set above");
    if let Ok(old) = std::fs::metadata(path) {
        // Keep the permissions of the file being replaced.
        let _ = file.set_permissions(old.permissions());
    }
    let mut out = BufWriter::new(file);
    write(&mut out).map_err(fail("write it"))?;
    // The file is closed at the end of this block, before the rename.
    {
        let file = out
            .into_inner()
            .map_err(|e| e.into_error())
            .map_err(fail("write it"))?;
        file.sync_all().map_err(fail("flush it to disk"))?;
    }
    std::fs::rename(temp, path).map_err(fail("rename the temporary file over it"))?;
    guard.0 = None;
    sync_parent(path);
    Ok(())
}

/// Refuses, before any work, an output path that would overwrite one of the
/// `inputs` ([`check_not_input`]) or whose extension is not `extension`
/// (the format written; Throng's tools tell files apart by extension).
pub fn check_output(output: &Path, extension: &str, inputs: &[&Path]) -> Result<(), OutputError> {
    check_not_input(output, inputs)?;
    let ext = output.extension().and_then(|e| e.to_str());
    if !ext.is_some_and(|e| e.eq_ignore_ascii_case(extension)) {
        return Err(OutputError::Extension {
            output: output.to_path_buf(),
            extension: extension.to_owned(),
        });
    }
    Ok(())
}

/// Refuses an output path that names one of `inputs` (by file identity,
/// [`same_file`], not by spelling), an existing directory, or an existing
/// FIFO, device or socket.
pub fn check_not_input(output: &Path, inputs: &[&Path]) -> Result<(), OutputError> {
    if let Some(input) = inputs.iter().find(|i| same_file(output, i)) {
        return Err(OutputError::IsInput {
            output: output.to_path_buf(),
            input: input.to_path_buf(),
        });
    }
    if output.is_dir() {
        return Err(OutputError::IsDirectory(output.to_path_buf()));
    }
    if let Some(kind) = std::fs::metadata(output)
        .ok()
        .as_ref()
        .and_then(crate::input_file::special_kind)
    {
        return Err(OutputError::NotRegular {
            output: output.to_path_buf(),
            kind,
        });
    }
    Ok(())
}

/// True if `a` and `b` name the same existing file (device and inode on
/// Unix, canonical paths elsewhere), however the paths are spelt
/// (`./x/../f.glb`, hard links, symbolic links). A path that does not exist
/// names no file, so the answer is then `false`.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }
}

/// The temporary name for attempt `n` of a write to `path`:
/// `.NAME.tmp-<pid>-<n>` in the same directory, so the rename stays on one
/// file system.
pub fn temp_path(path: &Path, n: u64) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    path.with_file_name(format!(".{name}.tmp-{}-{n}", std::process::id()))
}

/// Creates a fresh temporary file beside `path` (never reusing an existing
/// name).
fn create_temp(path: &Path) -> io::Result<(File, PathBuf)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    if path.file_name().is_none() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the path names no file",
        ));
    }
    let mut last = None;
    for _ in 0..TEMP_NAME_ATTEMPTS {
        let temp = temp_path(path, COUNTER.fetch_add(1, Ordering::Relaxed));
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => return Ok((file, temp)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

/// Makes the rename durable where the platform allows (best effort: the new
/// content is already complete on disk either way).
fn sync_parent(path: &Path) {
    #[cfg(unix)]
    {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// Removes the temporary file it holds when dropped.
struct TempGuard(Option<PathBuf>);

impl Drop for TempGuard {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh, empty directory for one test.
    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("throng-fsio-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// The names in `d` other than `keep`: left-over temporary files.
    fn strays(d: &Path, keep: &str) -> Vec<String> {
        std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != keep)
            .collect()
    }

    const OLD: &[u8] = b"the good old file, which must survive";

    /// Writes half of a new content, then fails with `kind`.
    fn fail_halfway(kind: io::ErrorKind) -> impl FnOnce(&mut dyn Write) -> io::Result<()> {
        move |w| {
            w.write_all(&[7u8; 100_000])?;
            w.flush()?;
            Err(io::Error::new(kind, "simulated failure halfway"))
        }
    }

    #[test]
    fn writes_and_replaces() {
        let d = dir("replace");
        let path = d.join("out.bin");
        write_atomic(&path, b"first").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        write_atomic(&path, b"second, longer").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second, longer");
        assert_eq!(strays(&d, "out.bin"), Vec::<String>::new());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_writer_failing_halfway_leaves_the_old_file_and_no_temporary() {
        let d = dir("halfway");
        let path = d.join("model.throng");
        std::fs::write(&path, OLD).unwrap();
        let e = write_atomic_with(&path, fail_halfway(io::ErrorKind::Other)).unwrap_err();
        assert_eq!(e.path, path);
        assert_eq!(std::fs::read(&path).unwrap(), OLD, "the old file changed");
        assert_eq!(strays(&d, "model.throng"), Vec::<String>::new());
        // The message names the file once and leaves the cause to `source`.
        let msg = e.to_string();
        assert!(msg.contains("model.throng"), "{msg}");
        assert!(!msg.contains("simulated"), "cause repeated: {msg}");
        let cause = std::error::Error::source(&e).unwrap().to_string();
        assert!(cause.contains("simulated failure halfway"), "{cause}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_full_disk_leaves_the_old_file_and_no_temporary() {
        let d = dir("full");
        let path = d.join("shot.png");
        std::fs::write(&path, OLD).unwrap();
        // ENOSPC as the writer sees it.
        let e = write_atomic_with(&path, fail_halfway(io::ErrorKind::StorageFull)).unwrap_err();
        assert_eq!(e.source.kind(), io::ErrorKind::StorageFull);
        assert_eq!(std::fs::read(&path).unwrap(), OLD, "the old file changed");
        assert_eq!(strays(&d, "shot.png"), Vec::<String>::new());
        // A real full device: writing to /dev/full fails with ENOSPC.
        if Path::new("/dev/full").exists() {
            // The same error straight from the OS, mid-write.
            let e = write_atomic_with(&path, |w| {
                w.write_all(&[0u8; 4096])?;
                let mut full = File::options().write(true).open("/dev/full")?;
                full.write_all(&[0u8; 4096])
            })
            .unwrap_err();
            assert_eq!(e.source.kind(), io::ErrorKind::StorageFull);
            assert_eq!(std::fs::read(&path).unwrap(), OLD);
            assert_eq!(strays(&d, "shot.png"), Vec::<String>::new());
        }
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_panicking_writer_leaves_no_temporary() {
        let d = dir("panic");
        let path = d.join("a.json");
        std::fs::write(&path, OLD).unwrap();
        let r = std::panic::catch_unwind(|| {
            let _ = write_atomic_with(&path, |w| {
                w.write_all(b"{")?;
                panic!("encoder bug")
            });
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), OLD);
        assert_eq!(strays(&d, "a.json"), Vec::<String>::new());
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_missing_directory_is_an_error_naming_the_path() {
        let d = dir("nodir");
        let path = d.join("no/such/dir/out.throng");
        let e = write_atomic(&path, b"x").unwrap_err();
        assert_eq!(e.source.kind(), io::ErrorKind::NotFound);
        assert!(e.to_string().contains("out.throng"), "{e}");
        let _ = std::fs::remove_dir_all(&d);
    }

    #[cfg(unix)]
    #[test]
    fn keeps_the_permissions_of_the_replaced_file() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir("perms");
        let path = d.join("x.throng");
        std::fs::write(&path, OLD).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"new").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn same_file_sees_through_spellings() {
        let d = dir("same");
        std::fs::create_dir_all(d.join("a")).unwrap();
        let f = d.join("same.glb");
        std::fs::write(&f, b"glb").unwrap();
        let other = d.join("other.glb");
        std::fs::write(&other, b"glb").unwrap();
        assert!(same_file(&f, &d.join("a/../same.glb")));
        assert!(!same_file(&f, &other), "same content is not the same file");
        assert!(!same_file(&f, &d.join("missing.glb")));
        #[cfg(unix)]
        {
            std::fs::hard_link(&f, d.join("link.glb")).unwrap();
            assert!(same_file(&f, &d.join("link.glb")));
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
