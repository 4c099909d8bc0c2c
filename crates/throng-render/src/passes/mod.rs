//! Floor 4, passes: the compute work over a crowd on the GPU — the motion
//! pass (`motion`), the crowd's mirror and its scattered uploads
//! (`mirror`), the cull (`cull`) with occlusion culling's depth pyramid
//! (`depth_pyramid`) of the GPU-driven path, the simulation hook (`simulation`) with its flow field
//! (`navigation`), gaits (`gaits`) and built-in steering (`navigate`), pose readbacks
//! (`readback`), the animation layers' palette pre-pass (`palette`), and
//! the compute skinning readback (`compute`). Imports the floors below.

pub mod compute;
pub mod cull;
pub mod depth_pyramid;
pub(crate) mod entry_pipeline;
pub mod gaits;
pub mod mirror;
pub mod motion;
pub mod navigate;
pub mod navigation;
pub mod palette;
pub mod readback;
pub mod simulation;
