//! throng-impostor's tests, one binary: the capture, the impostor drawn
//! against the meshes near and far, its materials, shadows and fog.

mod capture;
mod common;
mod fog;
mod impostor_draw;
mod impostor_materials;
mod impostor_shadows;
