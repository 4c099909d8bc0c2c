//! Floor 1, the device: getting and watching a GPU and the plumbing every
//! pass and upload shares — a device and its adapter (`context`), its loss
//! (`device_loss`), GPU timing (`timer` for one span, `pass_timer` per pass), buffers and their growth,
//! dispatch sizes and mapped reads (`buffers`, `map_state`), small sampled
//! textures (`textures`), headless targets and readback (`offscreen`), and
//! image files and comparisons (`image_file`, `image_diff`). Imports only
//! the base.

pub mod buffers;
pub mod context;
pub mod device_loss;
pub mod image_diff;
pub mod image_file;
pub mod map_state;
pub mod offscreen;
pub mod pass_timer;
pub mod textures;
pub mod timer;
