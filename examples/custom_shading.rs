//! A fragment shader of your own over Throng's skinning (`cargo run
//! --release -p throng-examples --example custom_shading`): the application
//! of the `embed` example, with the crowd shaded by `custom_shading.wgsl`
//! (toon bands and a rim light), which imports Throng's WGSL modules and is
//! composed with them into the crowd's pipelines (`RendererOptions::fragment`).

use throng::render::CustomFragment;

/// The application's shading: its own WGSL, composed with Throng's modules.
fn toon() -> CustomFragment {
    CustomFragment {
        file: "custom_shading.wgsl".into(),
        source: include_str!("custom_shading.wgsl").into(),
        entry: "fs_toon".into(),
    }
}

fn main() -> anyhow::Result<()> {
    throng_examples::window::run("Throng: custom shading", Some(toon()))
}
