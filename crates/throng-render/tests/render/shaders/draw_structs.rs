//! The WGSL structs of the draw, compute and CPU-palette skinning, shadow,
//! impostor and pose cache programs have the member offsets and sizes of their `#[repr(C)]` Rust
//! twins, the package array holds exactly `PACKAGE_WIDTH` records, and the
//! pose cache's stride is `POSE_VERTEX_BYTES`.

use std::mem::{offset_of, size_of};

use throng_core::gpu::{InstanceRecord, ModelParams};
use throng_render::shader::Program;
use throng_render::uniforms::{
    CharacterHeader, ComputeParams, FogUniforms, FrameUniforms, MaterialUniforms, ShadowUniforms,
};
use throng_tests::wgsl::struct_layout;

use super::{check, parse};

#[test]
fn shared_structs_match_their_rust_twins() {
    check(
        Program::DrawPackaged,
        "InstanceRecord",
        size_of::<InstanceRecord>(),
        &[
            offset_of!(InstanceRecord, world_from_model),
            offset_of!(InstanceRecord, world_from_model) + 16,
            offset_of!(InstanceRecord, world_from_model) + 32,
            offset_of!(InstanceRecord, frame0),
            offset_of!(InstanceRecord, frame1),
            offset_of!(InstanceRecord, t),
            offset_of!(InstanceRecord, prev0),
            offset_of!(InstanceRecord, prev1),
            offset_of!(InstanceRecord, prev_t),
            offset_of!(InstanceRecord, fade),
            offset_of!(InstanceRecord, tint),
            offset_of!(InstanceRecord, look),
            offset_of!(InstanceRecord, pad),
        ],
    );
    check(
        Program::ComputeSkin,
        "ModelParams",
        size_of::<ModelParams>(),
        &[
            offset_of!(ModelParams, bone_count),
            offset_of!(ModelParams, frame_count),
            offset_of!(ModelParams, texture_width),
            offset_of!(ModelParams, texture_layers),
            offset_of!(ModelParams, morph_slots),
            offset_of!(ModelParams, morph_frame_texels),
            offset_of!(ModelParams, morph_delta_base),
            offset_of!(ModelParams, morph_delta_count),
        ],
    );
    check(
        Program::DrawUnbounded,
        "Frame",
        size_of::<FrameUniforms>(),
        &[
            offset_of!(FrameUniforms, clip_from_world),
            offset_of!(FrameUniforms, eye),
            offset_of!(FrameUniforms, light_dir),
            offset_of!(FrameUniforms, light_color),
            offset_of!(FrameUniforms, ambient),
            offset_of!(FrameUniforms, ground),
            offset_of!(FrameUniforms, fog),
            offset_of!(FrameUniforms, shading),
            offset_of!(FrameUniforms, impostor_one_view_size),
            offset_of!(FrameUniforms, pad),
            offset_of!(FrameUniforms, pad) + 4,
        ],
    );
    check(
        Program::DrawUnbounded,
        "Fog",
        size_of::<FogUniforms>(),
        &[
            offset_of!(FogUniforms, color),
            offset_of!(FogUniforms, scatter),
            offset_of!(FogUniforms, params),
            offset_of!(FogUniforms, mode),
            offset_of!(FogUniforms, inscattering),
        ],
    );
    check(
        Program::DrawPackaged,
        "Material",
        size_of::<MaterialUniforms>(),
        &[
            offset_of!(MaterialUniforms, base_color),
            offset_of!(MaterialUniforms, emissive),
            offset_of!(MaterialUniforms, metallic),
            offset_of!(MaterialUniforms, roughness),
            offset_of!(MaterialUniforms, normal_scale),
            offset_of!(MaterialUniforms, occlusion_strength),
            offset_of!(MaterialUniforms, alpha_cutoff),
            offset_of!(MaterialUniforms, alpha_mode),
            offset_of!(MaterialUniforms, palette_column),
            offset_of!(MaterialUniforms, submesh_bit),
            offset_of!(MaterialUniforms, textures),
            offset_of!(MaterialUniforms, uv_rows),
        ],
    );
    check(
        Program::ComputeSkin,
        "ComputeParams",
        size_of::<ComputeParams>(),
        &[
            offset_of!(ComputeParams, first_vertex),
            offset_of!(ComputeParams, vertex_count),
            offset_of!(ComputeParams, instance_count),
            offset_of!(ComputeParams, _pad),
        ],
    );
}

#[test]
fn palette_skinning_structs_match_their_rust_twins() {
    let header = offset_of!(CharacterHeader, world_from_model);
    check(
        Program::CpuSkinned,
        "CharacterHeader",
        size_of::<CharacterHeader>(),
        &[
            header,
            header + 16,
            header + 32,
            offset_of!(CharacterHeader, tint),
            offset_of!(CharacterHeader, _pad),
            offset_of!(CharacterHeader, _pad) + 4,
            offset_of!(CharacterHeader, _pad) + 8,
        ],
    );
    // The palette follows the header directly, one 3x4 matrix (three rows,
    // as in the bone texture) per bone.
    let module = parse(Program::CpuSkinned);
    let (members, _) = struct_layout(&module, "Character");
    let offsets: Vec<(&str, u32)> = members.iter().map(|(n, o)| (n.as_str(), *o)).collect();
    assert_eq!(
        offsets,
        [
            ("header", 0),
            ("palette", size_of::<CharacterHeader>() as u32)
        ],
        "Character: the palette must start right after the header"
    );
    let (_, rows_size) = struct_layout(&module, "Rows");
    assert_eq!(
        rows_size as usize,
        size_of::<throng_core::math::Rows3x4>(),
        "Rows: one palette entry is a Rows3x4"
    );
}

#[test]
fn shadow_uniforms_match_their_rust_twin() {
    for program in [Program::ShadowPackaged, Program::DrawUnbounded] {
        check(
            program,
            "ShadowUniforms",
            size_of::<ShadowUniforms>(),
            &[
                offset_of!(ShadowUniforms, light_clip_from_world),
                offset_of!(ShadowUniforms, params),
            ],
        );
    }
}

#[test]
fn cascade_uniforms_match_their_rust_twins() {
    use throng_render::uniforms::{CascadeUniforms, ShadowCascade};
    for program in [Program::DrawPackaged, Program::ImpostorUnbounded] {
        check(
            program,
            "ShadowCascade",
            size_of::<ShadowCascade>(),
            &[
                offset_of!(ShadowCascade, clip_from_world),
                offset_of!(ShadowCascade, far_bound),
                offset_of!(ShadowCascade, texel_size),
                offset_of!(ShadowCascade, layer),
                offset_of!(ShadowCascade, pad),
            ],
        );
        check(
            program,
            "CascadeUniforms",
            size_of::<CascadeUniforms>(),
            &[
                offset_of!(CascadeUniforms, cascades),
                offset_of!(CascadeUniforms, view_z),
                offset_of!(CascadeUniforms, direction_to_light),
                offset_of!(CascadeUniforms, params),
            ],
        );
    }
}

#[test]
fn prepass_structs_match_their_rust_twins() {
    use throng_core::gpu::PreviousRecord;
    use throng_render::uniforms::PrepassUniforms;
    check(
        Program::Prepass,
        "PrepassUniforms",
        size_of::<PrepassUniforms>(),
        &[
            offset_of!(PrepassUniforms, clip_from_world),
            offset_of!(PrepassUniforms, previous_clip_from_world),
        ],
    );
    // Written by the cull, read by the prepass.
    for program in [Program::Prepass, Program::Cull] {
        let rows = offset_of!(PreviousRecord, world_from_model);
        check(
            program,
            "PreviousRecord",
            size_of::<PreviousRecord>(),
            &[
                rows,
                rows + 16,
                rows + 32,
                offset_of!(PreviousRecord, frame0),
                offset_of!(PreviousRecord, frame1),
                offset_of!(PreviousRecord, t),
                offset_of!(PreviousRecord, pad),
            ],
        );
    }
}

#[test]
fn impostor_params_match_their_rust_twin() {
    use throng_core::gpu::ImpostorParams;
    for program in [Program::ImpostorPackaged, Program::ImpostorCastUnbounded] {
        check(
            program,
            "ImpostorParams",
            size_of::<ImpostorParams>(),
            &[
                offset_of!(ImpostorParams, views),
                offset_of!(ImpostorParams, frames),
                offset_of!(ImpostorParams, cell),
                offset_of!(ImpostorParams, layer_size),
                offset_of!(ImpostorParams, cells_per_row),
                offset_of!(ImpostorParams, cells_per_layer),
                offset_of!(ImpostorParams, frame_count),
                offset_of!(ImpostorParams, clip_count),
                offset_of!(ImpostorParams, metallic),
                offset_of!(ImpostorParams, roughness),
                offset_of!(ImpostorParams, surface),
                offset_of!(ImpostorParams, materials),
                offset_of!(ImpostorParams, emissive),
            ],
        );
    }
}

#[test]
fn package_array_holds_exactly_the_package_width() {
    let module = parse(Program::DrawPackaged);
    let (members, size) = struct_layout(&module, "Package");
    assert_eq!(members.len(), 1);
    assert_eq!(
        size as usize,
        throng_core::limits::PACKAGE_WIDTH as usize * size_of::<InstanceRecord>(),
        "the WGSL package array must be PACKAGE_WIDTH records long"
    );
}

#[test]
fn pose_cache_structs_and_stride_match_their_rust_twins() {
    use throng_core::gpu::PoseCacheParams;
    use throng_core::pose_cache::POSE_VERTEX_BYTES;
    for program in [
        Program::DrawUnbounded,
        Program::ShadowUnbounded,
        Program::PoseFill,
    ] {
        check(
            program,
            "PoseCacheParams",
            size_of::<PoseCacheParams>(),
            &[
                offset_of!(PoseCacheParams, vertex_count),
                offset_of!(PoseCacheParams, frame_count),
                offset_of!(PoseCacheParams, pad),
            ],
        );
    }
    // One cached vertex is one array element, read and written alike.
    for (program, name) in [
        (Program::DrawUnbounded, "pose_cache"),
        (Program::PoseFill, "poses"),
    ] {
        let module = parse(program);
        let (_, var) = module
            .global_variables
            .iter()
            .find(|(_, v)| v.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("{program:?}: no global {name}"));
        match module.types[var.ty].inner {
            naga::TypeInner::Array { stride, .. } => assert_eq!(
                stride as u64, POSE_VERTEX_BYTES,
                "{program:?}: {name}'s stride {stride} vs POSE_VERTEX_BYTES"
            ),
            ref other => panic!("{program:?}: {name} is {other:?}, not an array"),
        }
    }
}
