//! Throng's WGSL modules, embedded from the crate's own `shaders/`
//! folder (the repository's top-level `shaders/` is a link to it), one
//! constant each, and the table of them by name
//! ([`MODULES`]).

/// `shaders/skinning.wgsl`.
pub const SKINNING: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/shaders/skinning.wgsl"
));
/// `shaders/records_uniform.wgsl`.
pub const RECORDS_UNIFORM: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/shaders/records_uniform.wgsl"
));
/// `shaders/records_storage.wgsl`.
pub const RECORDS_STORAGE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/shaders/records_storage.wgsl"
));
/// `shaders/draw.wgsl`.
pub const DRAW: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders/draw.wgsl"));
/// `shaders/pbr.wgsl`: physically based shading.
pub const PBR: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders/pbr.wgsl"));
/// `shaders/material.wgsl`: a submesh's material, decoded.
pub const MATERIAL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/shaders/material.wgsl"
));
/// Distance fog, applied at the end of shading.
pub const FOG: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders/fog.wgsl"));
/// `shadow/shadow_filter.wgsl` (no bindings: usable by other crates'
/// pipelines, e.g. a ground plane receiving the crowd's shadows).
pub const SHADOW_FILTER: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/shadow/shadow_filter.wgsl"
));
/// `shadow/shadow_common.wgsl`.
pub const SHADOW_COMMON: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/shadow/shadow_common.wgsl"
));
/// `shadow/shadow_receiver.wgsl`: the crowd's shadows in a pipeline of
/// the user's own, bound at group 1.
pub const SHADOW_RECEIVER: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/shadow/shadow_receiver.wgsl"
));
/// `shadow/shadow_receive.wgsl`.
pub const SHADOW_RECEIVE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/shadow/shadow_receive.wgsl"
));
/// `shadow/shadow_cascades.wgsl`: a caller's cascaded shadow maps,
/// received as Bevy samples its directional cascades.
pub const SHADOW_CASCADES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/shadow/shadow_cascades.wgsl"
));
/// `prepass/prepass.wgsl`: the crowd in a caller's depth, normal and
/// motion-vector prepass.
pub const PREPASS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/prepass/prepass.wgsl"
));
/// `shadow/shadow_cast.wgsl`.
pub const SHADOW_CAST: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/shadow/shadow_cast.wgsl"
));
/// `passes/compute_skin.wgsl`.
pub const COMPUTE_SKIN: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/passes/compute_skin.wgsl"
));
/// `shaders/cpu_skinned.wgsl`.
pub const CPU_SKINNED: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/shaders/cpu_skinned.wgsl"
));
/// `shaders/instance_record.wgsl`.
pub const INSTANCE_RECORD: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/shaders/instance_record.wgsl"
));
/// `shaders/dispatch.wgsl`: a per-item compute stage's invocation.
pub const DISPATCH: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/shaders/dispatch.wgsl"
));
/// `occlusion/depth_pyramid.wgsl`: the depth pyramid from single-sampled depth.
pub const DEPTH_PYRAMID: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/occlusion/depth_pyramid.wgsl"
));
/// `occlusion/depth_pyramid_ms.wgsl`: the depth pyramid from multisampled depth.
pub const DEPTH_PYRAMID_MS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/occlusion/depth_pyramid_ms.wgsl"
));
/// `occlusion/pyramid_reduce.wgsl`: the depth pyramid's reductions.
pub const PYRAMID_REDUCE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/occlusion/pyramid_reduce.wgsl"
));
/// `passes/pyramid_layout.wgsl`: where a depth pyramid's levels lie.
pub const PYRAMID_LAYOUT: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/passes/pyramid_layout.wgsl"
));
/// `shaders/clock.wgsl`.
pub const CLOCK: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders/clock.wgsl"));
/// `passes/cull/cull.wgsl`.
pub const CULL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/passes/cull/cull.wgsl"
));
/// `shaders/gpu_instance.wgsl`.
pub const GPU_INSTANCE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/shaders/gpu_instance.wgsl"
));
/// `passes/mirror/mirror.wgsl`.
pub const MIRROR: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/passes/mirror/mirror.wgsl"
));
/// `shadow/light_fit.wgsl`.
pub const LIGHT_FIT: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/shadow/light_fit.wgsl"
));
/// `impostor/impostor.wgsl`.
pub const IMPOSTOR: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/impostor/impostor.wgsl"
));
/// `shaders/pose.wgsl`.
pub const POSE: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders/pose.wgsl"));
/// `passes/palette.wgsl`.
pub const PALETTE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/passes/palette.wgsl"
));
/// `shaders/vertex_words.wgsl`.
pub const VERTEX_WORDS_MODULE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/shaders/vertex_words.wgsl"
));
/// `shaders/octahedral.wgsl`.
pub const OCTAHEDRAL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/shaders/octahedral.wgsl"
));
/// `pose_cache/pose_cache.wgsl`.
pub const POSE_CACHE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/pose_cache/pose_cache.wgsl"
));
/// `pose_cache/pose_fill.wgsl`.
pub const POSE_FILL: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/pose_cache/pose_fill.wgsl"
));
/// `passes/motion.wgsl`.
pub const MOTION: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/passes/motion.wgsl"
));
/// `passes/ground.wgsl`: the ground moving instances stand on.
pub const GROUND: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/passes/ground.wgsl"
));
/// `passes/foot_ik.wgsl`: feet planted by two-bone IK after the palette pre-pass.
pub const FOOT_IK: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/passes/foot_ik.wgsl"
));
/// `simulation/agent.wgsl`.
pub const AGENT: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/simulation/agent.wgsl"
));
/// `simulation/simulation.wgsl`: what a simulation hook imports.
pub const SIMULATION: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/simulation/simulation.wgsl"
));
/// `simulation/simulation_passes.wgsl`.
pub const SIMULATION_PASSES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/simulation/simulation_passes.wgsl"
));

/// `simulation/navigation.wgsl`: what a hook imports to follow a flow field around obstacles.
pub const NAVIGATION: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/simulation/navigation.wgsl"
));
/// `simulation/steer_seek.wgsl`: goal seeking with arrival.
pub const STEER_SEEK: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/simulation/steer_seek.wgsl"
));
/// `simulation/steer_avoid.wgsl`: neighbour avoidance.
pub const STEER_AVOID: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/simulation/steer_avoid.wgsl"
));
/// `simulation/goal_exchange.wgsl`: the agents of a goal layer hand each
/// other their goal points.
pub const GOAL_EXCHANGE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/simulation/goal_exchange.wgsl"
));
/// `simulation/navigate.wgsl`: Throng's built-in steering hook.
pub const NAVIGATE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/simulation/navigate.wgsl"
));

/// Every shader module: `(name, source)`; the file is `shaders/{name}.wgsl`.
pub const MODULES: &[(&str, &str)] = &[
    ("skinning", SKINNING),
    ("records_uniform", RECORDS_UNIFORM),
    ("records_storage", RECORDS_STORAGE),
    ("draw", DRAW),
    ("fog", FOG),
    ("pbr", PBR),
    ("material", MATERIAL),
    ("shadow_filter", SHADOW_FILTER),
    ("shadow_common", SHADOW_COMMON),
    ("shadow_receive", SHADOW_RECEIVE),
    ("shadow_cascades", SHADOW_CASCADES),
    ("shadow_receiver", SHADOW_RECEIVER),
    ("shadow_cast", SHADOW_CAST),
    ("prepass", PREPASS),
    ("compute_skin", COMPUTE_SKIN),
    ("cpu_skinned", CPU_SKINNED),
    ("instance_record", INSTANCE_RECORD),
    ("clock", CLOCK),
    ("dispatch", DISPATCH),
    ("cull", CULL),
    ("depth_pyramid", DEPTH_PYRAMID),
    ("depth_pyramid_ms", DEPTH_PYRAMID_MS),
    ("pyramid_reduce", PYRAMID_REDUCE),
    ("pyramid_layout", PYRAMID_LAYOUT),
    ("gpu_instance", GPU_INSTANCE),
    ("mirror", MIRROR),
    ("light_fit", LIGHT_FIT),
    ("impostor", IMPOSTOR),
    ("pose", POSE),
    ("palette", PALETTE),
    ("vertex_words", VERTEX_WORDS_MODULE),
    ("octahedral", OCTAHEDRAL),
    ("pose_cache", POSE_CACHE),
    ("pose_fill", POSE_FILL),
    ("motion", MOTION),
    ("ground", GROUND),
    ("foot_ik", FOOT_IK),
    ("agent", AGENT),
    ("simulation", SIMULATION),
    ("simulation_passes", SIMULATION_PASSES),
    ("navigation", NAVIGATION),
    ("steer_seek", STEER_SEEK),
    ("steer_avoid", STEER_AVOID),
    ("goal_exchange", GOAL_EXCHANGE),
    ("navigate", NAVIGATE),
];

/// The source of module `name`.
pub fn module_source(name: &str) -> Option<&'static str> {
    MODULES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}
