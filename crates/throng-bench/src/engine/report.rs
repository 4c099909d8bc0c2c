//! What a benchmark run reports: per-cell statistics, the machine, the
//! adapter, the model and the settings, in the stable `throng-bench/1`
//! schema that `--json` writes (field names documented in
//! `docs/bench-data/README.md`, "JSON schema (`throng-bench/1`)").

use serde::Serialize;

use super::Mode;

/// Median and 95th percentile of one quantity, milliseconds.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Spread {
    /// Median.
    pub median: f64,
    /// 95th percentile (nearest rank).
    pub p95: f64,
    /// Mean.
    pub mean: f64,
    /// Smallest.
    pub min: f64,
}

impl Spread {
    /// Statistics of `samples` (which must not be empty).
    pub fn of(samples: &[f64]) -> Self {
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        let rank = |q: f64| s[((q * n as f64).ceil() as usize).clamp(1, n) - 1];
        let median = if n % 2 == 1 {
            s[n / 2]
        } else {
            0.5 * (s[n / 2 - 1] + s[n / 2])
        };
        Self {
            median,
            p95: rank(0.95),
            mean: s.iter().sum::<f64>() / n as f64,
            min: s[0],
        }
    }
}

/// One pass's GPU time over a cell's frames.
#[derive(Debug, Serialize)]
pub struct PassSpread {
    /// The pass.
    pub pass: &'static str,
    /// Its milliseconds.
    #[serde(flatten)]
    pub ms: Spread,
}

/// The measurements of one (mode, instances) cell.
#[derive(Debug, Serialize)]
pub struct Cell {
    /// Mode.
    pub mode: Mode,
    /// Instances in the crowd.
    pub instances: u32,
    /// Occlusion culling was on (it acts on the GPU-driven path only).
    pub occlusion: bool,
    /// `ok`, `unsupported` (the adapter lacks a feature or a limit is too
    /// small) or `error`.
    pub status: &'static str,
    /// Why the cell did not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// How records or palettes reach the vertex shader.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Instances that passed culling (drawn).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visible: Option<u32>,
    /// Instances in view that occlusion culling found hidden and did not
    /// draw, per frame (0 with `--occlusion off` and off the GPU-driven
    /// path).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub occluded: Option<u32>,
    /// Shadow casters in the light's view, and of them those occlusion
    /// culling found hidden from the light (0 unless the shadow options
    /// ask for it), per frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadow_casters: Option<u32>,
    /// See `shadow_casters`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadow_occluded: Option<u32>,
    /// Draw calls per frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draws: Option<u32>,
    /// Record packages (baked), groups (unbounded) or characters
    /// (cpu-skinned) bound per frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packages: Option<u32>,
    /// Triangles per frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triangles: Option<u64>,
    /// Vertices shaded per frame (per instance drawn, the distinct vertices
    /// of its LOD's submeshes; 4 for an impostor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vertices: Option<u64>,
    /// Instances drawn as impostors.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impostors: Option<u32>,
    /// Bytes uploaded per frame (records or palettes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upload_bytes: Option<u64>,
    /// Frames measured (after warm-up).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frames_measured: Option<usize>,
    /// CPU time per frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_ms: Option<Spread>,
    /// Throng's own CPU time per frame: `cpu_ms` less the time inside
    /// `queue.submit` (where a software adapter runs compute passes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prepare_ms: Option<Spread>,
    /// Time per frame inside `queue.submit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submit_ms: Option<Spread>,
    /// GPU time per frame (see `gpu_source`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_ms: Option<Spread>,
    /// `timestamp` (pass time from timestamp queries) or `queue-wall` (wall
    /// time from submit to queue completion).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_source: Option<&'static str>,
    /// GPU time of the camera's cull pass (`gpu-driven`, timestamp queries
    /// only; not part of `gpu_ms`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cull_gpu_ms: Option<Spread>,
    /// GPU time per pass (timestamp queries; empty without), in the
    /// frame's order: on the GPU-driven path `cull` and `shadow cull`
    /// (recorded while the frame is prepared, not part of `gpu_ms`), then
    /// `shadow`, and `crowd` — or, with occlusion culling, `early`,
    /// `pyramid`, `late cull` and `late`; inside the crowd's passes,
    /// `meshes` and `impostors` where the adapter can time inside a pass.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pass_gpu_ms: Vec<PassSpread>,
    /// Wall time from submit to queue completion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_wait_ms: Option<Spread>,
    /// Poses in the pose cache (`pose-cache`; 0 elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_poses: Option<u64>,
    /// Bytes of the pose cache on the GPU.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pose_cache_bytes: Option<u64>,
    /// Milliseconds the one-time fill of the pose cache took (in the first
    /// warm-up frame; not part of the measured frames).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pose_fill_ms: Option<f64>,
    /// Draws per frame that skinned per vertex because their (model, LOD)
    /// did not fit the cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pose_fallback_draws: Option<u32>,
    /// CPU + queue wait.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_ms: Option<Spread>,
    /// 1000 / median frame ms.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fps: Option<f64>,
}

impl Cell {
    pub(crate) fn not_run(
        mode: Mode,
        instances: u32,
        status: &'static str,
        reason: String,
    ) -> Self {
        Self {
            mode,
            instances,
            occlusion: false,
            status,
            reason: Some(reason),
            path: None,
            visible: None,
            occluded: None,
            shadow_casters: None,
            shadow_occluded: None,
            draws: None,
            packages: None,
            triangles: None,
            vertices: None,
            impostors: None,
            upload_bytes: None,
            frames_measured: None,
            cpu_ms: None,
            prepare_ms: None,
            submit_ms: None,
            gpu_ms: None,
            gpu_source: None,
            cull_gpu_ms: None,
            pass_gpu_ms: Vec::new(),
            queue_wait_ms: None,
            cached_poses: None,
            pose_cache_bytes: None,
            pose_fill_ms: None,
            pose_fallback_draws: None,
            frame_ms: None,
            fps: None,
        }
    }
}

/// One mode's medians over another's at one instance count (`baked /
/// static`, `pose-cache / static`, `pose-cache / gpu-driven`).
#[derive(Debug, Serialize)]
pub struct Ratio {
    /// The mode both cells ran (for `occlusion_on_over_off`; the mode
    /// ratios name theirs in their key).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// Instances.
    pub instances: u32,
    /// Median GPU time of the first mode over that of the second.
    pub gpu: f64,
    /// Where the GPU times come from (`timestamp` or `queue-wall`).
    pub gpu_source: &'static str,
    /// Median queue wait, first mode over second.
    pub queue_wait: f64,
    /// Median CPU time, first mode over second.
    pub cpu: f64,
    /// Median frame time, first mode over second.
    pub frame: f64,
}

/// The machine the benchmark ran on.
#[derive(Debug, Serialize)]
pub struct Machine {
    /// CPU model (`/proc/cpuinfo`).
    pub cpu: String,
    /// Logical CPUs available to the process.
    pub cores: usize,
    /// Operating system and kernel.
    pub os: String,
}

/// The adapter.
#[derive(Debug, Serialize)]
pub struct AdapterInfo {
    /// One line: name, backend, device type.
    pub summary: String,
    /// Name.
    pub name: String,
    /// Backend.
    pub backend: String,
    /// Device type.
    pub device_type: String,
    /// Driver and its version.
    pub driver: String,
    /// Timestamp queries available (GPU times are `timestamp`).
    pub timestamp_queries: bool,
    /// Vertex-stage storage buffers available (`baked-unbounded`, `cpu-skinned`).
    pub vertex_storage: bool,
}

/// The model.
#[derive(Debug, Serialize)]
pub struct ModelInfo {
    /// File given.
    pub path: String,
    /// Model name.
    pub name: String,
    /// Vertices per instance (LOD 0).
    pub vertices: usize,
    /// Triangles per instance (LOD 0).
    pub triangles: usize,
    /// Submeshes (draws per package or per character).
    pub submeshes: usize,
    /// Palette entries.
    pub bones: usize,
    /// Clips, file order.
    pub clips: Vec<String>,
}

/// Settings of the run.
#[derive(Debug, Serialize)]
pub struct Settings {
    /// Target width and height.
    pub size: [u32; 2],
    /// Measured frames per cell (fewer if `max_seconds` cut a cell short).
    pub frames: u32,
    /// Warm-up frames per cell.
    pub warmup: u32,
    /// Per-cell measuring limit, seconds.
    pub max_seconds: Option<f64>,
    /// Animation step per frame, seconds.
    pub dt: f32,
    /// MSAA samples.
    pub msaa: u32,
    /// Colour format of the target.
    pub format: String,
    /// Directional-light shadows (off unless asked for: the CPU-skinned
    /// baseline has no shadow pass).
    pub shadows: bool,
    /// Percent of the instances given a new transform before every frame.
    pub changing_percent: f64,
    /// Percent of the instances walking waypoint loops.
    pub walking_percent: f64,
    /// The crowd stood on the demo's terrain.
    pub terrain: bool,
    /// Instances nearest the camera with foot IK.
    pub foot_ik: u32,
    /// Where the camera stood.
    pub camera: super::CameraChoice,
    /// Two-phase occlusion culling on the GPU-driven path: `on`, `off` or
    /// `both` (each cell's `occlusion` says which it ran with).
    pub occlusion: super::OcclusionChoice,
    /// With shadows: the casters' LOD scale.
    pub caster_lod_scale: f32,
    /// With shadows: occlusion culling from the light.
    pub shadow_occlusion: bool,
    /// Impostors below this projected size sample one view.
    pub impostor_one_view_size: f32,
    /// The `pose-cache` mode's budget, bytes.
    pub pose_cache_budget: u64,
}

/// The whole report: what `--json` writes.
#[derive(Debug, Serialize)]
pub struct Report {
    /// `throng-bench/1`.
    pub schema: &'static str,
    /// Version of the `throng` binary.
    pub throng_version: &'static str,
    /// Machine.
    pub machine: Machine,
    /// Adapter.
    pub adapter: AdapterInfo,
    /// Model.
    pub model: ModelInfo,
    /// Settings.
    pub settings: Settings,
    /// One entry per (instances, mode), instance counts outermost.
    pub results: Vec<Cell>,
    /// `baked / static` per instance count where both ran.
    pub baked_over_static: Vec<Ratio>,
    /// `pose-cache / static` per instance count where both ran.
    pub pose_cache_over_static: Vec<Ratio>,
    /// `pose-cache / gpu-driven` per instance count where both ran.
    pub pose_cache_over_gpu_driven: Vec<Ratio>,
    /// Per mode and instance count run with `--occlusion both`: occlusion
    /// culling on over off.
    pub occlusion_on_over_off: Vec<Ratio>,
    /// `pose-cache / static-gpu-driven` per instance count where both ran.
    pub pose_cache_over_static_gpu_driven: Vec<Ratio>,
    /// `varied / gpu-driven` per instance count where both ran: what crowd
    /// variety costs.
    pub varied_over_gpu_driven: Vec<Ratio>,
    /// `gpu-driven / lambert` per instance count where both ran: what PBR
    /// shading costs over Lambert's.
    pub gpu_driven_over_lambert: Vec<Ratio>,
    /// `outfits / outfits-shaded` per instance count where both ran: what
    /// leaving hidden outfits out of the draws saves.
    pub outfits_over_shaded: Vec<Ratio>,
}

/// `a / b` where both ran at the same instance count.
pub(crate) fn ratios(results: &[Cell], a: Mode, b: Mode) -> Vec<Ratio> {
    let find = |mode, n, occlusion| {
        results.iter().find(|c| {
            c.mode == mode && c.instances == n && c.occlusion == occlusion && c.status == "ok"
        })
    };
    let mut out = Vec::new();
    // One ratio per instance count: of the first occlusion setting run.
    let mut seen = Vec::new();
    for c in results.iter().filter(|c| c.mode == a) {
        if seen.contains(&c.instances) {
            continue;
        }
        seen.push(c.instances);
        let (Some(b), Some(s)) = (
            find(a, c.instances, c.occlusion),
            find(b, c.instances, c.occlusion),
        ) else {
            continue;
        };
        out.push(ratio_of(None, b, s));
    }
    out
}

/// Per mode and instance count run both ways, occlusion culling on over
/// off.
pub(crate) fn occlusion_ratios(results: &[Cell]) -> Vec<Ratio> {
    results
        .iter()
        .filter(|c| c.occlusion && c.status == "ok")
        .filter_map(|on| {
            let off = results.iter().find(|c| {
                c.mode == on.mode && c.instances == on.instances && !c.occlusion && c.status == "ok"
            })?;
            Some(ratio_of(Some(on.mode), on, off))
        })
        .collect()
}

/// `b / s`, medians.
fn ratio_of(mode: Option<Mode>, b: &Cell, s: &Cell) -> Ratio {
    let m = |x: &Option<Spread>| x.map_or(f64::NAN, |x| x.median);
    Ratio {
        mode,
        instances: b.instances,
        gpu: m(&b.gpu_ms) / m(&s.gpu_ms),
        gpu_source: b.gpu_source.unwrap_or("queue-wall"),
        queue_wait: m(&b.queue_wait_ms) / m(&s.queue_wait_ms),
        cpu: m(&b.cpu_ms) / m(&s.cpu_ms),
        frame: m(&b.frame_ms) / m(&s.frame_ms),
    }
}

/// CPU model and core count of this machine.
pub fn machine() -> Machine {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == "model name").then(|| v.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown".into());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    Machine {
        cpu,
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        os: format!("{} {}", std::env::consts::OS, kernel.trim())
            .trim()
            .to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_takes_median_and_nearest_rank_p95() {
        let s = Spread::of(&[5.0, 1.0, 3.0, 2.0, 4.0]);
        assert_eq!((s.median, s.p95, s.min, s.mean), (3.0, 5.0, 1.0, 3.0));
        let even: Vec<f64> = (1..=20).map(f64::from).collect();
        let s = Spread::of(&even);
        assert_eq!((s.median, s.p95), (10.5, 19.0));
        assert_eq!(Spread::of(&[7.0]).p95, 7.0);
    }
}
