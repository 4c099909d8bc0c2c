//! A plaza of Foxes crossing on the GPU (`cargo run --release -p
//! throng-examples --example plaza -- [--agents N] [--frames N]`): Throng's
//! built-in steering (`throng::render::navigate`) walks every Fox to a goal
//! at a side of the square around pillars, a fountain and each other,
//! stands it a while and sends it on; its clip follows its speed (Survey,
//! Walk, Run). The scene is `examples/src/plaza.rs`: an obstacle grid, a
//! flow field to four goals, the hook and the gaits.

use anyhow::{Context, Result, bail};
use throng_examples::Scene;
use throng_examples::window::{MakeScene, RunOptions, run_scene};

fn main() -> Result<()> {
    let mut agents = 2_000u32;
    let mut frames = None;
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
            other => bail!("unknown argument {other:?} (--agents N, --frames N)"),
        }
    }
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
