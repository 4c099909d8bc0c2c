//! What steering costs on the GPU (`cargo run --release -p throng-examples
//! --example steer_bench -- [--agents 10000,100000] [--frames N]`): Throng's
//! built-in steering over its plaza (flow field, anticipation, contact,
//! walls, gaits, goal exchange) against the same without goal exchange
//! and against the flock hook (`flock.wgsl`, boids), each at the same
//! agent counts, headless, the simulation's passes timed with
//! timestamp queries (median of the frames after three warm-up ones); the
//! camera looks away so drawing costs nothing. One JSON line per run for
//! docs/BENCHMARKS.md.

use anyhow::{Context, Result, bail};
use glam::Vec3;
use throng::crowd::camera::Camera;
use throng::crowd::crowd::Crowd;
use throng::render::{Gpu, GpuModel, PathChoice, Renderer, RendererOptions, Simulation};
use throng_examples::{bake_fox, flock, plaza};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The GPU ms of the simulation's passes a frame of `crowd` stepped by
/// `simulation` (median, and mean: goal exchange runs on one step in
/// four, which a median hides), and median CPU ms of the crowd's update.
fn run(
    gpu: &Gpu,
    model: &GpuModel,
    mut crowd: Crowd,
    mut simulation: Simulation,
    frames: u32,
) -> Result<(f64, f64, f64)> {
    if !simulation.time_on_gpu(&gpu.device, &gpu.queue) {
        bail!("this adapter has no timestamp queries");
    }
    let mut renderer = Renderer::headless(
        gpu,
        RendererOptions {
            path: PathChoice::GpuDriven,
            shadows: None,
            ..Default::default()
        },
    )?;
    renderer.set_simulation(0, Some(simulation))?;
    let camera = Camera::look_at(
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, 100.0, 1.0),
        Vec3::Z,
        0.8,
        1.0,
        0.1,
        10.0,
    );
    let (mut gpu_ms, mut cpu_ms) = (Vec::new(), Vec::new());
    for frame in 0..frames + 3 {
        let cpu = std::time::Instant::now();
        crowd.update(1.0 / 30.0);
        let cpu = cpu.elapsed().as_secs_f64() * 1e3;
        renderer.render_image(gpu, (16, 16), &camera, &[&crowd], &[model])?;
        let sim = renderer.simulation_mut(0).context("the simulation")?;
        let t = sim.gpu_time(&gpu.device).context("no GPU time")?;
        if frame >= 3 {
            gpu_ms.push(t.as_secs_f64() * 1e3);
            cpu_ms.push(cpu);
        }
    }
    let mean = gpu_ms.iter().sum::<f64>() / gpu_ms.len().max(1) as f64;
    Ok((median(gpu_ms), mean, median(cpu_ms)))
}

fn main() -> Result<()> {
    let mut agents = vec![10_000u32, 100_000];
    let mut frames = 10u32;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args
            .next()
            .with_context(|| format!("{arg} needs a value"))?;
        match arg.as_str() {
            "--agents" => agents = value.split(',').map(str::parse).collect::<Result<_, _>>()?,
            "--frames" => frames = value.parse()?,
            other => bail!("unknown argument {other:?} (--agents N,M, --frames N)"),
        }
    }
    let gpu = Gpu::headless()?;
    let adapter = gpu.adapter_summary();
    let fox = bake_fox()?;
    let model = GpuModel::upload(&gpu.device, &gpu.queue, &fox)?;
    println!("steering on {adapter}: simulation passes' GPU ms (median of {frames} frames)");
    for &n in &agents {
        let f = flock::flock_crowd(&fox, n)?;
        let sim = flock::flock_simulation(&gpu.device, &f.params)?;
        let (flock_gpu, _, flock_cpu) = run(&gpu, &model, f.crowd, sim, frames)?;
        let (crowd, mut steered) = plaza::plaza_crowd(&fox, n)?;
        let sim = plaza::plaza_simulation(&gpu.device, &crowd, &steered)?;
        // The same crowd and field again, without goal exchange.
        let again = crowd.clone();
        let (nav_gpu, nav_mean, nav_cpu) = run(&gpu, &model, crowd, sim, frames)?;
        steered.params.exchange_goals = 0;
        let sim = plaza::plaza_simulation(&gpu.device, &again, &steered)?;
        let (kept_gpu, kept_mean, _) = run(&gpu, &model, again, sim, frames)?;
        println!(
            "{n:>8} agents: navigate {nav_gpu:8.2} ms GPU ({nav_cpu:.3} ms CPU update; mean {nav_mean:.2} ms, {kept_mean:.2} ms without goal exchange), flock {flock_gpu:8.2} ms GPU ({flock_cpu:.3} ms CPU update), ratio {:.2}",
            nav_gpu / flock_gpu
        );
        println!(
            "{{\"adapter\":{adapter:?},\"agents\":{n},\"navigate_gpu_ms\":{nav_gpu:.3},\"navigate_mean_gpu_ms\":{nav_mean:.3},\"navigate_no_exchange_gpu_ms\":{kept_gpu:.3},\"navigate_no_exchange_mean_gpu_ms\":{kept_mean:.3},\"flock_gpu_ms\":{flock_gpu:.3},\"navigate_cpu_ms\":{nav_cpu:.3},\"flock_cpu_ms\":{flock_cpu:.3},\"field_cells\":{}}}",
            steered.field.cells().len()
        );
    }
    Ok(())
}
