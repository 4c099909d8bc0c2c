//! Bind group layouts, created from fixed descriptors so that every creator
//! gets the same (pooled, compatible) layout for a given device, and the
//! pipeline layout of every [`Program`](crate::base::shader::program::Program) ([`program_groups`],
//! [`pipeline_layout`]): the one place that says which group a program reads
//! at which index. `tests/render/shaders/bindings.rs` checks every binding an entry point
//! uses against it (group, binding, kind and stage).
//!
//! | group | contents |
//! |-------|----------|
//! | 0     | frame uniforms (draw) / compute vertex words, output, params (skinning readback, pose-cache fill) / the palette pre-pass: params, layer sets, skeleton table, mask table, palettes |
//! | 1     | model: bone texture array + `ModelParams`, the morph texture (4); on the storage paths' draw and shadow programs, per (model, LOD), also its pose cache (2) and `PoseCacheParams` (3); for impostors, from binding 8: the atlas's colour and normal arrays, their sampler, the frame table, `ImpostorParams`, the variant palette, the surface array (14) |
//! | 2     | submesh: base-colour texture, sampler, `MaterialUniforms`, variant palette |
//! | 3     | instance records: a uniform package (dynamic offset) or a storage array, and the shadow bindings; for the CPU-skinned baseline, binding 1: one character's header and palette (storage, dynamic offset) |
//!
//! Files: the building blocks (`entries`), the draw programs' groups
//! (`draw`), the compute programs' (`compute`), and each program's groups
//! and pipeline layout (`layouts`).

pub mod compute;
pub mod draw;
pub mod entries;
pub mod layouts;

pub use compute::*;
pub use draw::*;
pub use entries::Entries;
pub use layouts::*;
