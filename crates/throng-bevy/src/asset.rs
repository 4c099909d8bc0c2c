//! `.throng` files as Bevy assets: `asset_server.load("fox.throng")` gives a
//! `Handle<ThrongModel>`. The loader reads and validates the file with
//! Throng's own reader, so a missing, truncated or corrupt file is a Bevy
//! asset error carrying Throng's message (what and where), never a panic.
//! A body baked with `--shared-clips` is read with the frames file beside
//! it (`throng_core::format::frames`).

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, LoadContext};
use bevy::reflect::TypePath;
use throng_crowd::crowd::ModelHandle;

/// A baked model, loaded: what [`crate::ThrongCrowd::add_model`] takes.
#[derive(Asset, TypePath, Clone)]
pub struct ThrongModel(pub ModelHandle);

/// Loads `.throng` files.
#[derive(Default, TypePath)]
pub struct ThrongModelLoader;

/// Why a `.throng` asset did not load.
#[derive(Debug, thiserror::Error)]
pub enum ThrongAssetError {
    /// The bytes could not be read.
    #[error("reading {path}: {source}")]
    Io {
        /// The asset's path.
        path: String,
        /// What the reader said.
        source: std::io::Error,
    },
    /// The frames file the model refers to could not be read.
    #[error("{path}: reading its frames file {file}: {reason}")]
    Frames {
        /// The asset's path.
        path: String,
        /// The frames file's name, beside it.
        file: String,
        /// Why.
        reason: String,
    },
    /// The file is not a model this build reads.
    #[error("{path}: {source}")]
    Format {
        /// The asset's path.
        path: String,
        /// Throng's reader's words.
        source: throng_core::FormatError,
    },
}

impl AssetLoader for ThrongModelLoader {
    type Asset = ThrongModel;
    type Settings = ();
    type Error = ThrongAssetError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<ThrongModel, ThrongAssetError> {
        let path = load_context.path().to_string();
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(|source| ThrongAssetError::Io {
                path: path.clone(),
                source,
            })?;
        let format = |source| ThrongAssetError::Format {
            path: path.clone(),
            source,
        };
        // A body baked with --shared-clips keeps its frames in a file beside it.
        let model = match throng_core::format::frames_file(&bytes).map_err(format)? {
            None => throng_core::format::read_model(&bytes),
            Some(name) => {
                let frames_error = |reason: String| ThrongAssetError::Frames {
                    path: path.clone(),
                    file: name.clone(),
                    reason,
                };
                let beside = load_context
                    .path()
                    .resolve_embed_str(&name)
                    .map_err(|e| frames_error(e.to_string()))?;
                let frames = load_context
                    .read_asset_bytes(beside)
                    .await
                    .map_err(|e| frames_error(e.to_string()))?;
                throng_core::format::read_model_with_frames(&bytes, &frames)
            }
        }
        .map_err(format)?;
        let handle = ModelHandle::new(model).map_err(format)?;
        Ok(ThrongModel(handle))
    }

    fn extensions(&self) -> &[&str] {
        &["throng"]
    }
}
