//! `throng soak`: a crowd kept alive under churn for a set time on a record
//! path (`throng_bench::soak`), a line every ten seconds, a summary, and a
//! non-zero exit naming the figure if memory or device bytes grew past
//! their bound after the warm-up, a frame failed, or the picture drifted
//! from a CPU path's.

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::Args as ClapArgs;
use throng_bench::soak::watch::Sample;
use throng_bench::soak::{MAX_SOAK_INSTANCES, SoakOptions, SoakReport, soak};
use throng_render::{Gpu, PathChoice};

use crate::render::path_parser;
use crate::util::{bytes, load_baked, thousands, write_stdout};
use throng_cli::args::size::parse_size;

/// Arguments of `throng soak`.
#[derive(ClapArgs)]
pub struct Args {
    /// A `.throng` (or a glTF, baked in memory); drawn at LOD 0.
    pub model: PathBuf,
    /// Largest crowd: its size waves between a quarter of this and this.
    #[arg(long, default_value_t = 2_000)]
    pub instances: u32,
    /// Seconds to run.
    #[arg(long, default_value_t = 60.0)]
    pub seconds: f64,
    /// Record path.
    #[arg(long, default_value = "auto", value_parser = path_parser())]
    pub path: PathChoice,
    /// Picture size.
    #[arg(long, default_value = "320x240", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Frames between picture checks against a CPU path (0: none).
    #[arg(long, default_value_t = 50)]
    pub check_every: u32,
    /// Seed of the churn.
    #[arg(long, default_value_t = 1)]
    pub seed: u32,
    /// Warm-up seconds, also one wave of the crowd's size [default: a
    /// quarter of the run, 5 to 60 s].
    #[arg(long)]
    pub warmup: Option<f64>,
    /// Resident memory may rise this much above the warm-up's highest:
    /// bytes, or a number with KiB, MiB or GiB; `none` does not judge it
    /// (lavapipe of Mesa 22.3 leaks 1–4 MiB of its own a frame).
    #[arg(long, value_parser = parse_bound, default_value = "32MiB")]
    pub rss_bound: Bound,
    /// Device buffer and texture bytes may rise this much above the
    /// warm-up's highest.
    #[arg(long, value_parser = throng_cli::args::bytes::parse_bytes, default_value = "8MiB")]
    pub gpu_bound: u64,
}

/// A bound in bytes, or none.
#[derive(Clone, Copy, Debug)]
pub struct Bound(Option<u64>);

fn parse_bound(s: &str) -> Result<Bound, String> {
    if s.eq_ignore_ascii_case("none") {
        return Ok(Bound(None));
    }
    throng_cli::args::bytes::parse_bytes(s).map(|b| Bound(Some(b)))
}

fn figure(v: Option<u64>) -> String {
    v.map_or_else(|| "n/a".to_owned(), bytes)
}

fn line(s: &Sample) -> String {
    format!(
        "{:>6.0} s  {:>9} frames  {:>7} instances  RSS {:>10}  GPU buffers {:>10}  textures {:>10}\n",
        s.seconds,
        thousands(s.frames),
        thousands(s.instances as u64),
        figure(s.rss),
        figure(s.gpu_buffers),
        figure(s.gpu_textures)
    )
}

/// Runs `throng soak`.
pub fn run(args: Args) -> Result<()> {
    check_args(&args)?;
    let (model, _) = load_baked(&args.model)?;
    let gpu = Gpu::headless()?;
    let opts = SoakOptions {
        instances: args.instances,
        seconds: args.seconds,
        path: args.path,
        size: args.size,
        check_every: args.check_every,
        seed: args.seed,
        warmup: args.warmup,
        rss_bound: args.rss_bound.0,
        gpu_bound: args.gpu_bound,
        ..SoakOptions::default()
    };
    write_stdout(&format!(
        "soaking {} on {}: up to {} instances for {} s, warm-up {:.0} s; resident memory {}\n",
        args.model.display(),
        throng_render::adapter_summary(&gpu.adapter),
        thousands(args.instances as u64),
        args.seconds,
        opts.warmup_seconds(),
        match opts.rss_bound {
            Some(b) => format!("bounded to {} of growth", bytes(b)),
            None => format!("not judged ({})", throng_bench::soak::LAVAPIPE_LEAK),
        }
    ))?;
    let mut shown = 0usize;
    let report = soak(&gpu, model, &opts, &mut |s| {
        if shown.is_multiple_of(10) {
            let _ = write_stdout(&line(s));
        }
        shown += 1;
    })?;
    let failures = report.failures();
    write_stdout(&summary(&report, &failures))?;
    if !failures.is_empty() {
        bail!("the soak failed:\n  {}", failures.join("\n  "));
    }
    Ok(())
}

/// Refuses `--seconds`, `--instances` and `--warmup` out of their range
/// before loading anything.
fn check_args(args: &Args) -> Result<()> {
    if !(args.seconds.is_finite() && args.seconds > 0.0) {
        bail!("--seconds {}: a positive number of seconds", args.seconds);
    }
    if args.instances == 0 || args.instances > MAX_SOAK_INSTANCES {
        bail!(
            "--instances {}: from 1 to {}",
            args.instances,
            thousands(MAX_SOAK_INSTANCES as u64)
        );
    }
    if let Some(w) = args.warmup
        && !(w.is_finite() && w > 0.0 && w < args.seconds)
    {
        bail!("--warmup {w}: a positive number of seconds shorter than the run");
    }
    Ok(())
}

/// The summary after the run: paths, churn, memory after the warm-up,
/// picture checks and, where nothing failed, that the soak held.
fn summary(report: &SoakReport, failures: &[String]) -> String {
    use std::fmt::Write;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "path {}, pictures checked against {}",
        report.path, report.reference
    );
    let _ = writeln!(
        text,
        "{} frames; churn: {} spawned, {} despawned, {} played, {} cross-faded, {} speeds, {} transforms, {} motions, {} layer stacks",
        thousands(report.frames),
        thousands(report.counts.spawned),
        thousands(report.counts.despawned),
        thousands(report.counts.played),
        thousands(report.counts.faded),
        thousands(report.counts.speeds),
        thousands(report.counts.transforms),
        thousands(report.counts.motions),
        thousands(report.counts.layers)
    );
    memory_line(&mut text, report);
    let worst = report
        .checks
        .iter()
        .max_by(|a, b| a.mean.total_cmp(&b.mean));
    let _ = writeln!(
        text,
        "{} picture checks{}",
        report.checks.len(),
        worst.map_or(String::new(), |c| format!(
            "; the largest difference at frame {}: {} pixels over the tolerance, mean {:.3} levels, worst {}",
            c.frame, c.differing, c.mean, c.worst
        ))
    );
    if failures.is_empty() {
        let _ = writeln!(
            text,
            "held: no growth past the bounds, no drift, no failed frame"
        );
    }
    text
}

/// The memory and device bytes from the first sample after the warm-up to
/// the last, with their peaks, where any sample came after it.
fn memory_line(text: &mut String, report: &SoakReport) {
    use std::fmt::Write;
    let after: Vec<&Sample> = report
        .samples
        .iter()
        .filter(|s| s.seconds >= report.warmup)
        .collect();
    if let (Some(first), Some(last)) = (after.first(), after.last()) {
        let peak = |f: fn(&Sample) -> Option<u64>| after.iter().filter_map(|s| f(s)).max();
        let _ = writeln!(
            text,
            "after the warm-up ({:.0} s to {:.0} s): RSS {} → {} (peak {}); GPU buffers {} → {} (peak {}); textures {} → {}",
            first.seconds,
            last.seconds,
            figure(first.rss),
            figure(last.rss),
            figure(peak(|s| s.rss)),
            figure(first.gpu_buffers),
            figure(last.gpu_buffers),
            figure(peak(|s| s.gpu_buffers)),
            figure(first.gpu_textures),
            figure(last.gpu_textures)
        );
    }
}
