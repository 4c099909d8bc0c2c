//! [`Program`]: each of Throng's complete shader programs — an entry
//! module and, for programs that draw crowd records, the record path — its
//! composed source and its label.

use crate::base::options::RecordPath;
use crate::base::shader::compose::compose;
use crate::base::shader::sources::{MODULES, module_source};

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
    /// The GPU-driven path's cull pass (`classify`, `offsets`, `scatter`,
    /// `previous`).
    Cull,
    /// Occlusion culling's depth pyramid from single-sampled depth
    /// (`reduce_depth`, `downsample`).
    DepthPyramid,
    /// Occlusion culling's depth pyramid from multisampled depth.
    DepthPyramidMultisampled,
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
    /// The crowd in a caller's depth, normal and motion-vector prepass,
    /// storage paths (`vs_prepass`, `vs_prepass_cached`, `fs_prepass`).
    Prepass,
}

impl Program {
    /// Every program.
    pub const ALL: [Program; 20] = [
        Program::DrawPackaged,
        Program::DrawUnbounded,
        Program::ComputeSkin,
        Program::ShadowPackaged,
        Program::ShadowUnbounded,
        Program::CpuSkinned,
        Program::Cull,
        Program::DepthPyramid,
        Program::DepthPyramidMultisampled,
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
        Program::Prepass,
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
            Program::DepthPyramid => "depth_pyramid",
            Program::DepthPyramidMultisampled => "depth_pyramid_ms",
            Program::Mirror => "mirror",
            Program::LightFit => "light_fit",
            Program::Palette => "palette",
            Program::PoseFill => "pose_fill",
            Program::Motion => "motion",
            Program::Simulation => "simulation_passes",
            Program::Prepass => "prepass",
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
            | Program::ImpostorCastUnbounded
            | Program::Prepass => Some(RecordPath::Unbounded),
            Program::ComputeSkin
            | Program::Cull
            | Program::DepthPyramid
            | Program::DepthPyramidMultisampled
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
            Program::DepthPyramid => "throng depth pyramid",
            Program::DepthPyramidMultisampled => "throng depth pyramid (MSAA)",
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
            Program::Prepass => "throng prepass (unbounded)",
        }
    }
}
