//! # throng-crowd
//!
//! The runtime simulation of a crowd, with no GPU and no glTF: instances of
//! baked models ([`throng_core::BakedModel`]), each playing its own clip at
//! its own time; cross-fades, events, root motion and attachments; culling,
//! LOD choice and the per-frame draw list the renderer consumes.
//!
//! * [`crowd`]: the [`Crowd`] and everything an instance does (one job per
//!   file; see the module's docs).
//! * [`playback`]: playback arithmetic on unwrapped clip time: wrap modes,
//!   event crossings, root-motion deltas.
//! * [`camera`]: cameras and frustum culling.
//! * [`navigation`]: obstacles on a grid and flow fields to goals (travel
//!   distance, direction, clearance) for GPU crowd steering.
//!
//! It depends on the contract crate (`throng-core`) only; a test
//! (`tests/tests/integration/crate_graph.rs`) fails if it comes to depend on the offline
//! crate or on glTF.
//!
//! ## Example
//!
//! A crowd of a baked model (`throng bake fox.glb -o fox.throng`): instances
//! spawned playing clips, one cross-fading to another, the clock advanced,
//! and the draw list a renderer would consume for a camera.
//!
//! ```no_run
//! use throng_core::glam::{Mat4, Vec3};
//! use throng_crowd::camera::Camera;
//! use throng_crowd::{Crowd, DrawList, DrawView, ModelHandle, Spawn};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let model = ModelHandle::new(throng_core::format::read_file("fox.throng".as_ref())?)?;
//! let mut crowd = Crowd::new();
//! let fox = crowd.add_model(&model);
//! let run = crowd.clip_index(fox, "Run")?;
//! let mut ids = Vec::new();
//! for i in 0..1000 {
//!     let at = Vec3::new((i % 40) as f32 * 100.0, 0.0, (i / 40) as f32 * 100.0);
//!     let spawn = Spawn { transform: Mat4::from_translation(at), clip: Some(0), ..Spawn::default() };
//!     ids.push(crowd.spawn(fox, spawn)?);
//! }
//! crowd.cross_fade(ids[0], run, 0.3)?;
//! crowd.update(1.0 / 60.0);
//! for event in crowd.drain_events() {
//!     println!("{event:?}");
//! }
//! let camera = Camera::look_at(Vec3::new(0.0, 300.0, -500.0), Vec3::ZERO, Vec3::Y, 0.8, 16.0 / 9.0, 1.0, 1e4);
//! let mut list = DrawList::default();
//! crowd.build_draw_list(DrawView::from_camera(&camera, true), &mut list);
//! println!("{} of {} instances visible", list.visible(), list.instances);
//! # Ok(())
//! # }
//! ```

pub mod camera;
pub mod crowd;
pub mod navigation;
pub mod playback;

pub use crowd::{
    Attachment, Crowd, CrowdError, CrowdEvent, CrowdReplica, DrawGroup, DrawList, DrawView,
    InstanceId, InstanceState, ModelHandle, ModelId, Spawn, WrapMode,
};
