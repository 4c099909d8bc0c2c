//! The command line's value grammar — layer specs, clips, sizes, byte
//! counts, submesh toggles, the models a mixed crowd's arguments name — as a library, so that the fuzz targets (`crates/throng-fuzz`)
//! and the commands parse with the same code.

pub mod bytes;
pub mod clip;
pub mod layer;
pub mod models;
pub mod size;
pub mod toggle;
