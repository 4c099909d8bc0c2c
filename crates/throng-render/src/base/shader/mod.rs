//! WGSL sources, the generated prelude, and composition by declared imports.
//!
//! The shader files live in the repository's `shaders/` folder, one module
//! each. A module states what it needs at its top, one line per import:
//!
//! ```wgsl
//! // #import skinning
//! // #import records
//! ```
//!
//! (a comment, so every file stays valid WGSL for editors and tools).
//! [`compose()`] resolves the imports depth first and emits each module once,
//! dependencies before dependants; an unknown module or an import cycle is an
//! error naming the file and line. Two names are virtual:
//!
//! * `prelude`: the constants shared with Rust, generated from
//!   `throng_core::limits` and `BakedVertex`'s layout ([`prelude()`]) so that
//!   none is written twice;
//! * `records`: where instance records come from, `records_uniform` or
//!   `records_storage`. The choice is made in one place,
//!   [`records_module`], from the renderer's [`RecordPath`](crate::base::options::RecordPath).
//!
//! A [`Program`] is an entry module and a record path. Users compose their
//! own WGSL with Throng's modules the same way ([`compose()`] takes any source
//! whose imports name them), e.g. a fragment shader of their own over
//! Throng's skinned vertex stage.
//!
//! Files: the embedded sources (`sources`), the prelude (`prelude`),
//! composition (`compose`) and the programs (`program`).

pub mod compose;
pub mod prelude;
pub mod program;
pub mod sources;

pub use compose::{ShaderError, compose, imports, records_module};
pub use prelude::{VERTEX_WORDS, prelude};
pub use program::Program;
pub use sources::*;
