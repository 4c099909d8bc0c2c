//! glTF baked in the browser ([`crate::bake`]): `bakeGltf` runs the bake
//! where it is called (a Web Worker: it takes seconds), and
//! [`bake_in_worker`] starts a worker that calls it (`www/bake.js`), which
//! `CrowdView.loadModel` does for a glTF source.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/www/bake.js")]
extern "C" {
    /// Bakes `bytes` (glTF) in a new module worker; resolves to the
    /// `.throng` bytes, `on_progress(done, total)` hearing the frames.
    #[wasm_bindgen(js_name = bakeInWorker)]
    pub fn bake_in_worker(
        bytes: &js_sys::Uint8Array,
        name: &str,
        on_progress: &JsValue,
    ) -> js_sys::Promise;
}

thread_local! {
    /// The progress callback of the bake running on this thread: the bake
    /// wants a `Sync` callback, and a JavaScript function is not one.
    static PROGRESS: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
}

/// Bakes the glTF `bytes` (a `.glb`, or a `.gltf` with everything
/// embedded; `name` for errors) with the default options, here and now;
/// `onProgress(done, total)` hears the frames sampled. Returns the
/// `.throng` file's bytes. Takes seconds: call it in a Web Worker
/// (`CrowdView.loadModel` of a glTF does).
#[wasm_bindgen(js_name = bakeGltf)]
pub fn bake_gltf(
    bytes: &[u8],
    name: &str,
    on_progress: Option<js_sys::Function>,
) -> Result<Vec<u8>, JsError> {
    PROGRESS.with(|p| *p.borrow_mut() = on_progress);
    let report = |done: u64, total: u64| {
        PROGRESS.with(|p| {
            if let Some(f) = &*p.borrow() {
                let _ = f.call2(
                    &JsValue::NULL,
                    &(done as f64).into(),
                    &(total as f64).into(),
                );
            }
        })
    };
    let baked = crate::bake::bake_gltf(bytes, name, &report);
    PROGRESS.with(|p| *p.borrow_mut() = None);
    let baked = baked.map_err(|e| JsError::new(&format!("{e:#}")))?;
    for w in &baked.warnings {
        web_sys::console::warn_1(&format!("{name}: {w}").into());
    }
    Ok(baked.throng)
}
