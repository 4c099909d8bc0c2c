//! Target `gltf`: the glTF/GLB import, then a small bake of whatever it
//! accepts. Nothing outside the bytes is read (no base folder: external
//! URIs are refused). A model that bakes must write a `.throng` that reads
//! back, and must play (`throng_file::use_model`).

use throng_bake::{BakeOptions, import_slice};

/// The bake's own byte budget here: the fuzzer's inputs are small, and an
/// animation hours long must be refused, not sampled.
const MAX_BAKE_BYTES: u64 = 8 << 20;

/// The target's body.
pub fn run(data: &[u8]) -> bool {
    let Ok(imported) = import_slice(data, None, "fuzz.glb") else {
        return false;
    };
    let opts = BakeOptions {
        fps: 8.0,
        max_fps: 8.0,
        max_bake_bytes: MAX_BAKE_BYTES,
        ..BakeOptions::default()
    };
    let Ok((model, _)) = throng_bake::bake(&imported.scene, &opts, &|_, _| {}) else {
        return false;
    };
    let bytes = throng_core::format::write_model(&model)
        .unwrap_or_else(|e| panic!("a baked model does not write: {e}"));
    let back = throng_core::format::read_model(&bytes)
        .unwrap_or_else(|e| panic!("a baked model does not read back: {e}"));
    crate::throng_file::use_model(back, 0.3)
}
