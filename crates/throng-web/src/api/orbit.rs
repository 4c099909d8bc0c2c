//! The orbit camera's input — drag to turn (mouse or one finger), wheel or
//! pinch to zoom — on a view's canvas (`CrowdView.orbitControls`). Pointer
//! events cover mouse, pen and touch alike; the listeners are removed when
//! the view is disposed.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use anyhow::{Result, anyhow};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use super::Inner;

/// Radians turned per pixel dragged.
const TURN_PER_PIXEL: f32 = 0.006;

/// Zoom factor per wheel pixel.
const ZOOM_PER_WHEEL_PIXEL: f32 = 0.0015;

/// How far the camera may look up or down, radians.
const PITCH_LIMIT: f32 = 1.45;

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

type PointerListener = Closure<dyn FnMut(web_sys::PointerEvent)>;

/// The listeners on a view's canvas, removed when dropped.
pub struct Listeners {
    canvas: web_sys::HtmlCanvasElement,
    pointer: Vec<(&'static [&'static str], PointerListener)>,
    wheel: Closure<dyn FnMut(web_sys::WheelEvent)>,
}

impl Drop for Listeners {
    fn drop(&mut self) {
        let target: &web_sys::EventTarget = self.canvas.as_ref();
        for (names, f) in &self.pointer {
            for name in *names {
                let _ =
                    target.remove_event_listener_with_callback(name, f.as_ref().unchecked_ref());
            }
        }
        let _ = target
            .remove_event_listener_with_callback("wheel", self.wheel.as_ref().unchecked_ref());
    }
}

/// Turns `inner`'s camera by `f`, while the view lives.
fn with_camera(inner: &Weak<RefCell<Inner>>, f: impl FnOnce(&mut throng_examples::OrbitCamera)) {
    if let Some(inner) = inner.upgrade()
        && let Ok(mut inner) = inner.try_borrow_mut()
        && let Some(live) = inner.live.as_mut()
    {
        f(&mut live.view.scene.camera);
    }
}

/// Listens for the orbit camera's input on the view's canvas (once: a
/// second call keeps the first listeners).
pub fn attach(inner: &Rc<RefCell<Inner>>) -> Result<()> {
    if inner.borrow().orbit.is_some() {
        return Ok(());
    }
    let canvas = match &inner.borrow().live {
        Some(live) => live.canvas.element.clone(),
        None => return Err(anyhow!("this CrowdView was disposed")),
    };
    let page = Rc::downgrade(inner);
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
            with_camera(&page, |camera| match (before, p.spread()) {
                (Some(a), Some(b)) if a > 0.0 && b > 0.0 => camera.distance *= a / b,
                _ if p.0.len() == 1 => {
                    camera.yaw -= dx * TURN_PER_PIXEL;
                    camera.pitch =
                        (camera.pitch + dy * TURN_PER_PIXEL).clamp(-PITCH_LIMIT, PITCH_LIMIT);
                }
                _ => {}
            });
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
        let factor = (e.delta_y() as f32 * ZOOM_PER_WHEEL_PIXEL).exp();
        with_camera(&page, |camera| {
            camera.distance = (camera.distance * factor).max(1e-3)
        });
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
    inner.borrow_mut().orbit = Some(Listeners {
        canvas,
        pointer: vec![
            (&["pointerdown"], down),
            (&["pointermove"], moved),
            (&["pointerup", "pointercancel"], up),
        ],
        wheel,
    });
    Ok(())
}
