//! The `throng` binary's tests, one test binary (a module per concern): bake
//! of folders and patterns with up-to-date checks, error reports, hostile
//! inputs, impostors, layers and morphs on the command line, outputs that
//! never lose data, resource limits, soak, walking, and the bench's smoke
//! run. Each runs the built `throng` (CARGO_BIN_EXE_throng).

mod bake_folders;
mod bench_smoke;
mod common;
mod compressed_cli;
mod error_report;
mod hostile_inputs;
mod impostors;
mod layers_cli;
mod mixed_cli;
mod morphs_cli;
mod outputs;
mod resource_limits;
mod soak;
mod walking_cli;
