//! # throng-web
//!
//! Throng in a browser: a JavaScript API and a demo page built on it. One
//! wasm binary carries both of the browser's backends and picks at run
//! time: WebGPU where the browser gives an adapter (the GPU-driven path
//! with the pose cache, where the adapter allows), else WebGL2 through the
//! packages of `PACKAGE_WIDTH` instances in uniform buffers — the design's
//! downlevel path.
//!
//! * [`view`]: the crowd view the API drives, on any platform — models
//!   added after it is made, batches of typed arrays checked whole,
//!   steering, frames recorded by the renderer (occlusion culling).
//! * [`bake`]: glTF baked where the page runs (the bake without
//!   meshoptimizer for wasm32).
//! * [`query`]: the page's address parameters (`?model=`, `?gltf=`,
//!   `?instances=`, `?backend=`, `?time=`, `?seed=`, `?walk=`, `?camera=`,
//!   …), checked and clamped.
//! * [`scene`]: the crowd the page draws — the viewer's seeded herd on the
//!   demo's terrain, steered where it can be — laid into a view the same
//!   way in the browser and natively, so that the browser test can compare
//!   the two pictures.
//! * `api` (wasm32 only): `CrowdView`, the JavaScript API on a caller's
//!   canvas — the surface, fetching, the frame loop, orbit input, the bake
//!   worker.
//! * `page` (wasm32 only): `openPage`, the demo page's side of the API;
//!   `www/index.html` keeps the page contract — after ten frames
//!   `document.title` reads `throng: ok backend=… path=… frames=N
//!   occluded=N`; on any failure `throng: error MESSAGE`, also shown on the
//!   page.
//!
//! docs/WEB.md says how to build, serve, package and test it.

pub mod bake;
pub mod query;
pub mod scene;
pub mod view;

#[cfg(target_arch = "wasm32")]
pub mod api;
#[cfg(target_arch = "wasm32")]
mod page;
