//! CPU-only: every WGSL program parses and validates with naga, every file in
//! `shaders/` is part of a program, and every struct shared with Rust has the
//! same member offsets and size as its `#[repr(C)]` twin.
//!
//! - `programs`: every program validates, every shader file is known and
//!   used, imports name modules, and the packaged path needs no storage
//!   buffers;
//! - `draw_structs`: the structs of the draw, shadow, impostor and pose cache
//!   programs against their Rust twins;
//! - `compute_structs`: the structs of the simulation, motion, cull and
//!   palette passes against their Rust twins;
//! - `bindings`: the bindings each entry point uses are in the Rust layouts,
//!   for the programs, a simulation hook and a shadow receiver.
//!
//! This file holds the program parser and the struct layout check.

use throng_render::shader::Program;
use throng_tests::wgsl::{struct_layout, validate};

mod bindings;
mod compute_structs;
mod draw_structs;
mod programs;

fn parse(program: Program) -> naga::Module {
    validate(
        &format!("{program:?}"),
        &program.source(),
        naga::valid::Capabilities::all(),
    )
}

fn check(program: Program, wgsl: &str, rust_size: usize, rust_offsets: &[usize]) {
    let module = parse(program);
    let (members, size) = struct_layout(&module, wgsl);
    let wgsl_offsets: Vec<u32> = members.iter().map(|m| m.1).collect();
    let rust: Vec<u32> = rust_offsets.iter().map(|&o| o as u32).collect();
    assert_eq!(
        wgsl_offsets, rust,
        "{wgsl}: WGSL member offsets {members:?} differ from the Rust struct's {rust:?}"
    );
    assert_eq!(
        size as usize, rust_size,
        "{wgsl}: WGSL size {size} vs Rust size {rust_size}"
    );
}
