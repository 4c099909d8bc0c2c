// The GPU simulation hook's module: what a user's steering function sees.
// A hook is a WGSL file that imports this module and defines
//
//     fn steer(agent: Agent, slot: u32) -> Agent
//
// which returns the agent's state one step (sim_dt() seconds) later: its
// position, heading and velocity (Throng does not integrate them: the
// hook does), and its own four data words. `slot` is the instance's dense
// slot. The agents' previous states, read-only, are in the neighbour grid:
//
//     for (var dz = -1; dz <= 1; dz++) {
//         for (var dx = -1; dx <= 1; dx++) {
//             let range = neighbours_near(agent.position, vec2<i32>(dx, dz));
//             let cell = near_cell_key(agent.position, vec2<i32>(dx, dz));
//             for (var k = range.x; k < range.y; k++) {
//                 let n = neighbour(k);
//                 if n.slot == slot || n.cell != cell { continue; }
//                 ...
//
// (a bucket holds every cell that hashes to it: `n.cell != cell` skips
// the other cells' agents, so counts and distances are exact; the
// built-in steering modules — seek, avoid, navigation — do this for you,
// and steer_avoid's neighbour_walk / next_neighbour is this loop as a
// walk a hook can import).
//
// A hook may bind resources of its own in @group(1) (up to three storage
// buffers: Throng's group uses five of the eight a device guarantees per
// stage), described by the layout given to throng_render::Simulation::new.
// Its result is sanitised: a non-finite agent keeps its previous state.

// #import agent
// #import dispatch
// #import gpu_instance

@group(0) @binding(0) var<uniform> sim: SimulationParams;
@group(0) @binding(1) var<storage, read> sim_motions: array<GpuMotion>;
@group(0) @binding(3) var<storage, read> sim_previous: array<Agent>;
@group(0) @binding(6) var<storage, read> sim_cell_starts: array<u32>;
@group(0) @binding(7) var<storage, read> sim_neighbours: array<Neighbour>;
@group(0) @binding(8) var<storage, read_write> sim_next: array<Agent>;

// Seconds this step advances.
fn sim_dt() -> f32 {
    return sim.dt;
}

// The crowd clock, seconds.
fn sim_seconds() -> f32 {
    return sim.seconds;
}

// Steps taken before this one (the same for every agent of the step).
fn sim_step() -> u32 {
    return sim.step;
}

// Side of a neighbour-grid cell, world units.
fn sim_cell_size() -> f32 {
    return sim.cell_size;
}

// The range of neighbour() indices in the bucket of the cell `offset`
// cells (x, z) from the one holding p: at most SIM_MAX_PER_CELL of its
// agents, and sometimes agents of other cells sharing its bucket (their
// Neighbour.cell differs from near_cell_key's).
fn neighbours_near(p: vec3<f32>, offset: vec2<i32>) -> vec2<u32> {
    let bucket = cell_bucket(cell_of(p, sim.cell_size) + offset);
    let last = arrayLength(&sim_cell_starts) - 1u;
    let start = sim_cell_starts[min(bucket, last)];
    let end = sim_cell_starts[min(bucket + 1u, last)];
    let count = arrayLength(&sim_neighbours);
    return vec2<u32>(min(start, count), min(min(end, start + SIM_MAX_PER_CELL), count));
}

// The key of the cell `offset` cells (x, z) from the one holding p: the
// Neighbour.cell of the agents in it.
fn near_cell_key(p: vec3<f32>, offset: vec2<i32>) -> u32 {
    return cell_key(cell_of(p, sim.cell_size) + offset);
}

// Entry k of the neighbour grid (an agent at the start of the step).
fn neighbour(k: u32) -> Neighbour {
    return sim_neighbours[min(k, arrayLength(&sim_neighbours) - 1u)];
}

@compute @workgroup_size(WORKGROUP)
fn steer_agents(inv: Invocation) {
    let d = invocation_index(inv);
    if d >= sim.instance_count || d >= arrayLength(&sim_motions) || d >= arrayLength(&sim_previous) {
        return;
    }
    let m = sim_motions[d];
    if (m.kind & 0xffu) != MOTION_SIMULATED || m.base >= arrayLength(&sim_next) {
        return;
    }
    let before = sim_previous[d];
    var after = steer(before, d);
    if !agent_is_finite(after) {
        after = before;
    }
    after.serial = before.serial;
    sim_next[m.base] = after;
}
