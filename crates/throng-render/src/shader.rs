//! WGSL sources, the generated prelude, and composition by declared imports.
//!
//! The shader files live in the repository's `shaders/` folder, one module
//! each. A module states what it needs at its top, one line per import:
//!
//! ```wgsl
//! // #import skinning
//! // #import records
//! ```
//!
//! (a comment, so every file stays valid WGSL for editors and tools).
//! [`compose`] resolves the imports depth first and emits each module once,
//! dependencies before dependants; an unknown module or an import cycle is an
//! error naming the file and line. Two names are virtual:
//!
//! * `prelude`: the constants shared with Rust, generated from
//!   `throng_core::limits` and `BakedVertex`'s layout ([`prelude`]) so that
//!   none is written twice;
//! * `records`: where instance records come from, `records_uniform` or
//!   `records_storage`. The choice is made in one place,
//!   [`records_module`], from the renderer's [`RecordPath`].
//!
//! A [`Program`] is an entry module and a record path. Users compose their
//! own WGSL with Throng's modules the same way ([`compose`] takes any source
//! whose imports name them), e.g. a fragment shader of their own over
//! Throng's skinned vertex stage.

use std::collections::BTreeSet;
use std::mem::offset_of;

use thiserror::Error;
use throng_core::clock::{TICKS_PER_SECOND, WrapMode};
use throng_core::gpu::{
    DRAWN_WORDS, GpuInstance, GpuLayer, GpuTrack, IMPOSTOR_TABLE_WIDTH, LOD_DITHER_LEVELS,
    NO_IMPOSTOR,
};
use throng_core::layers::{MAX_EXTRA_LAYERS, NO_PARENT};
use throng_core::limits::{
    MAX_INFLUENCES, MORPH_DELTA_TEXELS, MORPH_TEXTURE_WIDTH, MORPH_WEIGHTS_PER_TEXEL,
    PACKAGE_WIDTH, PALETTE_WEIGHTS_PER_MATRIX, REST_FRAME, TEXELS_PER_MATRIX,
};
use throng_core::model::BakedVertex;
use throng_core::motion::MotionKind;
use throng_core::simulation::{SIM_CELLS, SIM_MAX_PER_CELL};
use throng_crowd::crowd::{LOD_HYSTERESIS, LOD_TINTS};

use crate::renderer::RecordPath;

/// `shaders/skinning.wgsl`.
pub const SKINNING: &str = include_str!("../../../shaders/skinning.wgsl");
/// `shaders/records_uniform.wgsl`.
pub const RECORDS_UNIFORM: &str = include_str!("../../../shaders/records_uniform.wgsl");
/// `shaders/records_storage.wgsl`.
pub const RECORDS_STORAGE: &str = include_str!("../../../shaders/records_storage.wgsl");
/// `shaders/draw.wgsl`.
pub const DRAW: &str = include_str!("../../../shaders/draw.wgsl");
/// `shaders/pbr.wgsl`: physically based shading.
pub const PBR: &str = include_str!("../../../shaders/pbr.wgsl");
/// `shaders/material.wgsl`: a submesh's material, decoded.
pub const MATERIAL: &str = include_str!("../../../shaders/material.wgsl");
/// Distance fog, applied at the end of shading.
pub const FOG: &str = include_str!("../../../shaders/fog.wgsl");
/// `shaders/shadow_filter.wgsl` (no bindings: usable by other crates'
/// pipelines, e.g. a ground plane receiving the crowd's shadows).
pub const SHADOW_FILTER: &str = include_str!("../../../shaders/shadow_filter.wgsl");
/// `shaders/shadow_common.wgsl`.
pub const SHADOW_COMMON: &str = include_str!("../../../shaders/shadow_common.wgsl");
/// `shaders/shadow_receive.wgsl`.
pub const SHADOW_RECEIVE: &str = include_str!("../../../shaders/shadow_receive.wgsl");
/// `shaders/shadow_cast.wgsl`.
pub const SHADOW_CAST: &str = include_str!("../../../shaders/shadow_cast.wgsl");
/// `shaders/compute_skin.wgsl`.
pub const COMPUTE_SKIN: &str = include_str!("../../../shaders/compute_skin.wgsl");
/// `shaders/cpu_skinned.wgsl`.
pub const CPU_SKINNED: &str = include_str!("../../../shaders/cpu_skinned.wgsl");
/// `shaders/instance_record.wgsl`.
pub const INSTANCE_RECORD: &str = include_str!("../../../shaders/instance_record.wgsl");
/// `shaders/clock.wgsl`.
pub const CLOCK: &str = include_str!("../../../shaders/clock.wgsl");
/// `shaders/cull.wgsl`.
pub const CULL: &str = include_str!("../../../shaders/cull.wgsl");
/// `shaders/gpu_instance.wgsl`.
pub const GPU_INSTANCE: &str = include_str!("../../../shaders/gpu_instance.wgsl");
/// `shaders/mirror.wgsl`.
pub const MIRROR: &str = include_str!("../../../shaders/mirror.wgsl");
/// `shaders/light_fit.wgsl`.
pub const LIGHT_FIT: &str = include_str!("../../../shaders/light_fit.wgsl");
/// `shaders/impostor.wgsl`.
pub const IMPOSTOR: &str = include_str!("../../../shaders/impostor.wgsl");
/// `shaders/pose.wgsl`.
pub const POSE: &str = include_str!("../../../shaders/pose.wgsl");
/// `shaders/palette.wgsl`.
pub const PALETTE: &str = include_str!("../../../shaders/palette.wgsl");
/// `shaders/vertex_words.wgsl`.
pub const VERTEX_WORDS_MODULE: &str = include_str!("../../../shaders/vertex_words.wgsl");
/// `shaders/octahedral.wgsl`.
pub const OCTAHEDRAL: &str = include_str!("../../../shaders/octahedral.wgsl");
/// `shaders/pose_cache.wgsl`.
pub const POSE_CACHE: &str = include_str!("../../../shaders/pose_cache.wgsl");
/// `shaders/pose_fill.wgsl`.
pub const POSE_FILL: &str = include_str!("../../../shaders/pose_fill.wgsl");
/// `shaders/motion.wgsl`.
pub const MOTION: &str = include_str!("../../../shaders/motion.wgsl");
/// `shaders/agent.wgsl`.
pub const AGENT: &str = include_str!("../../../shaders/agent.wgsl");
/// `shaders/simulation.wgsl`: what a simulation hook imports.
pub const SIMULATION: &str = include_str!("../../../shaders/simulation.wgsl");
/// `shaders/simulation_passes.wgsl`.
pub const SIMULATION_PASSES: &str = include_str!("../../../shaders/simulation_passes.wgsl");

/// Every shader module: `(name, source)`; the file is `shaders/{name}.wgsl`.
pub const MODULES: &[(&str, &str)] = &[
    ("skinning", SKINNING),
    ("records_uniform", RECORDS_UNIFORM),
    ("records_storage", RECORDS_STORAGE),
    ("draw", DRAW),
    ("fog", FOG),
    ("pbr", PBR),
    ("material", MATERIAL),
    ("shadow_filter", SHADOW_FILTER),
    ("shadow_common", SHADOW_COMMON),
    ("shadow_receive", SHADOW_RECEIVE),
    ("shadow_cast", SHADOW_CAST),
    ("compute_skin", COMPUTE_SKIN),
    ("cpu_skinned", CPU_SKINNED),
    ("instance_record", INSTANCE_RECORD),
    ("clock", CLOCK),
    ("cull", CULL),
    ("gpu_instance", GPU_INSTANCE),
    ("mirror", MIRROR),
    ("light_fit", LIGHT_FIT),
    ("impostor", IMPOSTOR),
    ("pose", POSE),
    ("palette", PALETTE),
    ("vertex_words", VERTEX_WORDS_MODULE),
    ("octahedral", OCTAHEDRAL),
    ("pose_cache", POSE_CACHE),
    ("pose_fill", POSE_FILL),
    ("motion", MOTION),
    ("agent", AGENT),
    ("simulation", SIMULATION),
    ("simulation_passes", SIMULATION_PASSES),
];

/// The import directive, after `//` and optional spaces.
const IMPORT: &str = "#import";

/// Number of `u32` words in a [`BakedVertex`].
pub const VERTEX_WORDS: usize = std::mem::size_of::<BakedVertex>() / 4;

/// WGSL constants generated from `throng_core::limits` and the layout of
/// [`BakedVertex`] (word offsets of its fields, for shaders that read
/// vertices as raw words).
pub fn prelude() -> String {
    let word = |bytes: usize| bytes / 4;
    format!(
        "// Generated by throng-render from throng_core::limits and BakedVertex. Do not edit.\n\
         const PACKAGE_WIDTH: u32 = {PACKAGE_WIDTH}u;\n\
         const TEXELS_PER_MATRIX: u32 = {TEXELS_PER_MATRIX}u;\n\
         const MAX_INFLUENCES: u32 = {MAX_INFLUENCES}u;\n\
         const VERTEX_WORDS: u32 = {VERTEX_WORDS}u;\n\
         const VERTEX_POSITION_WORD: u32 = {}u;\n\
         const VERTEX_NORMAL_WORD: u32 = {}u;\n\
         const VERTEX_UV_WORD: u32 = {}u;\n\
         const VERTEX_JOINTS_WORD: u32 = {}u;\n\
         const VERTEX_WEIGHTS_WORD: u32 = {}u;\n\
         const VERTEX_MORPH_WORD: u32 = {}u;\n\
         const VERTEX_TANGENT_WORD: u32 = {}u;\n\
         const MORPH_TEXTURE_WIDTH: u32 = {MORPH_TEXTURE_WIDTH}u;\n\
         const MORPH_WEIGHTS_PER_TEXEL: u32 = {MORPH_WEIGHTS_PER_TEXEL}u;\n\
         const MORPH_DELTA_TEXELS: u32 = {MORPH_DELTA_TEXELS}u;\n\
         const PALETTE_WEIGHTS_PER_MATRIX: u32 = {PALETTE_WEIGHTS_PER_MATRIX}u;\n\
         const REST_FRAME: u32 = {REST_FRAME}u;\n\
         const TICKS_PER_SECOND: u32 = {TICKS_PER_SECOND}u;\n\
         const WRAP_LOOP: u32 = {}u;\n\
         const WRAP_ONCE: u32 = {}u;\n\
         const WRAP_PING_PONG: u32 = {}u;\n\
         const NO_CLIP: u32 = {}u;\n\
         const LOD_HYSTERESIS: f32 = {LOD_HYSTERESIS:?};\n\
         const LOD_TINT_0: u32 = {}u;\n\
         const LOD_TINT_1: u32 = {}u;\n\
         const LOD_TINT_2: u32 = {}u;\n\
         const LOD_TINT_3: u32 = {}u;\n\
         const DRAWN_WORDS: u32 = {DRAWN_WORDS}u;\n\
         const IMPOSTOR_TABLE_WIDTH: u32 = {IMPOSTOR_TABLE_WIDTH}u;\n\
         const NO_IMPOSTOR: u32 = {NO_IMPOSTOR}u;\n\
         const LOD_DITHER_LEVELS: u32 = {LOD_DITHER_LEVELS}u;\n\
         const MAX_EXTRA_LAYERS: u32 = {MAX_EXTRA_LAYERS}u;\n\
         const NO_PARENT: u32 = {NO_PARENT}u;\n\
         const NO_MASK: u32 = {}u;\n\
         const LAYER_OVERRIDE: u32 = {}u;\n\
         const LAYER_ADDITIVE: u32 = {}u;\n\
         const LAYER_WEIGHTS: u32 = {}u;\n\
         const INSTANCE_LAYERED: u32 = {}u;\n\
         const MOTION_STILL: u32 = {}u;\n\
         const MOTION_VELOCITY: u32 = {}u;\n\
         const MOTION_PATH: u32 = {}u;\n\
         const MOTION_ROOT: u32 = {}u;\n\
         const MOTION_SIMULATED: u32 = {}u;\n\
         const SIM_CELLS: u32 = {SIM_CELLS}u;\n\
         const SIM_MAX_PER_CELL: u32 = {SIM_MAX_PER_CELL}u;\n",
        word(offset_of!(BakedVertex, position)),
        word(offset_of!(BakedVertex, normal)),
        word(offset_of!(BakedVertex, uv)),
        word(offset_of!(BakedVertex, joints)),
        word(offset_of!(BakedVertex, weights)),
        word(offset_of!(BakedVertex, morph)),
        word(offset_of!(BakedVertex, tangent)),
        WrapMode::Loop.code(),
        WrapMode::Once.code(),
        WrapMode::PingPong.code(),
        GpuTrack::NO_CLIP,
        LOD_TINTS[0],
        LOD_TINTS[1],
        LOD_TINTS[2],
        LOD_TINTS[3],
        GpuLayer::NO_MASK,
        GpuLayer::OVERRIDE,
        GpuLayer::ADDITIVE,
        GpuLayer::WEIGHTS,
        GpuInstance::LAYERED,
        MotionKind::Still.code(),
        MotionKind::Velocity.code(),
        MotionKind::Path.code(),
        MotionKind::RootMotion.code(),
        MotionKind::Simulated.code(),
    )
}

/// The module that provides `instance_record()` for a record path: the one
/// place where the uniform-versus-storage choice of the WGSL is made.
pub fn records_module(path: RecordPath) -> &'static str {
    match path {
        RecordPath::Packaged => "records_uniform",
        RecordPath::Unbounded | RecordPath::GpuDriven => "records_storage",
    }
}

/// A shader could not be composed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ShaderError {
    /// An import names no module.
    #[error(
        "{file}:{line}: imports {name:?}, which is not a Throng shader module (known: {known})"
    )]
    UnknownModule {
        /// The importing file.
        file: String,
        /// 1-based line.
        line: usize,
        /// The name imported.
        name: String,
        /// The names that exist.
        known: String,
    },
    /// `records` is imported but the composition has no record path.
    #[error(
        "{file}:{line}: imports \"records\", but no record path was given (compose with Some(RecordPath))"
    )]
    NoRecordPath {
        /// The importing file.
        file: String,
        /// 1-based line.
        line: usize,
    },
    /// A source lacks an import it must have (a custom fragment shader
    /// without `draw`, which holds the vertex stage it is paired with).
    #[error(
        "{file}: imports neither {name:?} nor a module that imports it (add a line `// #import {name}`)"
    )]
    MissingImport {
        /// The source.
        file: String,
        /// The module it must import.
        name: String,
    },
    /// Modules import each other in a circle.
    #[error("import cycle: {0}")]
    Cycle(String),
}

/// The imports a source declares: `(line, name)`, 1-based lines.
pub fn imports(source: &str) -> Vec<(usize, &str)> {
    source
        .lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let rest = line.trim_start().strip_prefix("//")?.trim_start();
            let name = rest.strip_prefix(IMPORT)?.trim();
            Some((i + 1, name))
        })
        .collect()
}

/// Composes `source` (named `file` in errors) with the modules it imports,
/// transitively: the prelude if anything imports it, every module once,
/// dependencies first, then `source`. `records` resolves the virtual
/// `records` module.
pub fn compose(
    file: &str,
    source: &str,
    records: Option<RecordPath>,
) -> Result<String, ShaderError> {
    let mut out = String::new();
    let mut done = BTreeSet::new();
    let mut stack = vec![file.to_owned()];
    emit_imports(file, source, records, &mut stack, &mut done, &mut out)?;
    out.push_str(&format!("\n// ---- {file}\n"));
    out.push_str(source);
    Ok(out)
}

fn emit_imports(
    file: &str,
    source: &str,
    records: Option<RecordPath>,
    stack: &mut Vec<String>,
    done: &mut BTreeSet<&'static str>,
    out: &mut String,
) -> Result<(), ShaderError> {
    for (line, name) in imports(source) {
        let name: &'static str = match name {
            "prelude" => "prelude",
            "records" => records_module(records.ok_or_else(|| ShaderError::NoRecordPath {
                file: file.to_owned(),
                line,
            })?),
            other => MODULES
                .iter()
                .find(|(n, _)| *n == other)
                .map(|(n, _)| *n)
                .ok_or_else(|| ShaderError::UnknownModule {
                    file: file.to_owned(),
                    line,
                    name: other.to_owned(),
                    known: std::iter::once("prelude")
                        .chain(std::iter::once("records"))
                        .chain(MODULES.iter().map(|(n, _)| *n))
                        .collect::<Vec<_>>()
                        .join(", "),
                })?,
        };
        if stack.iter().any(|s| s == name) {
            let mut cycle = stack.clone();
            cycle.push(name.to_owned());
            return Err(ShaderError::Cycle(cycle.join(" → ")));
        }
        if done.contains(name) {
            continue;
        }
        if name == "prelude" {
            out.push_str(&prelude());
        } else {
            let text = module_source(name).expect("resolved above");
            stack.push(name.to_owned());
            emit_imports(name, text, records, stack, done, out)?;
            stack.pop();
            out.push_str(&format!("\n// ---- {name}.wgsl\n"));
            out.push_str(text);
        }
        done.insert(name);
    }
    Ok(())
}

/// The source of module `name`.
pub fn module_source(name: &str) -> Option<&'static str> {
    MODULES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// A complete shader program: an entry module and, for programs that draw
/// crowd records, the record path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Program {
    /// Draw with records in uniform packages.
    DrawPackaged,
    /// Draw with all records in one storage buffer.
    DrawUnbounded,
    /// Compute readback of skinned vertices.
    ComputeSkin,
    /// Shadow-map pass with records in uniform packages.
    ShadowPackaged,
    /// Shadow-map pass with all records in one storage buffer.
    ShadowUnbounded,
    /// Per-character draw with a CPU-written joint palette (the
    /// `cpu-skinned` benchmark baseline of `throng-bench`). Entry point
    /// `vs_palette`; the fragment stage is `draw.wgsl`'s `fs_main`.
    CpuSkinned,
    /// The GPU-driven path's cull pass (`classify`, `offsets`, `scatter`).
    Cull,
    /// The GPU-driven path's scattered instance uploads (`apply_states`,
    /// `apply_transforms`).
    Mirror,
    /// The GPU-driven path's light fit to what the camera drew
    /// (`fit_light`).
    LightFit,
    /// Impostors with records in uniform packages (`vs_impostor`,
    /// `fs_impostor` or `fs_impostor_shadowed`).
    ImpostorPackaged,
    /// Impostors with all records in one storage buffer.
    ImpostorUnbounded,
    /// Impostors casting shadows, records in uniform packages
    /// (`vs_impostor_cast`, `fs_impostor_cast`).
    ImpostorCastPackaged,
    /// Impostors casting shadows, all records in one storage buffer.
    ImpostorCastUnbounded,
    /// The palette pre-pass: instances' layered palettes (`evaluate`).
    Palette,
    /// The pose cache's fill: every baked frame of a LOD skinned once
    /// (`fill_poses`).
    PoseFill,
    /// The motion pass: moving instances' transforms of the frame
    /// (`pose_movers`).
    Motion,
    /// The GPU simulation's own passes around a hook's steering
    /// (`resolve_agents`, `scan_cells`, `fill_grid`, `apply_agents`).
    Simulation,
}

impl Program {
    /// Every program.
    pub const ALL: [Program; 17] = [
        Program::DrawPackaged,
        Program::DrawUnbounded,
        Program::ComputeSkin,
        Program::ShadowPackaged,
        Program::ShadowUnbounded,
        Program::CpuSkinned,
        Program::Cull,
        Program::Mirror,
        Program::LightFit,
        Program::ImpostorPackaged,
        Program::ImpostorUnbounded,
        Program::ImpostorCastPackaged,
        Program::ImpostorCastUnbounded,
        Program::Palette,
        Program::PoseFill,
        Program::Motion,
        Program::Simulation,
    ];

    /// The crowd's draw program for a record path.
    pub fn draw(path: RecordPath) -> Self {
        match path {
            RecordPath::Packaged => Program::DrawPackaged,
            RecordPath::Unbounded | RecordPath::GpuDriven => Program::DrawUnbounded,
        }
    }

    /// The crowd's shadow program for a record path.
    pub fn shadow(path: RecordPath) -> Self {
        match path {
            RecordPath::Packaged => Program::ShadowPackaged,
            RecordPath::Unbounded | RecordPath::GpuDriven => Program::ShadowUnbounded,
        }
    }

    /// The impostor's draw program for a record path.
    pub fn impostor(path: RecordPath) -> Self {
        match path {
            RecordPath::Packaged => Program::ImpostorPackaged,
            RecordPath::Unbounded | RecordPath::GpuDriven => Program::ImpostorUnbounded,
        }
    }

    /// The impostor's shadow program for a record path.
    pub fn impostor_cast(path: RecordPath) -> Self {
        match path {
            RecordPath::Packaged => Program::ImpostorCastPackaged,
            RecordPath::Unbounded | RecordPath::GpuDriven => Program::ImpostorCastUnbounded,
        }
    }

    /// The entry module, whose imports pull in the rest.
    pub fn entry(self) -> &'static str {
        match self {
            Program::DrawPackaged | Program::DrawUnbounded => "shadow_receive",
            Program::ShadowPackaged | Program::ShadowUnbounded => "shadow_cast",
            Program::ComputeSkin => "compute_skin",
            Program::CpuSkinned => "cpu_skinned",
            Program::Cull => "cull",
            Program::Mirror => "mirror",
            Program::LightFit => "light_fit",
            Program::Palette => "palette",
            Program::PoseFill => "pose_fill",
            Program::Motion => "motion",
            Program::Simulation => "simulation_passes",
            Program::ImpostorPackaged
            | Program::ImpostorUnbounded
            | Program::ImpostorCastPackaged
            | Program::ImpostorCastUnbounded => "impostor",
        }
    }

    /// Where the program's instance records come from (`None`: it reads none
    /// through `instance_record()`).
    pub fn record_path(self) -> Option<RecordPath> {
        match self {
            Program::DrawPackaged
            | Program::ShadowPackaged
            | Program::ImpostorPackaged
            | Program::ImpostorCastPackaged => Some(RecordPath::Packaged),
            Program::DrawUnbounded
            | Program::ShadowUnbounded
            | Program::CpuSkinned
            | Program::ImpostorUnbounded
            | Program::ImpostorCastUnbounded => Some(RecordPath::Unbounded),
            Program::ComputeSkin
            | Program::Cull
            | Program::Mirror
            | Program::LightFit
            | Program::Palette
            | Program::PoseFill
            | Program::Motion
            | Program::Simulation => None,
        }
    }

    /// Names of the modules the program is made of, entry last.
    pub fn modules(self) -> Vec<&'static str> {
        let src = self.source();
        src.lines()
            .filter_map(|l| l.strip_prefix("// ---- "))
            .filter_map(|n| n.strip_suffix(".wgsl"))
            .filter_map(|n| MODULES.iter().find(|(m, _)| *m == n).map(|(m, _)| *m))
            .collect()
    }

    /// Full WGSL source.
    pub fn source(self) -> String {
        let entry = self.entry();
        let text = module_source(entry).expect("every entry is a module");
        compose(&format!("{entry}.wgsl"), text, self.record_path())
            .unwrap_or_else(|e| panic!("Throng's own shaders do not compose: {e}"))
    }

    /// A label for wgpu objects.
    pub fn label(self) -> &'static str {
        match self {
            Program::DrawPackaged => "throng draw (packaged)",
            Program::DrawUnbounded => "throng draw (unbounded)",
            Program::ComputeSkin => "throng compute skinning",
            Program::ShadowPackaged => "throng shadow (packaged)",
            Program::ShadowUnbounded => "throng shadow (unbounded)",
            Program::CpuSkinned => "throng draw (CPU-skinned baseline)",
            Program::Cull => "throng cull (GPU-driven)",
            Program::Mirror => "throng mirror upload (GPU-driven)",
            Program::LightFit => "throng light fit (GPU-driven)",
            Program::ImpostorPackaged => "throng impostor (packaged)",
            Program::ImpostorUnbounded => "throng impostor (unbounded)",
            Program::ImpostorCastPackaged => "throng impostor shadow (packaged)",
            Program::ImpostorCastUnbounded => "throng impostor shadow (unbounded)",
            Program::Palette => "throng palette pre-pass",
            Program::PoseFill => "throng pose-cache fill",
            Program::Motion => "throng motion pass",
            Program::Simulation => "throng simulation passes",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_are_read_from_comment_lines() {
        let src = "// #import skinning\n  //#import records\nfn f() {}\n// not an import\n";
        assert_eq!(imports(src), vec![(1, "skinning"), (2, "records")]);
    }

    #[test]
    fn each_module_is_emitted_once_dependencies_first() {
        let src = "// #import draw\n// #import skinning\nfn user() {}\n";
        let out = compose("user.wgsl", src, Some(RecordPath::Unbounded)).unwrap();
        let order: Vec<&str> = out
            .lines()
            .filter_map(|l| l.strip_prefix("// ---- "))
            .collect();
        assert_eq!(
            order,
            [
                "instance_record.wgsl",
                "skinning.wgsl",
                "octahedral.wgsl",
                "pose_cache.wgsl",
                "records_storage.wgsl",
                "fog.wgsl",
                "pbr.wgsl",
                "material.wgsl",
                "draw.wgsl",
                "user.wgsl"
            ]
        );
        assert_eq!(out.matches("const PACKAGE_WIDTH").count(), 1, "{out}");
    }

    #[test]
    fn the_record_path_picks_the_records_module() {
        let src = "// #import records\n";
        let packaged = compose("a.wgsl", src, Some(RecordPath::Packaged)).unwrap();
        assert!(packaged.contains("// ---- records_uniform.wgsl"));
        assert!(!packaged.contains("records_storage"));
        let err = compose("a.wgsl", src, None).unwrap_err();
        assert_eq!(
            err,
            ShaderError::NoRecordPath {
                file: "a.wgsl".into(),
                line: 1
            }
        );
    }

    #[test]
    fn an_unknown_import_names_file_line_and_name() {
        let err = compose("mine.wgsl", "\n// #import skinnning\n", None).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with("mine.wgsl:2: imports \"skinnning\""),
            "{msg}"
        );
        assert!(msg.contains("skinning"), "lists the known modules: {msg}");
    }

    #[test]
    fn a_self_import_is_a_cycle() {
        // A user file cannot import itself by name, but a module that did
        // would be caught: simulate with the entry's own name on the stack.
        let mut done = BTreeSet::new();
        let mut out = String::new();
        let mut stack = vec!["skinning".to_owned()];
        let err = emit_imports(
            "x.wgsl",
            "// #import skinning\n",
            None,
            &mut stack,
            &mut done,
            &mut out,
        )
        .unwrap_err();
        assert_eq!(err, ShaderError::Cycle("skinning → skinning".into()));
    }

    #[test]
    fn vertex_word_offsets_follow_the_rust_layout() {
        let p = prelude();
        assert!(p.contains(&format!("const VERTEX_WORDS: u32 = {VERTEX_WORDS}u;")));
        assert!(p.contains("const VERTEX_POSITION_WORD: u32 = 0u;"));
        let weights = offset_of!(BakedVertex, weights) / 4;
        assert!(p.contains(&format!("const VERTEX_WEIGHTS_WORD: u32 = {weights}u;")));
    }
}
