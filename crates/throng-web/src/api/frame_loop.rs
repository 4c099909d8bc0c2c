//! The frame loop: on each `requestAnimationFrame` the crowd's clock
//! advances by the time since the last frame (unless paused; at most
//! 0.1 s), the canvas is drawn and presented, and the view's `onFrame`
//! callback gets the frame's [`FrameInfo`]. `start`'s promise settles
//! when the loop ends: resolved by `stop`/`dispose`, rejected with the
//! error that ended it. The callback runs with nothing borrowed, so it may
//! call the view back. Only the running loop holds its closure (the
//! closure reaches itself weakly to schedule the next frame), so a stopped
//! loop's closure is freed and its pending frame cancelled.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use anyhow::{Result, anyhow};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use super::{FrameInfo, Inner};

/// Frames drawn and the rate they come at.
#[derive(Default)]
pub struct FrameCount {
    frames: u32,
    last_ms: Option<f64>,
    window_start_ms: Option<f64>,
    window_frames: u32,
    fps: f64,
}

impl FrameCount {
    /// Counts a loop frame at `now_ms`; returns the seconds since the last.
    fn tick(&mut self, now_ms: f64) -> f32 {
        let dt = self
            .last_ms
            .map_or(0.0, |last| ((now_ms - last) / 1e3) as f32);
        self.last_ms = Some(now_ms);
        let start = *self.window_start_ms.get_or_insert(now_ms);
        self.window_frames += 1;
        if now_ms - start >= 500.0 {
            self.fps = f64::from(self.window_frames) * 1e3 / (now_ms - start);
            self.window_start_ms = Some(now_ms);
            self.window_frames = 0;
        }
        dt.max(0.0)
    }
}

type Tick = Closure<dyn FnMut(f64)>;

/// A running loop: its promise's settlers, the scheduled closure (held
/// here only: dropping this frees it) and its pending animation frame.
pub struct Running {
    resolve: js_sys::Function,
    reject: js_sys::Function,
    _tick: Rc<RefCell<Option<Tick>>>,
    frame: Rc<Cell<i32>>,
}

/// Draws a frame of `inner` (after advancing the clock by `dt`, when the
/// loop draws it) and returns what it drew.
pub fn draw(inner: &Rc<RefCell<Inner>>, dt: Option<f32>) -> Result<FrameInfo> {
    let performance = web_sys::window().and_then(|w| w.performance());
    let now = || performance.as_ref().map_or(0.0, |p| p.now());
    let began = now();
    let mut guard = inner.borrow_mut();
    let inner = &mut *guard;
    if let Some(e) = inner
        .gpu_error
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
    {
        return Err(anyhow!("{e}"));
    }
    let paused = inner.paused;
    let live = inner.live()?;
    live.view.scene.renderer.check_device()?;
    if let (Some(dt), false) = (dt, paused) {
        let dt = dt.min(0.1);
        live.advance(dt)?;
    }
    let view = &mut live.view;
    let Some(stats) = live
        .canvas
        .present(|gpu, target, size| view.render(&gpu.device, &gpu.queue, target, size))?
    else {
        return Ok(FrameInfo {
            frame: inner.frames.frames,
            ..Default::default()
        });
    };
    let models = live.view.scene.models().len() as u32;
    inner.frames.frames += 1;
    Ok(FrameInfo {
        frame: inner.frames.frames,
        instances: stats.instances,
        visible: stats.visible,
        occluded: stats.occluded,
        draws: stats.draws,
        impostors: stats.impostors,
        models,
        bone_kib: (stats.bone_bytes >> 10) as u32,
        shared_kib: (stats.shared_bone_bytes >> 10) as u32,
        parts_culled: stats.parts_culled.min(u64::from(u32::MAX)) as u32,
        fps: inner.frames.fps,
        cpu_ms: now() - began,
    })
}

/// Starts the loop (a second start while it runs is a rejected promise).
pub fn start(inner: &Rc<RefCell<Inner>>) -> js_sys::Promise {
    if inner.borrow().running.is_some() {
        return js_sys::Promise::reject(&JsError::new("the frame loop is already running").into());
    }
    if inner.borrow().live.is_none() {
        return js_sys::Promise::reject(&JsError::new("this CrowdView was disposed").into());
    }
    let tick: Rc<RefCell<Option<Tick>>> = Rc::new(RefCell::new(None));
    let frame = Rc::new(Cell::new(0));
    let (weak, again, pending) = (Rc::downgrade(inner), Rc::downgrade(&tick), frame.clone());
    *tick.borrow_mut() = Some(Closure::new(move |now_ms: f64| {
        let Some(inner) = weak.upgrade() else { return };
        if inner.borrow().running.is_none() {
            return;
        }
        let dt = inner.borrow_mut().frames.tick(now_ms);
        match draw(&inner, Some(dt)) {
            Ok(info) => {
                let callback = inner.borrow().on_frame.clone();
                if let Some(f) = callback
                    && let Err(e) = f.call1(&JsValue::NULL, &info.into())
                {
                    stop(&inner, Err(e));
                    return;
                }
            }
            Err(e) => {
                stop(&inner, Err(JsError::new(&format!("{e:#}")).into()));
                return;
            }
        }
        if inner.borrow().running.is_some()
            && let Some(tick) = again.upgrade()
        {
            schedule(&tick, &pending);
        }
    }));
    let inner = inner.clone();
    js_sys::Promise::new(&mut |resolve, reject| {
        schedule(&tick, &frame);
        inner.borrow_mut().running = Some(Running {
            resolve,
            reject,
            _tick: tick.clone(),
            frame: frame.clone(),
        });
    })
}

/// Asks for the next animation frame to call `tick`, its request's id in
/// `frame` (for `stop` to cancel).
fn schedule(tick: &RefCell<Option<Tick>>, frame: &Cell<i32>) {
    if let (Some(w), Some(f)) = (web_sys::window(), tick.borrow().as_ref())
        && let Ok(id) = w.request_animation_frame(f.as_ref().unchecked_ref())
    {
        frame.set(id);
    }
}

/// Ends the loop, settling its promise with `outcome`.
pub fn stop(inner: &Rc<RefCell<Inner>>, outcome: Result<(), JsValue>) {
    let running = inner.borrow_mut().running.take();
    if let Some(r) = running {
        // A frame still scheduled would call the closure this drop frees
        // (from inside the closure, none is: it is the one running).
        if let Some(w) = web_sys::window() {
            let _ = w.cancel_animation_frame(r.frame.get());
        }
        let _ = match outcome {
            Ok(()) => r.resolve.call0(&JsValue::NULL),
            Err(e) => r.reject.call1(&JsValue::NULL, &e),
        };
    }
}
