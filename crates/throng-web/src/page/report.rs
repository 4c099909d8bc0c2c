//! The page contract that tests read, and what a user sees when something
//! fails. After the first [`OK_AFTER_FRAMES`] frames `document.title` reads
//! `throng: ok backend=webgpu|webgl2 path=NAME frames=N`; on any failure
//! `throng: error MESSAGE`, and the message is shown over the canvas. A
//! panic is reported the same way (the panic hook), never a blank canvas.

use wasm_bindgen::JsCast;

/// Frames drawn before the page says it is working.
pub const OK_AFTER_FRAMES: u32 = 10;

/// Sets the title to the working line.
pub fn ok(backend: &str, path: &str, frames: u32) {
    set_title(&format!(
        "throng: ok backend={backend} path={path} frames={frames}"
    ));
}

/// Reports a failure: the error title, the message on the page and the
/// console. The first error stays: later ones are its consequences.
pub fn error(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    web_sys::console::error_1(&message.into());
    if document.title().starts_with("throng: error") {
        return;
    }
    let line = message.lines().collect::<Vec<_>>().join(" — ");
    document.set_title(&format!("throng: error {line}"));
    if let Some(panel) = document
        .get_element_by_id("error")
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        panel.set_inner_text(message);
        let _ = panel.style().set_property("display", "block");
    }
}

/// True once an error was reported: the frame loop stops.
pub fn failed() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .is_some_and(|d| d.title().starts_with("throng: error"))
}

/// Panics end as a reported error, with the panic's message and place.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| error(&format!("panic: {info}"))));
}

fn set_title(title: &str) {
    if failed() {
        return;
    }
    if let Some(document) = web_sys::window().and_then(|w| w.document()) {
        document.set_title(title);
    }
}
