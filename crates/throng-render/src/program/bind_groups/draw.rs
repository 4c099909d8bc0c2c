//! The draw programs' groups: the frame (0), the model — with its pose
//! cache on the storage paths, or its impostor atlas (1), a submesh's
//! material (2), the instance records and shadow bindings (3), the
//! CPU-skinned baseline's palette, and the group other pipelines use to
//! receive the crowd's shadows.

use std::num::NonZeroU64;

use throng_core::gpu::{InstanceRecord, ModelParams};
use throng_core::limits::PACKAGE_WIDTH;

use crate::base::uniforms::{
    CharacterHeader, FrameUniforms, MaterialUniforms, PrepassUniforms, ShadowUniforms,
};
use crate::program::bind_groups::entries::{
    Entries, bind_group, create, loaded_texture_entry, shadow_map_entries, storage, uniform,
};

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

/// Group 1: the model.
pub fn model(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    create(device, "throng model layout", &model_entries())
}

/// Group 1 of the storage paths' draw and shadow programs: the model's
/// entries ([`model_entries`]), then one (model, LOD)'s pose cache (2, a
/// storage array of cached vertices) and its `PoseCacheParams` (3), which
/// `pose_cache/pose_cache.wgsl` declares. Bound per (model, LOD) by
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
        loaded_texture_entry(13, wgpu::ShaderStages::VERTEX | f),
        atlas(14),
    ]
}

/// Group 1 of the impostor programs.
pub fn impostor(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    create(device, "throng impostor layout", &impostor_entries())
}

/// Group 2: a submesh's material (`shaders/material.wgsl`): the base
/// colour texture and sampler, `MaterialUniforms` with the submesh's look,
/// its model's variant palette (`crate::model::look`), then the
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
        loaded_texture_entry(3, wgpu::ShaderStages::VERTEX),
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

/// Group 0 of the draw pipelines: frame uniforms.
pub fn frame_entries() -> Entries {
    vec![uniform(
        0,
        wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
        std::mem::size_of::<FrameUniforms>(),
        false,
    )]
}

/// Group 0 of the draw pipelines of a renderer receiving a caller's
/// cascaded shadow maps: the frame uniforms, `CascadeUniforms` (6), the
/// maps' depth array (7) and their comparison sampler (8).
pub fn cascade_frame_entries() -> Entries {
    let mut entries = frame_entries();
    entries.push(uniform(
        6,
        wgpu::ShaderStages::FRAGMENT,
        std::mem::size_of::<crate::base::uniforms::CascadeUniforms>(),
        false,
    ));
    let [mut map, sampler] = shadow_map_entries(7, 8);
    map.ty = wgpu::BindingType::Texture {
        sample_type: wgpu::TextureSampleType::Depth,
        view_dimension: wgpu::TextureViewDimension::D2Array,
        multisampled: false,
    };
    entries.extend([map, sampler]);
    entries
}

/// Where the colour pipelines' shadows come from: their receiving
/// bindings, in group 3 ([`ShadowBindings::Receive`], Throng's own map) or
/// group 0 ([`cascade_frame_entries`], a caller's cascades).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Receive {
    /// No shadows.
    None,
    /// Throng's own shadow map.
    OwnMap,
    /// A caller's cascaded shadow maps (`RendererOptions::cascades`).
    Cascades,
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
    let group = bind_group(
        device,
        label,
        &frame(device),
        &[(0, buffer.as_entire_binding())],
    );
    (buffer, group)
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
    /// The prepass (`prepass/prepass.wgsl`): `PrepassUniforms` (2) and the
    /// previous records (6), where each record's instance was one frame
    /// before. Storage paths only.
    Prepass,
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
        ShadowBindings::Prepass => None,
    };
    if let Some(stages) = shadow_uniform_stages {
        entries.push(uniform(
            2,
            stages,
            std::mem::size_of::<ShadowUniforms>(),
            false,
        ));
    }
    if shadows == ShadowBindings::Prepass {
        entries.push(uniform(
            2,
            wgpu::ShaderStages::FRAGMENT,
            std::mem::size_of::<PrepassUniforms>(),
            false,
        ));
        entries.push(storage(
            6,
            wgpu::ShaderStages::VERTEX,
            true,
            std::mem::size_of::<throng_core::gpu::PreviousRecord>(),
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
        (_, ShadowBindings::Prepass) => "throng records + previous layout",
    };
    create(device, label, &records_entries(packaged, shadows))
}

/// A group for pipelines outside the renderer that receive the crowd's
/// shadows: `ShadowUniforms` (0), the shadow map (1), its comparison sampler
/// (2). See `Renderer::shadow_receiver` and `shadow/shadow_filter.wgsl`.
pub fn shadow_receiver(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    create(
        device,
        "throng shadow receiver layout",
        &shadow_receiver_entries(),
    )
}

/// The entries of [`shadow_receiver`]'s layout, as `shaders/
/// shadow_receiver.wgsl` declares them.
pub fn shadow_receiver_entries() -> Entries {
    let [map, sampler] = shadow_map_entries(1, 2);
    vec![
        uniform(
            0,
            wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
            std::mem::size_of::<ShadowUniforms>(),
            false,
        ),
        map,
        sampler,
    ]
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
