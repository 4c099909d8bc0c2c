// The GPU simulation's data (no bindings): one agent, one entry of the
// neighbour grid, the passes' parameters, and the grid's bucket hash.
// Mirrors throng_core::simulation.

// #import prelude

// One agent. Mirrors throng_core::simulation::GpuAgent.
struct Agent {
    position: vec3<f32>,
    // Heading, radians about +y from +z: the instance faces
    // (sin yaw, 0, cos yaw).
    yaw: f32,
    velocity: vec3<f32>,
    // The hand-over it was started from (Throng's; a steer cannot change it).
    serial: u32,
    // The user's own four words: Motion::Simulated's `data` when the agent
    // starts.
    data: vec4<f32>,
}

// One entry of the neighbour grid: an agent at the start of the frame.
// Mirrors throng_core::simulation::GpuNeighbour.
struct Neighbour {
    position: vec3<f32>,
    // The instance's dense slot.
    slot: u32,
    velocity: vec3<f32>,
    // Its grid cell's key (cell_key): buckets are shared, cells are not.
    cell: u32,
}

// One model's gaits: its clips by speed. Mirrors
// throng_core::simulation::GpuGait.
struct Gait {
    idle_clip: u32,
    walk_clip: u32,
    run_clip: u32,
    enabled: u32,
    walk_speed: f32,
    run_speed: f32,
    idle_below: f32,
    run_above: f32,
    hysteresis: f32,
    fade: f32,
    pad0: u32,
    pad1: u32,
}

// Mirrors throng_core::simulation::SimulationParams.
struct SimulationParams {
    now_lo: u32,
    now_hi: u32,
    dt: f32,
    instance_count: u32,
    cell_size: f32,
    agent_capacity: u32,
    seconds: f32,
    step: u32,
}

// The bucket of grid cell (x, z): a hash of the cell's integer coordinates.
fn cell_bucket(cell: vec2<i32>) -> u32 {
    var h = bitcast<u32>(cell.x) * 0x8da6b343u + bitcast<u32>(cell.y) * 0xd8163841u;
    h = h ^ (h >> 16u);
    h = h * 0x7feb352du;
    h = h ^ (h >> 15u);
    return h & (SIM_CELLS - 1u);
}

// The key of grid cell (x, z): both coordinates' low 16 bits. Mirrors
// throng_core::simulation::cell_key.
fn cell_key(cell: vec2<i32>) -> u32 {
    let c = bitcast<vec2<u32>>(cell) & vec2<u32>(0xffffu);
    return c.x | (c.y << 16u);
}

// The grid cell of world position p, for cells of side `size`.
fn cell_of(p: vec3<f32>, size: f32) -> vec2<i32> {
    return vec2<i32>(floor(p.xz / size));
}

// A bad number anywhere in the agent.
fn agent_is_finite(a: Agent) -> bool {
    let v = vec4<f32>(a.position, a.yaw) + vec4<f32>(a.velocity, 0.0);
    // NaN or infinity fails |x| < huge.
    return all(abs(v) < vec4<f32>(1.0e30)) && all(abs(a.data) < vec4<f32>(1.0e30));
}
