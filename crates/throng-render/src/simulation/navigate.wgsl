// Throng's built-in steering hook (throng_render::navigate): agents walk to
// goals around a scene's obstacles without walking through each other,
// composed of the modules a hook of your own can use the same way:
// navigation (the flow field), steer_seek (arrival, acceleration, turning),
// steer_avoid (lanes, anticipation and contact) and goal_exchange (the
// agents of a layer hand each other their goal points).
//
// An agent's four user words (Motion::Simulated's `data`):
//   x: its goal layer (a goal of the flow field);
//   y, z: its goal point (world x, z), chosen in the layer's goal box by
//         the hook when w starts below 0, and handed to another agent of
//         the layer for that one's with `exchange_goals` (goal_exchange);
//   w: 0 while it walks, the clock's seconds when it arrived (> 0), or
//      < 0: "choose my goal point".
// Arrived agents stand on their point (back to it when pushed off); with
// `dwell` ≥ 0 they leave after that many seconds for another goal layer
// (patrol), with dwell < 0 they stay.

// #import simulation
// #import navigation
// #import steer_seek
// #import steer_avoid
// #import goal_exchange

// Mirrors throng_core::simulation::NavigateParams.
struct NavigateParams {
    radius: f32,
    speed: f32,
    accel: f32,
    turn_rate: f32,
    horizon: f32,
    arrive: f32,
    dwell: f32,
    speed_spread: f32,
    lanes: f32,
    exchange_goals: u32,
    pad0: f32,
    pad1: f32,
}

@group(1) @binding(0) var<uniform> params: NavigateParams;

// A point of `layer`'s goal box that reaches the goal and is clear of
// obstacles, chosen by `seed` (a few tries, else the box's centre).
fn pick_goal(layer: u32, seed: u32) -> vec2<f32> {
    let b = nav_goal_box(layer);
    let inset = vec2<f32>(params.radius);
    let lo = min(b.xy + inset, (b.xy + b.zw) * 0.5);
    let hi = max(b.zw - inset, (b.xy + b.zw) * 0.5);
    for (var i = 0u; i < 8u; i++) {
        let u = vec2<f32>(avoid_hash01(seed * 2u + i * 7919u), avoid_hash01(seed * 2u + 1u + i * 104729u));
        let q = mix(lo, hi, u);
        let dc = nav_distance_clearance(layer, q);
        if dc.y > params.radius && dc.x >= 0.0 {
            return q;
        }
    }
    return (b.xy + b.zw) * 0.5;
}

// An arrived agent's step aside for the walkers about to reach it: away
// from each one's line of motion, more the nearer it passes and the
// sooner it comes (it returns to its point once they have passed). A
// walker bound deeper into a goal region then finds a gap instead of a
// wall of standing agents it may not push (yield_to_contacts).
fn make_way(agent: Agent, slot: u32, radius: f32, speed: f32) -> vec2<f32> {
    let p = agent.position.xz;
    let reach = 4.0 * radius;
    var step = vec2<f32>(0.0);
    var walk = neighbour_walk(agent, slot);
    while next_neighbour(&walk) {
        let n = walk.neighbour;
        if sim_previous[min(n.slot, arrayLength(&sim_previous) - 1u)].data.w > 0.0 {
            continue;
        }
        let v = n.velocity.xz;
        let vl = length(v);
        if vl < 0.1 * speed {
            continue;
        }
        let dir = v / vl;
        let d = p - n.position.xz;
        let along = dot(d, dir);
        let side = d - dir * along;
        let off = length(side);
        if along <= 0.0 || along >= reach || off >= 2.0 * radius {
            continue;
        }
        let away = select(vec2<f32>(-dir.y, dir.x), side / max(off, 1e-6), off > 1e-3 * radius);
        step += away * (speed * (1.0 - off / (2.0 * radius)) * (1.0 - along / reach));
    }
    return step;
}

fn steer(agent: Agent, slot: u32) -> Agent {
    var a = agent;
    let dt = sim_dt();
    if dt <= 0.0 {
        return a;
    }
    if params.exchange_goals != 0u {
        a.data = exchange_goals(agent, slot, sim_cell_size(), params.radius);
    }
    let layers = max(nav_layers(), 1u);
    var layer = min(u32(max(a.data.x, 0.0)), layers - 1u);
    if a.data.w < 0.0 {
        let g = pick_goal(layer, a.serial * 747796405u + slot);
        a.data = vec4<f32>(f32(layer), g, 0.0);
    }
    let p = a.position.xz;
    let speed = params.speed * (1.0 + params.speed_spread * (2.0 * avoid_hash01(a.serial ^ 0x5bd1e995u) - 1.0));
    var desired = vec2<f32>(0.0);
    let slow = 2.0 * params.arrive + params.radius;
    if a.data.w > 0.0 {
        // Arrived: stand on its point (going back to it when pushed off,
        // so that it does not stand on another's), then leave for another
        // goal (patrol).
        desired = seek_arrive(p, a.data.yz, speed, slow) + make_way(a, slot, params.radius, speed);
        if params.dwell >= 0.0 && sim_seconds() - a.data.w >= params.dwell && layers > 1u {
            let step = 1u + u32(avoid_hash01(a.serial + u32(sim_seconds() * 7.0)) * f32(layers - 1u));
            layer = (layer + min(step, layers - 1u)) % layers;
            let g = pick_goal(layer, a.serial * 2654435761u + u32(sim_seconds() * 13.0));
            a.data = vec4<f32>(f32(layer), g, 0.0);
        }
    } else {
        let goal = a.data.yz;
        let to_goal = length(goal - p);
        if to_goal <= params.arrive {
            a.data.w = max(sim_seconds(), 1e-3);
        } else {
            let left = nav_distance(layer, p);
            let way = nav_direction(layer, p);
            if left < nav.cell_size || all(way == vec2<f32>(0.0)) {
                // In the goal region (or off the field): straight there.
                desired = seek_arrive(p, goal, speed, slow);
            } else {
                desired = way * speed;
            }
        }
    }
    desired = keep_to_side(a, slot, desired, params.radius, params.lanes);
    desired = avoid_neighbours(a, slot, desired, params.radius, params.horizon, 1.5 * speed);
    desired = nav_slide(p, desired, params.radius, params.radius);
    var v = steer_toward(a.velocity.xz, desired, params.accel, dt);
    v = yield_to_contacts(a, slot, v, params.radius);
    var next = p + v * dt;
    next = separate(a, slot, next, params.radius);
    next = nav_keep_out(next, params.radius);
    // The velocity is what the step did (position-based): pushes into a
    // wall or a neighbour do not build up speed.
    var moved = (next - p) / dt;
    let s = length(moved);
    if s > 2.0 * speed {
        moved *= 2.0 * speed / s;
    }
    a.position = vec3<f32>(next.x, a.position.y, next.y);
    a.velocity = vec3<f32>(moved.x, 0.0, moved.y);
    a.yaw = face(a.yaw, v, params.turn_rate, dt);
    return a;
}
