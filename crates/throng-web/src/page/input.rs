//! The orbit camera's input — drag to turn (mouse or one finger), wheel or
//! pinch to zoom — and the canvas's size in device pixels, which the frame
//! follows. Pointer events cover mouse, pen and touch alike.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use anyhow::{Result, anyhow};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use super::Page;

/// Radians turned per pixel dragged.
const TURN_PER_PIXEL: f32 = 0.006;

/// Zoom factor per wheel pixel.
const ZOOM_PER_WHEEL_PIXEL: f32 = 0.0015;

/// How far the camera may look up or down, radians.
const PITCH_LIMIT: f32 = 1.45;

/// The canvas's size in device pixels (at least 1 × 1), its drawing
/// buffer set to match.
pub fn canvas_size(canvas: &web_sys::HtmlCanvasElement) -> (u32, u32) {
    let ratio = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio());
    let w = ((canvas.client_width() as f64 * ratio).round() as u32).clamp(1, 8192);
    let h = ((canvas.client_height() as f64 * ratio).round() as u32).clamp(1, 8192);
    if canvas.width() != w || canvas.height() != h {
        canvas.set_width(w);
        canvas.set_height(h);
    }
    (w, h)
}

/// Pointers down on the canvas, by id: where each was last.
#[derive(Default)]
struct Pointers(HashMap<i32, (f32, f32)>);

impl Pointers {
    fn spread(&self) -> Option<f32> {
        let mut it = self.0.values();
        match (it.next(), it.next()) {
            (Some(a), Some(b)) => Some((a.0 - b.0).hypot(a.1 - b.1)),
            _ => None,
        }
    }
}

/// Listens for the orbit camera's input on `canvas`.
pub fn attach(canvas: &web_sys::HtmlCanvasElement, page: Rc<RefCell<Page>>) -> Result<()> {
    let pointers = Rc::new(RefCell::new(Pointers::default()));
    let js = |e: JsValue| anyhow!("listening for input: {e:?}");

    let down = {
        let (pointers, canvas) = (pointers.clone(), canvas.clone());
        Closure::<dyn FnMut(web_sys::PointerEvent)>::new(move |e: web_sys::PointerEvent| {
            let _ = canvas.set_pointer_capture(e.pointer_id());
            pointers
                .borrow_mut()
                .0
                .insert(e.pointer_id(), (e.client_x() as f32, e.client_y() as f32));
        })
    };
    let moved = {
        let (pointers, page) = (pointers.clone(), page.clone());
        Closure::<dyn FnMut(web_sys::PointerEvent)>::new(move |e: web_sys::PointerEvent| {
            let mut p = pointers.borrow_mut();
            let before = p.spread();
            let Some(last) = p.0.get_mut(&e.pointer_id()) else {
                return;
            };
            let now = (e.client_x() as f32, e.client_y() as f32);
            let (dx, dy) = (now.0 - last.0, now.1 - last.1);
            *last = now;
            let mut page = page.borrow_mut();
            let camera = &mut page.scene.scene.camera;
            match (before, p.spread()) {
                (Some(a), Some(b)) if a > 0.0 && b > 0.0 => camera.distance *= a / b,
                _ if p.0.len() == 1 => {
                    camera.yaw -= dx * TURN_PER_PIXEL;
                    camera.pitch =
                        (camera.pitch + dy * TURN_PER_PIXEL).clamp(-PITCH_LIMIT, PITCH_LIMIT);
                }
                _ => {}
            }
        })
    };
    let up = {
        let pointers = pointers.clone();
        Closure::<dyn FnMut(web_sys::PointerEvent)>::new(move |e: web_sys::PointerEvent| {
            pointers.borrow_mut().0.remove(&e.pointer_id());
        })
    };
    let wheel = Closure::<dyn FnMut(web_sys::WheelEvent)>::new(move |e: web_sys::WheelEvent| {
        e.prevent_default();
        let mut page = page.borrow_mut();
        let factor = (e.delta_y() as f32 * ZOOM_PER_WHEEL_PIXEL).exp();
        page.scene.scene.camera.distance = (page.scene.scene.camera.distance * factor).max(1e-3);
    });

    let target: &web_sys::EventTarget = canvas.as_ref();
    target
        .add_event_listener_with_callback("pointerdown", down.as_ref().unchecked_ref())
        .map_err(js)?;
    target
        .add_event_listener_with_callback("pointermove", moved.as_ref().unchecked_ref())
        .map_err(js)?;
    for name in ["pointerup", "pointercancel"] {
        target
            .add_event_listener_with_callback(name, up.as_ref().unchecked_ref())
            .map_err(js)?;
    }
    let options = web_sys::AddEventListenerOptions::new();
    options.set_passive(false);
    target
        .add_event_listener_with_callback_and_add_event_listener_options(
            "wheel",
            wheel.as_ref().unchecked_ref(),
            &options,
        )
        .map_err(js)?;
    // The listeners live as long as the page.
    down.forget();
    moved.forget();
    up.forget();
    wheel.forget();
    Ok(())
}
