//! Small helpers shared by the commands: model loading by extension, output
//! checks made before any work, number formatting.

use std::path::Path;

use anyhow::{Context, Result, bail};
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

/// Refuses, before any work, an output path that would overwrite one of the
/// command's `inputs` (the same file however spelt: device and inode), that
/// is a directory, or whose extension is not `extension` (the format the
/// command writes; the other tools recognise files by their extension).
pub fn check_output(output: &Path, extension: &str, inputs: &[&Path]) -> Result<()> {
    check_not_input(output, inputs)?;
    let ext = output.extension().and_then(|e| e.to_str());
    if !ext.is_some_and(|e| e.eq_ignore_ascii_case(extension)) {
        bail!(
            "{}: this command writes a .{extension} file, and Throng tells files apart by their \
             extension; name the output *.{extension}",
            output.display()
        );
    }
    Ok(())
}

/// Refuses an output path that names one of `inputs` (compared by file
/// identity, not by spelling) or an existing directory.
pub fn check_not_input(output: &Path, inputs: &[&Path]) -> Result<()> {
    if let Some(input) = inputs
        .iter()
        .find(|i| throng_core::fsio::same_file(output, i))
    {
        bail!(
            "the output {} is the input {} (the same file); refusing to overwrite an input, \
             choose another output path",
            output.display(),
            input.display()
        );
    }
    if output.is_dir() {
        bail!("the output {} is a directory", output.display());
    }
    Ok(())
}

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
