//! The one checked way onto the disk for what Throng reads.
//!
//! Every file the bake, the provenance hash, the up-to-date check, the
//! `.throng` reader and the viewer's cache open goes through [`open`] (or
//! its readers [`read`] and [`read_prefix`]):
//!
//! 1. Only regular files are opened. The kind is checked before opening
//!    (opening a FIFO for reading blocks until a writer comes; a device such
//!    as `/dev/zero` never ends), and again on the open file, which is opened
//!    non-blocking on Unix so that a FIFO swapped in between the two checks
//!    cannot block either. A FIFO, character or block device, socket or
//!    directory is refused by name ([`InputError::NotRegular`]).
//! 2. The size is capped before any byte is read: a file longer than the
//!    caller's limit is refused ([`read`]) or read only up to it
//!    ([`read_prefix`], for glTF buffers, which may be padded). Reading stops
//!    one byte past the limit however the file grows meanwhile.
//!
//! Which folder a file may be in is the caller's policy (a glTF's URIs stay
//! inside the model's folder unless the user lifts it: `throng_bake`'s `uri`
//! module), applied to the path before it comes here.

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

use crate::error::InputError;

/// An open regular file and its length when opened.
#[derive(Debug)]
pub struct InputFile {
    /// The file, opened for reading.
    pub file: File,
    /// Its length in bytes (at most the limit it was opened with).
    pub len: u64,
}

/// What a file system object is, in words, when it is not a regular file.
pub fn special_kind(meta: &Metadata) -> Option<&'static str> {
    let ty = meta.file_type();
    if ty.is_file() {
        return None;
    }
    if ty.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if ty.is_fifo() {
            return Some("a FIFO");
        }
        if ty.is_char_device() {
            return Some("a character device");
        }
        if ty.is_block_device() {
            return Some("a block device");
        }
        if ty.is_socket() {
            return Some("a socket");
        }
    }
    Some("a special file")
}

/// Refuses what is not a regular file.
fn check_regular(path: &Path, meta: &Metadata) -> Result<(), InputError> {
    match special_kind(meta) {
        None => Ok(()),
        Some(kind) => Err(InputError::NotRegular {
            path: path.to_path_buf(),
            kind,
        }),
    }
}

/// Opens `path` for reading if it is a regular file of at most `limit`
/// bytes (rule 1 and the first half of rule 2).
pub fn open(path: &Path, limit: u64) -> Result<InputFile, InputError> {
    let file = open_regular(path)?;
    let len = file_len(path, &file)?;
    if len > limit {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            len,
            limit,
        });
    }
    Ok(InputFile { file, len })
}

/// The whole of `path`, a regular file of at most `limit` bytes.
pub fn read(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    let InputFile { file, len } = open(path, limit)?;
    let bytes = read_up_to(path, file, len, limit)?;
    if bytes.len() as u64 > limit {
        return Err(InputError::TooLarge {
            path: path.to_path_buf(),
            len: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// The first `limit` bytes of `path`, a regular file of any length.
pub fn read_prefix(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    let file = open_regular(path)?;
    let len = file_len(path, &file)?;
    let mut bytes = read_up_to(path, file, len, limit)?;
    bytes.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    Ok(bytes)
}

/// The whole of `path` as UTF-8 text, a regular file of at most `limit`
/// bytes.
pub fn read_text(path: &Path, limit: u64) -> Result<String, InputError> {
    String::from_utf8(read(path, limit)?).map_err(|e| InputError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, e.utf8_error()),
    })
}

/// Reads at most `limit + 1` bytes (one more tells a file that grew).
fn read_up_to(path: &Path, file: File, len: u64, limit: u64) -> Result<Vec<u8>, InputError> {
    let mut bytes = Vec::with_capacity(usize::try_from(len.min(limit)).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| InputError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(bytes)
}

fn file_len(path: &Path, file: &File) -> Result<u64, InputError> {
    let meta = file.metadata().map_err(|source| InputError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    check_regular(path, &meta)?;
    Ok(meta.len())
}

/// Opens `path` if it is a regular file: its kind checked before opening and
/// on the open file (see the module's rule 1).
fn open_regular(path: &Path) -> Result<File, InputError> {
    let io = |source| InputError::Io {
        path: path.to_path_buf(),
        source,
    };
    check_regular(path, &std::fs::metadata(path).map_err(io)?)?;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(io)?;
    check_regular(path, &file.metadata().map_err(io)?)?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("throng-input-file-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn regular_files_are_read_within_their_limit() {
        let dir = scratch("regular");
        let path = dir.join("a.bin");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read(&path, 10).unwrap(), b"0123456789");
        assert_eq!(read_prefix(&path, 4).unwrap(), b"0123");
        assert_eq!(read_prefix(&path, 40).unwrap(), b"0123456789");
        let e = read(&path, 9).unwrap_err();
        assert!(
            matches!(
                e,
                InputError::TooLarge {
                    len: 10,
                    limit: 9,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = read(&dir.join("missing"), 9).unwrap_err();
        assert!(
            e.to_string().contains("missing") && matches!(e, InputError::Io { .. }),
            "{e}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// Every special kind this machine can make is refused by name, and none
    /// blocks (a FIFO without a writer would, if it were opened for
    /// reading the plain way).
    #[cfg(unix)]
    #[test]
    fn special_files_are_refused_by_name_without_blocking() {
        let dir = scratch("special");
        let fifo = dir.join("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(status.success());
        let socket = dir.join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let cases: [(&Path, &str); 4] = [
            (&fifo, "a FIFO"),
            (&socket, "a socket"),
            (&dir, "a directory"),
            (Path::new("/dev/zero"), "a character device"),
        ];
        for (path, kind) in cases {
            for (reader, result) in [
                ("open", open(path, 1 << 20).map(|_| ())),
                ("read", read(path, 1 << 20).map(|_| ())),
                ("read_prefix", read_prefix(path, 1 << 20).map(|_| ())),
            ] {
                let e = result.expect_err(kind);
                let text = e.to_string();
                println!("{reader} {}: {text}", path.display());
                assert!(
                    matches!(e, InputError::NotRegular { kind: k, .. } if k == kind),
                    "{reader} {}: {text} (expected {kind})",
                    path.display()
                );
                assert!(text.contains(kind) && text.contains("not a regular file"));
            }
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
