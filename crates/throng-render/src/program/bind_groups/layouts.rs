//! Which group each program reads at which index ([`program_groups`]),
//! the storage buffers the storage paths' draw program binds in the vertex
//! stage, and each program's pipeline layout.

use crate::base::shader::program::Program;
use crate::program::bind_groups::compute::*;
use crate::program::bind_groups::draw::*;
use crate::program::bind_groups::entries::{Entries, create};

/// The bind groups a program's pipelines bind, by group index (`None`: the
/// group is unused). `receive`: where the crowd's colour programs take
/// shadows from (their records group then holds the own map's bindings
/// too, or their frame group a caller's cascades).
pub fn program_groups(program: Program, receive: Receive) -> [Option<Entries>; 4] {
    let (frame, shadows) = match receive {
        Receive::None => (frame_entries(), ShadowBindings::None),
        Receive::OwnMap => (frame_entries(), ShadowBindings::Receive),
        Receive::Cascades => (cascade_frame_entries(), ShadowBindings::None),
    };
    let receive = shadows;
    match program {
        Program::DrawPackaged => [
            Some(frame.clone()),
            Some(model_entries()),
            Some(material_entries()),
            Some(records_entries(true, receive)),
        ],
        Program::DrawUnbounded => [
            Some(frame.clone()),
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
        Program::Prepass => [
            Some(frame.clone()),
            Some(pose_model_entries()),
            Some(material_entries()),
            Some(records_entries(false, ShadowBindings::Prepass)),
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
            Some(frame.clone()),
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
        Program::DepthPyramid => [Some(pyramid_entries(None, false)), None, None, None],
        Program::DepthPyramidMultisampled => [Some(pyramid_entries(None, true)), None, None, None],
        Program::Mirror => [Some(mirror_entries()), None, None, None],
        Program::Motion => [Some(motion_entries()), None, None, None],
        Program::Simulation => [Some(simulation_entries(None)), None, None, None],
        Program::LightFit => [Some(light_fit_entries()), None, None, None],
        Program::Palette => [Some(palette_entries()), Some(model_entries()), None, None],
        Program::FootIk => [Some(foot_ik_entries()), None, None, None],
    }
}

/// Storage buffers the storage paths' draw program binds in the vertex
/// stage (records, the pre-pass's palettes, the pose cache): the least
/// `max_storage_buffers_per_shader_stage` those paths need.
pub fn vertex_storage_buffers() -> u32 {
    program_groups(Program::DrawUnbounded, Receive::OwnMap)
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

/// The pipeline layout of `program` ([`program_groups`]).
pub fn pipeline_layout(
    device: &wgpu::Device,
    program: Program,
    receive: Receive,
) -> wgpu::PipelineLayout {
    let groups = program_groups(program, receive);
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
