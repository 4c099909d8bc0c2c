//! # throng-viewer
//!
//! A living crowd in a window: `cargo run --release -p throng-viewer` bakes
//! the bundled Fox (once, cached under `target/throng-cache/`), spawns 1,000
//! instances on a ground plane, each playing its own clip, and shows them
//! with an orbit/fly camera and an egui HUD. `--screenshot PATH --frames N`
//! renders N frames at a fixed time step, saves the last as a PNG and exits.
//!
//! Modules: [`app`] (the winit application and the frame), [`camera`]
//! (orbit/pan/zoom/fly math), [`keys`] (key bindings), [`cache`] (loading and bake caching), [`ground`],
//! [`skeleton`] (the bone overlay), [`props`] (the hat), [`hud`]. The crowd
//! stands as `throng_demo::herd` places it.
//!
//! Every failure (no display, no adapter, a model that does not load) ends
//! with one `throng-viewer: …` line naming the cause chain and exit code 1.

mod app;
mod cache;
mod camera;
mod ground;
mod hud;
mod keys;
mod props;
mod skeleton;
#[cfg(test)]
mod test_model;
mod upper_body;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Parser;
use throng_crowd::crowd::ModelHandle;
use throng_render::PathChoice;

/// `--path`: the names of [`PathChoice::ALL`].
fn path_parser() -> impl clap::builder::TypedValueParser<Value = PathChoice> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(PathChoice::ALL.map(PathChoice::name))
        .map(|s| PathChoice::from_name(&s).expect("a possible value is a path name"))
}

/// Shows a crowd of a baked model, animating, in a window.
#[derive(Parser, Debug)]
#[command(name = "throng-viewer", version, about, long_about = None)]
struct Args {
    /// Model: a .throng, or a .glb/.gltf baked on the fly and cached
    /// [default: the bundled assets/khronos_Fox.glb]. Repeat it, or give a
    /// folder, for a mixed crowd of bodies that share the first one's clips
    /// (a folder's `.throng` files, else its glTF files; instance `i` of
    /// model `i` modulo their number; their bone textures are shared where
    /// their frames are equal: bake them with `throng bake --shared-clips`).
    #[arg(long)]
    model: Vec<PathBuf>,
    /// Wear each model as 8 outfits (each a copy of its finest LOD's
    /// submeshes), every instance one: on the GPU-driven path the others
    /// are left out of its draws (the HUD counts them).
    #[arg(long)]
    outfits: bool,
    /// Instances at start (`+`/`-` double and halve them).
    #[arg(long, default_value_t = 1000)]
    instances: u32,
    /// Render `--frames` frames at a fixed 1/30 s step, save the last one
    /// here (.png, or .jpg/.jpeg) and exit.
    #[arg(long)]
    screenshot: Option<PathBuf>,
    /// Frames to render for `--screenshot`.
    #[arg(long, default_value_t = 60, requires = "screenshot")]
    frames: u32,
    /// Destroy the GPU device after this frame, to see the viewer recover
    /// (tests).
    #[arg(long, hide = true)]
    lose_device_after: Option<u32>,
    /// Window and surface faults to inject, `FRAME:FAULT,…` (tests; see
    /// `app::faults`).
    #[arg(long, hide = true, value_parser = app::faults::parse, default_value = "")]
    faults: app::faults::Schedule,
    /// Window size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720", value_parser = parse_size)]
    size: (u32, u32),
    /// MSAA samples (1 or 4).
    #[arg(long, default_value_t = 4, value_parser = parse_msaa)]
    msaa: u32,
    /// Record path: auto (GPU-driven where supported, else unbounded, else
    /// packaged), packaged (uniform packages of 170 instances), unbounded
    /// (one storage buffer, one draw per group) or gpu-driven (instances on
    /// the GPU, compute culling and LOD, indirect draws).
    #[arg(long, default_value = "auto", value_parser = path_parser())]
    path: PathChoice,
    /// Start with the HUD hidden (H toggles it).
    #[arg(long)]
    no_hud: bool,
    /// Seed of the crowd's layout, clips, phases and tints.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Start with instances coloured by LOD (L toggles).
    #[arg(long)]
    lod_tints: bool,
    /// Start with a hat on every head (P toggles).
    #[arg(long)]
    props: bool,
    /// Start with the crowd standing in place instead of walking (M
    /// toggles).
    #[arg(long)]
    stand: bool,
    /// Walk along analytic waypoint loops even where the renderer could
    /// steer the crowd on the GPU (GPU-driven path): the loops are a
    /// function of the clock alone, so a run with frames skipped or the
    /// device lost shows what one without would.
    #[arg(long)]
    loops: bool,
    /// Start on the flat plaza instead of the terrain (T toggles).
    #[arg(long)]
    flat: bool,
    /// The terrain's heights from this image's grey levels (PNG, JPEG…,
    /// at most 4096 a side; black one body below the herd, white two
    /// above, stretched over the terrain's square) instead of the demo's
    /// hills; the stair stays.
    #[arg(long, value_name = "IMAGE")]
    heightmap: Option<PathBuf>,
    /// Draw every instance as baked, tinted by a few gentle colours,
    /// instead of each in a palette row of its own (a colour per material,
    /// generated: `throng_bench::demo::dressed`).
    #[arg(long)]
    no_variety: bool,
}

/// The largest window side the viewer asks for.
const MAX_WINDOW_SIDE: u32 = 16384;

/// Parses a window size: `WIDTHxHEIGHT` as `throng`'s `--size` reads it
/// (`throng_cli::args::size`), each side at most [`MAX_WINDOW_SIDE`].
fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = throng_cli::args::size::parse_size(s)?;
    if w > MAX_WINDOW_SIDE || h > MAX_WINDOW_SIDE {
        return Err(format!(
            "{s:?}: width and height must be at most {MAX_WINDOW_SIDE}"
        ));
    }
    Ok((w, h))
}

/// Parses an MSAA sample count: 1 or 4.
fn parse_msaa(s: &str) -> Result<u32, String> {
    match s.trim() {
        "1" => Ok(1),
        "4" => Ok(4),
        _ => Err(format!("{s:?}: MSAA samples must be 1 or 4")),
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("throng-viewer: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The one-line message when no window can be opened.
fn no_display_message(e: &winit::error::EventLoopError) -> String {
    let set = |v: &str| std::env::var_os(v).is_some_and(|x| !x.is_empty());
    if set("DISPLAY") || set("WAYLAND_DISPLAY") || set("WAYLAND_SOCKET") {
        format!("cannot open a window: the display does not answer ({e})")
    } else {
        "cannot open a window: no display (neither DISPLAY nor WAYLAND_DISPLAY is set); \
         run on a desktop, or under `xvfb-run -a -s \"-screen 0 1280x720x24\"`"
            .into()
    }
}

fn run(args: Args) -> Result<()> {
    if args.screenshot.is_some() && args.frames == 0 {
        bail!("--frames must be at least 1");
    }
    // The screenshot's format before any work.
    if let Some(shot) = &args.screenshot {
        throng_render::image_file::ImageFormat::of(shot)?;
    }
    // The window system first: without a display there is nothing to do,
    // and saying so should not wait for a bake.
    let event_loop = match winit::event_loop::EventLoop::new() {
        Ok(l) => l,
        Err(e) => bail!("{}", no_display_message(&e)),
    };
    let model_paths = match args.model.is_empty() {
        true => vec![cache::default_model_path()?],
        false => throng_cli::args::models::expand(&args.model)?,
    };
    if let Some(shot) = &args.screenshot
        && let Some(model) = model_paths
            .iter()
            .find(|m| throng_core::fsio::same_file(shot, m))
    {
        bail!(
            "--screenshot {} is the model {} (the same file); choose another path",
            shot.display(),
            model.display()
        );
    }
    let cache_dir = cache::cache_dir();
    let mut handles = Vec::with_capacity(model_paths.len());
    let mut origin = None;
    for path in &model_paths {
        let (model, from) = cache::load_model(path, &cache_dir, &mut |line| {
            eprintln!("throng-viewer: {line}")
        })?;
        eprintln!("throng-viewer: {} ({from})", path.display());
        origin.get_or_insert(from);
        let handle =
            ModelHandle::new(model).with_context(|| format!("validating {}", path.display()))?;
        handles.push(handle);
    }
    let named: Vec<(String, &ModelHandle)> = model_paths
        .iter()
        .map(|p| p.display().to_string())
        .zip(&handles)
        .collect();
    throng_demo::mixed::check_shared_clips(&named).map_err(anyhow::Error::msg)?;
    let handles = handles
        .into_iter()
        .zip(&model_paths)
        .map(|(handle, path)| {
            let handle = match args.outfits {
                false => handle,
                true => throng_bench::demo::outfitted(&handle).with_context(|| {
                    format!(
                        "--outfits: {} has too many submeshes in its finest LOD to wear {} outfits",
                        path.display(),
                        throng_bench::demo::DEMO_OUTFITS
                    )
                })?,
            };
            Ok(match args.no_variety {
                true => handle,
                false => throng_bench::demo::dressed(&handle, throng_bench::demo::VARIETY_SEED),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let origin = origin.expect("at least one model");
    let opts = options(args, model_paths[0].clone(), origin.short());
    let mut app = app::App::new(opts, handles)?;
    event_loop
        .run_app(&mut app)
        .context("the window event loop failed")?;
    match app.take_error() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The app's options from the command line, for the first model at
/// `model_path` (loaded from `origin`).
fn options(args: Args, model_path: PathBuf, origin: &str) -> app::Options {
    app::Options {
        model_path,
        origin: origin.to_owned(),
        instances: args.instances,
        seed: args.seed,
        size: args.size,
        msaa: args.msaa,
        path: args.path,
        hud: !args.no_hud,
        lod_tints: args.lod_tints,
        props: args.props,
        outfits: args.outfits,
        walking: !args.stand,
        steer: !args.loops,
        terrain: !args.flat,
        heightmap: args.heightmap,
        screenshot: args.screenshot,
        frames: args.frames,
        lose_device_after: args.lose_device_after,
        faults: args.faults,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_sizes_parse_as_the_cli_reads_them_up_to_the_largest_side() {
        assert_eq!(parse_size("320x240").unwrap(), (320, 240));
        assert_eq!(parse_size("16384X64").unwrap(), (16384, 64));
        assert!(parse_size("64x16385").is_err());
        assert!(parse_size("0x5").is_err());
        assert!(parse_size("big").is_err());
    }

    #[test]
    fn arguments_parse() {
        let a = Args::try_parse_from(["throng-viewer"]).unwrap();
        assert_eq!(a.instances, 1000);
        assert_eq!(a.msaa, 4);
        assert!(a.model.is_empty() && a.screenshot.is_none() && !a.outfits);
        let a = Args::try_parse_from([
            "throng-viewer",
            "--model",
            "x.glb",
            "--instances",
            "50",
            "--screenshot",
            "a.png",
            "--frames",
            "30",
            "--size",
            "320x240",
            "--msaa",
            "1",
            "--no-hud",
        ])
        .unwrap();
        assert_eq!(a.instances, 50);
        assert_eq!(a.frames, 30);
        assert_eq!(a.size, (320, 240));
        assert_eq!(a.msaa, 1);
        assert!(a.no_hud);
        assert!(Args::try_parse_from(["throng-viewer", "--msaa", "2"]).is_err());
        assert!(
            Args::try_parse_from(["throng-viewer", "--frames", "3"]).is_err(),
            "--frames needs --screenshot"
        );
    }
}
