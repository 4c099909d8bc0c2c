// Neighbour avoidance for simulation hooks, in parts that work together
// (see docs/design/navigation.md for the choice and its failures):
//
// 0. keep_to_side (with oncoming_ahead): lanes. An agent facing oncoming
//    traffic ahead steps to its right and slows a little, so opposing
//    streams pass in lanes rather than meeting head-on.
// 1. avoid_neighbours: anticipation in velocity. For each neighbour in
//    reach, the closest approach of the two if both kept their velocities
//    (ours the desired one); if it comes within `horizon` seconds and
//    nearer than the two radii, this agent takes half the velocity change
//    that makes the miss distance the two radii (reciprocal, as ORCA's
//    half-planes share the effort), weighted by how soon. Head-on, where
//    the miss has no direction, each passes on its own right.
// 2. yield_to_contacts: contact in velocity. No agent closes on one it
//    touches faster than that one moves away.
// 3. separate: contact in position. The agent's next position is moved
//    out of every neighbour's predicted disc by half the overlap, averaged
//    over its contacts (Jacobi position-based dynamics: the other does the
//    other half), so overlap that anticipation leaves, in jams and at
//    bottlenecks, is undone in a step or two rather than accumulated.
//
// All three read the neighbour grid through one walk (neighbour_walk,
// next_neighbour), which skips the other cells sharing a bucket: the cell
// size should be at least four radii (two agents' discs plus the
// look-ahead).

// #import simulation

// A number in [0, 1) from an integer: separate's tie-break, and the one
// hash of the hooks that import this module (navigate draws its goals and
// speeds with it).
fn avoid_hash01(x: u32) -> f32 {
    var h = x * 0x9e3779b9u;
    h = h ^ (h >> 16u);
    h = h * 0x85ebca6bu;
    h = h ^ (h >> 13u);
    return f32(h >> 8u) / 16777216.0;
}

// A walk over an agent's neighbours: the agents in the 3 × 3 grid cells
// around it (z outer, x inner, each bucket in order), less the agent
// itself and the other cells' agents sharing those buckets. Start it with
// neighbour_walk; `while next_neighbour(&walk) { let n = walk.neighbour;
// ... }` visits each once.
struct NeighbourWalk {
    position: vec3<f32>,
    slot: u32,
    // The next of the nine cells to open, x fastest; 9 when all are open.
    next_cell: i32,
    // The open cell's key and the rest of its bucket's range.
    cell: u32,
    k: u32,
    end: u32,
    // The neighbour next_neighbour found.
    neighbour: Neighbour,
}

// The walk over the neighbours of `agent`, whose dense slot is `slot`.
fn neighbour_walk(agent: Agent, slot: u32) -> NeighbourWalk {
    var walk: NeighbourWalk;
    walk.position = agent.position;
    walk.slot = slot;
    walk.next_cell = 0;
    walk.k = 0u;
    walk.end = 0u;
    return walk;
}

// Moves `walk` to its next neighbour (in walk.neighbour): false when
// there is none left.
fn next_neighbour(walk: ptr<function, NeighbourWalk>) -> bool {
    while (*walk).k < (*walk).end || (*walk).next_cell < 9 {
        if (*walk).k < (*walk).end {
            let n = neighbour((*walk).k);
            (*walk).k += 1u;
            if n.slot != (*walk).slot && n.cell == (*walk).cell {
                (*walk).neighbour = n;
                return true;
            }
        } else {
            let offset = vec2<i32>((*walk).next_cell % 3 - 1, (*walk).next_cell / 3 - 1);
            let range = neighbours_near((*walk).position, offset);
            (*walk).cell = near_cell_key((*walk).position, offset);
            (*walk).k = range.x;
            (*walk).end = range.y;
            (*walk).next_cell += 1;
        }
    }
    return false;
}

// How far to the side an agent steps per unit of oncoming traffic ahead
// (a share of its speed; see keep_to_side).
const LANE_GAIN: f32 = 2.5;
// Oncoming traffic below this moves no one aside (a one-way stream's
// stray headings); the sidestep grows smoothly to its full at 1.
const LANE_FROM: f32 = 0.25;
// How much oncoming traffic just ahead slows an agent (see keep_to_side).
const PACE_GAIN: f32 = 0.1;
// Beyond the neighbour cells, how far ahead (in cells) keep_to_side looks
// for a front coming head-on, and how near head-on a neighbour's heading
// must be there to count (the cosine against ours): a one-way stream's
// stray headings stay well short of it, a front coming at us does not.
const FAR_CELLS: i32 = 3;
const FAR_HEAD_ON: f32 = -0.7;
// What one such neighbour far ahead weighs against one in the near
// corridor (the lane rule's `against`).
const FAR_WEIGHT: f32 = 0.5;
// A far neighbour counts only moving at least this share of our pace: an
// arrived agent stepping aside (make_way) or a stray dodge is no front.
const FAR_MOVING: f32 = 0.25;

// Head-on traffic in the cells ahead of `p` along `dir` past the 3 × 3
// neighbour cells (2 to FAR_CELLS cells ahead), within three `radius` of
// the line, moving at FAR_MOVING of `pace` or more: each neighbour counts
// FAR_WEIGHT times its nearness (falling to 0 past FAR_CELLS + 1 cells).
// The two cells' loop has a constant trip count but only two turns, each
// a plain walk of one bucket: SwiftShader's compiler unrolls it without
// the hang of navigate.wgsl's history (docs/WEB.md).
fn oncoming_ahead(p: vec3<f32>, dir: vec2<f32>, side: vec2<f32>, radius: f32, pace: f32) -> f32 {
    let size = sim_cell_size();
    let home = cell_of(p, size);
    let reach = f32(FAR_CELLS + 1) * size;
    var ahead = 0.0;
    for (var k = 2; k <= FAR_CELLS; k++) {
        let at = p + vec3<f32>(dir.x, 0.0, dir.y) * (f32(k) * size);
        let offset = cell_of(at, size) - home;
        if abs(offset.x) <= 1 && abs(offset.y) <= 1 {
            continue;
        }
        let range = neighbours_near(p, offset);
        let key = near_cell_key(p, offset);
        for (var i = range.x; i < range.y; i++) {
            let n = neighbour(i);
            let d = n.position.xz - p.xz;
            let along = dot(d, dir);
            let vl = length(n.velocity.xz);
            if n.cell != key || along <= 0.0 || abs(dot(d, side)) > 3.0 * radius || vl < max(FAR_MOVING * pace, 1e-3) {
                continue;
            }
            if dot(n.velocity.xz / vl, dir) < FAR_HEAD_ON {
                ahead += clamp(1.0 - along / reach, 0.0, 1.0) * FAR_WEIGHT;
            }
        }
    }
    return ahead;
}

// Lanes (`strength`: 0 off, 1 as tuned): `desired` turned toward the side
// the anticipation passes on (the
// right of the motion, for every agent alike) by how much traffic ahead in
// this agent's corridor comes against it (0 the same way or standing, 1
// head-on), nearer counting more, and by a front coming head-on further
// ahead (oncoming_ahead); and slowed by the near measure (it gives way
// rather than pushes into a front; a one-way stream keeps its pace). Opposing streams then each move to their own side before
// they meet, and crossing ones wind round each other, rather than
// meeting head-on.
fn keep_to_side(agent: Agent, slot: u32, desired: vec2<f32>, radius: f32, strength: f32) -> vec2<f32> {
    let s = length(desired);
    if s < 1e-4 || strength <= 0.0 {
        return desired;
    }
    let dir = desired / s;
    let side = vec2<f32>(dir.y, -dir.x);
    let p = agent.position.xz;
    let reach = 1.5 * sim_cell_size();
    var against = 0.0;
    var walk = neighbour_walk(agent, slot);
    while next_neighbour(&walk) {
        let n = walk.neighbour;
        let d = n.position.xz - p;
        let dist = length(d);
        let along = dot(d, dir);
        if dist >= reach || along <= 0.0 || abs(dot(d, side)) > 3.0 * radius {
            continue;
        }
        let near = 1.0 - dist / reach;
        let vn = n.velocity.xz;
        let vl = length(vn);
        if vl > 1e-3 {
            against += near * clamp(0.5 * (1.0 - dot(vn / vl, dir)), 0.0, 1.0);
        }
    }
    let seen = against + oncoming_ahead(agent.position, dir, side, radius, s);
    let v = desired + side * (s * strength * LANE_GAIN * smoothstep(LANE_FROM, 1.0, seen));
    return v / (1.0 + strength * PACE_GAIN * against);
}

// `desired` (this agent's wanted velocity) changed so that, within
// `horizon` seconds, it passes every neighbour at least two `radius`
// apart, taking half of each change; never faster than `most`.
fn avoid_neighbours(agent: Agent, slot: u32, desired: vec2<f32>, radius: f32, horizon: f32, most: f32) -> vec2<f32> {
    let p = agent.position.xz;
    let reach = sim_cell_size();
    let r2 = 2.0 * radius;
    var change = vec2<f32>(0.0);
    var walk = neighbour_walk(agent, slot);
    while next_neighbour(&walk) {
        let n = walk.neighbour;
        let d = n.position.xz - p;
        let dist2 = dot(d, d);
        if dist2 > reach * reach {
            continue;
        }
        // Relative velocity: how fast we close on it.
        let w = desired - n.velocity.xz;
        let a = dot(w, w);
        if a < 1e-8 {
            continue;
        }
        // Time of closest approach, and the miss then.
        let t = dot(d, w) / a;
        if t <= 0.0 || t >= horizon {
            continue;
        }
        let miss = w * t - d;
        let m = length(miss);
        if m >= r2 {
            continue;
        }
        // Away from it at closest approach, biased to the right of
        // the relative motion so that both of a pair (whose
        // relative motions are opposite) choose opposite sides:
        // counter-flows form lanes instead of deadlocking.
        let right = vec2<f32>(w.y, -w.x) / sqrt(a);
        let away = normalize(miss + right * (0.25 * r2));
        // Half the change that makes the miss r2, by how soon.
        let urgency = 1.0 - t / horizon;
        change += away * (0.5 * (r2 - m) / max(t, sim_dt())) * urgency;
    }
    var v = desired + change;
    let s = length(v);
    if s > most {
        v *= most / s;
    }
    return v;
}

// Velocity v with every approach to a neighbour it touches (within 1.2
// times the two radii) cut to how fast that neighbour moves away: it
// slides past or waits instead of pushing. Apply after any acceleration
// limit (a contact stops an agent at once).
fn yield_to_contacts(agent: Agent, slot: u32, velocity: vec2<f32>, radius: f32) -> vec2<f32> {
    let p = agent.position.xz;
    let r2 = 2.0 * radius;
    var v = velocity;
    var walk = neighbour_walk(agent, slot);
    while next_neighbour(&walk) {
        let n = walk.neighbour;
        let d = n.position.xz - p;
        let dist = length(d);
        if dist >= 1.2 * r2 || dist < 1e-6 {
            continue;
        }
        let u = d / dist;
        let closing = dot(v, u) - max(dot(n.velocity.xz, u), 0.0);
        if closing > 0.0 {
            v -= u * closing;
        }
    }
    return v;
}

// `next` (where this agent would be after the step) moved out of every
// neighbour's disc as it would be after the step (its position plus its
// velocity times dt): half of each overlap of two `radius` discs (with 5 %
// to spare), averaged over the discs it overlaps (Jacobi position-based
// dynamics with constraint averaging, Macklin et al. 2014: summed, the
// pushes of a packed agent's several neighbours overshoot into the next
// ones and a dense front rings — 1.5 % of the counter-flow course's
// agents overlapping at the first impact, 0.2 % averaged).
fn separate(agent: Agent, slot: u32, next: vec2<f32>, radius: f32) -> vec2<f32> {
    // A little beyond touching, so that a pair pushed together again by
    // the crowd behind starts the next step apart.
    let r2 = 2.1 * radius;
    var push = vec2<f32>(0.0);
    var count = 0.0;
    var walk = neighbour_walk(agent, slot);
    while next_neighbour(&walk) {
        let n = walk.neighbour;
        let q = n.position.xz + n.velocity.xz * sim_dt();
        let d = next - q;
        let dist = length(d);
        if dist >= r2 {
            continue;
        }
        var away = d / max(dist, 1e-6);
        if dist < 1e-4 * radius {
            // On top of each other: a direction from the pair.
            let h = 6.2831853 * avoid_hash01(min(slot, n.slot) * 7919u + max(slot, n.slot));
            away = vec2<f32>(cos(h), sin(h)) * select(1.0, -1.0, slot < n.slot);
        }
        push += away * (0.5 * (r2 - dist));
        count += 1.0;
    }
    push /= max(count, 1.0);
    let l = length(push);
    if l > r2 {
        push *= r2 / l;
    }
    return next + push;
}
