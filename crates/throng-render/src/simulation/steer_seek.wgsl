// Goal seeking for simulation hooks: the velocity an agent wants toward a
// point (arriving, not overshooting), how it reaches that velocity (bounded
// acceleration) and how it turns to face where it goes (bounded turn
// rate). Pure functions on the ground plane (x, z); no bindings.

// The velocity toward `goal` from `p` at `speed`, slowing linearly within
// `slow` of it to stop on it (Reynolds' arrival).
fn seek_arrive(p: vec2<f32>, goal: vec2<f32>, speed: f32, slow: f32) -> vec2<f32> {
    let d = goal - p;
    let dist = length(d);
    if dist < 1e-6 {
        return vec2<f32>(0.0);
    }
    let s = speed * clamp(dist / max(slow, 1e-6), 0.0, 1.0);
    return d * (s / dist);
}

// v moved toward `desired` by at most `accel` * dt.
fn steer_toward(v: vec2<f32>, desired: vec2<f32>, accel: f32, dt: f32) -> vec2<f32> {
    let dv = desired - v;
    let l = length(dv);
    let most = accel * dt;
    if l <= most {
        return desired;
    }
    return v + dv * (most / l);
}

// `yaw` turned toward the heading of v (radians about +y from +z) by at
// most rate * dt; unchanged when v is too slow to have a heading.
fn face(yaw: f32, v: vec2<f32>, rate: f32, dt: f32) -> f32 {
    if dot(v, v) < 1e-6 {
        return yaw;
    }
    var turn = atan2(v.x, v.y) - yaw;
    turn -= 6.2831853 * round(turn / 6.2831853);
    let most = rate * dt;
    var y = yaw + clamp(turn, -most, most);
    y -= 6.2831853 * round(y / 6.2831853);
    return y;
}
