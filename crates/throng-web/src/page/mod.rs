//! The demo page (`www/index.html`), the API's first user: `openPage`
//! opens a [`CrowdView`] on the page's canvas with the address's
//! parameters ([`crate::query`]), loads its models through the API's
//! fetch, lays the viewer's herd into the view ([`crate::scene`]) and
//! turns on the orbit controls; the page's script then runs the frame
//! loop, writes the statistics line and keeps the title contract. Errors
//! are shown on the page ([`report`]).

mod report;

use anyhow::Result;
use wasm_bindgen::prelude::*;

use crate::api::CrowdView;
use crate::query::PageQuery;
use crate::scene::ModelFile;

/// Installs the panic hook that shows a panic on the page.
#[wasm_bindgen(js_name = showPanics)]
pub fn show_panics() {
    report::install_panic_hook();
}

/// The page's crowd on `canvas` for the address's query `search`
/// (`?model=…&instances=…`): resolves to the view, its clock paused at
/// `?time=` when that is fixed. `model` (a dropped file's bytes, `name`
/// its name), when given, replaces the query's models: a `.throng` file,
/// or glTF baked in a Web Worker first, as `?gltf=URL` is;
/// `onProgress(done, total)` hears such a bake's frames.
#[wasm_bindgen(js_name = openPage)]
pub async fn open_page(
    canvas: web_sys::HtmlCanvasElement,
    search: String,
    #[wasm_bindgen(js_name = onProgress)] on_progress: Option<js_sys::Function>,
    model: Option<Vec<u8>>,
    name: Option<String>,
) -> Result<CrowdView, JsError> {
    let dropped = model.map(|bytes| (name.unwrap_or_else(|| "the dropped file".into()), bytes));
    open(canvas, &search, on_progress, dropped)
        .await
        .map_err(|e| JsError::new(&format!("{e:#}")))
}

/// The page's model files: the dropped file, the `?gltf=` file (baked in
/// a worker), or the `?model=` files.
async fn model_files(
    query: &PageQuery,
    on_progress: Option<js_sys::Function>,
    dropped: Option<(String, Vec<u8>)>,
) -> Result<Vec<ModelFile>> {
    let source = match (dropped, &query.gltf) {
        (Some(d), _) => Some(d),
        (None, Some(url)) => Some((url.clone(), crate::api::fetch::fetch(url).await?)),
        (None, None) => None,
    };
    let Some((url, bytes)) = source else {
        let mut files = Vec::with_capacity(query.models.len());
        for url in &query.models {
            files.push(crate::api::fetch::fetch_model(url).await?);
        }
        return Ok(files);
    };
    let file = ModelFile {
        url,
        bytes,
        frames: None,
    };
    Ok(vec![crate::api::baked_if_gltf(file, on_progress).await?])
}

async fn open(
    canvas: web_sys::HtmlCanvasElement,
    search: &str,
    on_progress: Option<js_sys::Function>,
    dropped: Option<(String, Vec<u8>)>,
) -> Result<CrowdView> {
    let query = PageQuery::parse(search)?;
    let options = crate::scene::view_options(&query);
    let view = CrowdView::open(canvas, query.backend, options).await?;
    let files = model_files(&query, on_progress, dropped).await?;
    let handles = crate::scene::load_models(&files, &query)?;
    drop(files);
    {
        let mut inner = view.0.borrow_mut();
        let live = inner.live()?;
        let app = live.canvas.app();
        let page = crate::scene::build(app, &mut live.view, &handles, &query)?;
        live.page = Some(page);
        inner.paused = query.time.is_some();
    }
    if let Some(asked) = query.clamped_from {
        web_sys::console::warn_1(
            &format!("?instances={asked} clamped to {}", query.instances).into(),
        );
    }
    crate::api::orbit::attach(&view.0)?;
    Ok(view)
}
