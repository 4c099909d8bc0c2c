//! Floor 2, programs: how Throng's WGSL programs bind and draw — every
//! bind-group layout and each program's pipeline layout (`bind_groups`),
//! and the pipeline kit the drawers share (`pipeline`: vertex layouts, the
//! depth state, [`PassPipeline`](pipeline::PassPipeline)). Imports the
//! base and the device.

pub mod bind_groups;
pub mod pipeline;
