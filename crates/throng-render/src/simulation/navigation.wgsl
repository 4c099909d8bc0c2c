// Navigation for simulation hooks: a scene's static obstacles and its goals
// as a flow field (throng_crowd::navigation::FlowField, computed on the CPU
// and uploaded by Simulation::set_navigation), bound by Throng in
// @group(2). A hook that imports this module can ask, anywhere on the
// ground, the way to a goal, how far it is, and how far the nearest
// obstacle is:
//
//     let way = nav_direction(layer, p);      // unit, or zero at the goal
//     let left = nav_distance(layer, p);      // world units, < 0: no way
//     p = nav_keep_out(p, radius);            // never inside an obstacle
//
// Cells are NavCell records, layer-major then row-major; outside the grid
// counts as blocked. Positions are world (x, z).

// Mirrors throng_core::navigation::NavigationParams.
struct NavigationParams {
    origin_x: f32,
    origin_z: f32,
    cell_size: f32,
    width: u32,
    height: u32,
    layers: u32,
    pad0: u32,
    pad1: u32,
}

// Mirrors throng_core::navigation::GpuNavCell: one cell of one goal layer.
struct NavCell {
    // Unit direction of travel toward the goal (zero in goal, blocked and
    // unreachable cells).
    dir: vec2<f32>,
    // Travel distance to the goal region, world units (< 0: unreachable
    // or blocked).
    distance: f32,
    // Signed distance to the nearest obstacle, world units (< 0 inside).
    clearance: f32,
}

@group(2) @binding(0) var<uniform> nav: NavigationParams;
@group(2) @binding(1) var<storage, read> nav_cells: array<NavCell>;
// Each layer's goal region as a box: (min x, min z, max x, max z).
@group(2) @binding(2) var<storage, read> nav_goals: array<vec4<f32>>;

// Goal layers of the field.
fn nav_layers() -> u32 {
    return nav.layers;
}

// Layer `layer`'s goal box (min x, min z, max x, max z).
fn nav_goal_box(layer: u32) -> vec4<f32> {
    let n = arrayLength(&nav_goals);
    if n == 0u {
        return vec4<f32>(0.0);
    }
    return nav_goals[min(layer, n - 1u)];
}

// The cell record at integer cell c of `layer`, or a blocked one outside.
fn nav_cell(layer: u32, c: vec2<i32>) -> NavCell {
    let inside = c.x >= 0 && c.y >= 0 && u32(c.x) < nav.width && u32(c.y) < nav.height;
    let n = arrayLength(&nav_cells);
    if !inside || n == 0u || nav.layers == 0u {
        return NavCell(vec2<f32>(0.0), -1.0, -nav.cell_size);
    }
    let l = min(layer, nav.layers - 1u);
    let i = (l * nav.height + u32(c.y)) * nav.width + u32(c.x);
    return nav_cells[min(i, n - 1u)];
}

// p in cell units, cell centres at integers.
fn nav_grid(p: vec2<f32>) -> vec2<f32> {
    return (p - vec2<f32>(nav.origin_x, nav.origin_z)) / nav.cell_size - 0.5;
}

// The way toward `layer`'s goal at p: the bilinear blend of the four
// nearest cells' directions (cells without one left out), unit length, or
// zero where none of them has one.
fn nav_direction(layer: u32, p: vec2<f32>) -> vec2<f32> {
    let g = nav_grid(p);
    let c = vec2<i32>(floor(g));
    let f = g - floor(g);
    var sum = vec2<f32>(0.0);
    for (var j = 0; j < 2; j++) {
        for (var i = 0; i < 2; i++) {
            let w = select(1.0 - f.x, f.x, i == 1) * select(1.0 - f.y, f.y, j == 1);
            sum += nav_cell(layer, c + vec2<i32>(i, j)).dir * w;
        }
    }
    let l = length(sum);
    return select(vec2<f32>(0.0), sum / l, l > 1e-6);
}

// Travel distance to `layer`'s goal from p (x, as nav_distance) and the
// clearance there (y, as nav_clearance: every layer holds it), from one
// read of each of the four nearest cells.
fn nav_distance_clearance(layer: u32, p: vec2<f32>) -> vec2<f32> {
    let g = nav_grid(p);
    let c = vec2<i32>(floor(g));
    let f = g - floor(g);
    var sum = 0.0;
    var weight = 0.0;
    var clear = vec4<f32>(0.0);
    for (var k = 0; k < 4; k++) {
        let o = vec2<i32>(k & 1, k >> 1);
        let w = select(1.0 - f.x, f.x, o.x == 1) * select(1.0 - f.y, f.y, o.y == 1);
        let cell = nav_cell(layer, c + o);
        clear[k] = cell.clearance;
        if cell.distance >= 0.0 {
            sum += cell.distance * w;
            weight += w;
        }
    }
    let clearance = mix(mix(clear.x, clear.y, f.x), mix(clear.z, clear.w, f.x), f.y);
    return vec2<f32>(select(-1.0, sum / max(weight, 1e-6), weight > 1e-6), clearance);
}

// Travel distance to `layer`'s goal from p (bilinear over the reachable of
// the four nearest cells), or -1 where none of them reaches it.
fn nav_distance(layer: u32, p: vec2<f32>) -> f32 {
    return nav_distance_clearance(layer, p).x;
}

// Signed distance from p to the nearest obstacle (bilinear; < 0 inside).
fn nav_clearance(p: vec2<f32>) -> f32 {
    return nav_clearance_slope(p).x;
}

// The clearance at p (x) and its gradient (y, z: per world unit), from
// the four cells nav_clearance blends: one read of each, so the loops
// that call it (nav_keep_out, the navigate hook's pick_goal) stay small
// enough for SwiftShader's compiler (docs/WEB.md).
fn nav_clearance_slope(p: vec2<f32>) -> vec3<f32> {
    let g = nav_grid(p);
    let c = vec2<i32>(floor(g));
    let f = g - floor(g);
    let c00 = nav_cell(0u, c).clearance;
    let c10 = nav_cell(0u, c + vec2<i32>(1, 0)).clearance;
    let c01 = nav_cell(0u, c + vec2<i32>(0, 1)).clearance;
    let c11 = nav_cell(0u, c + vec2<i32>(1, 1)).clearance;
    let value = mix(mix(c00, c10, f.x), mix(c01, c11, f.x), f.y);
    let slope = vec2<f32>(mix(c10 - c00, c11 - c01, f.y), mix(c01 - c00, c11 - c10, f.x));
    return vec3<f32>(value, slope / nav.cell_size);
}

// The direction away from the nearest obstacle at p (unit, or zero on a
// ridge): the clearance's gradient.
fn nav_away(p: vec2<f32>) -> vec2<f32> {
    let g = nav_clearance_slope(p).yz;
    let l = length(g);
    return select(vec2<f32>(0.0), g / l, l > 1e-6);
}

// p moved out of every obstacle to at least `radius` from it, along the
// clearance's gradient (a few steps; a point that is already clear stays).
fn nav_keep_out(p: vec2<f32>, radius: f32) -> vec2<f32> {
    var q = p;
    for (var i = 0; i < 4; i++) {
        let cs = nav_clearance_slope(q);
        let l = length(cs.yz);
        if cs.x >= radius || l <= 1e-6 {
            break;
        }
        q += cs.yz / l * (radius - cs.x + 1e-3 * nav.cell_size);
    }
    return q;
}

// Velocity v with its part toward a near obstacle taken out: within
// `margin` beyond `radius` of an obstacle, the approach is scaled down the
// closer it gets, to nothing at contact; so agents slide along walls.
fn nav_slide(p: vec2<f32>, v: vec2<f32>, radius: f32, margin: f32) -> vec2<f32> {
    let c = nav_clearance(p) - radius;
    if c >= margin {
        return v;
    }
    let away = nav_away(p);
    let into = -dot(v, away);
    if into <= 0.0 {
        return v;
    }
    let keep = clamp(c / max(margin, 1e-6), 0.0, 1.0);
    return v + away * into * (1.0 - keep);
}
