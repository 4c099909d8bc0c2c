//! Bind group layouts, created from fixed descriptors so that every creator
//! gets the same (pooled, compatible) layout for a given device, and the
//! pipeline layout of every [`Program`] ([`program_groups`],
//! [`pipeline_layout`]): the one place that says which group a program reads
//! at which index. `tests/shaders.rs` checks every binding an entry point
//! uses against it (group, binding, kind and stage).
//!
//! | group | contents |
//! |-------|----------|
//! | 0     | frame uniforms (draw) / compute vertex words, output, params (skinning readback, pose-cache fill) / the palette pre-pass: params, layer sets, skeleton table, mask table, palettes |
//! | 1     | model: bone texture array + `ModelParams`, the morph texture (4); on the storage paths' draw and shadow programs, per (model, LOD), also its pose cache (2) and `PoseCacheParams` (3); for impostors, from binding 8: the atlas's colour and normal arrays, their sampler, the frame table, `ImpostorParams`, the variant palette, the surface array (14) |
//! | 2     | submesh: base-colour texture, sampler, `MaterialUniforms`, variant palette |
//! | 3     | instance records: a uniform package (dynamic offset) or a storage array, and the shadow bindings; for the CPU-skinned baseline, binding 1: one character's header and palette (storage, dynamic offset) |

use std::num::NonZeroU64;

use throng_core::gpu::{InstanceRecord, ModelParams};
use throng_core::limits::PACKAGE_WIDTH;

use crate::shader::Program;
use crate::uniforms::{
    CharacterHeader, ComputeParams, FrameUniforms, MaterialUniforms, ShadowUniforms,
};

/// Entries of one bind group layout.
pub type Entries = Vec<wgpu::BindGroupLayoutEntry>;

fn uniform(
    binding: u32,
    visibility: wgpu::ShaderStages,
    size: usize,
    dynamic: bool,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: dynamic,
            min_binding_size: NonZeroU64::new(size as u64),
        },
        count: None,
    }
}

fn storage(
    binding: u32,
    visibility: wgpu::ShaderStages,
    read_only: bool,
    min: usize,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: NonZeroU64::new(min as u64),
        },
        count: None,
    }
}

fn create(
    device: &wgpu::Device,
    label: &str,
    entries: &[wgpu::BindGroupLayoutEntry],
) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries,
    })
}

/// Group 1's binding of the morph texture (`shaders/skinning.wgsl`).
pub const MORPH_TEXTURE_BINDING: u32 = 4;

/// Size in bytes of one uniform package binding.
pub const PACKAGE_BYTES: usize = PACKAGE_WIDTH as usize * std::mem::size_of::<InstanceRecord>();

/// Group 1: the model (bone texture array, `ModelParams`, and at 4 the
/// morph texture).
pub fn model_entries() -> Entries {
    let vis = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::COMPUTE;
    vec![
        wgpu::BindGroupLayoutEntry {
            binding: MORPH_TEXTURE_BINDING,
            visibility: vis,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        },
        wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: vis,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                view_dimension: wgpu::TextureViewDimension::D2Array,
                multisampled: false,
            },
            count: None,
        },
        uniform(1, vis, std::mem::size_of::<ModelParams>(), false),
    ]
}

/// Group 1 of the storage paths' draw and shadow programs: the model's
/// entries ([`model_entries`]), then one (model, LOD)'s pose cache (2, a
/// storage array of cached vertices) and its `PoseCacheParams` (3), which
/// `shaders/pose_cache.wgsl` declares. Bound per (model, LOD) by
/// `crate::pose_cache`, with a one-vertex stand-in where the LOD is not
/// cached.
pub fn pose_model_entries() -> Entries {
    let mut entries = model_entries();
    entries.push(storage(
        2,
        wgpu::ShaderStages::VERTEX,
        true,
        throng_core::pose_cache::POSE_VERTEX_BYTES as usize,
    ));
    entries.push(uniform(
        3,
        wgpu::ShaderStages::VERTEX,
        std::mem::size_of::<throng_core::gpu::PoseCacheParams>(),
        false,
    ));
    entries
}

/// Group 1 of the storage paths' draw and shadow programs.
pub fn pose_model(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    create(
        device,
        "throng model + pose cache layout",
        &pose_model_entries(),
    )
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

/// Group 1: the model.
pub fn model(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    create(device, "throng model layout", &model_entries())
}

/// Group 1 of the impostor programs, from binding 8 (clear of the bone
/// texture's bindings, which the skinning module the impostor shader
/// imports declares): the atlas's colour (8), normal (9) and surface (14)
/// arrays and their sampler (10), read by the fragment stage; the frame
/// table (11), `ImpostorParams` (12) and the variant palette (13), read by
/// both stages (the fragment stage reads the table's per-material emission
/// and the palette's per-material colours where the atlas has the surface
/// image).
pub fn impostor_entries() -> Entries {
    let f = wgpu::ShaderStages::FRAGMENT;
    let atlas = |binding| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: f,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: true },
            view_dimension: wgpu::TextureViewDimension::D2Array,
            multisampled: false,
        },
        count: None,
    };
    vec![
        atlas(8),
        atlas(9),
        wgpu::BindGroupLayoutEntry {
            binding: 10,
            visibility: f,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            count: None,
        },
        wgpu::BindGroupLayoutEntry {
            binding: 11,
            visibility: wgpu::ShaderStages::VERTEX | f,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: false },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        },
        uniform(
            12,
            wgpu::ShaderStages::VERTEX | f,
            std::mem::size_of::<throng_core::gpu::ImpostorParams>(),
            false,
        ),
        palette_entry(13, wgpu::ShaderStages::VERTEX | f),
        atlas(14),
    ]
}

/// Group 1 of the impostor programs.
pub fn impostor(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    create(device, "throng impostor layout", &impostor_entries())
}

/// Group 2: a submesh's material (`shaders/material.wgsl`): the base
/// colour texture and sampler, `MaterialUniforms` with the submesh's look,
/// its model's variant palette (`crate::look`), then the
/// metallic-roughness, normal, occlusion and emissive textures, each with
/// its sampler. The vertex stages read the constants and the palette (a
/// record's colour, hidden submeshes).
pub fn material_entries() -> Entries {
    let texture = |binding| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: true },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    };
    let sampler = |binding| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
        count: None,
    };
    let mut entries = vec![
        uniform(
            2,
            wgpu::ShaderStages::VERTEX_FRAGMENT,
            std::mem::size_of::<MaterialUniforms>(),
            false,
        ),
        palette_entry(3, wgpu::ShaderStages::VERTEX),
    ];
    for &(t, s) in &MATERIAL_SLOT_BINDINGS {
        entries.push(texture(t));
        entries.push(sampler(s));
    }
    entries
}

/// Group 2's (texture, sampler) bindings of each material texture slot,
/// in `throng_core::material::TextureSlot` order.
pub const MATERIAL_SLOT_BINDINGS: [(u32, u32); 5] = [(0, 1), (4, 5), (6, 7), (8, 9), (10, 11)];

/// Group 2: a material.
pub fn material(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    create(device, "throng material layout", &material_entries())
}

/// A variant palette: RGBA8 read with `textureLoad` (`crate::look`).
fn palette_entry(binding: u32, visibility: wgpu::ShaderStages) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: false },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    }
}

/// Group 0 of the draw pipelines: frame uniforms.
pub fn frame_entries() -> Entries {
    vec![uniform(
        0,
        wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
        std::mem::size_of::<FrameUniforms>(),
        false,
    )]
}

/// Group 0 of the draw pipelines.
pub fn frame(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    create(device, "throng frame layout", &frame_entries())
}

/// A frame-uniforms buffer and its group-0 bind group (`label` names both).
pub fn frame_binding(device: &wgpu::Device, label: &str) -> (wgpu::Buffer, wgpu::BindGroup) {
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: std::mem::size_of::<FrameUniforms>() as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout: &frame(device),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: buffer.as_entire_binding(),
        }],
    });
    (buffer, group)
}

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

/// Group 3 of the CPU-skinned baseline (`cpu_skinned.wgsl`): binding 1, one
/// character's header and palette in a storage buffer, selected per draw
/// with a dynamic offset.
pub fn character_palette_entries() -> Entries {
    vec![wgpu::BindGroupLayoutEntry {
        binding: 1,
        visibility: wgpu::ShaderStages::VERTEX,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only: true },
            has_dynamic_offset: true,
            min_binding_size: NonZeroU64::new(
                (std::mem::size_of::<CharacterHeader>() + std::mem::size_of::<[f32; 12]>()) as u64,
            ),
        },
        count: None,
    }]
}

/// Group 3 of the CPU-skinned baseline.
pub fn character_palette(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    create(
        device,
        "throng character palette layout",
        &character_palette_entries(),
    )
}

/// What group 3 of a draw pipeline holds besides the records (binding 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShadowBindings {
    /// Nothing.
    None,
    /// The crowd pass receiving shadows: `ShadowUniforms` (2), the shadow map
    /// (3) and its comparison sampler (4).
    Receive,
    /// The shadow pass: `ShadowUniforms` (2).
    Cast,
}

/// Group 3: the records (a uniform package with a dynamic offset when
/// `packaged`, else a storage array and, at binding 5, the palette
/// pre-pass's palettes) and the shadow bindings.
pub fn records_entries(packaged: bool, shadows: ShadowBindings) -> Entries {
    let records = if packaged {
        uniform(0, wgpu::ShaderStages::VERTEX, PACKAGE_BYTES, true)
    } else {
        storage(
            0,
            wgpu::ShaderStages::VERTEX,
            true,
            std::mem::size_of::<InstanceRecord>(),
        )
    };
    let mut entries = vec![records];
    if !packaged {
        // The palettes the pre-pass wrote (records_storage.wgsl).
        entries.push(storage(5, wgpu::ShaderStages::VERTEX, true, 48));
    }
    let shadow_uniform_stages = match shadows {
        ShadowBindings::None => None,
        ShadowBindings::Receive => Some(wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT),
        ShadowBindings::Cast => Some(wgpu::ShaderStages::VERTEX),
    };
    if let Some(stages) = shadow_uniform_stages {
        entries.push(uniform(
            2,
            stages,
            std::mem::size_of::<ShadowUniforms>(),
            false,
        ));
    }
    if shadows == ShadowBindings::Receive {
        entries.extend(shadow_map_entries(3, 4));
    }
    entries
}

/// Group 3 of the crowd's draw and shadow pipelines.
pub fn records(
    device: &wgpu::Device,
    packaged: bool,
    shadows: ShadowBindings,
) -> wgpu::BindGroupLayout {
    let label = match (packaged, shadows) {
        (true, ShadowBindings::None) => "throng package layout",
        (false, ShadowBindings::None) => "throng records layout",
        (true, ShadowBindings::Receive) => "throng package + shadow layout",
        (false, ShadowBindings::Receive) => "throng records + shadow layout",
        (true, ShadowBindings::Cast) => "throng package + light layout",
        (false, ShadowBindings::Cast) => "throng records + light layout",
    };
    create(device, label, &records_entries(packaged, shadows))
}

/// The shadow map (depth, fragment stage) and its comparison sampler.
fn shadow_map_entries(map: u32, sampler: u32) -> [wgpu::BindGroupLayoutEntry; 2] {
    [
        wgpu::BindGroupLayoutEntry {
            binding: map,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Depth,
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        },
        wgpu::BindGroupLayoutEntry {
            binding: sampler,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
            count: None,
        },
    ]
}

/// A group for pipelines outside the renderer that receive the crowd's
/// shadows: `ShadowUniforms` (0), the shadow map (1), its comparison sampler
/// (2). See `Renderer::shadow_receiver` and `shaders/shadow_filter.wgsl`.
pub fn shadow_receiver(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    let [map, sampler] = shadow_map_entries(1, 2);
    let entries = [
        uniform(
            0,
            wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
            std::mem::size_of::<ShadowUniforms>(),
            false,
        ),
        map,
        sampler,
    ];
    create(device, "throng shadow receiver layout", &entries)
}

/// The bind groups a program's pipelines bind, by group index (`None`: the
/// group is unused). `shadows`: the crowd's draw programs receive shadows
/// (their records group then holds the shadow bindings too).
pub fn program_groups(program: Program, shadows: bool) -> [Option<Entries>; 4] {
    let receive = if shadows {
        ShadowBindings::Receive
    } else {
        ShadowBindings::None
    };
    match program {
        Program::DrawPackaged => [
            Some(frame_entries()),
            Some(model_entries()),
            Some(material_entries()),
            Some(records_entries(true, receive)),
        ],
        Program::DrawUnbounded => [
            Some(frame_entries()),
            Some(pose_model_entries()),
            Some(material_entries()),
            Some(records_entries(false, receive)),
        ],
        Program::ShadowPackaged => [
            None,
            Some(model_entries()),
            Some(material_entries()),
            Some(records_entries(true, ShadowBindings::Cast)),
        ],
        Program::ShadowUnbounded => [
            None,
            Some(pose_model_entries()),
            Some(material_entries()),
            Some(records_entries(false, ShadowBindings::Cast)),
        ],
        Program::PoseFill => [Some(pose_fill_entries()), Some(model_entries()), None, None],
        Program::ComputeSkin => [
            Some(compute_io_entries()),
            Some(model_entries()),
            None,
            Some(records_storage_entries(wgpu::ShaderStages::COMPUTE)),
        ],
        Program::CpuSkinned => [
            Some(frame_entries()),
            None,
            Some(material_entries()),
            Some(character_palette_entries()),
        ],
        Program::ImpostorPackaged | Program::ImpostorUnbounded => [
            Some(frame_entries()),
            Some(impostor_entries()),
            None,
            Some(records_entries(
                program == Program::ImpostorPackaged,
                receive,
            )),
        ],
        Program::ImpostorCastPackaged | Program::ImpostorCastUnbounded => [
            None,
            Some(impostor_entries()),
            None,
            Some(records_entries(
                program == Program::ImpostorCastPackaged,
                ShadowBindings::Cast,
            )),
        ],
        Program::Cull => [Some(cull_entries(None)), None, None, None],
        Program::Mirror => [Some(mirror_entries()), None, None, None],
        Program::Motion => [Some(motion_entries()), None, None, None],
        Program::Simulation => [Some(simulation_entries(None)), None, None, None],
        Program::LightFit => [Some(light_fit_entries()), None, None, None],
        Program::Palette => [Some(palette_entries()), Some(model_entries()), None, None],
    }
}

/// Storage buffers the storage paths' draw program binds in the vertex
/// stage (records, the pre-pass's palettes, the pose cache): the least
/// `max_storage_buffers_per_shader_stage` those paths need.
pub fn vertex_storage_buffers() -> u32 {
    program_groups(Program::DrawUnbounded, true)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            e.visibility.contains(wgpu::ShaderStages::VERTEX)
                && matches!(
                    e.ty,
                    wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Storage { .. },
                        ..
                    }
                )
        })
        .count() as u32
}

/// An entry point of the cull pass (`shaders/cull.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CullStage {
    /// Per instance: animate, cull, choose the LOD, take a slot.
    Classify,
    /// Once: lay out the groups, fill the indirect draws.
    Offsets,
    /// Per instance: write the visible instance's record.
    Scatter,
}

impl CullStage {
    /// Every stage, in dispatch order.
    pub const ALL: [CullStage; 3] = [CullStage::Classify, CullStage::Offsets, CullStage::Scatter];

    /// The WGSL entry point.
    pub fn entry(self) -> &'static str {
        match self {
            CullStage::Classify => "classify",
            CullStage::Offsets => "offsets",
            CullStage::Scatter => "scatter",
        }
    }

    /// The bindings of group 0 it uses.
    pub fn bindings(self) -> &'static [u32] {
        match self {
            CullStage::Classify => &[0, 1, 2, 3, 4, 5, 6, 7, 12],
            CullStage::Offsets => &[0, 7, 8, 9, 10, 11],
            CullStage::Scatter => &[0, 1, 2, 3, 6, 8, 11, 12],
        }
    }
}

/// Group 0 of the cull pass: every binding (`None`), or those one stage
/// uses (each stage's pipeline has a layout of its own, so none exceeds 8
/// storage buffers).
pub fn cull_entries(stage: Option<CullStage>) -> Entries {
    use throng_core::gpu::{CullView, DrawSpec, GpuClip, GpuInstance, GpuModelInfo, GpuTransform};
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
    ];
    match stage {
        None => all,
        Some(s) => all
            .into_iter()
            .filter(|e| s.bindings().contains(&e.binding))
            .collect(),
    }
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
    ]
}

/// An entry point of the GPU simulation (`shaders/simulation_passes.wgsl`,
/// and the hook's `steer_agents` from `shaders/simulation.wgsl`).
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
            SimStage::Resolve => &[0, 1, 2, 3, 4, 5],
            SimStage::Scan => &[4, 6],
            SimStage::Fill => &[0, 3, 5, 6, 7],
            SimStage::Steer => &[0, 1, 3, 6, 7, 8],
            SimStage::Apply => &[0, 1, 8, 9, 10, 11, 12],
        }
    }
}

/// Group 0 of the GPU simulation: `SimulationParams` (0), the motions (1),
/// the agents before the step (2), each dense slot's agent at its start
/// (3), the bucket counts (4), the ranks (5), the bucket starts (6), the
/// neighbour grid (7), the agents after the step (8), the mirror's
/// transforms (9) and states (10), the model (11) and clip (12) tables;
/// `stage`: only the bindings that stage uses, read-only where it only
/// reads (all of them, as the passes' module declares them, for `None`).
pub fn simulation_entries(stage: Option<SimStage>) -> Entries {
    use throng_core::gpu::{GpuClip, GpuInstance, GpuModelInfo, GpuMotion, GpuTransform};
    use throng_core::simulation::{GpuAgent, GpuNeighbour, SimulationParams};
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

/// The pipeline layout of `program` ([`program_groups`]).
pub fn pipeline_layout(
    device: &wgpu::Device,
    program: Program,
    shadows: bool,
) -> wgpu::PipelineLayout {
    let groups = program_groups(program, shadows);
    let layouts: Vec<Option<wgpu::BindGroupLayout>> = groups
        .iter()
        .enumerate()
        .map(|(i, g)| {
            g.as_ref()
                .map(|e| create(device, &format!("{} group {i}", program.label()), e))
        })
        .collect();
    let refs: Vec<Option<&wgpu::BindGroupLayout>> = layouts.iter().map(Option::as_ref).collect();
    device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(program.label()),
        bind_group_layouts: &refs,
        immediate_size: 0,
    })
}
