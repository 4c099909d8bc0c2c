//! Floor 5, drawing: how a frame's draw lists become draws — draw items and
//! their layout into packages and groups (`items`), the impostors'
//! pipelines (`impostor`), the shadow map and its pipelines (`shadow`), a
//! caller's cascaded shadow maps received (`cascades`),
//! light views of the caller's and their cast pipelines (`light_views`), a
//! caller's depth, normal and motion-vector prepass (`prepass`), the
//! depth and MSAA attachments (`targets`), occlusion culling's early pass
//! drawn single-sampled where multisampled attachments do not outlive a
//! pass (`single_early`). Imports the floors below.

pub mod cascades;
pub mod impostor;
pub mod items;
pub mod light_views;
pub mod prepass;
pub mod shadow;
pub(crate) mod single_early;
pub mod targets;
