// The crowd mirror's scattered upload: the instances that changed this
// frame arrive packed, each with its slot, in one buffer, and `apply`
// writes each to its slot of the instance array. One upload and one
// dispatch however scattered the changes are.

// #import gpu_instance

// One changed instance. Mirrors throng_core::gpu::InstanceUpdate.
struct InstanceUpdate {
    slot: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
    state: GpuInstance,
}

// Mirrors throng_core::gpu::MirrorParams.
struct MirrorParams {
    count: u32,
    instance_count: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<uniform> params: MirrorParams;
@group(0) @binding(1) var<storage, read> updates: array<InstanceUpdate>;
@group(0) @binding(2) var<storage, read_write> states: array<GpuInstance>;

@compute @workgroup_size(64)
fn apply(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = (wg.y * groups.x + wg.x) * 64u + local;
    if i >= params.count || i >= arrayLength(&updates) {
        return;
    }
    let u = updates[i];
    if u.slot < params.instance_count && u.slot < arrayLength(&states) {
        states[u.slot] = u.state;
    }
}
