// A flock on the ground, steered on the GPU (examples/flock.rs): each agent
// keeps apart from its neighbours, matches their heading and drifts toward
// their centre (Reynolds' boids), at a cruising speed of its own, inside a
// disc it turns back from. Throng plays each Fox's walk at its speed.

// steer_avoid for its neighbour walk and hash only: the flock steers by
// its own rules.
// #import simulation
// #import steer_avoid

// The flock's settings, bound by the application (FlockParams in
// examples/src/flock.rs).
struct FlockParams {
    // Radius of the disc the flock stays in, world units.
    world_radius: f32,
    // Cruising speed, world units per second.
    cruise: f32,
    // Neighbours within this distance count.
    reach: f32,
    // Fastest turn of the heading, radians per second.
    turn_rate: f32,
}

@group(1) @binding(0) var<uniform> flock: FlockParams;

fn steer(agent: Agent, slot: u32) -> Agent {
    var a = agent;
    // data.x: this agent's cruising speed factor, chosen once.
    if a.data.x == 0.0 {
        a.data.x = 0.6 + 0.9 * avoid_hash01(slot ^ (a.serial * 747796405u));
    }
    let p = a.position.xz;
    var v = a.velocity.xz;
    let reach2 = flock.reach * flock.reach;
    var apart = vec2<f32>(0.0);
    var heading = vec2<f32>(0.0);
    var centre = vec2<f32>(0.0);
    var count = 0.0;
    var walk = neighbour_walk(a, slot);
    while next_neighbour(&walk) {
        let n = walk.neighbour;
        let d = n.position.xz - p;
        let d2 = dot(d, d);
        if d2 >= reach2 || d2 < 1e-12 {
            continue;
        }
        apart -= d * (1.0 / d2);
        heading += n.velocity.xz;
        centre += n.position.xz;
        count += 1.0;
    }
    let cruise = flock.cruise * a.data.x;
    var accel = vec2<f32>(0.0);
    if count > 0.0 {
        accel += apart * (flock.reach * cruise * 1.5);
        accel += (heading / count - v) * 0.8;
        accel += (centre / count - p) * (cruise / flock.reach) * 0.3;
    }
    // Back into the disc.
    let r = length(p);
    if r > flock.world_radius {
        accel -= p / r * (r - flock.world_radius) * (cruise / flock.reach);
    }
    // Wander a little.
    let w = 6.2831853 * avoid_hash01(slot * 2654435761u + u32(sim_seconds() * 2.0));
    accel += vec2<f32>(cos(w), sin(w)) * cruise * 0.3;
    v += accel * sim_dt();
    // Keep to about its cruising speed.
    let s = length(v);
    if s > 1e-6 {
        v *= clamp(s, 0.5 * cruise, 1.6 * cruise) / s;
    } else {
        v = vec2<f32>(sin(a.yaw), cos(a.yaw)) * cruise;
    }
    a.position = vec3<f32>(p.x + v.x * sim_dt(), a.position.y, p.y + v.y * sim_dt());
    a.velocity = vec3<f32>(v.x, 0.0, v.y);
    // Turn toward the way it goes, no faster than the turn rate.
    let want = atan2(v.x, v.y);
    var turn = want - a.yaw;
    turn -= 6.2831853 * round(turn / 6.2831853);
    let most = flock.turn_rate * sim_dt();
    a.yaw += clamp(turn, -most, most);
    a.yaw -= 6.2831853 * round(a.yaw / 6.2831853);
    return a;
}
