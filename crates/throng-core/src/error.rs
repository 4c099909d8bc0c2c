//! Error types of the core crate. Every message says what was wrong and where.
//!
//! A variant that wraps a cause either prints it or returns it as its
//! `source`, never both: the binaries print the whole chain (`{:#}` of
//! `anyhow`, or [`Chain`]), so a cause in both places would show twice.

use std::path::PathBuf;

use thiserror::Error;

/// An output file could not be written (see [`crate::fsio`]); the old file,
/// if any, is untouched.
#[derive(Debug, Error)]
#[error("{}: cannot {step}", path.display())]
pub struct WriteError {
    /// The file that was to be written.
    pub path: PathBuf,
    /// What failed: creating the temporary file, writing, syncing, renaming.
    pub step: &'static str,
    /// Cause.
    #[source]
    pub source: std::io::Error,
}

/// A file Throng reads could not be opened or read
/// ([`crate::input_file`]).
#[derive(Debug, Error)]
pub enum InputError {
    /// It is not a regular file: a FIFO, device, socket or directory, which
    /// could block, never end or hold no data.
    #[error("{}: is {kind}, not a regular file", path.display())]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is, in words (`"a FIFO"`, `"a directory"`, …).
        kind: &'static str,
    },
    /// It is larger than what its reader accepts.
    #[error("{}: is {len} bytes, more than the {limit}-byte limit", path.display())]
    TooLarge {
        /// The path.
        path: PathBuf,
        /// Its length.
        len: u64,
        /// The limit.
        limit: u64,
    },
    /// The file system said no (missing, unreadable, not UTF-8 text).
    #[error("cannot read {}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// Cause.
        #[source]
        source: std::io::Error,
    },
}

impl InputError {
    /// The failure in a few stable words, without the path: what an input
    /// hash records of a file it could not read (`missing`, `a FIFO`, …).
    pub fn reason(&self) -> String {
        match self {
            InputError::NotRegular { kind, .. } => format!("not a regular file: {kind}"),
            InputError::TooLarge { len, .. } => format!("too large: {len} bytes"),
            InputError::Io { source, .. } => format!("{:?}", source.kind()),
        }
    }
}

/// Why an output path is refused before any work ([`crate::fsio::check_output`]).
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The output is one of the command's inputs (the same file, however
    /// spelt).
    #[error(
        "the output {} is the input {} (the same file); refusing to overwrite an input, choose another output path",
        output.display(),
        input.display()
    )]
    IsInput {
        /// The output path.
        output: PathBuf,
        /// The input it names.
        input: PathBuf,
    },
    /// The output is an existing directory.
    #[error("the output {} is a directory", .0.display())]
    IsDirectory(PathBuf),
    /// The output exists and is neither a regular file nor a directory: a
    /// FIFO, device or socket, which a write would replace (or block on).
    #[error(
        "the output {} is {kind}, not a regular file; remove it or choose another output path",
        output.display()
    )]
    NotRegular {
        /// The output path.
        output: PathBuf,
        /// What it is, in words.
        kind: &'static str,
    },
    /// The output's extension is not the format written.
    #[error(
        "{}: this command writes a .{extension} file, and Throng tells files apart by their extension; name the output *.{extension}",
        output.display()
    )]
    Extension {
        /// The output path.
        output: PathBuf,
        /// The extension of the format written.
        extension: String,
    },
}

/// Displays an error and its chain of sources, `outer: cause: root cause`,
/// each message once (what `anyhow` prints with `{:#}`).
pub struct Chain<'a>(pub &'a (dyn std::error::Error + 'static));

impl std::fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)?;
        let mut next = self.0.source();
        while let Some(e) = next {
            write!(f, ": {e}")?;
            next = e.source();
        }
        Ok(())
    }
}

/// A `.throng` file could not be read or written.
#[derive(Debug, Error)]
pub enum FormatError {
    /// The file could not be read.
    #[error("cannot read {path}")]
    Io {
        /// File path.
        path: String,
        /// Cause.
        #[source]
        source: std::io::Error,
    },
    /// The file does not start with the `.throng` magic bytes.
    #[error("not a .throng file (bad magic bytes {found:02x?})")]
    BadMagic {
        /// The first bytes found.
        found: Vec<u8>,
    },
    /// The file's format version is not the one this build reads.
    #[error(
        "unsupported .throng format version {found} (this build reads version {supported}); re-bake the model with `throng bake`"
    )]
    UnsupportedVersion {
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        supported: u32,
    },
    /// The file is shorter than its header says.
    #[error("truncated file: {what} needs {needed} bytes, the file has {len}")]
    Truncated {
        /// What was being read.
        what: String,
        /// Bytes needed.
        needed: u64,
        /// Bytes available.
        len: u64,
    },
    /// The stored checksum does not match the content.
    #[error(
        "checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): the file is corrupted"
    )]
    Checksum {
        /// Stored CRC32.
        stored: u32,
        /// Computed CRC32.
        computed: u32,
    },
    /// A structural rule of the format was broken.
    #[error("corrupt file: {0}")]
    Corrupt(String),
    /// The model itself is inconsistent (after the structure parsed).
    #[error("invalid model: {0}")]
    Invalid(String),
    /// The model's frames are in a frames file beside it
    /// (`crate::format::frames`), and only the model's bytes were given.
    #[error(
        "the model's frames are in the frames file {file} beside it: read the model from its path, or give both files' bytes (read_model_with_frames)"
    )]
    FramesElsewhere {
        /// The frames file's name.
        file: String,
    },
    /// The file could not be opened as an input (not a regular file, over
    /// the size limit, missing).
    #[error(transparent)]
    Input(#[from] InputError),
    /// The file could not be written (the old one is untouched).
    #[error(transparent)]
    Write(#[from] WriteError),
}

impl FormatError {
    /// Shorthand for [`FormatError::Corrupt`].
    pub(crate) fn corrupt(msg: impl Into<String>) -> Self {
        Self::Corrupt(msg.into())
    }
}
