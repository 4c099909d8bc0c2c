//! `throng`: the command-line front of Throng.
//!
//! | command   | what it does |
//! |-----------|--------------|
//! | `bake`    | glTF → `.throng`, with a summary of what was baked and its measured error |
//! | `inspect` | human (or `--json`) summary of a `.throng` or glTF file |
//! | `sample`  | skinned vertex positions at given clip times, as JSON |
//! | `render`  | a grid crowd drawn headless to a PNG |
//! | `bench`   | frame times of one crowd drawn gpu-driven, baked, baked-unbounded, static and CPU-skinned, as a table and `--json` |

mod bake;
mod bake_many;
mod bench;
mod inspect;
mod inspect_feet;
mod inspect_materials;
mod inspect_morphs;
mod render;
mod sample;
mod soak;
mod util;

use clap::{Parser, Subcommand};

/// Throng: bake glTF animation into bone textures and draw crowds of it.
#[derive(Parser)]
#[command(name = "throng", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Bake every animation clip of a glTF 2.0 model into a `.throng` file.
    Bake(bake::Args),
    /// Summarise a `.throng` or glTF file.
    Inspect(inspect::Args),
    /// Write skinned vertex positions at clip times as JSON.
    Sample(sample::Args),
    /// Draw a grid crowd headless into a PNG.
    Render(render::Args),
    /// Time a grid crowd drawn several ways (by default gpu-driven, baked,
    /// baked-unbounded, static and CPU-skinned; --mode lists them all).
    Bench(bench::Args),
    /// Keep a crowd alive under churn for a while and watch memory, device
    /// bytes and the picture.
    Soak(soak::Args),
}

/// Mesa's implicit Vulkan layer `VK_LAYER_MESA_device_select` connects to
/// Wayland to find the default GPU, and where `XDG_RUNTIME_DIR` is unset or
/// not a folder (a headless build server, a container) libwayland prints
/// `error: XDG_RUNTIME_DIR is invalid or not set in the environment.` for
/// every Vulkan instance: a bake that succeeded reads as a failure. With no
/// Wayland display to find the layer has nothing to choose by, so it is
/// switched off there (`NODEVICE_SELECT=1`, the layer's own switch; a value
/// the user set is kept). Device choice is wgpu's either way
/// (`WGPU_ADAPTER_NAME`, `WGPU_BACKEND`).
fn quiet_headless_vulkan() {
    let runtime_dir_ok =
        std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).is_dir());
    if runtime_dir_ok
        || std::env::var_os("WAYLAND_DISPLAY").is_some()
        || std::env::var_os("NODEVICE_SELECT").is_some()
    {
        return;
    }
    #[allow(unsafe_code)]
    // SAFETY: the first statement of `main`, before any thread exists, so no
    // other thread can read the environment meanwhile.
    unsafe {
        std::env::set_var("NODEVICE_SELECT", "1");
    }
}

fn main() {
    quiet_headless_vulkan();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bake(a) => bake::run(a),
        Command::Inspect(a) => inspect::run(a),
        Command::Sample(a) => sample::run(a),
        Command::Render(a) => render::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Soak(a) => soak::run(a),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
