//! `--faults` (hidden, for tests): what window systems and drivers do to a
//! running viewer, injected at chosen frames, so a test under Xvfb can
//! check that the viewer lives through each and ends on the picture it
//! would have drawn anyway.
//!
//! A schedule is `FRAME:FAULT` pairs joined by commas, e.g.
//! `3:zero,5:restore,7:lost`. The faults:
//!
//! * `resize=WxH`: asks the window system for a new size (a real resize:
//!   X11 answers with `Resized`, and the surface becomes outdated);
//! * `zero`: a `Resized` to 0 × 0, what a minimise reports on Windows and
//!   some X11 window managers; `restore`: a `Resized` to the window's size;
//! * `occluded` / `visible`: winit's `Occluded(true | false)` (Wayland and
//!   macOS, when the window is hidden or shown);
//! * `lost`, `outdated`, `timeout`: the next surface acquire answers
//!   `Lost`, `Outdated` or `Timeout` instead of a texture.
//!
//! With a schedule, the viewer also says on standard error when it
//! configures, leaves unconfigured or recreates its surface, so a test
//! sees each fault handled, not only survived.

use std::fmt;

/// One injected fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Ask for a window of this size.
    Resize(u32, u32),
    /// `Resized(0 × 0)`.
    Zero,
    /// `Resized` to the window's size.
    Restore,
    /// `Occluded(hidden)`.
    Occluded(bool),
    /// The next acquire answers this.
    Acquire(Acquire),
}

/// A surface acquire's failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Acquire {
    /// `CurrentSurfaceTexture::Lost`.
    Lost,
    /// `CurrentSurfaceTexture::Outdated`.
    Outdated,
    /// `CurrentSurfaceTexture::Timeout`.
    Timeout,
}

impl Acquire {
    /// What `Surface::get_current_texture` would have answered.
    pub fn answer(self) -> wgpu::CurrentSurfaceTexture {
        match self {
            Acquire::Lost => wgpu::CurrentSurfaceTexture::Lost,
            Acquire::Outdated => wgpu::CurrentSurfaceTexture::Outdated,
            Acquire::Timeout => wgpu::CurrentSurfaceTexture::Timeout,
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Resize(w, h) => write!(f, "resize={w}x{h}"),
            Fault::Zero => f.write_str("zero"),
            Fault::Restore => f.write_str("restore"),
            Fault::Occluded(true) => f.write_str("occluded"),
            Fault::Occluded(false) => f.write_str("visible"),
            Fault::Acquire(Acquire::Lost) => f.write_str("lost"),
            Fault::Acquire(Acquire::Outdated) => f.write_str("outdated"),
            Fault::Acquire(Acquire::Timeout) => f.write_str("timeout"),
        }
    }
}

/// Faults by frame (from 1), in the order given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schedule(Vec<(u32, Fault)>);

impl Schedule {
    /// No faults: a normal run.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The faults of frame `frame`.
    pub fn at(&self, frame: u32) -> impl Iterator<Item = Fault> + '_ {
        self.0
            .iter()
            .filter(move |(f, _)| *f == frame)
            .map(|(_, x)| *x)
    }
}

/// Parses a schedule (clap's value parser).
pub fn parse(s: &str) -> Result<Schedule, String> {
    let mut out = Vec::new();
    for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let (frame, fault) = item
            .split_once(':')
            .ok_or_else(|| format!("{item:?}: expected FRAME:FAULT, e.g. 3:zero"))?;
        let frame: u32 = frame
            .trim()
            .parse()
            .map_err(|_| format!("{item:?}: {frame:?} is not a frame number"))?;
        let fault = match fault.trim() {
            "zero" => Fault::Zero,
            "restore" => Fault::Restore,
            "occluded" => Fault::Occluded(true),
            "visible" => Fault::Occluded(false),
            "lost" => Fault::Acquire(Acquire::Lost),
            "outdated" => Fault::Acquire(Acquire::Outdated),
            "timeout" => Fault::Acquire(Acquire::Timeout),
            other => {
                let size = other.strip_prefix("resize=").ok_or_else(|| {
                    format!(
                        "{item:?}: unknown fault {other:?} (resize=WxH, zero, restore, occluded, visible, lost, outdated, timeout)"
                    )
                })?;
                let (w, h) = crate::parse_size(size)?;
                Fault::Resize(w, h)
            }
        };
        out.push((frame, fault));
    }
    Ok(Schedule(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_parse_and_print_back() {
        let text =
            "3:zero,5:restore,6:resize=200x120,7:lost,9:outdated,10:timeout,11:occluded,12:visible";
        let s = parse(text).unwrap();
        let back: Vec<String> = s.0.iter().map(|(f, x)| format!("{f}:{x}")).collect();
        assert_eq!(back.join(","), text);
        assert_eq!(s.at(7).collect::<Vec<_>>(), [Fault::Acquire(Acquire::Lost)]);
        for bad in ["3", "x:zero", "3:melt", "3:resize=0x5"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
