//! `CrowdView.readPositions`'s work: the steered agents' positions read
//! back from the GPU, polled until they arrive.

use std::cell::RefCell;
use std::rc::Rc;

use anyhow::{Result, anyhow};

use super::Inner;

/// Requests the steered agents' positions and polls until the GPU has
/// them (a frame or two; an error after ten seconds).
pub(crate) async fn read_positions(inner: &Rc<RefCell<Inner>>) -> Result<Vec<f32>> {
    let (readback, device) = {
        let mut inner = inner.borrow_mut();
        let live = inner.live()?;
        (live.view.read_positions()?, live.canvas.gpu.device.clone())
    };
    for _ in 0..1000 {
        if let Some(poses) = readback.poll(&device) {
            return Ok(crate::view::steer::positions(&poses?));
        }
        let tick = js_sys::Promise::new(&mut |done, _| {
            if let Some(w) = web_sys::window() {
                let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&done, 10);
            }
        });
        let _ = wasm_bindgen_futures::JsFuture::from(tick).await;
    }
    Err(anyhow!(
        "readPositions: the GPU did not answer in ten seconds"
    ))
}
