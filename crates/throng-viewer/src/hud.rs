//! The on-screen HUD (egui): frame timings, what the renderer drew, the
//! adapter, the model's clips and the key bindings.

use std::time::Duration;

use throng_render::{FrameStats, RecordPath};

use crate::keys::HELP;

/// Everything the HUD shows for one frame.
#[derive(Clone, Debug)]
pub struct HudInfo<'a> {
    /// Frames per second, averaged over the last half second.
    pub fps: f32,
    /// CPU time of a frame (update, culling, recording, submit), averaged.
    pub cpu: Duration,
    /// GPU time of the crowd pass, where measured.
    pub gpu: Option<Duration>,
    /// False where the device has no timestamp queries.
    pub gpu_timing: bool,
    /// What the last frame drew.
    pub stats: FrameStats,
    /// The pose cache's line: poses, bytes, fill time, fallbacks.
    pub pose_cache: &'a str,
    /// Record path.
    pub path: RecordPath,
    /// Adapter summary.
    pub adapter: &'a str,
    /// Model name and where it came from.
    pub model: &'a str,
    /// Clips: name and duration in seconds, in file order.
    pub clips: &'a [(String, f32)],
    /// Global speed factor.
    pub speed: f32,
    /// Paused.
    pub paused: bool,
    /// Showing the rest pose.
    pub rest: bool,
    /// Skeleton overlay on.
    pub skeletons: bool,
    /// The crowd walks.
    pub walking: bool,
    /// Fly camera on.
    pub fly: bool,
    /// MSAA samples.
    pub msaa: u32,
    /// The last thing that happened (a key's effect, an error).
    pub status: &'a str,
}

/// `1234567` → `"1,234,567"`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Milliseconds with two decimals.
pub fn millis(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// The GPU time column: a time, "…" while the first readback is pending,
/// "n/a" without timestamp queries.
pub fn gpu_text(gpu: Option<Duration>, timing: bool) -> String {
    match (gpu, timing) {
        (_, false) => "n/a (no timestamp queries)".into(),
        (None, true) => "…".into(),
        (Some(d), true) => millis(d),
    }
}

/// Window width in points from which the help panel starts open.
pub const WIDE_POINTS: f32 = 760.0;

/// Compact text and spacing for the HUD; call once per context.
pub fn setup_style(ctx: &egui::Context) {
    ctx.all_styles_mut(|style| {
        use egui::{FontFamily, FontId, TextStyle};
        for (text_style, size, family) in [
            (TextStyle::Small, 10.5, FontFamily::Proportional),
            (TextStyle::Body, 12.5, FontFamily::Proportional),
            (TextStyle::Button, 12.5, FontFamily::Proportional),
            (TextStyle::Monospace, 12.0, FontFamily::Monospace),
            (TextStyle::Heading, 14.0, FontFamily::Proportional),
        ] {
            style
                .text_styles
                .insert(text_style, FontId::new(size, family));
        }
        style.spacing.item_spacing = egui::vec2(6.0, 2.0);
        style.spacing.window_margin = egui::Margin::same(6);
        let fill = style.visuals.window_fill;
        style.visuals.window_fill =
            egui::Color32::from_rgba_unmultiplied(fill.r(), fill.g(), fill.b(), 215);
    });
}

/// Draws the HUD: statistics and clips top left, controls top right.
pub fn show(ctx: &egui::Context, info: &HudInfo<'_>) {
    egui::Window::new("Throng")
        .anchor(egui::Align2::LEFT_TOP, [8.0, 8.0])
        .resizable(false)
        .show(ctx, |ui| {
            egui::Grid::new("stats")
                .num_columns(4)
                .spacing([10.0, 1.0])
                .show(ui, |ui| {
                    let rows = [
                        ("fps", format!("{:.1}", info.fps)),
                        ("instances", thousands(info.stats.instances as u64)),
                        ("CPU", millis(info.cpu)),
                        ("visible", thousands(info.stats.visible as u64)),
                        ("GPU", gpu_text(info.gpu, info.gpu_timing)),
                        ("draws", thousands(info.stats.draws as u64)),
                        ("speed", format!("×{}", info.speed)),
                        ("packages", thousands(info.stats.packages as u64)),
                        ("occluded", thousands(info.stats.occluded as u64)),
                        ("triangles", thousands(info.stats.triangles)),
                    ];
                    for pair in rows.chunks(2) {
                        for (k, v) in pair {
                            ui.label(*k);
                            ui.monospace(v);
                        }
                        ui.end_row();
                    }
                });
            let mut flags = Vec::new();
            if info.paused {
                flags.push("paused");
            }
            if info.rest {
                flags.push("rest pose");
            }
            if info.walking {
                flags.push("walking");
            }
            if info.skeletons {
                flags.push("skeletons");
            }
            if info.fly {
                flags.push("fly camera");
            }
            if !flags.is_empty() {
                ui.label(egui::RichText::new(flags.join(" · ")).strong());
            }
            // The status line, unless it only repeats a flag.
            if !info.status.is_empty() && !flags.contains(&info.status) {
                ui.label(info.status);
            }
            ui.separator();
            ui.small(info.adapter);
            ui.small(format!("{}, MSAA ×{}", info.path, info.msaa));
            ui.small(info.pose_cache);
            ui.small(info.model);
            egui::CollapsingHeader::new(format!("clips ({})", info.clips.len()))
                .default_open(true)
                .show(ui, |ui| {
                    for (i, (name, duration)) in info.clips.iter().enumerate() {
                        let key = if i < 9 {
                            format!("{}", i + 1)
                        } else {
                            " ".into()
                        };
                        ui.monospace(format!("{key} {name} ({duration:.2} s)"));
                    }
                });
        });
    // In a narrow window the two panels would overlap: start the help
    // collapsed there (its title bar still shows).
    let wide = ctx.content_rect().width() >= WIDE_POINTS;
    egui::Window::new("Controls")
        .anchor(egui::Align2::RIGHT_TOP, [-8.0, 8.0])
        .resizable(false)
        .default_open(wide)
        .show(ctx, |ui| {
            egui::Grid::new("help")
                .num_columns(2)
                .spacing([8.0, 0.0])
                .show(ui, |ui| {
                    for (keys, what) in HELP {
                        ui.label(egui::RichText::new(*keys).monospace().small());
                        ui.small(*what);
                        ui.end_row();
                    }
                });
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatting() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(millis(Duration::from_micros(1500)), "1.50 ms");
        assert_eq!(gpu_text(None, false), "n/a (no timestamp queries)");
        assert_eq!(gpu_text(None, true), "…");
        assert_eq!(gpu_text(Some(Duration::from_millis(2)), true), "2.00 ms");
    }

    #[test]
    fn the_hud_lays_out_headless() {
        let ctx = egui::Context::default();
        setup_style(&ctx);
        let clips = [("Survey".to_owned(), 3.4), ("Walk".to_owned(), 0.7)];
        let info = HudInfo {
            fps: 60.0,
            cpu: Duration::from_millis(3),
            gpu: None,
            gpu_timing: false,
            stats: FrameStats::default(),
            pose_cache: "pose cache 514 poses, 13.6 MiB, 50 ms fill, 0 uncached draws",
            path: RecordPath::Packaged,
            adapter: "test",
            model: "fox",
            clips: &clips,
            speed: 1.0,
            paused: true,
            rest: false,
            walking: false,
            skeletons: true,
            fly: false,
            msaa: 4,
            status: "hello",
        };
        let mut out = ctx.run_ui(egui::RawInput::default(), |ui| show(ui.ctx(), &info));
        assert!(!out.shapes.is_empty(), "the HUD drew something");
        out.textures_delta.clear();
    }
}
