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
mod bench;
mod inspect;
mod layer_spec;
mod render;
mod sample;
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
    /// Time a grid crowd drawn five ways: gpu-driven, baked, baked-unbounded,
    /// static and CPU-skinned.
    Bench(bench::Args),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bake(a) => bake::run(a),
        Command::Inspect(a) => inspect::run(a),
        Command::Sample(a) => sample::run(a),
        Command::Render(a) => render::run(a),
        Command::Bench(a) => bench::run(a),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
