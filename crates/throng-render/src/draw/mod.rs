//! Floor 5, drawing: how a frame's draw lists become draws — draw items and
//! their layout into packages and groups (`items`), the depth and MSAA
//! attachments (`targets`).
//! Imports the floors below.

pub mod items;
pub mod targets;
