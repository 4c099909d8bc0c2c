//! # throng-web
//!
//! Throng in a browser. One wasm binary carries both of the browser's
//! backends and picks at run time: WebGPU where the browser gives an
//! adapter (the GPU-driven path with the pose cache, where the adapter
//! allows), else WebGL2 through the packages of `PACKAGE_WIDTH` instances
//! in uniform buffers — the design's downlevel path. `?backend=webgl2`
//! forces WebGL2.
//!
//! * [`query`]: the page's address parameters (`?model=`, `?instances=`,
//!   `?backend=`, `?time=`, `?seed=`), checked and clamped.
//! * [`scene`]: the crowd the page draws — the viewer's seeded herd on a
//!   ground, with shadows — built the same way in the browser and natively,
//!   so that the browser test can compare the two pictures.
//! * `page` (wasm32 only): the canvas, the surface, the frame loop, the
//!   orbit camera's mouse, wheel and touch, and the page contract — after
//!   ten frames `document.title` reads `throng: ok backend=… path=… frames=N`;
//!   on any failure `throng: error MESSAGE`, also shown on the page.
//!
//! docs/WEB.md says how to build, serve and test it.

pub mod bake;
pub mod query;
pub mod scene;
pub mod view;

#[cfg(target_arch = "wasm32")]
pub mod api;
#[cfg(target_arch = "wasm32")]
mod page;
