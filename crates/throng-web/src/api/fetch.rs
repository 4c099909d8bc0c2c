//! Bytes over HTTP: a model's `.throng` file, and the frames file beside
//! it when it refers to one (a body baked with `--shared-clips`).

use anyhow::{Context, Result, anyhow, bail};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use super::js_error;
use crate::scene::ModelFile;

/// Fetches `url`'s bytes; a failed request or an HTTP error names both.
pub async fn fetch(url: &str) -> Result<Vec<u8>> {
    let window = web_sys::window().context("no window")?;
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| anyhow!("fetching {url}: {}", js_error(e)))?
        .dyn_into()
        .map_err(|_| anyhow!("fetching {url}: not a response"))?;
    if !response.ok() {
        bail!(
            "fetching {url}: HTTP {} {}",
            response.status(),
            response.status_text()
        );
    }
    let buffer = JsFuture::from(response.array_buffer().map_err(js_error)?)
        .await
        .map_err(|e| anyhow!("reading {url}: {}", js_error(e)))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// The model file at `url`, with the frames file beside it if it refers
/// to one.
pub async fn fetch_model(url: &str) -> Result<ModelFile> {
    let bytes = fetch(url).await?;
    let frames = match throng_core::format::frames_file(&bytes) {
        Ok(Some(name)) => Some(
            fetch(&ModelFile::beside(url, &name))
                .await
                .with_context(|| format!("{url} keeps its frames in {name} beside it"))?,
        ),
        _ => None,
    };
    Ok(ModelFile {
        url: url.to_owned(),
        bytes,
        frames,
    })
}
