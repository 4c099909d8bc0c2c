//! The compute programs' groups: the skinning readback's and the pose
//! cache fill's inputs and outputs, the records in storage, and group 0 of
//! the GPU-driven path's passes — each cull stage's, the mirror's
//! scattered uploads, the motion pass, the simulation's stages, the light
//! fit and the palette pre-pass.

use throng_core::gpu::InstanceRecord;

use crate::base::uniforms::ComputeParams;
use crate::program::bind_groups::entries::{
    Entries, create, loaded_texture_entry, storage, uniform,
};

/// Group 3, unbounded path and compute: all records in storage.
pub fn records_storage_entries(visibility: wgpu::ShaderStages) -> Entries {
    vec![storage(
        0,
        visibility,
        true,
        std::mem::size_of::<InstanceRecord>(),
    )]
}

/// Group 3 of the compute readback: all records in storage.
pub fn records_storage(
    device: &wgpu::Device,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayout {
    create(
        device,
        "throng records layout",
        &records_storage_entries(visibility),
    )
}

/// Group 0 of the compute readback: vertex words, output, parameters.
pub fn compute_io_entries() -> Entries {
    let c = wgpu::ShaderStages::COMPUTE;
    vec![
        storage(0, c, true, 4),
        storage(1, c, false, 16),
        uniform(2, c, std::mem::size_of::<ComputeParams>(), false),
    ]
}

/// Group 0 of the compute readback.
pub fn compute_io(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    create(device, "throng compute io layout", &compute_io_entries())
}

/// Group 0 of the pose cache's fill: the LOD's vertex words (0), the cache
/// (1), its `PoseCacheParams` (2).
pub fn pose_fill_entries() -> Entries {
    let c = wgpu::ShaderStages::COMPUTE;
    vec![
        storage(0, c, true, 4),
        storage(
            1,
            c,
            false,
            throng_core::pose_cache::POSE_VERTEX_BYTES as usize,
        ),
        uniform(
            2,
            c,
            std::mem::size_of::<throng_core::gpu::PoseCacheParams>(),
            false,
        ),
    ]
}

/// An entry point of the cull pass (`passes/cull/cull.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CullStage {
    /// Per instance: animate, cull, choose the LOD, take a slot.
    Classify,
    /// Once: lay out the groups, fill the indirect draws.
    Offsets,
    /// Per instance: write the visible instance's record.
    Scatter,
    /// Per instance, when the view asks ([`throng_core::gpu::CullView::PREVIOUS`]):
    /// write where each record's instance was one frame before.
    Previous,
}

impl CullStage {
    /// Every stage, in dispatch order.
    pub const ALL: [CullStage; 4] = [
        CullStage::Classify,
        CullStage::Offsets,
        CullStage::Scatter,
        CullStage::Previous,
    ];

    /// The WGSL entry point.
    pub fn entry(self) -> &'static str {
        match self {
            CullStage::Classify => "classify",
            CullStage::Offsets => "offsets",
            CullStage::Scatter => "scatter",
            CullStage::Previous => "previous",
        }
    }

    /// The bindings of group 0 it uses.
    pub fn bindings(self) -> &'static [u32] {
        match self {
            CullStage::Classify => &[0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14],
            CullStage::Offsets => &[0, 7, 8, 9, 10, 11],
            CullStage::Scatter => &[0, 1, 2, 3, 6, 8, 11, 12],
            CullStage::Previous => &[0, 1, 2, 3, 6, 8, 12, 15, 16],
        }
    }
}

/// Group 0 of the cull pass: every binding (`None`), or those one stage
/// uses (each stage's pipeline has a layout of its own, so none exceeds 8
/// storage buffers).
pub fn cull_entries(stage: Option<CullStage>) -> Entries {
    use throng_core::gpu::{
        CullView, DrawSpec, GpuClip, GpuInstance, GpuModelInfo, GpuTransform, PreviousRecord,
    };
    let c = wgpu::ShaderStages::COMPUTE;
    let all = vec![
        uniform(0, c, std::mem::size_of::<CullView>(), false),
        storage(1, c, true, std::mem::size_of::<GpuInstance>()),
        storage(2, c, true, std::mem::size_of::<GpuModelInfo>()),
        storage(3, c, true, std::mem::size_of::<GpuClip>()),
        storage(4, c, true, 4),
        storage(5, c, false, 4),
        storage(6, c, false, 16),
        storage(7, c, false, 4),
        storage(8, c, false, 4),
        storage(9, c, true, std::mem::size_of::<DrawSpec>()),
        storage(10, c, false, 20),
        storage(11, c, false, std::mem::size_of::<InstanceRecord>()),
        storage(12, c, true, std::mem::size_of::<GpuTransform>()),
        loaded_texture_entry(13, c),
        loaded_texture_entry(14, c),
        storage(15, c, false, std::mem::size_of::<PreviousRecord>()),
        storage(16, c, true, std::mem::size_of::<GpuTransform>()),
    ];
    match stage {
        None => all,
        Some(s) => all
            .into_iter()
            .filter(|e| s.bindings().contains(&e.binding))
            .collect(),
    }
}

/// An entry point of the depth pyramid (`occlusion/pyramid_reduce.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PyramidStage {
    /// Level 0 from the depth buffer.
    Reduce,
    /// Level k from level k − 1.
    Downsample,
}

impl PyramidStage {
    /// Both stages.
    pub const ALL: [PyramidStage; 2] = [PyramidStage::Reduce, PyramidStage::Downsample];

    /// The WGSL entry point.
    pub fn entry(self) -> &'static str {
        match self {
            PyramidStage::Reduce => "reduce_depth",
            PyramidStage::Downsample => "downsample",
        }
    }
}

/// Group 0 of the depth pyramid: the depth buffer as an unfilterable float
/// texture (0; multisampled or not), the source level (1), the level
/// written (2), `PyramidParams` (3) — all (`None`), or those one stage
/// uses.
pub fn pyramid_entries(stage: Option<PyramidStage>, multisampled: bool) -> Entries {
    let c = wgpu::ShaderStages::COMPUTE;
    let depth = wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: c,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: false },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled,
        },
        count: None,
    };
    let target = wgpu::BindGroupLayoutEntry {
        binding: 2,
        visibility: c,
        ty: wgpu::BindingType::StorageTexture {
            access: wgpu::StorageTextureAccess::WriteOnly,
            format: wgpu::TextureFormat::R32Float,
            view_dimension: wgpu::TextureViewDimension::D2,
        },
        count: None,
    };
    let params = uniform(
        3,
        c,
        std::mem::size_of::<throng_core::gpu::PyramidParams>(),
        false,
    );
    match stage {
        None => vec![depth, loaded_texture_entry(1, c), target, params],
        Some(PyramidStage::Reduce) => vec![depth, target, params],
        Some(PyramidStage::Downsample) => vec![loaded_texture_entry(1, c), target, params],
    }
}

/// The pipeline layout of one cull stage.
pub fn cull_layout(
    device: &wgpu::Device,
    stage: CullStage,
) -> (wgpu::BindGroupLayout, wgpu::PipelineLayout) {
    let label = format!("throng cull {}", stage.entry());
    let group = create(device, &label, &cull_entries(Some(stage)));
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(&label),
        bind_group_layouts: &[Some(&group)],
        immediate_size: 0,
    });
    (group, layout)
}

/// Group 0 of the mirror's scattered upload: `MirrorParams` (0), the state
/// updates (1), the instance states (2), the transform updates (3), the
/// instance transforms (4).
pub fn mirror_entries() -> Entries {
    use throng_core::gpu::{
        GpuInstance, GpuMotion, GpuTransform, MirrorParams, MotionUpdate, StateUpdate,
        TransformUpdate,
    };
    let c = wgpu::ShaderStages::COMPUTE;
    vec![
        uniform(0, c, std::mem::size_of::<MirrorParams>(), false),
        storage(1, c, true, std::mem::size_of::<StateUpdate>()),
        storage(2, c, false, std::mem::size_of::<GpuInstance>()),
        storage(3, c, true, std::mem::size_of::<TransformUpdate>()),
        storage(4, c, false, std::mem::size_of::<GpuTransform>()),
        storage(5, c, true, std::mem::size_of::<MotionUpdate>()),
        storage(6, c, false, std::mem::size_of::<GpuMotion>()),
    ]
}

/// Group 0 of the motion pass: `MotionParams` (0), the motions (1), the
/// path points (2), the root keys (3), the transforms it writes (4).
pub fn motion_entries() -> Entries {
    use throng_core::gpu::{GpuMotion, GpuTransform, MotionParams};
    use throng_core::motion::{PathPoint, RootKey};
    let c = wgpu::ShaderStages::COMPUTE;
    vec![
        uniform(0, c, std::mem::size_of::<MotionParams>(), false),
        storage(1, c, true, std::mem::size_of::<GpuMotion>()),
        storage(2, c, true, std::mem::size_of::<PathPoint>()),
        storage(3, c, true, std::mem::size_of::<RootKey>()),
        storage(4, c, false, std::mem::size_of::<GpuTransform>()),
        storage(GROUND_BINDING, c, true, GROUND_HEADER_BYTES),
    ]
}

/// Group 0 of the foot IK pass (`passes/foot_ik.wgsl`): its `IkParams`
/// (0), the instances (1), the model's legs (2) and skeleton (3), the
/// palettes it edits (4), the crowd's ground (14, [`GROUND_BINDING`]).
pub fn foot_ik_entries() -> Entries {
    use throng_core::gpu::{GpuBone, GpuIkInstance, GpuLeg, IkParams};
    let c = wgpu::ShaderStages::COMPUTE;
    vec![
        uniform(0, c, std::mem::size_of::<IkParams>(), false),
        storage(1, c, true, std::mem::size_of::<GpuIkInstance>()),
        storage(2, c, true, std::mem::size_of::<GpuLeg>()),
        storage(3, c, true, std::mem::size_of::<GpuBone>()),
        storage(4, c, false, 48),
        storage(GROUND_BINDING, c, true, GROUND_HEADER_BYTES),
    ]
}

/// The binding of the crowd's ground words in group 0 of every pass that
/// imports `passes/ground.wgsl` (the motion pass, the simulation's resolve
/// and apply stages).
pub const GROUND_BINDING: u32 = 14;

/// The smallest ground binding: its header.
const GROUND_HEADER_BYTES: usize = std::mem::size_of::<throng_core::ground::GpuGroundHeader>();

/// An entry point of the GPU simulation (`simulation/simulation_passes.wgsl`,
/// and the hook's `steer_agents` from `simulation/simulation.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimStage {
    /// Each agent's state at the start of the step, and its bucket rank.
    Resolve,
    /// The buckets' starts.
    Scan,
    /// The neighbour grid.
    Fill,
    /// The hook's steering.
    Steer,
    /// Transforms and playback from the agents.
    Apply,
}

impl SimStage {
    /// Every stage, in dispatch order.
    pub const ALL: [SimStage; 5] = [
        SimStage::Resolve,
        SimStage::Scan,
        SimStage::Fill,
        SimStage::Steer,
        SimStage::Apply,
    ];

    /// The WGSL entry point.
    pub fn entry(self) -> &'static str {
        match self {
            SimStage::Resolve => "resolve_agents",
            SimStage::Scan => "scan_cells",
            SimStage::Fill => "fill_grid",
            SimStage::Steer => "steer_agents",
            SimStage::Apply => "apply_agents",
        }
    }

    /// The bindings of group 0 it uses.
    pub fn bindings(self) -> &'static [u32] {
        match self {
            SimStage::Resolve => &[0, 1, 2, 3, 4, 5, GROUND_BINDING],
            SimStage::Scan => &[4, 6],
            SimStage::Fill => &[0, 3, 5, 6, 7],
            SimStage::Steer => &[0, 1, 3, 6, 7, 8],
            SimStage::Apply => &[0, 1, 8, 9, 10, 11, 12, 13, GROUND_BINDING],
        }
    }
}

/// Group 0 of the GPU simulation: `SimulationParams` (0), the motions (1),
/// the agents before the step (2), each dense slot's agent at its start
/// (3), the bucket counts (4), the ranks (5), the bucket starts (6), the
/// neighbour grid (7), the agents after the step (8), the mirror's
/// transforms (9) and states (10), the model (11) and clip (12) tables,
/// the models' gaits (13), the crowd's ground (14, [`GROUND_BINDING`]);
/// `stage`: only the bindings that stage uses, read-only where it only
/// reads (all of them, as the passes' module declares them, for `None`).
pub fn simulation_entries(stage: Option<SimStage>) -> Entries {
    use throng_core::gpu::{GpuClip, GpuInstance, GpuModelInfo, GpuMotion, GpuTransform};
    use throng_core::simulation::{GpuAgent, GpuGait, GpuNeighbour, SimulationParams};
    let c = wgpu::ShaderStages::COMPUTE;
    let agent = std::mem::size_of::<GpuAgent>();
    // Writable in the passes' module: (binding, element size, written).
    let all = [
        (1, std::mem::size_of::<GpuMotion>(), false),
        (2, agent, false),
        (3, agent, true),
        (4, 4, true),
        (5, 4, true),
        (6, 4, true),
        (7, std::mem::size_of::<GpuNeighbour>(), true),
        (8, agent, false),
        (9, std::mem::size_of::<GpuTransform>(), true),
        (10, std::mem::size_of::<GpuInstance>(), true),
        (11, std::mem::size_of::<GpuModelInfo>(), false),
        (12, std::mem::size_of::<GpuClip>(), false),
        (13, std::mem::size_of::<GpuGait>(), false),
        (GROUND_BINDING, GROUND_HEADER_BYTES, false),
    ];
    let uses = |b: u32| stage.is_none_or(|s| s.bindings().contains(&b));
    // The steering reads what the passes write, and writes the agents.
    let written = |b: u32, w: bool| match stage {
        Some(SimStage::Steer) => b == 8,
        Some(SimStage::Scan) => b == 4 || b == 6,
        _ => w,
    };
    let mut entries = Vec::new();
    if uses(0) {
        entries.push(uniform(
            0,
            c,
            std::mem::size_of::<SimulationParams>(),
            false,
        ));
    }
    for (b, size, w) in all {
        if uses(b) {
            entries.push(storage(b, c, !written(b, w), size));
        }
    }
    entries
}

/// Group 2 of a simulation hook that imports `navigation`: the flow
/// field's `NavigationParams` (0), its cells (1), each goal layer's box (2).
pub fn navigation_entries() -> Entries {
    use throng_core::navigation::{GpuNavCell, NavigationParams};
    let c = wgpu::ShaderStages::COMPUTE;
    vec![
        uniform(0, c, std::mem::size_of::<NavigationParams>(), false),
        storage(1, c, true, std::mem::size_of::<GpuNavCell>()),
        storage(2, c, true, 16),
    ]
}

/// Group 1 of Throng's built-in steering hook (`navigate.wgsl`): its
/// `NavigateParams` (0).
pub fn navigate_entries() -> Entries {
    use throng_core::simulation::NavigateParams;
    vec![uniform(
        0,
        wgpu::ShaderStages::COMPUTE,
        std::mem::size_of::<NavigateParams>(),
        false,
    )]
}

/// Group 0 of the light fit: `LightFitParams` (0), the camera views' drawn
/// boxes (1), the fitted light (2).
pub fn light_fit_entries() -> Entries {
    use throng_core::gpu::{LightFit, LightFitParams};
    let c = wgpu::ShaderStages::COMPUTE;
    vec![
        uniform(0, c, std::mem::size_of::<LightFitParams>(), false),
        storage(1, c, true, 4),
        storage(2, c, false, std::mem::size_of::<LightFit>()),
    ]
}

/// Group 0 of the palette pre-pass: `PaletteParams` (0), the layer sets
/// (1), the skeleton table (2), the mask table (3), the palettes (4).
pub fn palette_entries() -> Entries {
    use throng_core::gpu::{GpuBone, GpuLayerSet, PaletteParams};
    let c = wgpu::ShaderStages::COMPUTE;
    vec![
        uniform(0, c, std::mem::size_of::<PaletteParams>(), false),
        storage(1, c, true, std::mem::size_of::<GpuLayerSet>()),
        storage(2, c, true, std::mem::size_of::<GpuBone>()),
        storage(3, c, true, 8),
        storage(4, c, false, 48),
    ]
}
