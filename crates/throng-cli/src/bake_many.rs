//! `throng bake` of several models: the jobs run in parallel (one per core
//! by default, `--jobs N`), under one multi-progress display (a bar per
//! model in flight and one overall), and end in a table — file, result,
//! clips, bytes, time, worst error, warnings — and a non-zero exit naming
//! every model that failed; the others are still written.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{Result, bail};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use throng_pipeline::{Job, JobResult, Observer, Outcome, Phase, Settings, bake_all};

use crate::util::{bytes, write_stdout};

/// A bar per model in flight and one overall.
struct Bars {
    multi: MultiProgress,
    overall: ProgressBar,
    style: ProgressStyle,
    /// The bar of each job in flight, by output (unique per plan).
    bars: Mutex<HashMap<std::path::PathBuf, ProgressBar>>,
}

impl Bars {
    /// The bar of `job`, added when its first phase starts.
    fn bar(&self, job: &Job) -> ProgressBar {
        let mut bars = self.bars.lock().unwrap_or_else(|e| e.into_inner());
        bars.entry(job.output.clone())
            .or_insert_with(|| {
                let bar = self.multi.insert_before(&self.overall, ProgressBar::new(0));
                bar.set_style(self.style.clone());
                bar.set_prefix(job.model.display().to_string());
                bar
            })
            .clone()
    }
}

impl Observer for Bars {
    fn phase(&self, job: &Job, phase: Phase) {
        self.bar(job).set_message(phase.to_string());
    }

    fn frames(&self, job: &Job, done: u64, total: u64) {
        let bar = self.bar(job);
        bar.set_length(total);
        bar.set_position(done);
    }

    fn finished(&self, job: &Job, _: Result<&Outcome, &throng_pipeline::PipelineError>, _: f64) {
        let bar = self
            .bars
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&job.output);
        if let Some(bar) = bar {
            bar.finish_and_clear();
            self.multi.remove(&bar);
        }
        self.overall.inc(1);
    }
}

/// Bakes every job of `jobs` with `settings`; prints the table.
pub fn run(jobs: Vec<Job>, settings: &Settings) -> Result<()> {
    let start = Instant::now();
    let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
    let overall = multi.add(ProgressBar::new(jobs.len() as u64));
    overall.set_style(
        ProgressStyle::with_template("{spinner} {pos}/{len} models {wide_bar} {elapsed}")
            .expect("static template"),
    );
    let bars = Bars {
        multi,
        overall,
        style: ProgressStyle::with_template("  {prefix:30!} {bar:30} {pos}/{len} {msg}")
            .expect("static template"),
        bars: Mutex::new(HashMap::new()),
    };
    let rows = bake_all(jobs, settings, &bars);
    bars.overall.finish_and_clear();
    let failed = rows.iter().filter(|r| r.result.is_err()).count();
    write_stdout(&table(&rows, start.elapsed().as_secs_f64()))?;
    if failed > 0 {
        let names: Vec<String> = rows
            .iter()
            .filter(|r| r.result.is_err())
            .map(|r| r.job.model.display().to_string())
            .collect();
        bail!(
            "{failed} of {} models failed: {}",
            rows.len(),
            names.join(", ")
        );
    }
    Ok(())
}

/// The summary table, then each failure's full message.
fn table(rows: &[JobResult], seconds: f64) -> String {
    use std::fmt::Write;
    let w = rows
        .iter()
        .map(|r| r.job.model.display().to_string().chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:w$}  {:10}  {:>5}  {:>10}  {:>8}  {:>11}  {:>8}",
        "file", "result", "clips", "bytes", "time", "worst error", "warnings"
    );
    let (mut baked, mut fresh, mut failed) = (0, 0, 0);
    for r in rows {
        let file = r.job.model.display().to_string();
        match &r.result {
            Ok(Outcome::Baked(b)) => {
                baked += 1;
                let _ = writeln!(
                    s,
                    "{file:w$}  {:10}  {:>5}  {:>10}  {:>6.2} s  {:>11.2e}  {:>8}",
                    "baked",
                    b.model.clips.len(),
                    bytes(b.file_bytes),
                    r.seconds,
                    b.worst_error(),
                    b.report.warnings.len()
                );
            }
            Ok(Outcome::UpToDate { file_bytes }) => {
                fresh += 1;
                let _ = writeln!(
                    s,
                    "{file:w$}  {:10}  {:>5}  {:>10}  {:>6.2} s  {:>11}  {:>8}",
                    "up to date",
                    "",
                    bytes(*file_bytes),
                    r.seconds,
                    "",
                    ""
                );
            }
            Err(_) => {
                failed += 1;
                let _ = writeln!(
                    s,
                    "{file:w$}  {:10}  {:>5}  {:>10}  {:>6.2} s",
                    "FAILED", "", "", r.seconds
                );
            }
        }
    }
    // No trailing blanks where a row leaves columns empty.
    let mut s: String = s.lines().map(|l| l.trim_end().to_owned() + "\n").collect();
    let _ = writeln!(
        s,
        "{baked} baked, {fresh} up to date, {failed} failed, in {seconds:.2} s"
    );
    frames_lines(&mut s, rows);
    for r in rows {
        if let Err(e) = &r.result {
            let _ = writeln!(
                s,
                "error: {}: {}",
                r.job.model.display(),
                throng_core::error::Chain(e)
            );
        }
        if let Ok(Outcome::Baked(b)) = &r.result {
            for warning in &b.report.warnings {
                let _ = writeln!(s, "warning: {}: {warning}", r.job.model.display());
            }
        }
    }
    s
}

/// A line per shared frames file: how many bodies refer to it, and its size.
fn frames_lines(s: &mut String, rows: &[JobResult]) {
    use std::fmt::Write;
    let mut files: std::collections::BTreeMap<&std::path::Path, usize> = Default::default();
    for r in rows {
        if let Some(f) = &r.frames_file {
            *files.entry(f).or_default() += 1;
        }
    }
    for (file, bodies) in files {
        let size = std::fs::metadata(file).map_or(0, |m| m.len());
        let _ = writeln!(
            s,
            "frames: {bodies} bodies share {} ({})",
            file.display(),
            bytes(size)
        );
    }
}
