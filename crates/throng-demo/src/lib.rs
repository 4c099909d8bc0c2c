//! # throng-demo
//!
//! The scenery of Throng's own programs — the viewer, the web page, the
//! bench and the examples — kept out of the runtime crates, so an
//! application that depends on `throng-crowd` and `throng-render` compiles
//! none of it (`tests/tests/integration/crate_graph.rs` fails if the
//! runtime comes to depend on this crate).
//!
//! * [`herd`]: where a crowd stands: a seeded, round, varied herd (of one
//!   model, or mixed of several).
//! * [`mixed`]: the rule a mixed crowd's models keep: one set of clips.
//! * [`outfits`]: a model worn as outfits, and the look that wears one.
//! * [`walkers`]: a crowd that walks waypoint loops at speed-matched
//!   playback, re-targeted 1 % a second.
//! * [`plaza`]: obstacles and goals around a herd, for the GPU's built-in
//!   steering.
//! * [`pillars`]: a plaza's obstacles drawn as instanced cylinders inside
//!   the application's pass beside the crowd.
//! * [`terrain`]: the demo's hills with a stair onto a platform, as a
//!   crowd's ground (`throng_core::ground`) and as a mesh.
//! * [`terrain_pass`]: that mesh drawn inside the application's pass,
//!   lit and shadowed by the crowd's light.
//! * [`uniform`]: a scenery pass's uniform buffer and its bind group.

pub mod herd;
pub mod mixed;
pub mod outfits;
pub mod pillars;
pub mod plaza;
pub mod terrain;
pub mod terrain_pass;
pub mod uniform;
pub mod walkers;
