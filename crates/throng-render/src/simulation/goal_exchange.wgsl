// Goal exchange for hooks whose agents carry navigate.wgsl's words (x: goal
// layer, y z: goal point, w: 0 walking, > 0 arrived, < 0 "choose a
// point"): the agents of a layer are interchangeable, so two of a layer
// near each other hand each other their goal points when that shortens
// their two walks together. A crowd then fills a goal region from where
// it enters — the walker reaching the first standing agent takes that
// agent's place and the standing one walks on to the walker's point —
// instead of each walker pushing through the ones already standing, and a
// group that crossed another reaches its points in the order it arrives
// in (docs/design/navigation.md).
//
// Every agent decides for itself from the step's start (sim_previous), and
// the two of a pair decide alike: each takes its best partner (the most
// gain above the margin, ties to the lower slot), and an exchange happens
// only when the two are each other's best — a matching, so no point is
// lost or held twice. Each exchange shortens the sum of the walks by more
// than the margin, so exchanges cannot cycle.

// #import simulation
// #import steer_avoid

// "No partner".
const NO_PARTNER: u32 = 0xffffffffu;
// Exchanges are decided on every this many steps only (both of a pair on
// the same step): deciding costs a walk of the neighbour cells, and a
// second round the partner, for every agent that has one — 30 % of the
// steering pass on a dense 100k plaza every step, against a few times a
// second being plenty for a crowd's goals (docs/BENCHMARKS.md, "Steering").
const EXCHANGE_EVERY: u32 = 4u;

// What exchanging their goal points saves agents x and y (x the lower
// slot, so that both of the pair compute the same number): the sum of
// their distances to their points now, less after the exchange.
fn exchange_gain(x: Agent, y: Agent) -> f32 {
    let now = distance(x.position.xz, x.data.yz) + distance(y.position.xz, y.data.yz);
    let then = distance(x.position.xz, y.data.yz) + distance(y.position.xz, x.data.yz);
    return now - then;
}

// Whether `b` may exchange with `a` at all: the same layer, both with a
// point, not both arrived, nearer than `reach`.
fn may_exchange(a: Agent, b: Agent, reach: f32) -> bool {
    return b.data.x == a.data.x && b.data.w >= 0.0 && a.data.w >= 0.0 && !(a.data.w > 0.0 && b.data.w > 0.0) && distance(a.position.xz, b.position.xz) < reach;
}

// The slot of the neighbour that agent `a` (in slot `slot`) gains most
// with, more than `margin`; ties go to the lower slot; NO_PARTNER if none.
fn exchange_partner(a: Agent, slot: u32, reach: f32, margin: f32) -> u32 {
    var best = NO_PARTNER;
    var best_gain = margin;
    var walk = neighbour_walk(a, slot);
    while next_neighbour(&walk) {
        let k = walk.neighbour.slot;
        let b = sim_previous[min(k, arrayLength(&sim_previous) - 1u)];
        if !may_exchange(a, b, reach) {
            continue;
        }
        let g = select(exchange_gain(b, a), exchange_gain(a, b), slot < k);
        if g > best_gain || (g == best_gain && best != NO_PARTNER && k < best) {
            best_gain = g;
            best = k;
        }
    }
    return best;
}

// Agent `a`'s words after this step's exchange: its partner's goal point,
// walking (it arrives again by the hook's own test), when this is a step
// of exchanges and the two are each other's best partner within `reach`
// by more than `margin`; else its own.
// `reach` at most the grid's cell, so that each of a pair sees the other.
fn exchange_goals(a: Agent, slot: u32, reach: f32, margin: f32) -> vec4<f32> {
    if a.data.w < 0.0 || sim_step() % EXCHANGE_EVERY != 0u {
        return a.data;
    }
    let k = exchange_partner(a, slot, reach, margin);
    if k >= arrayLength(&sim_previous) {
        return a.data;
    }
    let b = sim_previous[k];
    if exchange_partner(b, k, reach, margin) != slot {
        return a.data;
    }
    return vec4<f32>(a.data.x, b.data.yz, 0.0);
}
