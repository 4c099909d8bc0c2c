//! A flock of 100,000 Foxes steered on the GPU (`cargo run --release -p
//! throng-examples --example flock -- [--agents N] [--frames N]`): boids in
//! `flock.wgsl`, a simulation hook composed with Throng's modules and run
//! every frame by Throng's GPU-driven path, which also sets each Fox's walk
//! to its speed. The CPU only advances the clock. `--frames N` quits after
//! N frames, `--lose-device-after N` destroys the device after N frames
//! to show the recovery (the smoke tests under Xvfb).

use anyhow::{Context, Result, bail};
use throng_examples::Scene;
use throng_examples::window::{MakeScene, RunOptions, run_scene};

fn main() -> Result<()> {
    let mut agents = 100_000u32;
    let mut frames = None;
    let mut lose_device_after = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> Result<u32> {
            let v = args
                .next()
                .with_context(|| format!("{name} needs a number"))?;
            v.parse()
                .with_context(|| format!("{name}: {v:?} is not a whole number"))
        };
        match arg.as_str() {
            "--agents" => agents = value("--agents")?,
            "--frames" => frames = Some(value("--frames")?),
            "--lose-device-after" => lose_device_after = Some(value("--lose-device-after")?),
            other => {
                bail!("unknown argument {other:?} (--agents N, --frames N, --lose-device-after N)")
            }
        }
    }
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
