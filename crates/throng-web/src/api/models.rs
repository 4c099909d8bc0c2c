//! `CrowdView.loadModel`'s work: the file fetched or given, glTF baked in a
//! Web Worker first ([`super::bake`]), read and added to the view.

use std::cell::RefCell;
use std::rc::Rc;

use anyhow::{Result, anyhow};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use super::{Inner, Live, bake, fetch, js_error};

/// [`CrowdView::load_model`]: fetched or given, baked when glTF, read
/// and added.
pub(crate) async fn load_model(
    inner: &Rc<RefCell<Inner>>,
    source: JsValue,
    frames: Option<Vec<u8>>,
    on_progress: Option<js_sys::Function>,
) -> Result<u32> {
    let file = match source.as_string() {
        Some(url) => fetch::fetch_model(&url).await?,
        None => match source.dyn_into::<js_sys::Uint8Array>() {
            Ok(bytes) => crate::scene::ModelFile {
                url: "the model's bytes".to_owned(),
                bytes: bytes.to_vec(),
                frames,
            },
            Err(_) => anyhow::bail!("loadModel takes a URL or a Uint8Array"),
        },
    };
    let file = baked_if_gltf(file, on_progress).await?;
    let handle = crate::scene::load_model(&file)?;
    let mut inner = inner.borrow_mut();
    let Live { canvas, view, .. } = inner.live()?;
    view.add_model(canvas.app(), handle, &file.url)
}

/// `file` as a `.throng` file: glTF baked in a Web Worker first
/// ([`bake_in_worker`]), anything else as it is.
pub(crate) async fn baked_if_gltf(
    mut file: crate::scene::ModelFile,
    on_progress: Option<js_sys::Function>,
) -> Result<crate::scene::ModelFile> {
    if crate::bake::is_gltf(&file.bytes) {
        file.bytes = bake_in_worker(&file.bytes, &file.url, on_progress).await?;
        file.frames = None;
    }
    Ok(file)
}

/// The glTF `bytes` baked in a Web Worker (`www/bake.js`): the `.throng`
/// file's bytes.
async fn bake_in_worker(
    bytes: &[u8],
    name: &str,
    on_progress: Option<js_sys::Function>,
) -> Result<Vec<u8>> {
    let array = js_sys::Uint8Array::from(bytes);
    let progress = on_progress.map_or(JsValue::UNDEFINED, JsValue::from);
    let baked = wasm_bindgen_futures::JsFuture::from(bake::bake_in_worker(&array, name, &progress))
        .await
        .map_err(|e| anyhow!("baking {name}: {}", js_error(e)))?;
    Ok(js_sys::Uint8Array::new(&baked).to_vec())
}
