//! [`Program`]: each of Throng's complete shader programs — an entry
//! module and, for programs that draw crowd records, the record path — its
//! composed source and its label, the facts in one table.

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
    /// Feet planted on the ground by two-bone IK, after the palette
    /// pre-pass (`plant_feet`).
    FootIk,
}

/// What one program is: its entry module, where its instance records come
/// from, its label. One row per program, in the enum's order, so a new
/// program is one variant and one row.
struct Facts {
    program: Program,
    /// The entry module, whose imports pull in the rest.
    entry: &'static str,
    /// Where its instance records come from (`None`: it reads none through
    /// `instance_record()`).
    records: Option<RecordPath>,
    /// A label for wgpu objects.
    label: &'static str,
}

/// Every program's facts, row `i` for the variant whose discriminant is `i`
/// (checked when the crate compiles, below).
const TABLE: [Facts; 21] = [
    Facts {
        program: Program::DrawPackaged,
        entry: "shadow_receive",
        records: Some(RecordPath::Packaged),
        label: "throng draw (packaged)",
    },
    Facts {
        program: Program::DrawUnbounded,
        entry: "shadow_receive",
        records: Some(RecordPath::Unbounded),
        label: "throng draw (unbounded)",
    },
    Facts {
        program: Program::ComputeSkin,
        entry: "compute_skin",
        records: None,
        label: "throng compute skinning",
    },
    Facts {
        program: Program::ShadowPackaged,
        entry: "shadow_cast",
        records: Some(RecordPath::Packaged),
        label: "throng shadow (packaged)",
    },
    Facts {
        program: Program::ShadowUnbounded,
        entry: "shadow_cast",
        records: Some(RecordPath::Unbounded),
        label: "throng shadow (unbounded)",
    },
    Facts {
        program: Program::CpuSkinned,
        entry: "cpu_skinned",
        records: Some(RecordPath::Unbounded),
        label: "throng draw (CPU-skinned baseline)",
    },
    Facts {
        program: Program::Cull,
        entry: "cull",
        records: None,
        label: "throng cull (GPU-driven)",
    },
    Facts {
        program: Program::DepthPyramid,
        entry: "depth_pyramid",
        records: None,
        label: "throng depth pyramid",
    },
    Facts {
        program: Program::DepthPyramidMultisampled,
        entry: "depth_pyramid_ms",
        records: None,
        label: "throng depth pyramid (MSAA)",
    },
    Facts {
        program: Program::Mirror,
        entry: "mirror",
        records: None,
        label: "throng mirror upload (GPU-driven)",
    },
    Facts {
        program: Program::LightFit,
        entry: "light_fit",
        records: None,
        label: "throng light fit (GPU-driven)",
    },
    Facts {
        program: Program::ImpostorPackaged,
        entry: "impostor",
        records: Some(RecordPath::Packaged),
        label: "throng impostor (packaged)",
    },
    Facts {
        program: Program::ImpostorUnbounded,
        entry: "impostor",
        records: Some(RecordPath::Unbounded),
        label: "throng impostor (unbounded)",
    },
    Facts {
        program: Program::ImpostorCastPackaged,
        entry: "impostor",
        records: Some(RecordPath::Packaged),
        label: "throng impostor shadow (packaged)",
    },
    Facts {
        program: Program::ImpostorCastUnbounded,
        entry: "impostor",
        records: Some(RecordPath::Unbounded),
        label: "throng impostor shadow (unbounded)",
    },
    Facts {
        program: Program::Palette,
        entry: "palette",
        records: None,
        label: "throng palette pre-pass",
    },
    Facts {
        program: Program::PoseFill,
        entry: "pose_fill",
        records: None,
        label: "throng pose-cache fill",
    },
    Facts {
        program: Program::Motion,
        entry: "motion",
        records: None,
        label: "throng motion pass",
    },
    Facts {
        program: Program::Simulation,
        entry: "simulation_passes",
        records: None,
        label: "throng simulation passes",
    },
    Facts {
        program: Program::Prepass,
        entry: "prepass",
        records: Some(RecordPath::Unbounded),
        label: "throng prepass (unbounded)",
    },
    Facts {
        program: Program::FootIk,
        entry: "foot_ik",
        records: None,
        label: "throng foot IK",
    },
];

const _: () = {
    let mut i = 0;
    while i < TABLE.len() {
        assert!(
            TABLE[i].program as usize == i,
            "Program's table is out of the enum's order"
        );
        i += 1;
    }
};

impl Program {
    /// Every program.
    pub const ALL: [Program; TABLE.len()] = {
        let mut all = [Program::DrawPackaged; TABLE.len()];
        let mut i = 0;
        while i < TABLE.len() {
            all[i] = TABLE[i].program;
            i += 1;
        }
        all
    };

    /// This program's row of the table.
    fn facts(self) -> &'static Facts {
        &TABLE[self as usize]
    }

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
        self.facts().entry
    }

    /// Where the program's instance records come from (`None`: it reads none
    /// through `instance_record()`).
    pub fn record_path(self) -> Option<RecordPath> {
        self.facts().records
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
        self.facts().label
    }
}
