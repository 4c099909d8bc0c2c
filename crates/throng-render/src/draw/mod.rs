//! Floor 5, drawing: how a frame's draw lists become draws — draw items and
//! their layout into packages and groups (`items`), the impostors'
//! pipelines (`impostor`), a caller's depth, normal and motion-vector prepass (`prepass`), the
//! depth and MSAA attachments (`targets`), occlusion culling's early pass
//! drawn single-sampled where multisampled attachments do not outlive a
//! pass (`single_early`). Imports the floors below.

pub mod impostor;
pub mod items;
pub mod prepass;
pub(crate) mod single_early;
pub mod targets;
