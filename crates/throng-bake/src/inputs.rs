//! The import stage of [`crate::bake_file`]: the model file, the clips of
//! its animation libraries retargeted onto it ([`BakeOptions::clips_from`],
//! [`crate::retarget`]), its events (the glTF's animation extras, then
//! [`BakeOptions::events_file`] or else the sidecar `MODEL.events.json`,
//! which may name the libraries' clips too), and the LOD files, each read
//! under the URI policy the options give
//! ([`BakeOptions::allow_outside_uris`]).

use std::path::Path;

use crate::error::BakeError;
use crate::events;
use crate::import::{ImportOptions, Imported, import_file_with};
use crate::options::BakeOptions;
use crate::retarget::{BoneMap, Library, add_library};
use crate::scene::Scene;

/// The import stage's output: what the bake reads.
pub(crate) struct Inputs {
    /// The model, its events added, with its import warnings.
    pub(crate) model: Imported,
    /// Each LOD file's scene, with the file's name as given.
    pub(crate) lod_scenes: Vec<(String, Scene)>,
}

/// Reads the model at `path`, its events, then the LOD files of `opts`.
pub(crate) fn read_inputs(path: &Path, opts: &BakeOptions) -> Result<Inputs, BakeError> {
    let import_opts = ImportOptions {
        allow_outside_uris: opts.allow_outside_uris,
    };
    let mut imported = import_file_with(path, &import_opts)?;
    add_libraries(&mut imported, path, opts, &import_opts)?;
    let sidecar = events::sidecar_path(path);
    let events_file = opts
        .events_file
        .clone()
        .or_else(|| sidecar.exists().then_some(sidecar));
    if let Some(file) = &events_file {
        events::add_sidecar(&mut imported.scene, file)?;
    }
    let mut lod_scenes = Vec::new();
    for file in &opts.lod_files {
        let lod = import_file_with(file, &import_opts)?;
        lod_scenes.push((file.display().to_string(), lod.scene));
    }
    Ok(Inputs {
        model: imported,
        lod_scenes,
    })
}

/// The clips of `opts`' libraries, each file's retargeted onto the model
/// (its warnings added to the model's).
fn add_libraries(
    model: &mut Imported,
    path: &Path,
    opts: &BakeOptions,
    import_opts: &ImportOptions,
) -> Result<(), BakeError> {
    if opts.clips_from.is_empty() {
        return Ok(());
    }
    let map = match &opts.bone_map {
        Some(file) => BoneMap::read(file)?,
        None => BoneMap::default(),
    };
    let own = path.display().to_string();
    let mut from = vec![own; model.scene.clips.len()];
    for file in &opts.clips_from {
        let library = import_file_with(file, import_opts)?;
        let name = file.display().to_string();
        let library = Library {
            file: &name,
            scene: &library.scene,
        };
        let warnings = add_library(&mut model.scene, &mut from, &library, &map)?;
        model.warnings.extend(warnings);
    }
    Ok(())
}
