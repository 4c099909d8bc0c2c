//! Saving captured frames: the last frame of a `--screenshot` run goes to
//! the run's path, is reported on stdout and ends the viewer; an
//! interactive one (F12) goes to a new file in the working directory and is
//! reported in the status line.

use std::path::{Path, PathBuf};

use anyhow::Result;
use throng_render::{FrameStats, Offscreen};
use winit::event_loop::ActiveEventLoop;

use super::gfx::Gfx;

/// Saves `capture`, frame number `frame`, and reports it. `run_path`: the
/// last frame of a `--screenshot` run, saved there (an error ends the
/// viewer); `None`: an interactive screenshot, its outcome written to
/// `status`.
pub(super) fn save(
    gfx: &Gfx,
    capture: &Offscreen,
    run_path: Option<&Path>,
    frame: u32,
    stats: &FrameStats,
    status: &mut String,
    event_loop: &ActiveEventLoop,
) -> Result<()> {
    let size = gfx.size();
    let path = match run_path {
        Some(path) => path.to_path_buf(),
        None => next_shot_path(),
    };
    let saved = capture
        .read(&gfx.device, &gfx.queue)
        .map_err(anyhow::Error::from)
        .and_then(|image| Ok(throng_render::image_file::save(&path, &image)?));
    let line = format!(
        "wrote {} ({}×{}, frame {}, {} instances, {} visible, {} occluded, adapter {})",
        path.display(),
        size.0,
        size.1,
        frame,
        stats.instances,
        stats.visible,
        stats.occluded,
        gfx.adapter_name
    );
    if run_path.is_some() {
        saved?;
        println!("{line}");
        event_loop.exit();
    } else {
        // An interactive screenshot: report, keep running.
        *status = match saved {
            Ok(()) => format!("saved {}", path.display()),
            Err(e) => format!("screenshot failed: {e:#}"),
        };
        eprintln!("throng-viewer: {status}");
    }
    Ok(())
}

/// A new file name in the working directory for an interactive screenshot.
fn next_shot_path() -> PathBuf {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    (0..)
        .map(|n| PathBuf::from(format!("throng-{stamp}-{n}.png")))
        .find(|p| !p.exists())
        .expect("some name is free")
}
