//! The command line's value grammar — layer specs, clips, sizes, byte
//! counts, submesh toggles — as a library, so that the fuzz targets (`crates/throng-fuzz`)
//! and the commands parse with the same code.

pub mod bytes;
pub mod clip;
pub mod layer;
pub mod size;
pub mod toggle;
