//! Small helpers shared by the commands: model loading by extension, the
//! output checks made before any work (`throng_core::fsio`'s), number
//! formatting.

use std::path::Path;

use anyhow::{Context, Result};
use throng_bake::{BakeOptions, BakeReport, ModelKind};
use throng_core::BakedModel;

/// Loads a baked model: reads a `.throng`, or bakes a glTF in memory with
/// default options (the report is returned for glTF only).
pub fn load_baked(path: &Path) -> Result<(BakedModel, Option<BakeReport>)> {
    match ModelKind::of(path)? {
        ModelKind::Throng => {
            let model = throng_core::format::read_file(path)
                .with_context(|| format!("loading {}", path.display()))?;
            Ok((model, None))
        }
        ModelKind::Gltf => {
            let (model, report) = throng_bake::bake_file(path, &BakeOptions::default(), &|_, _| {})
                .with_context(|| format!("baking {}", path.display()))?;
            Ok((model, Some(report)))
        }
    }
}

pub use throng_core::fsio::{check_not_input, check_output};

/// `1234567` → `"1,234,567"`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Human byte size.
pub fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}

/// Writes `text` to standard output. A closed pipe (`throng … | head`) is not
/// an error: the reader has what it wanted.
pub fn write_stdout(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(2048), "2.0 KiB");
    }
}
