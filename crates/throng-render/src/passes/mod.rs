//! Floor 4, passes: the compute work over a crowd on the GPU — the motion
//! pass (`motion`), the crowd's mirror and its scattered uploads
//! (`mirror`), the cull (`cull`) of the GPU-driven path with the layout of
//! the depth pyramid its late phase reads (`pyramid_layout`; occlusion
//! culling, which builds the pyramid, is `occlusion/`), the simulation
//! hook (`simulation`) with its flow field
//! (`navigation`), gaits (`gaits`) and built-in steering (`navigate`), pose readbacks
//! (`readback`), the animation layers' palette pre-pass (`palette`), and
//! the compute skinning readback (`compute`). Imports the floors below.

pub mod compute;
pub mod cull;
pub(crate) mod entry_pipeline;
pub mod gaits;
pub mod mirror;
pub mod motion;
pub mod navigate;
pub mod navigation;
pub mod palette;
pub mod pyramid_layout;
pub mod readback;
pub mod simulation;
