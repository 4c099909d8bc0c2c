// The GPU simulation's own passes around the user's steering
// (simulation.wgsl), each a dispatch over the crowd's dense slots:
//
// 1. resolve_agents: each simulated instance's state at the start of the
//    step (its agent of the previous step, or a fresh one from its motion's
//    anchor when the hand-over is new; on the crowd's ground when it has
//    one), and its place in its grid bucket;
// 2. scan_cells: the buckets' starts (one workgroup, a prefix sum);
// 3. fill_grid: the neighbour grid, sorted by bucket;
//    (the user's steer_agents runs here)
// 4. apply_agents: each agent's transform (placed on the ground), and its clip's playback speed
//    following its speed — or, for a model with gaits, its clip chosen by
//    speed (idle, walk, run; with hysteresis, cross-faded, the new clip
//    at the old one's phase) — written over the mirror's streams for the
//    cull.

// #import agent
// #import dispatch
// #import gpu_instance
// #import ground

@group(0) @binding(0) var<uniform> sim: SimulationParams;
@group(0) @binding(1) var<storage, read> motions: array<GpuMotion>;
@group(0) @binding(2) var<storage, read> agents_before: array<Agent>;
@group(0) @binding(3) var<storage, read_write> previous: array<Agent>;
@group(0) @binding(4) var<storage, read_write> cell_counts: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> ranks: array<u32>;
@group(0) @binding(6) var<storage, read_write> cell_starts: array<u32>;
@group(0) @binding(7) var<storage, read_write> neighbours: array<Neighbour>;
@group(0) @binding(8) var<storage, read> agents_after: array<Agent>;
@group(0) @binding(9) var<storage, read_write> posed: array<GpuTransform>;
@group(0) @binding(10) var<storage, read_write> states: array<GpuInstance>;
@group(0) @binding(11) var<storage, read> models: array<GpuModelInfo>;
@group(0) @binding(12) var<storage, read> clips: array<GpuClip>;
@group(0) @binding(13) var<storage, read> gaits: array<Gait>;

// Fastest playback a speed-following agent gets.
const MAX_FOLLOW_SPEED: f32 = 16.0;

// A rank meaning "not in the grid".
const NOT_SIMULATED: u32 = 0xffffffffu;

// Dense slot d is simulated and its agent within the agents' capacity.
fn simulated(d: u32) -> bool {
    if d >= sim.instance_count || d >= arrayLength(&motions) {
        return false;
    }
    let m = motions[d];
    return (m.kind & 0xffu) == MOTION_SIMULATED && m.base < sim.agent_capacity;
}

// A fresh agent at the motion's anchor, with its velocity and the user
// words it was handed over with.
fn fresh(m: GpuMotion) -> Agent {
    let p = vec3<f32>(m.row0.w, m.row1.w, m.row2.w);
    // Heading of the anchor's +z axis.
    let yaw = atan2(m.row0.z, m.row2.z);
    return Agent(p, yaw, m.a.xyz, m.b.x, bitcast<vec4<f32>>(m.track));
}

@compute @workgroup_size(WORKGROUP)
fn resolve_agents(inv: Invocation) {
    let d = invocation_index(inv);
    if d >= arrayLength(&ranks) || d >= arrayLength(&previous) {
        return;
    }
    if !simulated(d) || motions[d].base >= arrayLength(&agents_before) {
        ranks[d] = NOT_SIMULATED;
        return;
    }
    let m = motions[d];
    var a = agents_before[m.base];
    if a.serial != m.b.x {
        a = fresh(m);
    }
    // On a ground, the step starts on it.
    let g = ground_header();
    if (g.flags & GROUND_PRESENT) != 0u {
        a.position.y = ground_sample(g, a.position.xz).x;
    }
    previous[d] = a;
    ranks[d] = atomicAdd(&cell_counts[cell_bucket(cell_of(a.position, sim.cell_size))], 1u);
}

var<workgroup> partial: array<u32, 256>;

@compute @workgroup_size(256)
fn scan_cells(@builtin(local_invocation_index) t: u32) {
    let per = SIM_CELLS / 256u;
    var sum = 0u;
    for (var i = 0u; i < per; i++) {
        sum += atomicLoad(&cell_counts[t * per + i]);
    }
    partial[t] = sum;
    workgroupBarrier();
    // Inclusive scan of the 256 partial sums (Hillis-Steele).
    for (var offset = 1u; offset < 256u; offset = offset << 1u) {
        var add = 0u;
        if t >= offset {
            add = partial[t - offset];
        }
        workgroupBarrier();
        partial[t] += add;
        workgroupBarrier();
    }
    var run = partial[t] - sum;
    for (var i = 0u; i < per; i++) {
        cell_starts[t * per + i] = run;
        run += atomicLoad(&cell_counts[t * per + i]);
    }
    if t == 255u {
        cell_starts[SIM_CELLS] = run;
    }
}

@compute @workgroup_size(WORKGROUP)
fn fill_grid(inv: Invocation) {
    let d = invocation_index(inv);
    if d >= arrayLength(&ranks) || d >= arrayLength(&previous) || ranks[d] == NOT_SIMULATED {
        return;
    }
    let a = previous[d];
    let cell = cell_of(a.position, sim.cell_size);
    let k = cell_starts[cell_bucket(cell)] + ranks[d];
    if k < arrayLength(&neighbours) {
        neighbours[k] = Neighbour(a.position, d, a.velocity, cell_key(cell));
    }
}

// U - D over four limbs.
fn sub128(u: vec4<u32>, v: vec4<u32>) -> vec4<u32> {
    let b0 = select(0u, 1u, u.x < v.x);
    let x = u.x - v.x;
    let y0 = u.y - v.y;
    let b1 = select(0u, 1u, u.y < v.y) + select(0u, 1u, y0 < b0);
    let y = y0 - b0;
    let z0 = u.z - v.z;
    let b2 = select(0u, 1u, u.z < v.z) + select(0u, 1u, z0 < b1);
    let z = z0 - b1;
    return vec4<u32>(x, y, z, u.w - v.w - b2);
}

// `track` (its clip and wrap kept) re-rated to play `clip` at `speed` from
// now (`since` its anchor) on, its unwrapped phase now unchanged (the
// anchor stays: the phase absorbs the change).
fn follow_speed(track: GpuTrack, clip: GpuClip, speed: f32, since: vec2<u32>) -> GpuTrack {
    let x = clamp(speed, 0.0, MAX_FOLLOW_SPEED) / (clip.duration * f32(TICKS_PER_SECOND)) * 4294967296.0;
    let hi = floor(x);
    let lo = min((x - hi) * 4294967296.0, 4294967040.0);
    var t = GpuTrack(0u, 0u, u32(lo), u32(hi), track.clip);
    let phase = sub128(unwrapped_phase(track, since), unwrapped_phase(t, since));
    t.phase_lo = phase.y;
    t.phase_hi = phase.z;
    return t;
}

// `track` re-anchored `since` ticks later: the same playback from there.
fn rebase(track: GpuTrack, since: vec2<u32>) -> GpuTrack {
    let u = unwrapped_phase(track, since);
    return GpuTrack(u.y, u.z, track.rate_lo, track.rate_hi, track.clip);
}

// The gait (0 idle, 1 walk, 2 run) an agent at `speed` plays, that played
// `was` (3: none of them): thresholds crossed upward at (1 + hysteresis)
// times, downward at (1 - hysteresis) times.
fn gait_of(g: Gait, was: u32, speed: f32) -> u32 {
    let up = 1.0 + g.hysteresis;
    let down = 1.0 - g.hysteresis;
    var k = was;
    if k > 2u {
        k = select(select(1u, 2u, speed > g.run_above), 0u, speed < g.idle_below);
    }
    if k == 0u && speed > g.idle_below * up {
        k = 1u;
    }
    if k == 1u && speed > g.run_above * up {
        k = 2u;
    }
    if k == 2u && speed < g.run_above * down {
        k = 1u;
    }
    if k == 1u && speed < g.idle_below * down {
        k = 0u;
    }
    // A gait without a clip plays the walk.
    if (k == 0u && g.idle_clip == NO_CLIP) || (k == 2u && g.run_clip == NO_CLIP) {
        k = 1u;
    }
    return k;
}

fn gait_clip(g: Gait, k: u32) -> u32 {
    return select(select(g.walk_clip, g.run_clip, k == 2u), g.idle_clip, k == 0u);
}

// The clip record of model clip c.
fn clip_record(model: GpuModelInfo, c: u32) -> GpuClip {
    let clip_count = arrayLength(&clips);
    let i = min(c, max(model.clip_count, 1u) - 1u);
    return clips[min(model.clip_base + i, clip_count - 1u)];
}

@compute @workgroup_size(WORKGROUP)
fn apply_agents(inv: Invocation) {
    let d = invocation_index(inv);
    if !simulated(d) || d >= arrayLength(&posed) || d >= arrayLength(&states) {
        return;
    }
    let m = motions[d];
    if m.base >= arrayLength(&agents_after) {
        return;
    }
    let a = agents_after[m.base];
    if a.serial != m.b.x {
        // Not stepped (no steering ran): it stays where it was handed over.
        return;
    }
    let turn = a.yaw - atan2(m.row0.z, m.row2.z);
    posed[d] = ground_place(place(m, a.position, cos(turn), sin(turn)));
    var st = states[d];
    let model_count = arrayLength(&models);
    let clip_count = arrayLength(&clips);
    if model_count == 0u || clip_count == 0u || (st.current.clip & 0xffffu) == NO_CLIP {
        return;
    }
    if st.current.rate_lo == 0u && st.current.rate_hi == 0u {
        // Paused by the CPU.
        return;
    }
    let model_index = st.model & ~INSTANCE_LAYERED;
    let model = models[min(model_index, model_count - 1u)];
    let ticks = sub64(vec2<u32>(sim.now_lo, sim.now_hi), vec2<u32>(st.anchor_lo, st.anchor_hi));
    let since = select(ticks, vec2<u32>(0u, 0u), (ticks.y & 0x80000000u) != 0u);
    let speed = length(a.velocity.xz);
    let gait_count = arrayLength(&gaits);
    if model_index < gait_count && gaits[model_index].enabled != 0u {
        let g = gaits[model_index];
        let now_clip = st.current.clip & 0xffffu;
        var was = 3u;
        for (var k = 0u; k < 3u; k++) {
            if now_clip == gait_clip(g, k) && was == 3u {
                was = k;
            }
        }
        let k = gait_of(g, was, speed);
        let clip_index = gait_clip(g, k);
        let clip = clip_record(model, clip_index);
        if !(clip.duration > 0.0) {
            return;
        }
        // Idle plays at speed 1; walk and run follow the ground speed.
        var rate = 1.0;
        if k != 0u {
            let ground = select(g.walk_speed, g.run_speed, k == 2u);
            rate = select(1.0, speed / ground, ground > 0.0);
        }
        if k != was {
            // Cross-fade from the old clip, re-anchored now, to the new
            // one at the old one's phase.
            let old = rebase(st.current, since);
            st.anchor_lo = sim.now_lo;
            st.anchor_hi = sim.now_hi;
            st.previous = old;
            var base = old;
            base.clip = clip_index | (WRAP_LOOP << 16u);
            st.current = follow_speed(base, clip, rate, vec2<u32>(0u, 0u));
            st.fade0 = 0.0;
            st.fade_rate = 1.0 / max(g.fade, 1e-3);
        } else {
            st.current = follow_speed(st.current, clip, rate, since);
        }
        states[d] = st;
        return;
    }
    // Playback follows the agent's ground speed, for a looping, running clip.
    let ground = m.a.w;
    let wrap = st.current.clip >> 16u;
    if ground <= 0.0 || !(ground < 1.0e30) || wrap != WRAP_LOOP {
        return;
    }
    let clip = clip_record(model, st.current.clip & 0xffffu);
    if !(clip.duration > 0.0) {
        return;
    }
    st.current = follow_speed(st.current, clip, speed / ground, since);
    states[d] = st;
}
