//! What a user of the demo page sees when something panics: the page
//! contract's error title (`throng: error MESSAGE`) and the message over
//! the canvas, never a blank canvas. Other errors reach the page's script
//! as rejected promises, which it reports the same way.

use wasm_bindgen::JsCast;

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

/// Panics end as a reported error, with the panic's message and place.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| error(&format!("panic: {info}"))));
}
