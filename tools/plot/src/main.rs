//! `throng-plot`: draws `throng bench --json` results as an SVG chart of
//! frame time against instance count, one line per mode, on log-log axes.
//!
//! Two panels: GPU time per frame (timestamp queries, or wall time to queue
//! completion where the adapter has none; the axis says which) and CPU time
//! per frame. Each point is the median of the measured frames. Several JSON
//! files (e.g. one per adapter) go in one chart, their lines labelled with
//! the adapter.
//!
//! ```text
//! throng-plot docs/bench-data/lavapipe-fox.json -o docs/bench.svg
//! ```

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::Parser;
use plotters::prelude::*;
use serde_json::Value;

/// Plots `throng bench --json` results.
#[derive(Parser)]
#[command(name = "throng-plot", version, about)]
struct Args {
    /// `throng bench --json` files.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Output SVG.
    #[arg(short, long, default_value = "docs/bench.svg")]
    output: PathBuf,
    /// Chart title [default: model, size and adapter of the first input].
    #[arg(long)]
    title: Option<String>,
}

/// Modes in legend order, with their colours.
const MODES: [(&str, RGBColor); 4] = [
    ("baked", RGBColor(0x1f, 0x77, 0xb4)),
    ("baked-unbounded", RGBColor(0x2c, 0xa0, 0x2c)),
    ("static", RGBColor(0x7f, 0x7f, 0x7f)),
    ("cpu-skinned", RGBColor(0xd6, 0x27, 0x28)),
];

/// One line: a mode of one input, `(instances, median ms)` points.
struct Series {
    label: String,
    color: RGBColor,
    /// Index of the input file (later inputs get hollow markers).
    input: usize,
    gpu: Vec<(f64, f64)>,
    cpu: Vec<(f64, f64)>,
}

fn read(path: &PathBuf) -> Result<Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let v: Value =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    if v["schema"] != "throng-bench/1" {
        bail!(
            "{}: not a `throng bench --json` file (schema {})",
            path.display(),
            v["schema"]
        );
    }
    Ok(v)
}

fn series(reports: &[Value]) -> Vec<Series> {
    let mut out = Vec::new();
    for (i, r) in reports.iter().enumerate() {
        let adapter = r["adapter"]["name"].as_str().unwrap_or("?");
        for (mode, color) in MODES {
            let mut s = Series {
                label: if reports.len() > 1 {
                    format!("{mode} ({adapter})")
                } else {
                    mode.to_owned()
                },
                color,
                input: i,
                gpu: Vec::new(),
                cpu: Vec::new(),
            };
            for c in r["results"].as_array().into_iter().flatten() {
                if c["mode"] != mode || c["status"] != "ok" {
                    continue;
                }
                let n = c["instances"].as_f64().unwrap_or(0.0);
                if let Some(g) = c["gpu_ms"]["median"].as_f64() {
                    s.gpu.push((n, g));
                }
                if let Some(p) = c["cpu_ms"]["median"].as_f64() {
                    s.cpu.push((n, p));
                }
            }
            s.gpu.sort_by(|a, b| a.0.total_cmp(&b.0));
            s.cpu.sort_by(|a, b| a.0.total_cmp(&b.0));
            if !s.gpu.is_empty() {
                out.push(s);
            }
        }
    }
    out
}

/// Log-axis range covering `values` with a little margin.
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| *v > 0.0)
        .fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(v), h.max(v)));
    if lo > hi {
        (0.1, 10.0)
    } else {
        (lo / 1.5, hi * 1.5)
    }
}

fn panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    caption: &str,
    all: &[Series],
    pick: fn(&Series) -> &[(f64, f64)],
) -> Result<()> {
    let x = range(all.iter().flat_map(|s| pick(s).iter().map(|p| p.0)));
    let y = range(all.iter().flat_map(|s| pick(s).iter().map(|p| p.1)));
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x.0..x.1).log_scale(), (y.0..y.1).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("instances")
        .y_desc("ms per frame (median)")
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| {
            if *v >= 10.0 {
                format!("{v:.0}")
            } else {
                format!("{v:.2}")
            }
        })
        .label_style(("sans-serif", 13))
        .light_line_style(RGBColor(0xf0, 0xf0, 0xf0))
        .draw()?;
    for s in all {
        let points = pick(s).to_vec();
        let color = s.color;
        let filled = s.input == 0;
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
            .label(&s.label)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2)));
        chart.draw_series(points.into_iter().map(move |p| {
            let style = if filled {
                color.filled()
            } else {
                color.stroke_width(2)
            };
            Circle::new(p, 4, style)
        }))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 13))
        .draw()?;
    Ok(())
}

fn main() -> Result<()> {
    let args = Args::parse();
    let reports = args.inputs.iter().map(read).collect::<Result<Vec<_>>>()?;
    let all = series(&reports);
    if all.is_empty() {
        bail!("no measured cells in the inputs");
    }
    let first = &reports[0];
    let title = args.title.clone().unwrap_or_else(|| {
        format!(
            "{} at {}×{}: {} on {} ({} cores)",
            first["model"]["name"].as_str().unwrap_or("?"),
            first["settings"]["size"][0],
            first["settings"]["size"][1],
            first["adapter"]["summary"].as_str().unwrap_or("?"),
            first["machine"]["cpu"].as_str().unwrap_or("?"),
            first["machine"]["cores"],
        )
    });
    let gpu_source = first["results"]
        .as_array()
        .into_iter()
        .flatten()
        .find_map(|c| c["gpu_source"].as_str())
        .unwrap_or("timestamp");
    let gpu_caption = match gpu_source {
        "timestamp" => "GPU time (timestamp queries)",
        _ => "GPU time (wall time to queue completion)",
    };
    if let Some(dir) = args.output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    {
        let root = SVGBackend::new(&args.output, (1200, 520)).into_drawing_area();
        root.fill(&WHITE)?;
        let root = root.titled(&title, ("sans-serif", 20))?;
        let (left, right) = root.split_horizontally(600);
        panel(&left, gpu_caption, &all, |s| &s.gpu)?;
        panel(
            &right,
            "CPU time (update, records, upload, encode, submit)",
            &all,
            |s| &s.cpu,
        )?;
        root.present()
            .with_context(|| format!("writing {}", args.output.display()))?;
    }
    println!("wrote {}", args.output.display());
    Ok(())
}
