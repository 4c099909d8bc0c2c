//! Errors of importing and baking. Each says what was wrong and where: the
//! file, the glTF JSON path, the clip, the node.

use thiserror::Error;
use throng_core::FormatError;

/// A [`crate::scene::Scene`] broke one of its validity rules.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SceneError {
    /// An index points past the end of what it indexes.
    #[error("{at}: {what} index {index} is out of range (there are {len})")]
    BadIndex {
        /// What kind of index.
        what: &'static str,
        /// Where it was found.
        at: String,
        /// The index.
        index: usize,
        /// The number of valid targets.
        len: usize,
    },
    /// Two arrays that must match in length do not.
    #[error("{at}: expected {expected} {what}, found {found}")]
    Length {
        /// What array.
        what: &'static str,
        /// Where.
        at: String,
        /// Expected length.
        expected: usize,
        /// Found length.
        found: usize,
    },
    /// A NaN or infinity where a finite number is required.
    #[error("{0} contain a NaN or infinite number")]
    NotFinite(String),
    /// The node hierarchy has a cycle.
    #[error("the node hierarchy has a cycle")]
    Cycle,
    /// Any other broken rule.
    #[error("{0}")]
    Invalid(String),
}

/// A glTF file could not be imported.
#[derive(Debug, Error)]
pub enum ImportError {
    /// The path names neither a glTF nor a `.throng` file.
    #[error("{path}: expected a .gltf, .glb or .throng file")]
    NotAModel {
        /// File path.
        path: String,
    },
    /// The file could not be opened as an input: not a regular file (a
    /// FIFO, device, socket, directory), larger than the limit, missing.
    #[error(transparent)]
    Input(#[from] throng_core::InputError),
    /// The glTF crate rejected the file (bad JSON, bad GLB, failed validation).
    #[error("{path}: not a valid glTF 2.0 file")]
    Gltf {
        /// File path.
        path: String,
        /// Cause, with JSON paths for validation errors.
        #[source]
        source: gltf::Error,
    },
    /// A buffer could not be loaded.
    #[error("buffers[{index}]: {msg}")]
    Buffer {
        /// Buffer index.
        index: usize,
        /// What went wrong.
        msg: String,
    },
    /// A buffer or image URI was refused by the untrusted-input policy (it
    /// leaves the model's folder, or names something other than a regular
    /// file), or the file it names could not be read.
    #[error("{path} {uri:?}: {msg}")]
    Uri {
        /// JSON path of the URI, e.g. `buffers[1].uri`.
        path: String,
        /// The URI as written in the file.
        uri: String,
        /// What went wrong.
        msg: String,
    },
    /// An accessor is malformed or does not fit its buffer.
    #[error("{path}: {msg}")]
    Accessor {
        /// JSON path of the referencing property.
        path: String,
        /// What went wrong.
        msg: String,
    },
    /// An index in the file names no object of its list.
    #[error("{path}: names {what}[{index}], but the file has {len} {what}")]
    BadIndex {
        /// JSON path of the property holding the index.
        path: String,
        /// The list it indexes (`accessors`, `bufferViews`, `images`, …).
        what: &'static str,
        /// The index.
        index: usize,
        /// The list's length.
        len: usize,
    },
    /// An object breaks one of glTF 2.0's rules: a required field missing,
    /// two fields that must (or must not) come together, a value the
    /// specification does not define.
    #[error("{path}: {rule}")]
    BrokenRule {
        /// JSON path of the object or property.
        path: String,
        /// The rule, as broken.
        rule: String,
    },
    /// The file's `extensionsRequired` names an extension the baker does
    /// not read (`crate::extensions::READ`). The caller names the file
    /// (`baking model.glb: requires …`).
    #[error("requires {extension}, which this baker does not read; it reads: {reads}")]
    RequiredExtension {
        /// The extension.
        extension: String,
        /// The extensions the baker reads, comma-separated.
        reads: String,
    },
    /// The file uses something glTF allows but that cannot be baked.
    #[error("{path}: {msg}")]
    Unsupported {
        /// JSON path.
        path: String,
        /// What and why.
        msg: String,
    },
    /// The imported scene broke a validity rule.
    #[error("invalid model")]
    Scene(#[from] SceneError),
}

/// A bake failed.
#[derive(Debug, Error)]
pub enum BakeError {
    /// Import failed.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// Invalid scene.
    #[error("invalid model")]
    Scene(#[from] SceneError),
    /// A `--clips` name is not in the file.
    #[error("no clip named {name:?}; the model has: {available}")]
    UnknownClip {
        /// Requested name.
        name: String,
        /// Names in the file, comma-separated.
        available: String,
    },
    /// An events file or extras entry is malformed.
    #[error("events: {0}")]
    Events(String),
    /// Root motion cannot be baked as asked.
    #[error("root motion: {0}")]
    RootMotion(String),
    /// Clips from another file (`--clips-from`) cannot be brought onto the
    /// body: a name clash, too few joints matched, a bad bone map.
    #[error("clips from other files: {0}")]
    ClipLibrary(String),
    /// A level of detail cannot be built.
    #[error("LOD: {0}")]
    Lod(String),
    /// Options out of range.
    #[error("bad bake option: {0}")]
    Option(String),
    /// The model has nothing to draw.
    #[error("{0}")]
    Empty(String),
    /// Too big for the format.
    #[error("{0}")]
    TooBig(String),
    /// The baked model failed validation (a baker bug; please report).
    #[error("baked model failed validation")]
    Format(#[from] FormatError),
}
