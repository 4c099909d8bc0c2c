// A compute stage dispatched one invocation per item in 2D, past 65,535
// workgroups in x (throng_render's dispatch_size): the builtins its entry
// point takes, and the flat index of the item they name. WORKGROUP, the
// invocations a workgroup, comes from the prelude.

// #import prelude

// What an entry point of a per-item stage takes.
struct Invocation {
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
}

// The item an invocation stands for (may be past the end: callers check).
fn invocation_index(inv: Invocation) -> u32 {
    return (inv.wg.y * inv.groups.x + inv.wg.x) * WORKGROUP + inv.local;
}
