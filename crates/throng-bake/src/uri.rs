//! Resolving and reading the external files a glTF names (buffer and image
//! URIs) under Throng's untrusted-input policy.
//!
//! A model file is untrusted input: it must not make the baker read — and
//! embed in a `.throng` — a file outside the model's folder, nor hang on a
//! FIFO or run out of memory on `/dev/zero`. So:
//!
//! 1. `data:` URIs (base64) are decoded in memory. Any other scheme
//!    (`file:`, `http:`, a drive letter such as `C:`) is refused.
//! 2. A relative reference is percent-decoded and split at `/` and `\`; an
//!    absolute path or a `..` segment is refused before the disk is touched.
//! 3. The joined path is canonicalised (symbolic links followed) and must
//!    stay under the canonical model folder.
//! 4. The final file must be a regular file (not a FIFO, device, socket or
//!    directory), and at most a caller-given number of bytes is read from it.
//!
//! [`crate::import::ImportOptions::allow_outside_uris`] lifts rules 2 and 3
//! and accepts `file:` URIs (for trusted files that share data with
//! siblings); rule 4 always holds.

use std::path::{Component, Path, PathBuf};

use base64::Engine as _;

/// Why a URI gave no bytes.
#[derive(Debug)]
pub(crate) enum UriError {
    /// The policy refuses the URI, or it names something that is not a
    /// regular file: always an error, whatever the URI is for.
    Refused(String),
    /// The file is missing or could not be read.
    Unreadable(String),
    /// The file has `len` bytes, more than the `limit` of a
    /// [`Longer::Refuse`] read.
    TooLong {
        /// Bytes in the file (or decoded data URI).
        len: u64,
        /// The limit.
        limit: u64,
    },
}

/// What [`UriReader::read`] does with a file longer than its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Longer {
    /// Read the first `limit` bytes (a buffer: glTF allows padding).
    Truncate,
    /// Refuse it, without reading it (an image).
    Refuse,
}

/// Reads URIs relative to a model's folder.
pub(crate) struct UriReader<'a> {
    base: Option<&'a Path>,
    allow_outside: bool,
}

/// The hint appended to refusals that the opt-in would lift.
const OPT_IN: &str = "only files inside the model's folder are read (a trusted model may lift this with --allow-outside-uris)";

impl<'a> UriReader<'a> {
    /// A reader for URIs relative to `base` (`None`: only `data:` URIs).
    pub fn new(base: Option<&'a Path>, allow_outside: bool) -> Self {
        Self {
            base,
            allow_outside,
        }
    }

    /// Reads at most `limit` bytes of what `uri` names.
    pub fn read(&self, uri: &str, limit: u64, longer: Longer) -> Result<Vec<u8>, UriError> {
        if let Some(rest) = uri.strip_prefix("data:") {
            let mut bytes = decode_data_uri(rest).map_err(UriError::Unreadable)?;
            check_length(bytes.len() as u64, limit, longer)?;
            bytes.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
            return Ok(bytes);
        }
        let path = self.resolve(uri)?;
        read_regular_file(&path, limit, longer)
    }

    /// The path `uri` names, checked against the policy (rules 1 to 3).
    pub fn resolve(&self, uri: &str) -> Result<PathBuf, UriError> {
        let (decoded, is_file_uri) = match scheme(uri) {
            Some(s) if s.eq_ignore_ascii_case("file") && self.allow_outside => {
                (percent_decode(file_uri_path(uri)), true)
            }
            Some(s) if s.len() == 1 => {
                return Err(UriError::Refused(format!(
                    "is an absolute Windows path (drive {s}:); {OPT_IN}"
                )));
            }
            Some(s) if s.eq_ignore_ascii_case("file") => {
                return Err(UriError::Refused(format!(
                    "is a file: URI (an absolute path); {OPT_IN}"
                )));
            }
            Some(s) => {
                return Err(UriError::Refused(format!(
                    "has the URI scheme {s:?}; only relative references and data: URIs are read"
                )));
            }
            None => (percent_decode(uri), false),
        };
        if decoded.contains('\0') {
            return Err(UriError::Refused("contains a NUL byte".into()));
        }
        if !self.allow_outside {
            check_relative(&decoded)?;
        }
        let base = match self.base {
            Some(b) if b.as_os_str().is_empty() => Path::new("."),
            Some(b) => b,
            None if is_file_uri => Path::new("."),
            None => {
                return Err(UriError::Unreadable(
                    "is an external file, but there is no model folder to resolve it in (only data: URIs can be read)"
                        .into(),
                ));
            }
        };
        let joined = base.join(&decoded);
        let canonical = joined
            .canonicalize()
            .map_err(|e| UriError::Unreadable(format!("cannot read {}: {e}", joined.display())))?;
        if !self.allow_outside {
            let root = base.canonicalize().map_err(|e| {
                UriError::Unreadable(format!(
                    "cannot resolve the model's folder {}: {e}",
                    base.display()
                ))
            })?;
            if !canonical.starts_with(&root) {
                return Err(UriError::Refused(format!(
                    "resolves (through a symbolic link) to {}, outside the model's folder {}; {OPT_IN}",
                    canonical.display(),
                    root.display()
                )));
            }
        }
        Ok(canonical)
    }
}

/// `uri` as shown in a message: a `data:` URI cut to its first 40
/// characters.
pub(crate) fn shown_uri(uri: &str) -> String {
    const SHOWN: usize = 40;
    match uri.char_indices().nth(SHOWN) {
        Some((end, _)) if uri.starts_with("data:") => format!("{}…", &uri[..end]),
        _ => uri.to_owned(),
    }
}

/// The scheme of `uri` (RFC 3986: a letter, then letters, digits, `+`, `-`,
/// `.`, then `:`), if it has one. A drive letter (`C:\…`) reads as a
/// one-letter scheme.
fn scheme(uri: &str) -> Option<&str> {
    let (s, _) = uri.split_once(':')?;
    let mut chars = s.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(s)
}

/// The path part of a `file:` URI: `file:///p` and `file://localhost/p` give
/// `/p`; `file:p` gives `p`.
fn file_uri_path(uri: &str) -> &str {
    let rest = &uri["file:".len()..];
    match rest.strip_prefix("//") {
        Some(r) => {
            let r = r.strip_prefix("localhost").unwrap_or(r);
            if r.starts_with('/') { r } else { rest }
        }
        None => rest,
    }
}

/// Rule 2: a relative path that cannot climb out of its folder.
fn check_relative(decoded: &str) -> Result<(), UriError> {
    if decoded.starts_with(['/', '\\']) || Path::new(decoded).has_root() {
        return Err(UriError::Refused(format!("is an absolute path; {OPT_IN}")));
    }
    let mut first = true;
    for segment in decoded.split(['/', '\\']) {
        if segment == ".." {
            return Err(UriError::Refused(format!(
                "has a \"..\" segment, which leaves the model's folder; {OPT_IN}"
            )));
        }
        if first && segment.len() == 2 && segment.ends_with(':') {
            return Err(UriError::Refused(format!(
                "is an absolute Windows path (drive {segment}); {OPT_IN}"
            )));
        }
        first = false;
    }
    // What the platform itself sees (e.g. a Windows prefix).
    if Path::new(decoded)
        .components()
        .any(|c| matches!(c, Component::Prefix(_) | Component::RootDir))
    {
        return Err(UriError::Refused(format!("is an absolute path; {OPT_IN}")));
    }
    Ok(())
}

/// Rule 4: reads at most `limit` bytes of `path` if it is a regular file,
/// through [`throng_core::input_file`] (the kind checked before opening and
/// on the open file, which never blocks).
fn read_regular_file(path: &Path, limit: u64, longer: Longer) -> Result<Vec<u8>, UriError> {
    use throng_core::InputError;
    let read = match longer {
        Longer::Refuse => throng_core::input_file::read(path, limit),
        Longer::Truncate => throng_core::input_file::read_prefix(path, limit),
    };
    read.map_err(|e| match e {
        InputError::NotRegular { path, kind } => UriError::Refused(format!(
            "names {}, which is {kind}, not a regular file",
            path.display()
        )),
        InputError::TooLarge { len, limit, .. } => UriError::TooLong { len, limit },
        InputError::Io { path, source } => {
            UriError::Unreadable(format!("cannot read {}: {source}", path.display()))
        }
    })
}

/// Refuses `len` bytes over `limit` if `longer` says so.
fn check_length(len: u64, limit: u64, longer: Longer) -> Result<(), UriError> {
    if longer == Longer::Refuse && len > limit {
        return Err(UriError::TooLong { len, limit });
    }
    Ok(())
}

/// Decodes what follows `data:` (only base64 payloads).
fn decode_data_uri(rest: &str) -> Result<Vec<u8>, String> {
    let (meta, payload) = rest.split_once(',').ok_or("data URI without ','")?;
    if !meta.ends_with(";base64") {
        return Err("data URI is not base64-encoded".into());
    }
    base64::engine::general_purpose::STANDARD
        .decode(payload.trim())
        .map_err(|e| format!("bad base64 in data URI: {e}"))
}

/// Decodes `%XX` escapes; anything else is kept as is.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Some(v) = std::str::from_utf8(&b[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(uri: &str) -> String {
        match UriReader::new(Some(Path::new(".")), false).resolve(uri) {
            Err(UriError::Refused(m)) => m,
            Err(UriError::Unreadable(m)) => panic!("{uri:?}: unreadable, not refused: {m}"),
            Err(UriError::TooLong { .. }) => panic!("{uri:?}: too long, not refused"),
            Ok(p) => panic!("{uri:?}: resolved to {}", p.display()),
        }
    }

    #[test]
    fn escapes_are_refused_before_touching_the_disk() {
        for (uri, why) in [
            ("/etc/passwd", "absolute"),
            ("\\etc\\passwd", "absolute"),
            ("file:///etc/passwd", "file: URI"),
            ("FILE:///etc/passwd", "file: URI"),
            ("C:\\Windows\\win.ini", "drive C:"),
            ("c:/x.bin", "drive c:"),
            ("C%3A%5Cx.bin", "drive C:"),
            ("../x.bin", "\"..\""),
            ("a/../../x.bin", "\"..\""),
            ("a\\..\\..\\x.bin", "\"..\""),
            ("%2e%2e%2fx.bin", "\"..\""),
            ("%2E%2E/x.bin", "\"..\""),
            ("%2fetc%2fpasswd", "absolute"),
            ("http://example.invalid/x.bin", "scheme \"http\""),
            ("a%00b", "NUL"),
        ] {
            let msg = refused(uri);
            println!("{uri}: {msg}");
            assert!(msg.contains(why), "{uri:?}: {msg:?} should say {why:?}");
        }
    }

    #[test]
    fn relative_references_are_not_schemes() {
        assert_eq!(scheme("a/b:c"), None);
        assert_eq!(scheme("dir/x.bin"), None);
        assert_eq!(scheme("1a:b"), None);
        assert_eq!(scheme("data:x"), Some("data"));
        assert_eq!(file_uri_path("file:///a/b"), "/a/b");
        assert_eq!(file_uri_path("file://localhost/a/b"), "/a/b");
        assert_eq!(file_uri_path("file:a/b"), "a/b");
        assert_eq!(percent_decode("a%20b%2"), "a b%2");
    }
}
