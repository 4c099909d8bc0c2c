//! The WGSL structs of the compute passes (simulation, motion, the cull with
//! its mirror and light fit, the layered palette) have the member offsets and sizes of their `#[repr(C)]` Rust
//! twins.

use std::mem::{offset_of, size_of};

use throng_render::shader::Program;

use super::check;

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
            offset_of!(GpuNeighbour, cell),
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
fn foot_ik_structs_match_their_rust_twins() {
    use throng_core::gpu::{GpuBone, GpuIkInstance, GpuLeg, IkParams};
    check(
        Program::FootIk,
        "IkInstance",
        size_of::<GpuIkInstance>(),
        &[
            offset_of!(GpuIkInstance, world_from_model),
            offset_of!(GpuIkInstance, palette),
            offset_of!(GpuIkInstance, clip_ground),
            offset_of!(GpuIkInstance, pad),
            offset_of!(GpuIkInstance, pad) + 4,
        ],
    );
    check(
        Program::FootIk,
        "Leg",
        size_of::<GpuLeg>(),
        &[
            offset_of!(GpuLeg, hip),
            offset_of!(GpuLeg, knee),
            offset_of!(GpuLeg, foot),
            offset_of!(GpuLeg, pad),
        ],
    );
    check(
        Program::FootIk,
        "IkParams",
        size_of::<IkParams>(),
        &[
            offset_of!(IkParams, count),
            offset_of!(IkParams, legs),
            offset_of!(IkParams, bones),
            offset_of!(IkParams, pad),
        ],
    );
    check(
        Program::FootIk,
        "IkBone",
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
}

#[test]
fn ground_structs_match_their_rust_twins() {
    use throng_core::ground::{GpuGroundHeader, GpuGroundPiece};
    check(
        Program::Motion,
        "GroundHeader",
        size_of::<GpuGroundHeader>(),
        &[
            offset_of!(GpuGroundHeader, columns),
            offset_of!(GpuGroundHeader, rows),
            offset_of!(GpuGroundHeader, pieces),
            offset_of!(GpuGroundHeader, flags),
            offset_of!(GpuGroundHeader, origin_x),
            offset_of!(GpuGroundHeader, origin_z),
            offset_of!(GpuGroundHeader, spacing),
            offset_of!(GpuGroundHeader, pad),
        ],
    );
    check(
        Program::Simulation,
        "GroundPiece",
        size_of::<GpuGroundPiece>(),
        &[
            offset_of!(GpuGroundPiece, min),
            offset_of!(GpuGroundPiece, max),
            offset_of!(GpuGroundPiece, slope),
            offset_of!(GpuGroundPiece, height),
            offset_of!(GpuGroundPiece, pad),
        ],
    );
    // The ground's binding in ground.wgsl is the one the layouts give it.
    let binding = format!(
        "@binding({}) var<storage, read> ground_words",
        throng_render::bind_groups::GROUND_BINDING
    );
    assert!(
        throng_render::shader::module_source("ground").is_some_and(|s| s.contains(&binding)),
        "ground.wgsl must declare {binding}"
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
            offset_of!(GpuClip, half_extent),
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
            offset_of!(GpuModelInfo, rest_half_extent),
            offset_of!(GpuModelInfo, look_classes),
            offset_of!(GpuModelInfo, pad),
            offset_of!(GpuModelInfo, pad) + 4,
            offset_of!(GpuModelInfo, pad) + 8,
            offset_of!(GpuModelInfo, hidden_masks),
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
            offset_of!(CullView, clip_from_world),
            offset_of!(CullView, pyramid),
            offset_of!(CullView, previous),
        ],
    );
    check(
        Program::DepthPyramid,
        "PyramidParams",
        size_of::<throng_core::gpu::PyramidParams>(),
        &[
            offset_of!(throng_core::gpu::PyramidParams, reversed),
            offset_of!(throng_core::gpu::PyramidParams, source_level),
            offset_of!(throng_core::gpu::PyramidParams, size0),
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
            offset_of!(GpuLayerSet, foot_ik),
            offset_of!(GpuLayerSet, clip_ground),
            offset_of!(GpuLayerSet, pad),
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
fn steering_structs_match_their_rust_twins() {
    use throng_core::navigation::{GpuNavCell, NavigationParams};
    use throng_core::simulation::{GpuGait, NavigateParams};
    use throng_tests::wgsl::{struct_layout, validate};
    check(
        Program::Simulation,
        "Gait",
        size_of::<GpuGait>(),
        &[
            offset_of!(GpuGait, idle_clip),
            offset_of!(GpuGait, walk_clip),
            offset_of!(GpuGait, run_clip),
            offset_of!(GpuGait, enabled),
            offset_of!(GpuGait, walk_speed),
            offset_of!(GpuGait, run_speed),
            offset_of!(GpuGait, idle_below),
            offset_of!(GpuGait, run_above),
            offset_of!(GpuGait, hysteresis),
            offset_of!(GpuGait, fade),
            offset_of!(GpuGait, pad),
            offset_of!(GpuGait, pad) + 4,
        ],
    );
    // The navigation module's structs, in Throng's own hook.
    let source =
        throng_render::shader::compose("navigate.wgsl", throng_render::shader::NAVIGATE, None)
            .unwrap();
    let module = validate("navigate.wgsl", &source, naga::valid::Capabilities::all());
    let same = |wgsl: &str, rust_size: usize, rust: &[usize]| {
        let (members, size) = struct_layout(&module, wgsl);
        let offsets: Vec<usize> = members.iter().map(|m| m.1 as usize).collect();
        assert_eq!(offsets, rust, "{wgsl}: WGSL {members:?}");
        assert_eq!(size as usize, rust_size, "{wgsl}: WGSL size {size}");
    };
    same(
        "NavigationParams",
        size_of::<NavigationParams>(),
        &[
            offset_of!(NavigationParams, origin_x),
            offset_of!(NavigationParams, origin_z),
            offset_of!(NavigationParams, cell_size),
            offset_of!(NavigationParams, width),
            offset_of!(NavigationParams, height),
            offset_of!(NavigationParams, layers),
            offset_of!(NavigationParams, pad),
            offset_of!(NavigationParams, pad) + 4,
        ],
    );
    same(
        "NavCell",
        size_of::<GpuNavCell>(),
        &[
            offset_of!(GpuNavCell, dir_x),
            offset_of!(GpuNavCell, distance),
            offset_of!(GpuNavCell, clearance),
        ],
    );
    same(
        "NavigateParams",
        size_of::<NavigateParams>(),
        &[
            offset_of!(NavigateParams, radius),
            offset_of!(NavigateParams, speed),
            offset_of!(NavigateParams, accel),
            offset_of!(NavigateParams, turn_rate),
            offset_of!(NavigateParams, horizon),
            offset_of!(NavigateParams, arrive),
            offset_of!(NavigateParams, dwell),
            offset_of!(NavigateParams, speed_spread),
            offset_of!(NavigateParams, lanes),
            offset_of!(NavigateParams, exchange_goals),
            // The padding: two f32 in WGSL, an array of two here.
            offset_of!(NavigateParams, pad),
            offset_of!(NavigateParams, pad) + 4,
        ],
    );
}
