//! `#[repr(C)]` structs shared with WGSL. Each mirrors a WGSL struct field for
//! field; a CPU-only test in `throng-render` checks offsets and sizes against
//! naga's layout of the shaders.
//!
//! The ground floor of the crate's features: these files import only the
//! limits, the frame layout and the clock, never a feature (the model,
//! layers, variety, motion), so that every feature may use them. One file
//! per reader: the record paths (`record.rs`), per-model parameters
//! (`model.rs`), the GPU-driven path's mirror (`mirror.rs`), cull and light
//! fit (`cull.rs`) and motion pass (`motion.rs`), the palette pre-pass
//! (`palette.rs`) and the foot IK pass after it (`foot_ik.rs`); all are
//! re-exported here.

mod cull;
mod foot_ik;
mod mirror;
mod model;
mod motion;
mod palette;
mod record;

pub use cull::{
    CullView, DRAWN_WORDS, DrawSpec, GROUPS_WORD, GpuClip, GpuModelInfo, IN_VIEW_WORD, LightFit,
    LightFitParams, NO_IMPOSTOR, OCCLUDED_WORD, PLACED_WORD, PyramidParams, VISIBLE_BIT,
};
pub use foot_ik::{GpuIkInstance, GpuLeg, IkParams};
pub use mirror::{
    GpuInstance, GpuTrack, GpuTransform, MirrorParams, MotionUpdate, StateUpdate, TransformUpdate,
};
pub use model::{IMPOSTOR_TABLE_WIDTH, ImpostorParams, ModelParams, PoseCacheParams};
pub use motion::{GpuMotion, MotionParams};
pub use palette::{GpuBone, GpuLayer, GpuLayerSet, PaletteParams};
pub use record::{FrameBlend, InstanceRecord, LOD_DITHER_LEVELS, Look, PreviousRecord, pack_tint};
