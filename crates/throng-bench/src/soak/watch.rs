//! What a soak watches: once a second a [`Sample`] — the process's resident
//! memory (Linux: `VmRSS` of `/proc/self/status`) and the device's buffer
//! and texture bytes (wgpu's internal counters; the Vulkan backend counts
//! them, GL does not) — and its judgement: after the warm-up (a whole
//! wave of the crowd's size, so every buffer has reached its largest
//! capacity), neither may rise more than its bound above the warm-up's
//! highest.

/// One sample.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    /// Seconds since the start.
    pub seconds: f64,
    /// Frames drawn so far.
    pub frames: u64,
    /// Live instances.
    pub instances: u32,
    /// Resident memory of the process, bytes (`None`: unknown here).
    pub rss: Option<u64>,
    /// Device buffer bytes (`None`: the backend does not count them).
    pub gpu_buffers: Option<u64>,
    /// Device texture bytes (`None`: not counted).
    pub gpu_textures: Option<u64>,
}

/// The process's resident memory, if this platform says.
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The device's buffer and texture bytes, where its backend counts them.
pub fn device_bytes(device: &wgpu::Device) -> (Option<u64>, Option<u64>) {
    let hal = device.get_internal_counters().hal;
    let known = |n: isize| (n > 0).then_some(n as u64);
    (
        known(hal.buffer_memory.read()),
        known(hal.texture_memory.read()),
    )
}

/// A figure that rose past its bound after the warm-up.
#[derive(Clone, Debug, PartialEq)]
pub struct Growth {
    /// Which figure ("resident memory", "GPU buffer bytes", …).
    pub what: &'static str,
    /// The warm-up's highest.
    pub baseline: u64,
    /// The highest after it.
    pub peak: u64,
    /// When the peak was sampled, seconds.
    pub at: f64,
    /// The bound on the rise.
    pub bound: u64,
}

impl std::fmt::Display for Growth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} rose to {} bytes at {:.0} s, {} above the warm-up's highest ({}); the bound is {}",
            self.what,
            self.peak,
            self.at,
            self.peak - self.baseline,
            self.baseline,
            self.bound
        )
    }
}

/// The figures of `samples` that rose more than their bound above the
/// highest of the samples before `warmup` seconds: resident memory by
/// `rss_bound` (`None`: not judged), GPU buffer and texture bytes by
/// `gpu_bound`. Figures a platform does not report are not judged.
pub fn growth(
    samples: &[Sample],
    warmup: f64,
    rss_bound: Option<u64>,
    gpu_bound: u64,
) -> Vec<Growth> {
    type Figure = fn(&Sample) -> Option<u64>;
    let figures: [(&'static str, Figure, Option<u64>); 3] = [
        ("resident memory", |s| s.rss, rss_bound),
        ("GPU buffer bytes", |s| s.gpu_buffers, Some(gpu_bound)),
        ("GPU texture bytes", |s| s.gpu_textures, Some(gpu_bound)),
    ];
    let mut out = Vec::new();
    for (what, get, bound) in figures {
        let Some(bound) = bound else { continue };
        let baseline = samples
            .iter()
            .filter(|s| s.seconds < warmup)
            .filter_map(get)
            .max();
        let peak = samples
            .iter()
            .filter(|s| s.seconds >= warmup)
            .filter_map(|s| get(s).map(|v| (v, s.seconds)))
            .max_by_key(|&(v, _)| v);
        if let (Some(baseline), Some((peak, at))) = (baseline, peak)
            && peak > baseline.saturating_add(bound)
        {
            out.push(Growth {
                what,
                baseline,
                peak,
                at,
                bound,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: f64, rss: u64, gpu: u64) -> Sample {
        Sample {
            seconds,
            rss: Some(rss),
            gpu_buffers: Some(gpu),
            ..Sample::default()
        }
    }

    #[test]
    fn growth_after_the_warm_up_is_judged_against_its_highest() {
        // Warm-up to 10 s peaks at 500; flat after: nothing.
        let flat = [
            at(0.0, 100, 10),
            at(5.0, 500, 50),
            at(12.0, 480, 50),
            at(20.0, 500, 50),
        ];
        assert!(growth(&flat, 10.0, Some(16), 0).is_empty());
        // A leak after the warm-up: named, with its figures.
        let leak = [
            at(0.0, 100, 10),
            at(5.0, 500, 50),
            at(12.0, 510, 50),
            at(20.0, 600, 70),
        ];
        let found = growth(&leak, 10.0, Some(16), 8);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].what, "resident memory");
        assert_eq!(
            (found[0].baseline, found[0].peak, found[0].at),
            (500, 600, 20.0)
        );
        assert_eq!(found[1].what, "GPU buffer bytes");
        assert!(found[0].to_string().contains("100 above"), "{}", found[0]);
        // Within the bound: fine. Unknown figures: not judged.
        assert!(growth(&leak, 10.0, Some(100), 20).is_empty());
        // Resident memory not judged: only the GPU figure.
        assert_eq!(growth(&leak, 10.0, None, 8).len(), 1);
        let unknown = [
            Sample::default(),
            Sample {
                seconds: 20.0,
                ..Sample::default()
            },
        ];
        assert!(growth(&unknown, 10.0, Some(0), 0).is_empty());
    }
}
