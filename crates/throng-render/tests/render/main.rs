//! throng-render's integration tests, one binary (a module per concern, so a
//! build links once): golden images, GPU readbacks against the CPU mirror,
//! the record paths, the GPU-driven path, shadows, layers, the pose cache,
//! motion and simulation, materials and variety, device loss, threads, bad
//! input and resource limits, WGSL layouts and validation, and the
//! map-state protocol under loom. GPU tests run on lavapipe (Vulkan) and,
//! for the modules tools/test.sh lists, on llvmpipe GL.

mod anticipation;
mod bad_input;
mod blend_split;
mod compressed_models;
mod counter_flow;
mod depth_convention;
mod device_loss;
mod extra_targets;
mod foot_ik;
mod golden;
mod gpu_driven;
mod gpu_readback;
mod ground;
mod hidden_parts;
mod impostor_wgsl;
mod layers_draw;
mod layers_readback;
mod light_views;
mod map_state_loom;
mod morphs;
mod motion;
mod navigation;
mod no_adapter;
mod occlusion;
mod occlusion_per_instance;
mod occlusion_pyramid;
mod occlusion_test_wgsl;
mod packages;
mod pbr;
mod pose_cache;
mod prepass;
mod shaders;
mod shadows;
mod shared_frames;
mod shared_mirrors;
mod simulation;
mod support;
mod tangents;
mod textures;
mod threads;
mod variety;
mod worst_values;
