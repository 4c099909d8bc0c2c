// Neighbour avoidance for simulation hooks, in parts that work together
// (see docs/design/navigation.md for the choice and its failures):
//
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
//    out of every neighbour's predicted disc by half the overlap (Jacobi
//    position-based dynamics: the other does the other half), so overlap
//    that anticipation leaves, in jams and at bottlenecks, is undone in
//    a step or two rather than accumulated.
//
// Both read the neighbour grid: the cell size should be at least four
// radii (two agents' discs plus the look-ahead), and both skip the other
// cells sharing a bucket.

// #import simulation

// A number in [0, 1) from an integer.
fn avoid_hash01(x: u32) -> f32 {
    var h = x * 0x9e3779b9u;
    h = h ^ (h >> 16u);
    h = h * 0x85ebca6bu;
    h = h ^ (h >> 13u);
    return f32(h >> 8u) / 16777216.0;
}

// `desired` (this agent's wanted velocity) changed so that, within
// `horizon` seconds, it passes every neighbour at least two `radius`
// apart, taking half of each change; never faster than `most`.
fn avoid_neighbours(agent: Agent, slot: u32, desired: vec2<f32>, radius: f32, horizon: f32, most: f32) -> vec2<f32> {
    let p = agent.position.xz;
    let reach = sim_cell_size();
    let r2 = 2.0 * radius;
    var change = vec2<f32>(0.0);
    for (var dz = -1; dz <= 1; dz++) {
        for (var dx = -1; dx <= 1; dx++) {
            let offset = vec2<i32>(dx, dz);
            let range = neighbours_near(agent.position, offset);
            let cell = near_cell_key(agent.position, offset);
            for (var k = range.x; k < range.y; k++) {
                let n = neighbour(k);
                if n.slot == slot || n.cell != cell {
                    continue;
                }
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
        }
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
    for (var dz = -1; dz <= 1; dz++) {
        for (var dx = -1; dx <= 1; dx++) {
            let offset = vec2<i32>(dx, dz);
            let range = neighbours_near(agent.position, offset);
            let cell = near_cell_key(agent.position, offset);
            for (var k = range.x; k < range.y; k++) {
                let n = neighbour(k);
                if n.slot == slot || n.cell != cell {
                    continue;
                }
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
        }
    }
    return v;
}

// `next` (where this agent would be after the step) moved out of every
// neighbour's disc as it would be after the step (its position plus its
// velocity times dt), by half of each overlap of two `radius` discs (with
// 5 % to spare).
fn separate(agent: Agent, slot: u32, next: vec2<f32>, radius: f32) -> vec2<f32> {
    // A little beyond touching, so that a pair pushed together again by
    // the crowd behind starts the next step apart.
    let r2 = 2.1 * radius;
    var push = vec2<f32>(0.0);
    for (var dz = -1; dz <= 1; dz++) {
        for (var dx = -1; dx <= 1; dx++) {
            let offset = vec2<i32>(dx, dz);
            let range = neighbours_near(agent.position, offset);
            let cell = near_cell_key(agent.position, offset);
            for (var k = range.x; k < range.y; k++) {
                let n = neighbour(k);
                if n.slot == slot || n.cell != cell {
                    continue;
                }
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
            }
        }
    }
    let l = length(push);
    if l > r2 {
        push *= r2 / l;
    }
    return next + push;
}
