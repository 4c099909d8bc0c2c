//! [`PipelineError`]: why a plan or a job failed, naming the path.

use std::path::PathBuf;

use thiserror::Error;

/// Why a plan was refused or a job failed.
#[derive(Debug, Error)]
pub enum PipelineError {
    /// Nothing was named.
    #[error("name a model (.gltf or .glb), a folder of models or a pattern")]
    NoInputs,
    /// A `.throng` was named as a model.
    #[error(
        "{0} is already a bake (a .throng file); `throng bake` takes the .gltf or .glb it was baked from. To see what it holds: throng inspect {0}"
    )]
    AlreadyBaked(String),
    /// A model path without a file name (`..`, `/`).
    #[error("{}: the model path has no file name", .0.display())]
    NoFileName(PathBuf),
    /// Several models, and the output named is a file.
    #[error(
        "-o {}: with several models (or a folder) -o names an output folder, and this is a file",
        .0.display()
    )]
    OutputIsFile(PathBuf),
    /// A folder with no model below it.
    #[error("{}: the folder holds no .gltf or .glb file", .0.display())]
    EmptyFolder(PathBuf),
    /// A file named that is not a glTF.
    #[error("{}: not a .gltf or .glb model", .0.display())]
    NotAModel(PathBuf),
    /// A malformed glob pattern.
    #[error("{pattern:?} is not a valid pattern")]
    Pattern {
        /// The pattern.
        pattern: String,
        /// Cause.
        #[source]
        source: glob::PatternError,
    },
    /// A pattern that matches no model.
    #[error("{0:?} matches no .gltf or .glb file")]
    NoMatch(String),
    /// A path that is neither a file, a folder nor a pattern.
    #[error("{}: no such file or folder", .0.display())]
    Missing(PathBuf),
    /// Two models that would be baked to one output.
    #[error(
        "{} and {} would both be baked to {}; bake them to different folders",
        first.display(),
        second.display(),
        output.display()
    )]
    Collision {
        /// The model planned first.
        first: PathBuf,
        /// The model planned second.
        second: PathBuf,
        /// The output both would write.
        output: PathBuf,
    },
    /// A folder or file that could not be read or created.
    #[error("{what} {}", path.display())]
    Io {
        /// What was being done ("reading the folder").
        what: &'static str,
        /// Where.
        path: PathBuf,
        /// Cause.
        #[source]
        source: std::io::Error,
    },
    /// An output path refused before the bake.
    #[error(transparent)]
    Output(#[from] throng_core::error::OutputError),
    /// The bake failed.
    #[error("baking {}", model.display())]
    Bake {
        /// The model.
        model: PathBuf,
        /// Cause.
        #[source]
        source: throng_bake::BakeError,
    },
    /// An impostor was asked of a model with no clips.
    #[error(
        "capturing the impostor of {}: the model has no clips to capture an impostor of; bake it without an impostor (throng bake --no-impostors)",
        .0.display()
    )]
    NoClips(PathBuf),
    /// No GPU adapter to capture the impostor on.
    #[error(
        "capturing the impostor of {}: an impostor is captured on a GPU adapter (lavapipe will do); bake without one (throng bake --no-impostors) where there is none",
        model.display()
    )]
    NoAdapter {
        /// The model.
        model: PathBuf,
        /// Cause.
        #[source]
        source: throng_impostor::AttachError,
    },
    /// The impostor could not be planned or captured.
    #[error("capturing the impostor of {}", model.display())]
    Impostor {
        /// The model.
        model: PathBuf,
        /// Cause.
        #[source]
        source: throng_impostor::AttachError,
    },
    /// The model could not be encoded or written.
    #[error("writing {}", output.display())]
    Write {
        /// The output.
        output: PathBuf,
        /// Cause.
        #[source]
        source: throng_core::FormatError,
    },
}

impl PipelineError {
    /// Shorthand for [`PipelineError::Io`].
    pub(crate) fn io(
        what: &'static str,
        path: &std::path::Path,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.to_path_buf();
        move |source| Self::Io { what, path, source }
    }
}
