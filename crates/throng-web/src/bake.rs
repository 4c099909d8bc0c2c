//! glTF baked where the page runs: a `.glb` (or a `.gltf` with its buffers
//! and images embedded) imported from its bytes and baked with the
//! default options into a `.throng` file's bytes — the same code as the
//! native bake, built without meshoptimizer for wasm32 (`throng-bake`'s
//! `meshopt` feature): no generated LODs, no impostor (its capture needs
//! the offline GPU pass), and a file with `EXT_meshopt_compression` is
//! refused saying so. In the browser it runs in a Web Worker
//! (`www/bake.js`), reporting its progress frame by frame.

use anyhow::{Context, Result, bail};
use throng_bake::BakeOptions;

/// True if `bytes` look like glTF: a GLB (its `glTF` magic) or JSON.
pub fn is_gltf(bytes: &[u8]) -> bool {
    bytes.starts_with(b"glTF")
        || bytes
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|&b| b == b'{')
}

/// What a web bake gives: the `.throng` file's bytes and the bake's
/// warnings (import warnings first).
pub struct WebBake {
    /// The baked model, as a `.throng` file.
    pub throng: Vec<u8>,
    /// What was dropped or repaired.
    pub warnings: Vec<String>,
}

/// The options of a web bake: the defaults (no generated LODs).
pub fn web_bake_options() -> BakeOptions {
    BakeOptions::default()
}

/// Bakes the glTF `bytes` (`name`: where they came from, for errors);
/// `progress(done, total)` hears the frames sampled.
pub fn bake_gltf(
    bytes: &[u8],
    name: &str,
    progress: throng_bake::options::Progress,
) -> Result<WebBake> {
    if !is_gltf(bytes) {
        bail!("{name} is not glTF: neither a .glb nor a .gltf's JSON");
    }
    let imported = throng_bake::import_slice(bytes, None, name)
        .with_context(|| format!("importing {name}"))?;
    let options = web_bake_options();
    let (mut model, report) = throng_bake::bake(&imported.scene, &options, progress)
        .with_context(|| format!("baking {name}"))?;
    model.source = name.rsplit(['/', '\\']).next().unwrap_or(name).to_owned();
    let throng = throng_core::format::write_model(&model)
        .with_context(|| format!("writing {name}'s bake"))?;
    let mut warnings = imported.warnings;
    warnings.extend(report.warnings);
    Ok(WebBake { throng, warnings })
}
