// The crowd mirror's scattered upload: the states, transforms and motions
// that changed this frame arrive packed, each with its slot, in three
// buffers, and `apply_states`, `apply_transforms` and `apply_motions` write
// each to its slot. Three dispatches at most however scattered the changes
// are.

// #import dispatch
// #import gpu_instance

// One changed state. Mirrors throng_core::gpu::StateUpdate.
struct StateUpdate {
    slot: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
    state: GpuInstance,
}

// One changed transform. Mirrors throng_core::gpu::TransformUpdate.
struct TransformUpdate {
    slot: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
    transform: GpuTransform,
}

// One changed motion. Mirrors throng_core::gpu::MotionUpdate.
struct MotionUpdate {
    slot: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
    motion: GpuMotion,
}

// Mirrors throng_core::gpu::MirrorParams.
struct MirrorParams {
    state_count: u32,
    transform_count: u32,
    instance_count: u32,
    motion_count: u32,
}

@group(0) @binding(0) var<uniform> params: MirrorParams;
@group(0) @binding(1) var<storage, read> state_updates: array<StateUpdate>;
@group(0) @binding(2) var<storage, read_write> states: array<GpuInstance>;
@group(0) @binding(3) var<storage, read> transform_updates: array<TransformUpdate>;
@group(0) @binding(4) var<storage, read_write> transforms: array<GpuTransform>;
@group(0) @binding(5) var<storage, read> motion_updates: array<MotionUpdate>;
@group(0) @binding(6) var<storage, read_write> motion_slots: array<GpuMotion>;

@compute @workgroup_size(WORKGROUP)
fn apply_states(inv: Invocation) {
    let i = invocation_index(inv);
    if i >= params.state_count || i >= arrayLength(&state_updates) {
        return;
    }
    let u = state_updates[i];
    if u.slot < params.instance_count && u.slot < arrayLength(&states) {
        states[u.slot] = u.state;
    }
}

@compute @workgroup_size(WORKGROUP)
fn apply_transforms(inv: Invocation) {
    let i = invocation_index(inv);
    if i >= params.transform_count || i >= arrayLength(&transform_updates) {
        return;
    }
    let u = transform_updates[i];
    if u.slot < params.instance_count && u.slot < arrayLength(&transforms) {
        transforms[u.slot] = u.transform;
    }
}

@compute @workgroup_size(WORKGROUP)
fn apply_motions(inv: Invocation) {
    let i = invocation_index(inv);
    if i >= params.motion_count || i >= arrayLength(&motion_updates) {
        return;
    }
    let u = motion_updates[i];
    if u.slot < params.instance_count && u.slot < arrayLength(&motion_slots) {
        motion_slots[u.slot] = u.motion;
    }
}
