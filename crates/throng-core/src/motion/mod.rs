//! Analytic locomotion: where an instance is at any tick, from its
//! transform at an anchor tick and a motion, with nothing integrated per
//! frame — the CPU twin of `throng-render/src/passes/motion.wgsl`, operation for operation,
//! on the same words ([`GpuMotion`]).
//!
//! Three kinds, each a closed form of the time since the anchor:
//!
//! * **Velocity**: a world velocity `v` and a yaw rate `ω`. The instance
//!   turns about +y at `ω` and its velocity turns with it, so it walks a
//!   straight line (`ω = 0`: `p = p₀ + v·t`) or a circle:
//!   `p = p₀ + R_y(ωt/2)·v·sin(ωt/2)/(ω/2)` (horizontal part; `v_y·t` up).
//!   The half angle `ωt/2` is a fixed-point [`Track`] (2⁻³² turns), so it
//!   is exact however long the crowd runs.
//! * **Path**: a polyline of points with cumulative distances (the crowd's
//!   point table), walked at a speed; the distance along it is a [`Track`]
//!   over the path's length with the path's end behaviour as its wrap mode
//!   (loop: the polyline closed back to its first point; ping-pong: there
//!   and back; once: stop at the end). The instance faces the chord from
//!   `turn / 2` behind to `turn / 2` ahead of it, so it turns smoothly
//!   through corners (`turn = 0`: the segment's heading); turned back on
//!   the return half of a ping-pong or at a negative speed.
//! * **Root motion**: the current clip's baked root motion `D(t)`, looped:
//!   `D̃(u) = L^k · D(u mod T)` with `L = D(T)` the motion of one whole loop
//!   and `k` the whole loops played, the power in closed form (with `L`'s
//!   yaw `Y` in fixed point, `Σⱼ R_y(jY)·t = R_y((k−1)Y/2)·t·sin(kY/2)/sin(Y/2)`),
//!   so a looping walk carries its instance forward exactly after any number
//!   of loops. The instance moves by `D̃(u₀)⁻¹ · D̃(u)` in its own model
//!   space from its anchor.
//!
//! Velocity and path motions keep the anchor transform's rotation and
//! scale (applied first, in model space) and replace its position and yaw:
//! `world = T(p) · R_y(ψ) · A_linear`. Model forward is +z (glTF's).
//!
//! Angles in fixed point are turned into radians as `i32 as f32 · 2π/2³²`,
//! so the CPU and the GPU take sines of the same f32 in `[−π, π)`; they
//! differ only by their `sin`/`cos` implementations and by fused
//! multiply-adds (a few ulps).
//!
//! One file per step: what motions are made of (`parts.rs`), their words
//! for the GPU (`encode.rs`), their evaluation (`eval.rs`); all
//! re-exported here.
//!
//! [`Track`]: crate::clock::Track

mod encode;
mod eval;
mod parts;

pub use crate::gpu::GpuMotion;
pub use eval::motion_rows;
pub use parts::{
    MotionKind, PathPoint, RootKey, path_points, radians_to_turns, seconds_f32, turns_to_radians,
};
