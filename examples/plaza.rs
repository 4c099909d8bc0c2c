//! A plaza of Foxes crossing on the GPU (`cargo run --release -p
//! throng-examples --example plaza -- [--agents N] [--frames N]`): Throng's
//! built-in steering (`throng::render::simulation::navigate`) walks every Fox to a goal
//! at a side of the square around pillars, a fountain and each other,
//! stands it a while and sends it on; its clip follows its speed (Survey,
//! Walk, Run). The scene is `examples/src/plaza.rs`: an obstacle grid, a
//! flow field to four goals, the hook and the gaits.

use anyhow::{Result, bail};
use clap::Parser;
use throng_examples::Scene;
use throng_examples::window::{MakeScene, RunOptions, run_scene};

/// The plaza example's command line.
#[derive(Parser)]
#[command(about = "A plaza of Foxes crossing on the GPU")]
struct Args {
    /// Foxes on the plaza (at least 1).
    #[arg(long, value_name = "N", default_value_t = 2_000)]
    agents: u32,
    /// Quit after N frames (default: when the window closes).
    #[arg(long, value_name = "N")]
    frames: Option<u32>,
}

fn main() -> Result<()> {
    let Args { agents, frames } = Args::parse();
    if agents == 0 {
        bail!("--agents must be at least 1");
    }
    let make: MakeScene = Box::new(move |gpu, format, fox| Scene::plaza(gpu, format, fox, agents));
    run_scene(
        &format!("Throng: a plaza of {agents}"),
        RunOptions {
            frames,
            lose_device_after: None,
        },
        make,
    )
}
