//! # throng-bake
//!
//! The offline half of Throng: import a glTF 2.0 model ([`import`]) into a
//! source [`Scene`] ([`scene`]), sample its clips ([`sample`]), skin it with
//! the plain CPU reference ([`mod@reference`]), and bake it ([`mod@bake`]) into a
//! validated [`throng_core::BakedModel`], measuring the result against the
//! reference as it goes; the materials' images with their mip chains
//! ([`images`]); LODs and attachments ([`lod`]), events ([`events`]),
//! the hash of a bake's inputs for up-to-date checks ([`provenance`]).
//! The runtime crates never depend on this one (a test in
//! `tests/tests/integration/crate_graph.rs` holds them to it).
//!
//! ## Example
//!
//! Bake a glTF file, look at what the report measured, and write the
//! `.throng` the runtime reads:
//!
//! ```no_run
//! use throng_bake::{BakeOptions, bake_file};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let options = BakeOptions::default();
//! let (model, report) = bake_file("fox.glb".as_ref(), &options, &|done, total| {
//!     eprint!("\rsampled {done} of {total} frames");
//! })?;
//! for warning in &report.warnings {
//!     eprintln!("warning: {warning}");
//! }
//! throng_core::format::write_file(&model, "fox.throng".as_ref())?;
//! # Ok(())
//! # }
//! ```

mod accessor;
mod assemble;
pub mod bake;
mod budget;
mod draco_primitives;
pub mod error;
pub mod events;
pub mod extensions;
mod gltf_doc;
pub mod images;
pub mod import;
mod inputs;
pub mod lod;
mod measure;
mod mesh;
mod meshopt_views;
pub mod morph;
pub mod options;
pub mod provenance;
mod rate;
pub mod reference;
pub mod report;
pub mod retarget;
mod root_motion;
pub mod sample;
mod sampling;
pub mod scene;
mod selection;
pub mod tangents;
mod texture;
mod uri;
mod validate;

pub use bake::{bake, bake_with_lods};
pub use error::{BakeError, ImportError, SceneError};
pub use import::{
    ImportOptions, Imported, import_file, import_file_with, import_slice, import_slice_with,
};
pub use lod::bake_skinned_attachment;
pub use options::{BakeOptions, RootMotionSource};
pub use report::BakeReport;
pub use scene::Scene;

use std::path::Path;

use throng_core::BakedModel;

/// The kind of model file, by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelKind {
    /// `.gltf` or `.glb`: a source to bake.
    Gltf,
    /// `.throng`: already baked.
    Throng,
}

impl ModelKind {
    /// Classifies `path` by its extension (any case).
    pub fn of(path: &Path) -> Result<Self, ImportError> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("gltf" | "glb") => Ok(ModelKind::Gltf),
            Some("throng") => Ok(ModelKind::Throng),
            _ => Err(ImportError::NotAModel {
                path: path.display().to_string(),
            }),
        }
    }
}

/// Imports and bakes a glTF file; import warnings lead the report's
/// warnings. Events come from the glTF's animation extras and from
/// `opts.events_file`, or else `MODEL.events.json` beside the model. The
/// model's and the LOD files' URIs are read as
/// [`BakeOptions::allow_outside_uris`] says. The model records its
/// [`provenance::provenance`] with [`BakeOptions::canonical`] as the options.
pub fn bake_file(
    path: &Path,
    opts: &BakeOptions,
    progress: options::Progress,
) -> Result<(BakedModel, BakeReport), BakeError> {
    // Hashed before anything is read: an input edited during the bake then
    // makes the stored hash stale (a re-bake next time), never fresh.
    let recorded = provenance::provenance(path, opts, opts.canonical());
    bake_file_recording(path, opts, recorded, progress)
}

/// [`bake_file`], the model recording `recorded` as its provenance: for a
/// caller that hashed the inputs already (before the bake, to see whether
/// its output is up to date) and records options of its own.
pub fn bake_file_recording(
    path: &Path,
    opts: &BakeOptions,
    recorded: throng_core::provenance::Provenance,
    progress: options::Progress,
) -> Result<(BakedModel, BakeReport), BakeError> {
    let start = web_time::Instant::now();
    let inputs = inputs::read_inputs(path, opts)?;
    let import = report::StageTime {
        stage: "import",
        time: start.elapsed(),
    };
    let (mut model, mut report) =
        bake::bake_with_lods(&inputs.model.scene, &inputs.lod_scenes, opts, progress)?;
    report.stages.insert(0, import);
    model.provenance = Some(recorded);
    model.source = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut warnings = inputs.model.warnings;
    warnings.append(&mut report.warnings);
    report.warnings = warnings;
    Ok((model, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_kinds_by_extension_in_any_case() {
        assert_eq!(
            ModelKind::of(Path::new("a/b.GLB")).unwrap(),
            ModelKind::Gltf
        );
        assert_eq!(ModelKind::of(Path::new("b.gltf")).unwrap(), ModelKind::Gltf);
        assert_eq!(
            ModelKind::of(Path::new("x.throng")).unwrap(),
            ModelKind::Throng
        );
        let e = ModelKind::of(Path::new("dir/x.fbx")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "dir/x.fbx: expected a .gltf, .glb or .throng file"
        );
        assert!(ModelKind::of(Path::new("noext")).is_err());
    }
}
