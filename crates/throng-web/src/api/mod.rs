//! The JavaScript API: `CrowdView`, a crowd drawn on a canvas the caller
//! gives, driven from JavaScript in batches of typed arrays. wasm-bindgen
//! writes its TypeScript declarations (`tools/web.sh package` puts them in
//! the npm package; docs/WEB.md shows the API). Every failure is a
//! rejected promise or a thrown `Error` whose message is the page
//! contract's: what failed and where.
//!
//! The view itself is [`crate::view::View`], the same on every platform;
//! this module holds `CrowdView`'s methods and adds the canvas
//! ([`canvas`]), fetching ([`fetch`]), loading and baking models
//! ([`models`], [`bake`]), reading positions back ([`positions`]), the
//! frame loop ([`frame_loop`], [`frame_info`]), the orbit camera's input
//! ([`orbit`]) and the option objects ([`options`], [`types`]).

pub mod bake;
pub(crate) mod canvas;
pub(crate) mod fetch;
mod frame_info;
pub(crate) mod frame_loop;
mod models;
mod options;
pub(crate) mod orbit;
mod positions;
mod srgb;
mod types;

pub use frame_info::FrameInfo;
pub(crate) use models::baked_if_gltf;

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, anyhow};
use glam::Vec3;
use wasm_bindgen::prelude::*;

use crate::scene::PageScene;
use crate::view::batch::SpawnBatch;
use crate::view::{View, ViewOptions};
use canvas::Canvas;

/// A JavaScript exception as an error.
pub fn js_error(e: JsValue) -> anyhow::Error {
    if let Some(s) = e.as_string() {
        return anyhow!("{s}");
    }
    match e.dyn_ref::<js_sys::Error>() {
        Some(err) => anyhow!("{}", String::from(err.message())),
        None => anyhow!("{e:?}"),
    }
}

/// An error as JavaScript's `Error`, its message the whole chain.
fn to_js(e: anyhow::Error) -> JsError {
    JsError::new(&format!("{e:#}"))
}

/// What a drawing view holds; gone once disposed.
pub(crate) struct Live {
    pub(crate) canvas: Canvas,
    pub(crate) view: View,
    /// The demo page's walkers (`crate::page`); `None` for API users.
    pub(crate) page: Option<PageScene>,
}

impl Live {
    /// Advances the crowd's clock by `seconds` (re-targeting the page's
    /// walkers first, on the demo page).
    pub(crate) fn advance(&mut self, seconds: f32) -> Result<()> {
        match &mut self.page {
            Some(page) => page.advance(&mut self.view, seconds),
            None => self.view.advance(seconds),
        }
    }
}

/// The state behind a `CrowdView`, shared with its frame loop and input.
pub(crate) struct Inner {
    pub(crate) live: Option<Live>,
    /// The crowd's clock stands still (`paused`).
    pub(crate) paused: bool,
    /// Called after every frame of the loop with its [`FrameInfo`].
    pub(crate) on_frame: Option<js_sys::Function>,
    pub(crate) frames: frame_loop::FrameCount,
    /// The device's uncaptured error, reported by the next frame.
    pub(crate) gpu_error: Arc<Mutex<Option<String>>>,
    pub(crate) running: Option<frame_loop::Running>,
    pub(crate) orbit: Option<orbit::Listeners>,
}

impl Inner {
    /// The live view, or the error of a disposed one.
    pub(crate) fn live(&mut self) -> Result<&mut Live> {
        self.live.as_mut().context("this CrowdView was disposed")
    }
}

/// A crowd drawn on a canvas.
#[wasm_bindgen]
pub struct CrowdView(pub(crate) Rc<RefCell<Inner>>);

impl CrowdView {
    /// Opens a view on `canvas` (crate side of [`Self::create`]).
    pub(crate) async fn open(
        canvas: web_sys::HtmlCanvasElement,
        choice: crate::query::BackendChoice,
        options: ViewOptions,
    ) -> Result<Self> {
        let gpu_error = Arc::new(Mutex::new(None::<String>));
        let slot = gpu_error.clone();
        let canvas = Canvas::open(canvas, choice, move |e| {
            web_sys::console::error_1(&e.clone().into());
            let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert(e);
        })
        .await?;
        let mut view = View::new(canvas.app(), canvas.draw_format, options)?;
        // A lost device ends frames with an error that says so.
        view.scene.renderer.set_device_loss(canvas.gpu.loss.clone());
        Ok(Self(Rc::new(RefCell::new(Inner {
            live: Some(Live {
                canvas,
                view,
                page: None,
            }),
            paused: false,
            on_frame: None,
            frames: Default::default(),
            gpu_error,
            running: None,
            orbit: None,
        }))))
    }

    /// Runs `f` on the live view; errors become JavaScript's.
    fn with<T>(&self, f: impl FnOnce(&mut Live) -> Result<T>) -> Result<T, JsError> {
        let mut inner = self.0.borrow_mut();
        inner.live().and_then(f).map_err(to_js)
    }
}

#[wasm_bindgen]
impl CrowdView {
    /// A view drawing on `canvas`. `options`: `{ backend: "auto" |
    /// "webgpu" | "webgl2", occlusion: true, groundHalf: 0, groundCell: 1 }`
    /// (all optional). Rejects with the reason when the browser gives no
    /// adapter.
    pub async fn create(
        canvas: web_sys::HtmlCanvasElement,
        #[wasm_bindgen(unchecked_param_type = "CrowdViewOptions | undefined")] options: JsValue,
    ) -> Result<CrowdView, JsError> {
        let (choice, options) = options::view_options(&options).map_err(to_js)?;
        Self::open(canvas, choice, options).await.map_err(to_js)
    }

    /// "webgpu" or "webgl2".
    #[wasm_bindgen(getter)]
    pub fn backend(&self) -> Result<String, JsError> {
        self.with(|l| Ok(l.canvas.backend.to_owned()))
    }

    /// The draw path the adapter allows ("gpu-driven …", "packaged …").
    #[wasm_bindgen(getter)]
    pub fn path(&self) -> Result<String, JsError> {
        self.with(|l| Ok(l.view.scene.renderer.path().name().to_owned()))
    }

    /// Loads a model from a URL or from its bytes (a `Uint8Array`): a
    /// `.throng` file (with `frames`, the bytes of its frames file, if it
    /// refers to one; from a URL the frames file is fetched from beside
    /// it), or glTF — a `.glb`, or a `.gltf` with everything embedded —
    /// baked in a Web Worker first, `onProgress(done, total)` hearing the
    /// frames sampled. Resolves to the model's index.
    #[wasm_bindgen(js_name = loadModel, unchecked_return_type = "Promise<number>")]
    pub fn load_model(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] source: JsValue,
        frames: Option<Vec<u8>>,
        #[wasm_bindgen(js_name = onProgress)] on_progress: Option<js_sys::Function>,
    ) -> js_sys::Promise {
        let inner = self.0.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            models::load_model(&inner, source, frames, on_progress)
                .await
                .map(JsValue::from)
                .map_err(|e| JsValue::from(to_js(e)))
        })
    }

    /// The clip names of `model`, in index order (what `clips` arrays
    /// index).
    #[wasm_bindgen(js_name = clipNames)]
    pub fn clip_names(&self, model: u32) -> Result<Vec<String>, JsError> {
        self.with(|l| l.view.clip_names(model))
    }

    /// The box of `model`'s rest pose and clips: min x, y, z, max x, y, z.
    #[wasm_bindgen(js_name = modelBounds)]
    pub fn model_bounds(&self, model: u32) -> Result<Vec<f32>, JsError> {
        self.with(|l| l.view.model_bounds(model))
    }

    /// Spawns instances of `model`: `matrices` holds 16 floats (a
    /// column-major 4×4 `world_from_model`, as three.js's
    /// `Matrix4.elements`) per instance; `clips` (-1: the rest pose),
    /// `times` (seconds into the clip) and `looks` (palette rows) one per
    /// instance or none. Returns the instances' ids.
    pub fn spawn(
        &self,
        model: u32,
        matrices: &[f32],
        clips: Option<Vec<i32>>,
        times: Option<Vec<f32>>,
        looks: Option<Vec<u32>>,
    ) -> Result<Vec<u32>, JsError> {
        self.with(|l| {
            let batch = SpawnBatch {
                matrices,
                clips: clips.as_deref().unwrap_or_default(),
                times: times.as_deref().unwrap_or_default(),
                looks: looks.as_deref().unwrap_or_default(),
            };
            l.view.spawn(model, batch)
        })
    }

    /// Moves `ids[i]` to the `i`-th matrix of `matrices` (16 floats each).
    #[wasm_bindgen(js_name = setTransforms)]
    pub fn set_transforms(&self, ids: &[u32], matrices: &[f32]) -> Result<(), JsError> {
        self.with(|l| l.view.set_transforms(ids, matrices))
    }

    /// Plays `clips[i]` on `ids[i]` from `times[i]` (none: from 0).
    pub fn play(&self, ids: &[u32], clips: &[i32], times: Option<Vec<f32>>) -> Result<(), JsError> {
        self.with(|l| {
            l.view
                .play(ids, clips, times.as_deref().unwrap_or_default())
        })
    }

    /// Cross-fades `ids[i]` to `clips[i]` over `seconds[i]`.
    #[wasm_bindgen(js_name = crossFade)]
    pub fn cross_fade(&self, ids: &[u32], clips: &[i32], seconds: &[f32]) -> Result<(), JsError> {
        self.with(|l| l.view.cross_fade(ids, clips, seconds))
    }

    /// Sets `ids[i]`'s playback speed to `speeds[i]`.
    #[wasm_bindgen(js_name = setSpeeds)]
    pub fn set_speeds(&self, ids: &[u32], speeds: &[f32]) -> Result<(), JsError> {
        self.with(|l| l.view.set_speeds(ids, speeds))
    }

    /// Sets `ids[i]`'s linear RGBA tint (4 floats each).
    #[wasm_bindgen(js_name = setTints)]
    pub fn set_tints(&self, ids: &[u32], rgba: &[f32]) -> Result<(), JsError> {
        self.with(|l| l.view.set_tints(ids, rgba))
    }

    /// Removes `ids`' instances.
    pub fn despawn(&self, ids: &[u32]) -> Result<(), JsError> {
        self.with(|l| l.view.despawn(ids))
    }

    /// Live instances.
    #[wasm_bindgen(getter)]
    pub fn instances(&self) -> Result<u32, JsError> {
        self.with(|l| Ok(l.view.len() as u32))
    }

    /// The crowd's clock, seconds: how far `advance` and the frame loop
    /// have moved it.
    #[wasm_bindgen(getter)]
    pub fn seconds(&self) -> Result<f64, JsError> {
        self.with(|l| Ok(l.view.scene.crowd.seconds()))
    }

    /// Draws a checkered ground of half side `half` about the origin with
    /// checkers of side `cell` (`half` 0: none).
    #[wasm_bindgen(js_name = setGround)]
    pub fn set_ground(&self, half: f32, cell: f32) -> Result<(), JsError> {
        self.with(|l| l.view.set_ground(&l.canvas.gpu.device, half, cell))
    }

    /// Puts the camera at `eye` looking at `target` (3 floats each).
    #[wasm_bindgen(js_name = lookAt)]
    pub fn look_at(&self, eye: &[f32], target: &[f32]) -> Result<(), JsError> {
        self.with(|l| {
            let three = |what, v: &[f32]| {
                <[f32; 3]>::try_from(v)
                    .map(Vec3::from)
                    .map_err(|_| anyhow!("lookAt: {what} needs 3 numbers, not {}", v.len()))
            };
            l.view.look_at(three("eye", eye)?, three("target", target)?)
        })
    }

    /// Turns the camera about its target by dragging, zooms by wheel or
    /// pinch on the canvas.
    #[wasm_bindgen(js_name = orbitControls)]
    pub fn orbit_controls(&self) -> Result<(), JsError> {
        orbit::attach(&self.0).map_err(to_js)
    }

    /// Hands every instance of a model to Throng's GPU steering:
    /// `{ model, min: [x, z], max: [x, z], obstacles: Float32Array (x, z,
    /// radius each), goals: Float32Array (min x, min z, max x, max z each),
    /// agentRadius, walkSpeed }`. The `i`-th instance walks to goal
    /// `i % goals`, around the obstacles (drawn as pillars) and the others.
    pub fn steer(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SteerOptions")] options: JsValue,
    ) -> Result<(), JsError> {
        let spec = options::SteerFields::read(&options).map_err(to_js)?;
        self.with(|l| {
            let Live { canvas, view, .. } = l;
            view.steer(canvas.app(), &spec.spec())
        })
    }

    /// The steered agents' radius (undefined: nothing is steered).
    #[wasm_bindgen(getter, js_name = agentRadius)]
    pub fn agent_radius(&self) -> Result<Option<f32>, JsError> {
        self.with(|l| Ok(l.view.agent_radius()))
    }

    /// The steered agents' world positions (x, y, z each) as the frame last
    /// drawn left them on the GPU: resolves a frame or two later.
    #[wasm_bindgen(js_name = readPositions, unchecked_return_type = "Promise<Float32Array>")]
    pub fn read_positions(&self) -> js_sys::Promise {
        let inner = self.0.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            positions::read_positions(&inner)
                .await
                .map(|p| js_sys::Float32Array::from(&p[..]).into())
                .map_err(|e| to_js(e).into())
        })
    }

    /// Advances the crowd's clock by `seconds` (clips, fades, motions).
    pub fn advance(&self, seconds: f32) -> Result<(), JsError> {
        self.with(|l| l.advance(seconds))
    }

    /// The crowd's clock stands still in the frame loop.
    #[wasm_bindgen(getter)]
    pub fn paused(&self) -> bool {
        self.0.borrow().paused
    }

    /// Stops or restarts the crowd's clock in the frame loop.
    #[wasm_bindgen(setter)]
    pub fn set_paused(&self, paused: bool) {
        self.0.borrow_mut().paused = paused;
    }

    /// Draws a frame now (without advancing the clock) and returns what
    /// it drew.
    pub fn render(&self) -> Result<FrameInfo, JsError> {
        frame_loop::draw(&self.0, None).map_err(to_js)
    }

    /// Calls `callback(info: FrameInfo)` after every frame the loop draws
    /// (`null`: no more).
    #[wasm_bindgen(js_name = onFrame)]
    pub fn on_frame(&self, callback: Option<js_sys::Function>) {
        self.0.borrow_mut().on_frame = callback;
    }

    /// Starts the frame loop on `requestAnimationFrame`: each frame
    /// advances the clock by the time since the last (unless paused) and
    /// draws. The promise resolves when `stop` or `dispose` ends the loop,
    /// and rejects with the error that ended it (a lost device, a
    /// validation error).
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn start(&self) -> js_sys::Promise {
        frame_loop::start(&self.0)
    }

    /// Ends the frame loop after the current frame.
    pub fn stop(&self) {
        frame_loop::stop(&self.0, Ok(()));
    }

    /// Ends the loop, removes the input listeners and frees the GPU
    /// resources; every later call fails saying so.
    pub fn dispose(&self) {
        frame_loop::stop(&self.0, Ok(()));
        let mut inner = self.0.borrow_mut();
        inner.orbit = None;
        inner.on_frame = None;
        if let Some(live) = inner.live.take() {
            live.canvas.gpu.device.destroy();
        }
    }
}
