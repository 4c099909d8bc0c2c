//! # throng-bake
//!
//! The offline half of Throng: import a glTF 2.0 model ([`import`]) into a
//! [`throng_core::Scene`] and bake it ([`bake`]) into a validated
//! [`throng_core::BakedModel`], measuring the result against the CPU
//! reference as it goes.

mod accessor;
pub mod bake;
pub mod error;
pub mod import;

pub use bake::{BakeOptions, BakeReport, bake};
pub use error::{BakeError, ImportError};
pub use import::{Imported, import_file, import_slice};

use std::path::Path;

use throng_core::BakedModel;

/// Imports and bakes a glTF file; import warnings lead the report's warnings.
pub fn bake_file(
    path: &Path,
    opts: &BakeOptions,
    progress: bake::Progress,
) -> Result<(BakedModel, BakeReport), BakeError> {
    let imported = import_file(path)?;
    let (mut model, mut report) = bake(&imported.scene, opts, progress)?;
    model.source = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut warnings = imported.warnings;
    warnings.append(&mut report.warnings);
    report.warnings = warnings;
    Ok((model, report))
}
