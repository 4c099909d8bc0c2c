//! [`SharedFrames`]: one bone texture on the GPU for every model whose
//! baked frames are the same.
//!
//! Bodies that share a skeleton, its proportions and a clip set (one
//! animation library baked onto many meshes: outfits, heads, bodies of one
//! build) bake to the same bone matrices, texel for texel: the frames are
//! the joints' world matrices times their inverse binds, and neither
//! depends on the mesh. [`crate::GpuModel::upload_sharing`] looks the
//! model's texels up here and binds the texture already uploaded for an
//! equal set instead of uploading another. Equal means equal bytes, shape
//! and format: a key (the texels' hash and shape) finds the candidates and
//! a byte-for-byte comparison against the model that uploaded the texture
//! decides, so a hash collision never shares frames that differ.
//!
//! The store holds no texture alive: each shared texture lives as long as
//! a [`crate::GpuModel`] that binds it (the store keeps a weak reference
//! and uploads again once every such model is dropped). A store belongs to
//! one device; a model uploaded on another device is never matched.
//!
//! How many bytes sharing saves in a frame is in
//! [`crate::options::FrameStats::shared_bone_bytes`]
//! ([`crate::GpuModel::bone_bytes_of`]).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, Weak};

use throng_core::model::TexelFormat;
use throng_crowd::crowd::ModelHandle;

/// What finds the candidates for a model's frames: the texels' shape,
/// format and hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct FramesKey {
    width: u32,
    layers: u32,
    f16: bool,
    texels: usize,
    hash: u64,
}

impl FramesKey {
    fn of(handle: &ModelHandle) -> Self {
        let tex = &handle.model().texture;
        let bytes = tex.texels.as_bytes();
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut hasher);
        Self {
            width: tex.width,
            layers: tex.layers,
            f16: tex.texels.format() == TexelFormat::F16,
            texels: bytes.len(),
            hash: hasher.finish(),
        }
    }
}

/// A bone texture on the GPU that models with equal frames bind, and the
/// model whose texels it holds (the reference a candidate is compared
/// with).
#[derive(Debug)]
pub(crate) struct BoneFrames {
    pub(crate) texture: wgpu::Texture,
    pub(crate) bytes: u64,
    pub(crate) source: ModelHandle,
}

/// A store of uploaded bone textures, shared by every model whose baked
/// frames are byte-for-byte equal (module docs). Cheap to create; give
/// the same store to each [`crate::GpuModel::upload_sharing`] of a device.
#[derive(Debug, Default)]
pub struct SharedFrames {
    entries: Mutex<HashMap<FramesKey, Vec<Weak<BoneFrames>>>>,
    device: Mutex<Option<wgpu::Device>>,
}

impl SharedFrames {
    /// A store with nothing in it.
    pub fn new() -> Self {
        Self::default()
    }

    /// Bone textures held by live models.
    pub fn textures(&self) -> usize {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries
            .values()
            .flatten()
            .filter(|w| w.strong_count() > 0)
            .count()
    }

    /// The frames of `handle` already on `device`, or those `upload`
    /// makes (and keeps for the next equal model). `upload` returns the
    /// texture and the bytes it takes; the flag says whether the frames
    /// were found rather than uploaded.
    // On wasm32 wgpu's objects are neither Send nor Sync: there the frames
    // are shared on the page's one thread; natively the Arc is Send + Sync.
    #[allow(clippy::arc_with_non_send_sync)]
    pub(crate) fn get_or_upload(
        &self,
        device: &wgpu::Device,
        handle: &ModelHandle,
        upload: impl FnOnce() -> (wgpu::Texture, u64),
    ) -> (Arc<BoneFrames>, bool) {
        let same_device = {
            let mut d = self.device.lock().unwrap_or_else(|e| e.into_inner());
            match &*d {
                Some(known) => known == device,
                None => {
                    *d = Some(device.clone());
                    true
                }
            }
        };
        let key = FramesKey::of(handle);
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let list = entries.entry(key).or_default();
        list.retain(|w| w.strong_count() > 0);
        if same_device {
            let texels = handle.model().texture.texels.as_bytes();
            let found = list.iter().filter_map(Weak::upgrade).find(|f| {
                let theirs = &f.source.model().texture;
                theirs.texels.as_bytes() == texels
            });
            if let Some(frames) = found {
                return (frames, true);
            }
        }
        let (texture, bytes) = upload();
        let frames = Arc::new(BoneFrames {
            texture,
            bytes,
            source: handle.clone(),
        });
        if same_device {
            list.push(Arc::downgrade(&frames));
        }
        (frames, false)
    }
}

/// What tells one bone texture from another in [`distinct_bytes`]: the
/// shared frames' address, or the key of the model that holds its texture
/// alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum FramesIdentity {
    /// Found in or put into a [`SharedFrames`].
    Shared(usize),
    /// A model's own.
    Own(u64),
}

/// Of the bone textures some models bind, given per model as its key, its
/// texture's identity and bytes: the bytes of the distinct textures, and
/// the bytes sharing saved (what the models' textures would take apart,
/// less the distinct ones). A model given twice counts once.
pub(crate) fn distinct_bytes(
    models: impl IntoIterator<Item = (u64, FramesIdentity, u64)>,
) -> (u64, u64) {
    let mut models_seen = std::collections::HashSet::new();
    let mut seen = std::collections::HashSet::new();
    let (mut distinct, mut apart) = (0u64, 0u64);
    for (key, identity, bytes) in models {
        if !models_seen.insert(key) {
            continue;
        }
        apart += bytes;
        if seen.insert(identity) {
            distinct += bytes;
        }
    }
    (distinct, apart - distinct)
}
