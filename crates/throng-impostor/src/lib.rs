//! # throng-impostor
//!
//! Animated impostors, the far end of a model's LOD chain: [`capture()`]
//! renders a baked model's clips, frame by frame, from the hemi-octahedral
//! views of a [`throng_core::impostor::AtlasPlan`] into an atlas of colour
//! and normals, with Throng's own renderer and skinning; [`with_impostor`]
//! plans, captures and attaches one on a headless adapter (`throng bake`
//! and the viewer use it); [`encode()`] stores the images in the plan's
//! codec (BC7 by default). The views, their blending and the plan are the
//! contract crate's (`throng_core::impostor`); this crate is the bake-time
//! part that needs a GPU. `throng-render` draws the result.
//!
//! ## Example
//!
//! An impostor captured for a baked model without one, on a headless adapter,
//! within a 1 MiB atlas budget, with the plan's defaults:
//!
//! ```no_run
//! use throng_core::impostor::PlanRequest;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let model = throng_core::format::read_file("fox.throng".as_ref())?;
//! let model = throng_impostor::with_impostor(model, 1 << 20, PlanRequest::default(), None)?;
//! let atlas = model.impostor.as_ref().expect("attached");
//! println!("{:?} views, {} frames a clip", atlas.plan.views, atlas.plan.frames);
//! throng_core::format::write_file(&model, "fox.throng".as_ref())?;
//! # Ok(())
//! # }
//! ```

pub mod attach;
pub mod capture;
pub mod encode;

pub use attach::{AttachError, capture_from, capture_lod, with_impostor};
pub use capture::{CaptureError, capture, cell_transform, frame_time};
pub use encode::encode;
pub use throng_core::impostor::ImpostorAtlas;
