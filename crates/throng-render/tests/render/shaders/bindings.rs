//! Every binding an entry point uses exists in the Rust pipeline layout of
//! its program, with a fitting type and visible to its stage: for every
//! program's pipelines, a composed simulation hook and a user's shadow
//! receiver.

use throng_render::bind_groups::{self, Receive};
use throng_render::shader::Program;
use throng_render::wgpu;

/// The entry points a program's pipelines run, with where the crowd's draw
/// pipelines take shadows from.
fn pipelines(program: Program) -> Vec<(Receive, Vec<&'static str>)> {
    use Receive::{Cascades, None as Off, OwnMap};
    match program {
        Program::DrawPackaged => vec![
            (Off, vec!["vs_main", "fs_main"]),
            (OwnMap, vec!["vs_main", "fs_shadowed"]),
            (Cascades, vec!["vs_main", "fs_cascaded"]),
        ],
        Program::DrawUnbounded => vec![
            (Off, vec!["vs_main", "vs_cached", "fs_main"]),
            (OwnMap, vec!["vs_main", "vs_cached", "fs_shadowed"]),
            (Cascades, vec!["vs_main", "vs_cached", "fs_cascaded"]),
        ],
        Program::ShadowPackaged => vec![(Off, vec!["vs_shadow"])],
        Program::ShadowUnbounded => vec![(Off, vec!["vs_shadow", "vs_shadow_cached"])],
        Program::ComputeSkin => vec![(Off, vec!["skin_vertices"])],
        Program::CpuSkinned => vec![(Off, vec!["vs_palette", "fs_main"])],
        Program::Cull => vec![(Off, vec!["classify", "offsets", "scatter", "previous"])],
        Program::DepthPyramid | Program::DepthPyramidMultisampled => {
            vec![(Off, vec!["reduce_depth", "downsample"])]
        }
        Program::Mirror => vec![(
            Off,
            vec!["apply_states", "apply_transforms", "apply_motions"],
        )],
        Program::Motion => vec![(Off, vec!["pose_movers"])],
        Program::Simulation => vec![(
            Off,
            vec!["resolve_agents", "scan_cells", "fill_grid", "apply_agents"],
        )],
        Program::LightFit => vec![(Off, vec!["fit_light"])],
        Program::Palette => vec![(Off, vec!["evaluate"])],
        Program::FootIk => vec![(Off, vec!["plant_feet"])],
        Program::PoseFill => vec![(Off, vec!["fill_poses"])],
        Program::ImpostorPackaged | Program::ImpostorUnbounded => vec![
            (Off, vec!["vs_impostor", "fs_impostor"]),
            (OwnMap, vec!["vs_impostor", "fs_impostor_shadowed"]),
            (Cascades, vec!["vs_impostor", "fs_impostor_cascaded"]),
        ],
        Program::Prepass => vec![
            (Off, vec!["vs_prepass", "vs_prepass_cached", "fs_prepass"]),
            (
                OwnMap,
                vec!["vs_prepass", "vs_prepass_cached", "fs_prepass"],
            ),
            (
                Cascades,
                vec!["vs_prepass", "vs_prepass_cached", "fs_prepass"],
            ),
        ],
        Program::ImpostorCastPackaged | Program::ImpostorCastUnbounded => {
            vec![(Off, vec!["vs_impostor_cast", "fs_impostor_cast"])]
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
                multisampled,
            },
            AddressSpace::Handle,
            TypeInner::Image { arrayed, class, .. },
        ) => {
            let (depth, multi) = match class {
                ImageClass::Depth { multi } => (true, *multi),
                ImageClass::Sampled { multi, .. } => (false, *multi),
                _ => return false,
            };
            (*view_dimension == wgpu::TextureViewDimension::D2Array) == *arrayed
                && matches!(sample_type, wgpu::TextureSampleType::Depth) == depth
                && *multisampled == multi
        }
        (
            wgpu::BindingType::StorageTexture {
                access,
                format,
                view_dimension,
            },
            AddressSpace::Handle,
            TypeInner::Image {
                arrayed,
                class:
                    ImageClass::Storage {
                        format: f,
                        access: a,
                    },
                ..
            },
        ) => {
            let writes = a.contains(StorageAccess::STORE);
            let reads = a.contains(StorageAccess::LOAD);
            let access_fits = match access {
                wgpu::StorageTextureAccess::WriteOnly => writes && !reads,
                wgpu::StorageTextureAccess::ReadOnly => reads && !writes,
                _ => reads && writes,
            };
            (*view_dimension == wgpu::TextureViewDimension::D2Array) == *arrayed
                && access_fits
                && *format == wgpu::TextureFormat::R32Float
                && *f == naga::StorageFormat::R32Float
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
        for (receive, entries) in pipelines(program) {
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
                let multisampled = program == Program::DepthPyramidMultisampled;
                let pyramid = bind_groups::PyramidStage::ALL
                    .iter()
                    .find(|s| s.entry() == name)
                    .map(|&s| bind_groups::pyramid_entries(Some(s), multisampled));
                let groups = match cull.or(sim).or(pyramid) {
                    Some(entries) => [Some(entries), None, None, None],
                    None => bind_groups::program_groups(program, receive),
                };
                let what = format!("{program:?} (shadows: {receive:?})");
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

#[test]
fn the_built_in_steering_hook_composes_validates_and_binds_its_three_groups() {
    let src = throng_render::shader::compose(
        "navigate.wgsl",
        throng_render::shader::module_source("navigate").unwrap(),
        None,
    )
    .unwrap();
    let (module, info) = validated(&src);
    let groups = [
        Some(bind_groups::simulation_entries(Some(
            bind_groups::SimStage::Steer,
        ))),
        Some(bind_groups::navigate_entries()),
        Some(bind_groups::navigation_entries()),
        None,
    ];
    check_bindings("navigate hook", &module, &info, "steer_agents", &groups);
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
