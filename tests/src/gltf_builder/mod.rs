//! A small glTF 2.0 builder for tests.
//!
//! It assembles a glTF JSON document with one binary buffer from plain Rust
//! values: nodes (TRS or matrix), meshes whose primitives carry POSITION,
//! optional NORMAL, any number of JOINTS_n/WEIGHTS_n sets (joints as u8 or
//! u16, weights as f32 or normalised u8/u16), morph targets (POSITION and
//! optional NORMAL offsets) and indices, skins with optional inverse bind
//! matrices, animations of transforms and morph weights with
//! STEP/LINEAR/CUBICSPLINE samplers, and one scene. [`GltfBuilder::to_gltf`] returns a `.gltf` with the buffer
//! embedded as a base64 data URI, [`GltfBuilder::to_glb`] a `.glb`.
//!
//! Every accessor gets its own buffer view, 4-byte aligned, so a test can
//! break one accessor without disturbing the others. Deliberately broken
//! files are made by editing [`GltfBuilder::to_json`]'s value (or the binary
//! chunk, [`GltfBuilder::bin`]) and serialising it with [`gltf_bytes`] or
//! [`glb_bytes`].
//!
//! ```
//! use throng_tests::gltf_builder::{GltfBuilder, Node, Primitive};
//! let mut b = GltfBuilder::new();
//! let mesh = b.mesh(
//!     "tri",
//!     vec![Primitive::new(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])],
//! );
//! b.node(Node::new("n").translation([1.0, 2.0, 3.0]).mesh(mesh));
//! let bytes = b.to_gltf();
//! assert!(throng_bake::import_slice(&bytes, None, "tri").is_ok());
//! ```
//!
//! The parts, each re-exported here: `node` ([`Node`], [`Transform`]),
//! `primitive` ([`Primitive`] and its skin sets), `channel` ([`Channel`]),
//! `builder` ([`GltfBuilder`], which writes the document) and `samples`
//! (ready-made documents the malformed and hostile glTF tests edit), and
//! `edit` (float accessors of a read GLB edited in place). This
//! file holds the component codes and the `.gltf`/`.glb` serialisers.

use serde_json::Value;

mod builder;
mod channel;
pub mod edit;
mod node;
mod primitive;
mod samples;

pub use builder::GltfBuilder;
pub use channel::{Channel, Path};
pub use node::{Node, Transform};
pub use primitive::{Influences, JointType, Primitive, Target, WeightType};
pub use samples::{long_clip, rigid_triangle_and_joint, skinned_triangle};

/// The channel enums are the importer's own: a channel built here names
/// its property and interpolation exactly as the imported scene will.
pub use throng_bake::scene::{Interpolation, Property};

/// glTF `componentType` codes.
pub mod component {
    /// `BYTE`.
    pub const I8: u32 = 5120;
    /// `UNSIGNED_BYTE`.
    pub const U8: u32 = 5121;
    /// `SHORT`.
    pub const I16: u32 = 5122;
    /// `UNSIGNED_SHORT`.
    pub const U16: u32 = 5123;
    /// `UNSIGNED_INT`.
    pub const U32: u32 = 5125;
    /// `FLOAT`.
    pub const F32: u32 = 5126;
}

/// Serialises a (possibly edited) document as `.gltf` bytes.
pub fn gltf_bytes(doc: &Value) -> Vec<u8> {
    serde_json::to_vec_pretty(doc).expect("a JSON value serialises")
}

/// A `.glb`'s JSON document and its binary chunk (empty without one):
/// what [`glb_bytes`] packs again once edited. Panics on bytes that are
/// not a GLB (a test's own fixture).
pub fn glb_parts(bytes: &[u8]) -> (Value, Vec<u8>) {
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().expect("a GLB header")) as usize;
    let doc = serde_json::from_slice(&bytes[20..20 + json_len]).expect("a GLB's JSON chunk");
    let bin = bytes.get(20 + json_len + 8..).unwrap_or_default().to_vec();
    (doc, bin)
}

/// Packs a (possibly edited) document and a binary chunk as `.glb` bytes
/// (the BIN chunk is left out when `bin` is empty).
pub fn glb_bytes(doc: &Value, bin: &[u8]) -> Vec<u8> {
    let mut json = serde_json::to_vec(doc).expect("a JSON value serialises");
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let mut total = 12 + 8 + json.len();
    if !bin.is_empty() {
        total += 8 + bin.len();
    }
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&json);
    if !bin.is_empty() {
        out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend_from_slice(&bin);
    }
    out
}
