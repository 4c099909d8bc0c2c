//! CPU-only: every WGSL program parses and validates with naga, every file in
//! `shaders/` is part of a program, and every struct shared with Rust has the
//! same member offsets and size as its `#[repr(C)]` twin.

use std::collections::BTreeSet;
use std::mem::{offset_of, size_of};

use throng_core::gpu::{InstanceRecord, ModelParams};
use throng_render::bind_groups;
use throng_render::shader::{MODULES, Program, imports};
use throng_render::uniforms::{
    CharacterHeader, ComputeParams, FogUniforms, FrameUniforms, MaterialUniforms, ShadowUniforms,
};
use throng_render::wgpu;
use throng_tests::wgsl::{struct_layout, validate};

fn parse(program: Program) -> naga::Module {
    validate(
        &format!("{program:?}"),
        &program.source(),
        naga::valid::Capabilities::all(),
    )
}

#[test]
fn every_program_parses_and_validates() {
    for p in Program::ALL {
        parse(p);
    }
}

#[test]
fn every_shader_file_is_known_and_used() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shaders");
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".wgsl").map(str::to_owned))
        .collect();
    assert!(!on_disk.is_empty(), "no shader found in {}", dir.display());
    let known: BTreeSet<String> = MODULES.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(
        on_disk, known,
        "shaders/ and throng_render::shader::MODULES disagree"
    );
    // simulation.wgsl is validated composed with a hook, and
    // shadow_receiver.wgsl with a receiving fragment stage (below).
    let used: BTreeSet<&str> = Program::ALL
        .iter()
        .flat_map(|p| p.modules())
        .chain(["simulation", "shadow_receiver"])
        .collect();
    for (name, text) in MODULES {
        assert!(
            used.contains(name),
            "{name}.wgsl is in no program, so nothing validates it"
        );
        let on_disk = std::fs::read_to_string(dir.join(format!("{name}.wgsl"))).unwrap();
        assert_eq!(&on_disk, text, "{name}.wgsl changed on disk; rebuild");
    }
}

#[test]
fn every_import_names_a_module_and_programs_list_their_modules_once() {
    for (name, text) in MODULES {
        for (line, import) in imports(text) {
            assert!(
                ["prelude", "records"].contains(&import)
                    || MODULES.iter().any(|(m, _)| *m == import),
                "{name}.wgsl:{line}: imports unknown module {import:?}"
            );
        }
    }
    for p in Program::ALL {
        let modules = p.modules();
        let unique: BTreeSet<_> = modules.iter().collect();
        assert_eq!(unique.len(), modules.len(), "{p:?}: {modules:?}");
        assert_eq!(modules.last(), Some(&p.entry()), "{p:?}: entry last");
        assert_eq!(
            p.source().matches("const PACKAGE_WIDTH").count(),
            1,
            "{p:?}: one prelude"
        );
    }
}

/// The packaged path is the downlevel one (GL / WebGL2-class adapters): its
/// programs must validate without the capabilities such adapters lack and
/// must not read storage buffers, which those adapters cannot bind in the
/// vertex stage.
#[test]
fn the_packaged_path_needs_no_storage_buffers() {
    for p in [
        Program::DrawPackaged,
        Program::ShadowPackaged,
        Program::ImpostorPackaged,
        Program::ImpostorCastPackaged,
    ] {
        let module = validate(
            &format!("{p:?} (no capabilities)"),
            &p.source(),
            naga::valid::Capabilities::empty(),
        );
        for (_, var) in module.global_variables.iter() {
            assert!(
                !matches!(var.space, naga::AddressSpace::Storage { .. }),
                "{p:?}: global {:?} is a storage buffer",
                var.name
            );
        }
    }
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
            offset_of!(FrameUniforms, pad),
            offset_of!(FrameUniforms, pad) + 4,
            offset_of!(FrameUniforms, pad) + 8,
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
fn simulation_structs_match_their_rust_twins() {
    use throng_core::simulation::{GpuAgent, GpuNeighbour, SimulationParams};
    check(
        Program::Simulation,
        "Agent",
        size_of::<GpuAgent>(),
        &[
            offset_of!(GpuAgent, position),
            offset_of!(GpuAgent, yaw),
            offset_of!(GpuAgent, velocity),
            offset_of!(GpuAgent, serial),
            offset_of!(GpuAgent, data),
        ],
    );
    check(
        Program::Simulation,
        "Neighbour",
        size_of::<GpuNeighbour>(),
        &[
            offset_of!(GpuNeighbour, position),
            offset_of!(GpuNeighbour, slot),
            offset_of!(GpuNeighbour, velocity),
            offset_of!(GpuNeighbour, pad),
        ],
    );
    check(
        Program::Simulation,
        "SimulationParams",
        size_of::<SimulationParams>(),
        &[
            offset_of!(SimulationParams, now_lo),
            offset_of!(SimulationParams, now_hi),
            offset_of!(SimulationParams, dt),
            offset_of!(SimulationParams, instance_count),
            offset_of!(SimulationParams, cell_size),
            offset_of!(SimulationParams, agent_capacity),
            offset_of!(SimulationParams, seconds),
            offset_of!(SimulationParams, step),
        ],
    );
}

#[test]
fn motion_structs_match_their_rust_twins() {
    use throng_core::gpu::{GpuMotion, MotionParams, MotionUpdate};
    use throng_core::motion::{PathPoint, RootKey};
    let rows = offset_of!(GpuMotion, anchor_rows);
    check(
        Program::Motion,
        "GpuMotion",
        size_of::<GpuMotion>(),
        &[
            rows,
            rows + 16,
            rows + 32,
            offset_of!(GpuMotion, anchor_lo),
            offset_of!(GpuMotion, anchor_hi),
            offset_of!(GpuMotion, kind),
            offset_of!(GpuMotion, base),
            offset_of!(GpuMotion, track),
            offset_of!(GpuMotion, a),
            offset_of!(GpuMotion, b),
        ],
    );
    check(
        Program::Motion,
        "PathPoint",
        size_of::<PathPoint>(),
        &[
            offset_of!(PathPoint, position),
            offset_of!(PathPoint, distance),
        ],
    );
    check(
        Program::Motion,
        "RootKey",
        size_of::<RootKey>(),
        &[offset_of!(RootKey, translation), offset_of!(RootKey, yaw)],
    );
    check(
        Program::Motion,
        "MotionParams",
        size_of::<MotionParams>(),
        &[
            offset_of!(MotionParams, now_lo),
            offset_of!(MotionParams, now_hi),
            offset_of!(MotionParams, instance_count),
            offset_of!(MotionParams, pad),
        ],
    );
    check(
        Program::Mirror,
        "MotionUpdate",
        size_of::<MotionUpdate>(),
        &[
            offset_of!(MotionUpdate, slot),
            offset_of!(MotionUpdate, pad),
            offset_of!(MotionUpdate, pad) + 4,
            offset_of!(MotionUpdate, pad) + 8,
            offset_of!(MotionUpdate, motion),
        ],
    );
}

#[test]
fn cull_structs_match_their_rust_twins() {
    use throng_core::gpu::{
        CullView, DrawSpec, GpuClip, GpuInstance, GpuModelInfo, GpuTrack, GpuTransform, LightFit,
        LightFitParams, MirrorParams, StateUpdate, TransformUpdate,
    };
    check(
        Program::Cull,
        "GpuInstance",
        size_of::<GpuInstance>(),
        &[
            offset_of!(GpuInstance, anchor_lo),
            offset_of!(GpuInstance, anchor_hi),
            offset_of!(GpuInstance, current),
            offset_of!(GpuInstance, previous),
            offset_of!(GpuInstance, fade0),
            offset_of!(GpuInstance, fade_rate),
            offset_of!(GpuInstance, tint),
            offset_of!(GpuInstance, model),
            offset_of!(GpuInstance, look),
            offset_of!(GpuInstance, look) + 4,
            offset_of!(GpuInstance, pad),
            offset_of!(GpuInstance, pad) + 4,
        ],
    );
    let rows = offset_of!(GpuTransform, rows);
    check(
        Program::Cull,
        "GpuTransform",
        size_of::<GpuTransform>(),
        &[rows, rows + 16, rows + 32],
    );
    check(
        Program::Cull,
        "GpuTrack",
        size_of::<GpuTrack>(),
        &[
            offset_of!(GpuTrack, phase_lo),
            offset_of!(GpuTrack, phase_hi),
            offset_of!(GpuTrack, rate_lo),
            offset_of!(GpuTrack, rate_hi),
            offset_of!(GpuTrack, clip),
        ],
    );
    check(
        Program::Cull,
        "GpuClip",
        size_of::<GpuClip>(),
        &[
            offset_of!(GpuClip, first_frame),
            offset_of!(GpuClip, frame_count),
            offset_of!(GpuClip, duration),
            offset_of!(GpuClip, frames_per_second),
            offset_of!(GpuClip, sphere),
        ],
    );
    check(
        Program::Cull,
        "GpuModelInfo",
        size_of::<GpuModelInfo>(),
        &[
            offset_of!(GpuModelInfo, rest_sphere),
            offset_of!(GpuModelInfo, clip_base),
            offset_of!(GpuModelInfo, clip_count),
            offset_of!(GpuModelInfo, lod_base),
            offset_of!(GpuModelInfo, lod_count),
            offset_of!(GpuModelInfo, group_base),
            offset_of!(GpuModelInfo, impostor_lod),
            offset_of!(GpuModelInfo, impostor_size),
            offset_of!(GpuModelInfo, impostor_mesh_lod),
        ],
    );
    check(
        Program::Cull,
        "CullView",
        size_of::<CullView>(),
        &[
            offset_of!(CullView, planes),
            offset_of!(CullView, eye),
            offset_of!(CullView, now_lo),
            offset_of!(CullView, now_hi),
            offset_of!(CullView, instance_count),
            offset_of!(CullView, flags),
            offset_of!(CullView, lod_scale),
            offset_of!(CullView, group_count),
            offset_of!(CullView, draw_count),
            offset_of!(CullView, pad),
        ],
    );
    let pad = offset_of!(StateUpdate, pad);
    check(
        Program::Mirror,
        "StateUpdate",
        size_of::<StateUpdate>(),
        &[
            offset_of!(StateUpdate, slot),
            pad,
            pad + 4,
            pad + 8,
            offset_of!(StateUpdate, state),
        ],
    );
    let pad = offset_of!(TransformUpdate, pad);
    check(
        Program::Mirror,
        "TransformUpdate",
        size_of::<TransformUpdate>(),
        &[
            offset_of!(TransformUpdate, slot),
            pad,
            pad + 4,
            pad + 8,
            offset_of!(TransformUpdate, transform),
        ],
    );
    check(
        Program::Mirror,
        "MirrorParams",
        size_of::<MirrorParams>(),
        &[
            offset_of!(MirrorParams, state_count),
            offset_of!(MirrorParams, transform_count),
            offset_of!(MirrorParams, instance_count),
            offset_of!(MirrorParams, motion_count),
        ],
    );
    let pad = offset_of!(LightFitParams, pad);
    check(
        Program::LightFit,
        "LightFitParams",
        size_of::<LightFitParams>(),
        &[
            offset_of!(LightFitParams, toward_light),
            offset_of!(LightFitParams, crowd_count),
            pad,
            pad + 4,
            pad + 8,
        ],
    );
    let pad = offset_of!(LightFit, pad);
    check(
        Program::LightFit,
        "LightFit",
        size_of::<LightFit>(),
        &[
            offset_of!(LightFit, planes),
            offset_of!(LightFit, light_clip_from_world),
            offset_of!(LightFit, visible),
            pad,
            pad + 4,
            pad + 8,
        ],
    );
    check(
        Program::Cull,
        "DrawSpec",
        size_of::<DrawSpec>(),
        &[
            offset_of!(DrawSpec, group),
            offset_of!(DrawSpec, index_count),
            offset_of!(DrawSpec, first_index),
            offset_of!(DrawSpec, base_vertex),
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

/// The entry points a program's pipelines run, with whether the crowd's
/// draw pipelines receive shadows.
fn pipelines(program: Program) -> Vec<(bool, Vec<&'static str>)> {
    match program {
        Program::DrawPackaged => vec![
            (false, vec!["vs_main", "fs_main"]),
            (true, vec!["vs_main", "fs_shadowed"]),
        ],
        Program::DrawUnbounded => vec![
            (false, vec!["vs_main", "vs_cached", "fs_main"]),
            (true, vec!["vs_main", "vs_cached", "fs_shadowed"]),
        ],
        Program::ShadowPackaged => vec![(false, vec!["vs_shadow"])],
        Program::ShadowUnbounded => vec![(false, vec!["vs_shadow", "vs_shadow_cached"])],
        Program::ComputeSkin => vec![(false, vec!["skin_vertices"])],
        Program::CpuSkinned => vec![(false, vec!["vs_palette", "fs_main"])],
        Program::Cull => vec![(false, vec!["classify", "offsets", "scatter"])],
        Program::Mirror => vec![(
            false,
            vec!["apply_states", "apply_transforms", "apply_motions"],
        )],
        Program::Motion => vec![(false, vec!["pose_movers"])],
        Program::Simulation => vec![(
            false,
            vec!["resolve_agents", "scan_cells", "fill_grid", "apply_agents"],
        )],
        Program::LightFit => vec![(false, vec!["fit_light"])],
        Program::Palette => vec![(false, vec!["evaluate"])],
        Program::PoseFill => vec![(false, vec!["fill_poses"])],
        Program::ImpostorPackaged | Program::ImpostorUnbounded => vec![
            (false, vec!["vs_impostor", "fs_impostor"]),
            (true, vec!["vs_impostor", "fs_impostor_shadowed"]),
        ],
        Program::ImpostorCastPackaged | Program::ImpostorCastUnbounded => {
            vec![(false, vec!["vs_impostor_cast", "fs_impostor_cast"])]
        }
    }
}

/// Whether a Rust binding type fits what the shader declares.
fn fits(ty: &wgpu::BindingType, var: &naga::GlobalVariable, module: &naga::Module) -> bool {
    use naga::{AddressSpace, ImageClass, StorageAccess, TypeInner};
    match (ty, var.space, &module.types[var.ty].inner) {
        (
            wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                ..
            },
            AddressSpace::Uniform,
            _,
        ) => true,
        (
            wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                ..
            },
            AddressSpace::Storage { access },
            _,
        ) => *read_only != access.contains(StorageAccess::STORE),
        (
            wgpu::BindingType::Texture {
                sample_type,
                view_dimension,
                ..
            },
            AddressSpace::Handle,
            TypeInner::Image { arrayed, class, .. },
        ) => {
            let depth = matches!(class, ImageClass::Depth { .. });
            (*view_dimension == wgpu::TextureViewDimension::D2Array) == *arrayed
                && matches!(sample_type, wgpu::TextureSampleType::Depth) == depth
        }
        (
            wgpu::BindingType::Sampler(kind),
            AddressSpace::Handle,
            TypeInner::Sampler { comparison },
        ) => (*kind == wgpu::SamplerBindingType::Comparison) == *comparison,
        _ => false,
    }
}

/// Every binding an entry point uses exists in the Rust pipeline layout of
/// its program (`bind_groups::program_groups`) at the same group and
/// binding, with a fitting type and the entry point's stage visible.
/// Checks that every binding entry point `name` of `module` uses is in
/// `groups`, with a type that fits and visible to its stage.
fn check_bindings(
    what: &str,
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    name: &str,
    groups: &[Option<bind_groups::Entries>; 4],
) {
    let index = module
        .entry_points
        .iter()
        .position(|e| e.name == name)
        .unwrap_or_else(|| panic!("{what}: no entry point {name}"));
    let stage = match module.entry_points[index].stage {
        naga::ShaderStage::Vertex => wgpu::ShaderStages::VERTEX,
        naga::ShaderStage::Fragment => wgpu::ShaderStages::FRAGMENT,
        naga::ShaderStage::Compute => wgpu::ShaderStages::COMPUTE,
        other => panic!("{what}: unexpected stage {other:?}"),
    };
    let used = info.get_entry_point(index);
    for (handle, var) in module.global_variables.iter() {
        let Some(binding) = &var.binding else {
            continue;
        };
        if used[handle].is_empty() {
            continue;
        }
        let what = format!(
            "{what} {name}: {:?} at @group({}) @binding({})",
            var.name, binding.group, binding.binding
        );
        let group = groups
            .get(binding.group as usize)
            .and_then(Option::as_ref)
            .unwrap_or_else(|| panic!("{what}: the Rust layout has no such group"));
        let entry = group
            .iter()
            .find(|e| e.binding == binding.binding)
            .unwrap_or_else(|| panic!("{what}: the Rust group has no such binding"));
        assert!(
            fits(&entry.ty, var, module),
            "{what}: the shader declares {:?} {:?}, Rust has {:?}",
            var.space,
            module.types[var.ty].inner,
            entry.ty
        );
        assert!(
            entry.visibility.contains(stage),
            "{what}: not visible to the {stage:?} stage in Rust ({:?})",
            entry.visibility
        );
    }
}

fn validated(src: &str) -> (naga::Module, naga::valid::ModuleInfo) {
    let module = naga::front::wgsl::parse_str(src).expect("parses");
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .expect("validates");
    (module, info)
}

#[test]
fn bindings_the_shaders_use_are_in_the_rust_layouts() {
    for program in Program::ALL {
        let (module, info) = validated(&program.source());
        for (shadows, entries) in pipelines(program) {
            for name in entries {
                // The cull and simulation stages each have a layout of
                // their own.
                let cull = bind_groups::CullStage::ALL
                    .iter()
                    .find(|s| s.entry() == name)
                    .map(|&s| bind_groups::cull_entries(Some(s)));
                let sim = bind_groups::SimStage::ALL
                    .iter()
                    .find(|s| s.entry() == name)
                    .map(|&s| bind_groups::simulation_entries(Some(s)));
                let groups = match cull.or(sim) {
                    Some(entries) => [Some(entries), None, None, None],
                    None => bind_groups::program_groups(program, shadows),
                };
                let what = format!("{program:?} (shadows {shadows})");
                check_bindings(&what, &module, &info, name, &groups);
            }
        }
    }
}

/// The smallest simulation hook: agents keep their state.
const IDLE_HOOK: &str =
    "// #import simulation\nfn steer(agent: Agent, slot: u32) -> Agent {\n    return agent;\n}\n";

#[test]
fn a_simulation_hook_composes_validates_and_binds_the_steering_layout() {
    let src = throng_render::shader::compose("idle.wgsl", IDLE_HOOK, None).unwrap();
    let (module, info) = validated(&src);
    let groups = [
        Some(bind_groups::simulation_entries(Some(
            bind_groups::SimStage::Steer,
        ))),
        None,
        None,
        None,
    ];
    check_bindings("idle hook", &module, &info, "steer_agents", &groups);
}

/// The smallest pipeline of a user's own that receives the crowd's
/// shadows.
const RECEIVER: &str = "// #import shadow_receiver\n@fragment\nfn fs(@location(0) world: vec3<f32>) -> @location(0) vec4<f32> {\n    return vec4<f32>(crowd_light(world));\n}\n";

#[test]
fn the_shadow_receiver_module_validates_and_binds_the_receiver_layout() {
    let src = throng_render::shader::compose("receiver.wgsl", RECEIVER, None).unwrap();
    let (module, info) = validated(&src);
    let groups = [
        None,
        Some(bind_groups::shadow_receiver_entries()),
        None,
        None,
    ];
    check_bindings("shadow receiver", &module, &info, "fs", &groups);
}

#[test]
fn palette_structs_match_their_rust_twins() {
    use throng_core::gpu::{GpuBone, GpuLayer, GpuLayerSet, PaletteParams};
    check(
        Program::Palette,
        "GpuLayer",
        size_of::<GpuLayer>(),
        &[
            offset_of!(GpuLayer, frame0),
            offset_of!(GpuLayer, frame1),
            offset_of!(GpuLayer, t),
            offset_of!(GpuLayer, weight),
            offset_of!(GpuLayer, ref0),
            offset_of!(GpuLayer, ref1),
            offset_of!(GpuLayer, ref_t),
            offset_of!(GpuLayer, mode),
            offset_of!(GpuLayer, mask),
            offset_of!(GpuLayer, pad),
            offset_of!(GpuLayer, pad) + 4,
            offset_of!(GpuLayer, pad) + 8,
        ],
    );
    check(
        Program::Palette,
        "GpuLayerSet",
        size_of::<GpuLayerSet>(),
        &[
            offset_of!(GpuLayerSet, frame0),
            offset_of!(GpuLayerSet, frame1),
            offset_of!(GpuLayerSet, t),
            offset_of!(GpuLayerSet, prev0),
            offset_of!(GpuLayerSet, prev1),
            offset_of!(GpuLayerSet, prev_t),
            offset_of!(GpuLayerSet, fade),
            offset_of!(GpuLayerSet, layer_count),
            offset_of!(GpuLayerSet, palette),
            offset_of!(GpuLayerSet, pad),
            offset_of!(GpuLayerSet, pad) + 4,
            offset_of!(GpuLayerSet, pad) + 8,
            offset_of!(GpuLayerSet, layers),
        ],
    );
    check(
        Program::Palette,
        "GpuBone",
        size_of::<GpuBone>(),
        &[
            offset_of!(GpuBone, bind),
            offset_of!(GpuBone, inverse_bind),
            offset_of!(GpuBone, parent),
            offset_of!(GpuBone, ordered),
            offset_of!(GpuBone, pad),
            offset_of!(GpuBone, pad) + 4,
        ],
    );
    check(
        Program::Palette,
        "PaletteParams",
        size_of::<PaletteParams>(),
        &[
            offset_of!(PaletteParams, set_count),
            offset_of!(PaletteParams, first_set),
            offset_of!(PaletteParams, pad),
            offset_of!(PaletteParams, pad) + 4,
        ],
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

#[test]
fn the_storage_paths_need_three_vertex_storage_buffers() {
    // Records, palettes, pose cache: an adapter with fewer per stage gets
    // the packaged path (supports_unbounded), not a failed pipeline.
    assert_eq!(bind_groups::vertex_storage_buffers(), 3);
}
