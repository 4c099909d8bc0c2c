//! Floor 4, passes: the compute work over a crowd on the GPU — the motion
//! pass (`motion`), the crowd's mirror and its scattered uploads
//! (`mirror`), the cull (`cull`) of the GPU-driven path with the layout of
//! the depth pyramid its late phase reads (`pyramid_layout`; occlusion
//! culling, which builds the pyramid, is `occlusion/`), pose readbacks
//! (`readback`), the animation layers' palette pre-pass (`palette`), and
//! the compute skinning readback (`compute`). Beside it on this floor, the
//! GPU simulation is a feature in a folder of its own (`simulation/`).
//! Imports the floors below.

pub mod compute;
pub mod cull;
pub(crate) mod entry_pipeline;
pub mod foot_ik;
pub mod mirror;
pub mod motion;
pub mod palette;
pub mod pyramid_layout;
pub mod readback;
