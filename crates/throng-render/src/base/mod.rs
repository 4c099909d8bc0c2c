//! Floor 0, the base: the vocabulary every floor above may use, importing
//! nothing of the crate's own but each other, bottom to top — the
//! `#[repr(C)]` uniform twins of the WGSL structs (`uniforms`), distance fog
//! (`fog`), what a renderer is asked for and reports (`options`, with the
//! depth format and the record paths), the WGSL sources, generated prelude
//! and composition (`shader`), the errors (`error`), and locking the
//! crate's mutexes, poisoned or not (`sync`).

pub mod error;
pub mod fog;
pub mod options;
pub mod shader;
pub(crate) mod sync;
pub mod uniforms;
