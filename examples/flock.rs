//! A flock of 100,000 Foxes steered on the GPU (`cargo run --release -p
//! throng-examples --example flock -- [--agents N] [--frames N]`): boids in
//! `flock.wgsl`, a simulation hook composed with Throng's modules and run
//! every frame by Throng's GPU-driven path, which also sets each Fox's walk
//! to its speed. The CPU only advances the clock. `--frames N` quits after
//! N frames, `--lose-device-after N` destroys the device after N frames
//! to show the recovery (the smoke tests under Xvfb).

use anyhow::{Result, bail};
use clap::Parser;
use throng_examples::Scene;
use throng_examples::window::{MakeScene, RunOptions, run_scene};

/// The flock example's command line.
#[derive(Parser)]
#[command(about = "A flock of Foxes steered on the GPU")]
struct Args {
    /// Foxes in the flock (at least 1).
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    agents: u32,
    /// Quit after N frames (default: when the window closes).
    #[arg(long, value_name = "N")]
    frames: Option<u32>,
    /// Destroy the device after N frames, to show the recovery.
    #[arg(long, value_name = "N")]
    lose_device_after: Option<u32>,
}

fn main() -> Result<()> {
    let Args {
        agents,
        frames,
        lose_device_after,
    } = Args::parse();
    if agents == 0 {
        bail!("--agents must be at least 1");
    }
    let make: MakeScene = Box::new(move |gpu, format, fox| Scene::flock(gpu, format, fox, agents));
    run_scene(
        &format!("Throng: a flock of {agents} on the GPU"),
        RunOptions {
            frames,
            lose_device_after,
        },
        make,
    )
}
