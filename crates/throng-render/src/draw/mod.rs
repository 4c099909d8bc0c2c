//! Floor 5, drawing: how a frame's draw lists become draws — draw items and
//! their layout into packages and groups (`items`), the impostors'
//! pipelines (`impostor`), the shadow map and its pipelines (`shadow`), and
//! the depth and MSAA attachments (`targets`). Imports the floors below.

pub mod impostor;
pub mod items;
pub mod shadow;
pub mod targets;
