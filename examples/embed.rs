//! Throng inside an application of your own (`cargo run --release -p
//! throng-examples --example embed`): the application owns the window, the
//! surface, the render pass, its depth buffer, the camera and a ground mesh
//! (`src/window.rs`, `src/lib.rs`); Throng draws its crowd of Foxes into that
//! pass ([`throng_examples::Scene::render`]). The camera orbits; close the
//! window to quit.

fn main() -> anyhow::Result<()> {
    throng_examples::window::run("Throng: embed", None)
}
