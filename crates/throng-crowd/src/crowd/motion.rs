//! Analytic locomotion of instances ([`Motion`]): a velocity, a path or the
//! clip's root motion, evaluated from the clock wherever the instance's
//! transform is read — by the draw lists, [`Crowd::state`],
//! [`Crowd::bone_world_transform`], attachments — and by the GPU-driven
//! path's motion pass from the same words ([`GpuMotion`],
//! [`throng_core::motion`]). The CPU writes an instance only when its motion
//! changes, never per frame.
//!
//! # Contract
//! * An instance's stored transform is its transform at the motion's
//!   anchor; [`Crowd::set_motion`] anchors at the clock, from where the
//!   instance is *now* (its current motion evaluated), so changing motion
//!   never makes it jump.
//! * [`Crowd::set_transform`] of a moving instance re-anchors the motion
//!   there (a velocity keeps its speed along the instance's heading, a path
//!   its distance, root motion its clip).
//! * Paths are shared: [`Crowd::add_path`] returns a [`PathId`] any number
//!   of instances may walk (each with its own speed, start and end
//!   behaviour); [`Crowd::remove_path`] is refused while one does.
//! * Root motion is followed analytically while the instance plays one
//!   clip. During a cross-fade the two clips' motions are blended by the
//!   fade weight step by step on the CPU (the blend of two integrals has no
//!   closed form), and at the fade's end the instance is anchored again.
//! * Speed matching ([`Crowd::set_motion_matched`]) sets the clip's playback
//!   speed to the motion's speed over the clip's own ground speed once,
//!   when the motion is set: feet do not slide, and nothing is per frame.

use glam::{Mat4, Vec3, Vec4};

use super::instances::{NO_PATH, mat4_of};
use super::{Change, Crowd, CrowdError, InstanceId, ModelId};
use throng_core::clock::WrapMode;
use throng_core::motion::{GpuMotion, MotionKind, PathPoint, RootKey, motion_rows, path_points};

/// Fastest motion accepted, world units per second: faster is a mistake
/// (or a unit error), not a crowd.
pub const MAX_MOTION_SPEED: f32 = 1.0e4;

/// Fastest yaw rate accepted, radians per second.
pub const MAX_YAW_RATE: f32 = 1.0e3;

/// Most points of one path.
pub const MAX_PATH_POINTS: usize = 1 << 16;

/// What an instance does at the end of a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PathEnd {
    /// Stops at the last point.
    #[default]
    Stop,
    /// Goes on from the first point (the path is closed).
    Loop,
    /// Walks back to the first point, and again.
    PingPong,
}

impl PathEnd {
    fn wrap(self) -> WrapMode {
        match self {
            PathEnd::Stop => WrapMode::Once,
            PathEnd::Loop => WrapMode::Loop,
            PathEnd::PingPong => WrapMode::PingPong,
        }
    }
}

/// A path of a crowd ([`Crowd::add_path`]), generational like instances.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PathId {
    index: u32,
    generation: u32,
}

/// How an instance moves.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Motion {
    /// Where its transform puts it.
    #[default]
    Still,
    /// A constant world velocity (units per second) and yaw rate (radians
    /// per second, about +y); the velocity turns with the instance, so a
    /// non-zero yaw rate walks a circle.
    Velocity {
        /// World velocity now.
        velocity: Vec3,
        /// Yaw rate.
        yaw_rate: f32,
    },
    /// A path, walked at `speed` from `start` units along it, facing the
    /// way it goes and turning over `turn` units at corners.
    Path {
        /// The path.
        path: PathId,
        /// Units per second (negative walks it backwards).
        speed: f32,
        /// Distance along the path to start from.
        start: f32,
        /// What happens at its end.
        end: PathEnd,
        /// Distance over which it turns through a corner (0: at once).
        turn: f32,
    },
    /// The current clip's baked root motion (clips baked with
    /// `--root-motion`; others stand).
    RootMotion,
    /// Handed to the GPU simulation hook (`throng_render::simulation`),
    /// from where it is now with `velocity`: from then on **the GPU is its
    /// authority**. The CPU answers queries of its pose
    /// ([`Crowd::world_transform`], [`Crowd::state`],
    /// [`Crowd::bone_world_transform`]) with [`CrowdError::GpuAuthority`]
    /// (read it back from the GPU instead), it cannot carry attachments,
    /// and it stands where it was handed over until a simulation steps it.
    /// [`Crowd::set_transform`] hands it over again from there (its agent
    /// starts afresh); another motion takes it back, anchored where the
    /// CPU last placed it.
    Simulated {
        /// Velocity it starts with, world units per second.
        velocity: Vec3,
        /// The current clip's ground speed at playback speed 1 (world
        /// units per second): the GPU sets playback speed to the agent's
        /// speed over it every step, for a looping clip; 0 leaves playback
        /// alone.
        ground_speed: f32,
    },
}

impl Motion {
    /// Its speed, units per second (root motion: `None`, the clip's own).
    pub fn speed(&self) -> Option<f32> {
        match *self {
            Motion::Still => Some(0.0),
            Motion::Velocity { velocity, .. } => Some(velocity.length()),
            Motion::Path { speed, .. } => Some(speed.abs()),
            Motion::RootMotion => None,
            Motion::Simulated { velocity, .. } => Some(velocity.length()),
        }
    }
}

/// One path: its points in the crowd's table, open and closed.
#[derive(Clone, Copy, Debug)]
pub(super) struct PathSlot {
    generation: u32,
    /// First point; `count` points open, `count + 1` closed.
    base: u32,
    count: u32,
    length_open: f32,
    length_closed: f32,
    /// Instances walking it.
    users: u32,
    live: bool,
}

impl PathSlot {
    /// Forgets its walkers (the crowd was cleared).
    pub(super) fn release_all(&mut self) {
        self.users = 0;
    }
}

fn bad(what: &str) -> CrowdError {
    CrowdError::BadMotion(what.to_owned())
}

impl Crowd {
    /// Adds a path through `points` (world positions, at least two, not
    /// all at one place, finite).
    pub fn add_path(&mut self, points: &[Vec3]) -> Result<PathId, CrowdError> {
        if points.len() < 2 {
            return Err(bad(&format!(
                "a path needs at least 2 points, got {}",
                points.len()
            )));
        }
        if points.len() > MAX_PATH_POINTS {
            return Err(bad(&format!(
                "a path has at most {MAX_PATH_POINTS} points, got {}",
                points.len()
            )));
        }
        if let Some(i) = points.iter().position(|p| !p.is_finite()) {
            return Err(bad(&format!("path point {i} is not finite: {}", points[i])));
        }
        let base = self.points.len() as u32;
        let (count, length_open) = path_points(points, false, &mut self.points);
        self.points.truncate(base as usize);
        let (_, length_closed) = path_points(points, true, &mut self.points);
        if !(length_open > 0.0 && length_closed.is_finite()) {
            self.points.truncate(base as usize);
            return Err(bad("a path's points are all at one place (length 0)"));
        }
        self.points_generation += 1;
        let slot = PathSlot {
            generation: 0,
            base,
            count,
            length_open,
            length_closed,
            users: 0,
            live: true,
        };
        let index = match self.free_paths.pop() {
            Some(i) => {
                let generation = self.paths[i as usize].generation;
                self.paths[i as usize] = PathSlot { generation, ..slot };
                i
            }
            None => {
                self.paths.push(slot);
                self.paths.len() as u32 - 1
            }
        };
        Ok(PathId {
            index,
            generation: self.paths[index as usize].generation,
        })
    }

    fn path_slot(&self, path: PathId) -> Result<&PathSlot, CrowdError> {
        match self.paths.get(path.index as usize) {
            Some(p) if p.live && p.generation == path.generation => Ok(p),
            _ => Err(bad(&format!("path {path:?} does not exist (removed?)"))),
        }
    }

    /// Removes a path no instance walks; its points are reclaimed when
    /// removed paths hold more than half of the point table.
    pub fn remove_path(&mut self, path: PathId) -> Result<(), CrowdError> {
        let users = self.path_slot(path)?.users;
        if users > 0 {
            return Err(bad(&format!(
                "path {path:?} is walked by {users} instances; give them another motion first"
            )));
        }
        let p = &mut self.paths[path.index as usize];
        p.live = false;
        p.generation = p.generation.wrapping_add(1);
        self.free_paths.push(path.index);
        let live: usize = self
            .paths
            .iter()
            .filter(|p| p.live)
            .map(|p| p.count as usize + 1)
            .sum();
        if self.points.len() > 1024 && live * 2 < self.points.len() {
            self.compact_points();
        }
        Ok(())
    }

    /// Moves live paths' points together and re-points the motions on
    /// them (logged, so mirrors upload them again).
    fn compact_points(&mut self) {
        let mut points = Vec::with_capacity(self.points.len() / 2);
        let mut moved = vec![u32::MAX; self.paths.len()];
        for (i, p) in self.paths.iter_mut().enumerate() {
            if p.live {
                let n = p.count as usize + 1;
                let start = points.len() as u32;
                points.extend_from_slice(&self.points[p.base as usize..p.base as usize + n]);
                moved[i] = start;
                p.base = start;
            }
        }
        self.points = points;
        self.points_generation += 1;
        for d in 0..self.metas.len() {
            let path = self.metas[d].path;
            if path != NO_PATH {
                self.motions[d].base = moved[path as usize];
                self.touch(Change::motion(d));
            }
        }
    }

    /// The crowd's path points, every path's after another (what
    /// [`GpuMotion::base`] of a path motion indexes).
    pub fn path_points(&self) -> &[PathPoint] {
        &self.points
    }

    /// The crowd's root-motion keys, every model's after another (what
    /// [`GpuMotion::base`] of a root motion indexes).
    pub fn root_keys(&self) -> &[RootKey] {
        &self.root_keys
    }

    /// Changes whenever [`Self::path_points`] or [`Self::root_keys`]
    /// change.
    pub fn motion_tables_generation(&self) -> u64 {
        self.points_generation
    }

    /// Each instance's motion, in dense slot order (empty while no instance
    /// ever moved).
    pub fn gpu_motions(&self) -> &[GpuMotion] {
        &self.motions
    }

    /// Sets how an instance moves, from where it is now.
    pub fn set_motion(&mut self, id: InstanceId, motion: Motion) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        self.check_motion(&motion)?;
        let meta = self.metas[d];
        if matches!(motion, Motion::Simulated { .. }) && (meta.parent || meta.follower) {
            return Err(bad(&format!(
                "instance {id:?} takes part in an attachment; the CPU keeps attachments, so it cannot be simulated on the GPU"
            )));
        }
        if matches!(motion, Motion::Simulated { .. }) && meta.layered {
            return Err(bad(&format!(
                "instance {id:?} has animation layers, drawn from the CPU's lists; it cannot be simulated on the GPU"
            )));
        }
        self.apply_motion(d, motion);
        Ok(())
    }

    /// Dense slot `d` is simulated on the GPU.
    #[inline]
    pub(super) fn is_simulated(&self, d: usize) -> bool {
        self.motions
            .get(d)
            .is_some_and(|m| m.motion_kind() == MotionKind::Simulated)
    }

    /// Dense slot of `id`, if the CPU is the authority on its pose.
    pub(super) fn authoritative(&self, id: InstanceId) -> Result<usize, CrowdError> {
        let d = self.dense(id)?;
        if self.is_simulated(d) {
            return Err(CrowdError::GpuAuthority(id));
        }
        Ok(d)
    }

    /// Instances handed to the GPU simulation.
    pub fn simulated_count(&self) -> usize {
        self.simulated as usize
    }

    /// A hand-over of dense slot `d` to the simulation at `anchor` with
    /// `velocity` and `ground_speed`, with a new serial.
    fn simulated_motion(
        &mut self,
        d: usize,
        anchor: [[f32; 4]; 3],
        velocity: Vec3,
        ground_speed: f32,
    ) -> GpuMotion {
        // 0 is what a fresh agent buffer holds: never a serial.
        self.sim_serial = self.sim_serial.wrapping_add(1).max(1);
        GpuMotion::simulated(
            anchor,
            self.clock,
            self.slot_of[d],
            self.sim_serial,
            velocity,
            ground_speed,
        )
    }

    /// [`Self::set_motion`], and the current clip's playback speed set to
    /// the motion's speed over `clip_speed`: the clip's ground speed at
    /// playback speed 1, in world units per second at the instance's scale
    /// ([`Self::root_speed`] gives a root-motion clip's, in model units).
    pub fn set_motion_matched(
        &mut self,
        id: InstanceId,
        motion: Motion,
        clip_speed: f32,
    ) -> Result<(), CrowdError> {
        if !(clip_speed.is_finite() && clip_speed > 0.0) {
            return Err(bad(&format!(
                "the clip's ground speed must be finite and positive, got {clip_speed}"
            )));
        }
        let speed = motion
            .speed()
            .ok_or_else(|| bad("root motion has the clip's own speed; nothing to match"))?;
        self.check_motion(&motion)?;
        self.set_speed(id, speed / clip_speed)?;
        self.set_motion(id, motion)
    }

    /// A clip's ground speed from its baked root motion: distance per loop
    /// over its duration, model units per second (`None` without root
    /// motion).
    pub fn root_speed(&self, model: ModelId, clip: usize) -> Result<Option<f32>, CrowdError> {
        let rt = self
            .models
            .get(model.0 as usize)
            .ok_or(CrowdError::NoSuchModel(model))?;
        self.check_clip(model.0 as u16, clip)?;
        if !rt.root_clips[clip] {
            return Ok(None);
        }
        let map = rt.maps[clip];
        let keys = &rt.handle.model().root_motion;
        let last = keys[(map.first_frame + map.frame_count - 1) as usize];
        let first = keys[map.first_frame as usize];
        let distance = (Vec3::from(last.translation) - Vec3::from(first.translation)).length();
        Ok((map.duration > 0.0).then(|| distance / map.duration))
    }

    /// How an instance moves.
    pub fn motion(&self, id: InstanceId) -> Result<MotionKind, CrowdError> {
        let d = self.dense(id)?;
        Ok(self
            .motions
            .get(d)
            .map_or(MotionKind::Still, |m| m.motion_kind()))
    }

    fn check_motion(&self, motion: &Motion) -> Result<(), CrowdError> {
        match *motion {
            Motion::Still | Motion::RootMotion => Ok(()),
            Motion::Simulated {
                velocity,
                ground_speed,
            } => {
                if !velocity.is_finite() || !ground_speed.is_finite() {
                    return Err(bad(&format!(
                        "simulated velocity {velocity} and ground speed {ground_speed} must be finite"
                    )));
                }
                if velocity.length() > MAX_MOTION_SPEED
                    || !(0.0..=MAX_MOTION_SPEED).contains(&ground_speed)
                {
                    return Err(bad(&format!(
                        "simulated velocity {velocity} (at most {MAX_MOTION_SPEED} units/s) or ground speed {ground_speed} (0 to {MAX_MOTION_SPEED}) is absurd"
                    )));
                }
                Ok(())
            }
            Motion::Velocity { velocity, yaw_rate } => {
                if !velocity.is_finite() || !yaw_rate.is_finite() {
                    return Err(bad(&format!(
                        "velocity {velocity} and yaw rate {yaw_rate} must be finite"
                    )));
                }
                if velocity.length() > MAX_MOTION_SPEED || yaw_rate.abs() > MAX_YAW_RATE {
                    return Err(bad(&format!(
                        "velocity {velocity} (at most {MAX_MOTION_SPEED} units/s) or yaw rate {yaw_rate} (at most {MAX_YAW_RATE} rad/s) is absurd"
                    )));
                }
                Ok(())
            }
            Motion::Path {
                path,
                speed,
                start,
                turn,
                ..
            } => {
                self.path_slot(path)?;
                if !(speed.is_finite() && start.is_finite() && turn.is_finite()) {
                    return Err(bad(&format!(
                        "path speed {speed}, start {start} and turn {turn} must be finite"
                    )));
                }
                if speed.abs() > MAX_MOTION_SPEED {
                    return Err(bad(&format!(
                        "path speed {speed} is absurd (at most {MAX_MOTION_SPEED} units/s)"
                    )));
                }
                if turn < 0.0 {
                    return Err(bad(&format!("turn distance {turn} must not be negative")));
                }
                Ok(())
            }
        }
    }

    /// The motion record of dense slot `d` (still when none).
    fn motion_of(&self, d: usize) -> Option<&GpuMotion> {
        self.motions.get(d).filter(|m| m.moves())
    }

    /// Transform rows of dense slot `d` now: its motion evaluated at the
    /// clock, or its transform.
    #[inline]
    pub(super) fn world_rows(&self, d: usize) -> [Vec4; 3] {
        match self.motion_of(d) {
            Some(m) => motion_rows(m, self.clock, &self.points, &self.root_keys),
            None => self.rows[d],
        }
    }

    /// True if dense slot `d` moves by an analytic motion.
    #[inline]
    pub(super) fn moving(&self, d: usize) -> bool {
        self.motion_of(d).is_some()
    }

    /// Makes room for motions (the table is empty until one is set).
    fn ensure_motions(&mut self) {
        if self.motions.len() < self.rows.len() {
            let rows = &self.rows;
            let start = self.motions.len();
            self.motions.extend(
                rows[start..]
                    .iter()
                    .map(|r| GpuMotion::still(r.map(|v| v.to_array()))),
            );
        }
    }

    /// Gives dense slot `d` `motion`, anchored at the clock where the
    /// instance is now.
    pub(super) fn apply_motion(&mut self, d: usize, motion: Motion) {
        let here = self.world_rows(d);
        self.rows[d] = here;
        self.release_path(d);
        if matches!(motion, Motion::Simulated { .. }) {
            self.simulated += 1;
        }
        self.metas[d].root_motion = motion == Motion::RootMotion;
        if motion == Motion::Still && self.motions.is_empty() {
            self.after_motion_change(d);
            return;
        }
        self.ensure_motions();
        let anchor = here.map(|v| v.to_array());
        let now = self.clock;
        self.motions[d] = match motion {
            Motion::Still | Motion::RootMotion => GpuMotion::still(anchor),
            Motion::Velocity { velocity, yaw_rate } => {
                GpuMotion::velocity(anchor, now, velocity, yaw_rate)
            }
            Motion::Simulated {
                velocity,
                ground_speed,
            } => self.simulated_motion(d, anchor, velocity, ground_speed),
            Motion::Path {
                path,
                speed,
                start,
                end,
                turn,
            } => {
                let p = self.paths[path.index as usize];
                self.paths[path.index as usize].users += 1;
                self.metas[d].path = path.index;
                let (count, length) = match end {
                    PathEnd::Loop => (p.count + 1, p.length_closed),
                    _ => (p.count, p.length_open),
                };
                GpuMotion::path(
                    anchor,
                    now,
                    p.base,
                    count,
                    length,
                    speed,
                    start,
                    end.wrap(),
                    turn,
                )
            }
        };
        self.after_motion_change(d);
    }

    /// After dense slot `d`'s motion or root-motion flag changed: root
    /// motion re-anchored, the active set, the sphere, the log.
    fn after_motion_change(&mut self, d: usize) {
        self.refresh_root_motion(d);
        self.refresh_active(d);
        self.refresh_sphere(d);
        self.touch(Change::all(d));
    }

    /// Anchors dense slot `d`'s root motion at the clock, from where it is
    /// now, if it follows root motion: analytic while one clip plays, still
    /// (stepped on the CPU) during a fade or paused. Called after every
    /// change of its animation.
    pub(super) fn refresh_root_motion(&mut self, d: usize) {
        let meta = self.metas[d];
        if !meta.root_motion {
            return;
        }
        self.ensure_motions();
        let here = self.world_rows(d);
        self.rows[d] = here;
        let anchor = here.map(|v| v.to_array());
        let now = self.clock;
        let rt = &self.models[meta.model as usize];
        let a = &mut self.anims[d];
        let analytic = a.current.is_some()
            && rt.root_clips[a.current.clip as usize]
            && !a.fading(now)
            && !meta.paused;
        self.motions[d] = if analytic {
            // The motion shares the animation's anchor.
            a.rebase(now, &rt.maps, true);
            let p = a.current;
            let map = rt.maps[p.clip as usize];
            let keys = &rt.handle.model().root_motion;
            let last = keys[(map.first_frame + map.frame_count - 1) as usize];
            GpuMotion::root_motion(
                anchor,
                now,
                &p.track,
                p.wrap,
                rt.root_base + map.first_frame,
                map.frame_count,
                map.duration,
                map.frames_per_second,
                RootKey {
                    translation: last.translation,
                    yaw: last.yaw,
                },
            )
        } else {
            GpuMotion::still(anchor)
        };
        self.touch(Change::all(d));
    }

    /// Re-anchors dense slot `d`'s motion at transform `rows` (after
    /// [`Crowd::set_transform`]).
    pub(super) fn reanchor_motion(&mut self, d: usize, rows: [Vec4; 3]) {
        let Some(m) = self.motion_of(d).copied() else {
            return;
        };
        let anchor = rows.map(|v| v.to_array());
        let now = self.clock;
        match m.motion_kind() {
            MotionKind::Velocity => {
                // Keep the speed along the heading it has turned to.
                let turned = motion_rows(&m, now, &[], &[]);
                let anchor_heading = Vec3::new(m.anchor_rows[0][2], 0.0, m.anchor_rows[2][2]);
                let heading = Vec3::new(turned[0].z, 0.0, turned[2].z);
                let yaw = heading.x.atan2(heading.z) - anchor_heading.x.atan2(anchor_heading.z);
                let v = glam::Quat::from_rotation_y(yaw) * Vec3::new(m.a[0], m.a[1], m.a[2]);
                self.motions[d] = GpuMotion::velocity(anchor, now, v, m.a[3]);
            }
            MotionKind::Path => {
                let track = m.track();
                let rebased = track.rebased(now.saturating_sub(m.anchor()), m.wrap(), track.rate);
                let mut n = m;
                n.anchor_rows = anchor;
                n.anchor_lo = now as u32;
                n.anchor_hi = (now >> 32) as u32;
                n.track = [
                    rebased.phase as u32,
                    (rebased.phase >> 32) as u32,
                    m.track[2],
                    m.track[3],
                ];
                self.motions[d] = n;
            }
            MotionKind::RootMotion => {
                self.motions[d] = GpuMotion::still(anchor);
                self.rows[d] = rows;
                self.refresh_root_motion(d);
            }
            MotionKind::Simulated => {
                let v = Vec3::new(m.a[0], m.a[1], m.a[2]);
                self.motions[d] = self.simulated_motion(d, anchor, v, m.a[3]);
            }
            MotionKind::Still => {}
        }
    }

    /// Where an instance is now (its motion evaluated); a simulated one's
    /// is the GPU's ([`CrowdError::GpuAuthority`]).
    pub fn world_transform(&self, id: InstanceId) -> Result<Mat4, CrowdError> {
        let d = self.authoritative(id)?;
        Ok(mat4_of(&self.world_rows(d)))
    }

    /// Drops dense slot `d`'s path use and its place among the simulated
    /// (before it is despawned or given another motion).
    pub(super) fn release_path(&mut self, d: usize) {
        if self.is_simulated(d) {
            self.simulated -= 1;
        }
        let path = std::mem::replace(&mut self.metas[d].path, NO_PATH);
        if path != NO_PATH {
            self.paths[path as usize].users -= 1;
        }
    }

    /// Appends `model`'s root keys to the crowd's table; returns its base.
    pub(super) fn add_root_keys(&mut self, keys: &[throng_core::model::RootMotionKey]) -> u32 {
        let base = self.root_keys.len() as u32;
        self.root_keys.extend(keys.iter().map(|k| RootKey {
            translation: k.translation,
            yaw: k.yaw,
        }));
        self.points_generation += 1;
        base
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{at, test_model};
    use super::*;

    #[test]
    fn bad_motions_and_paths_are_refused_naming_what() {
        let h = test_model(1.0);
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&h);
        let id = crowd.spawn(m, at(0.0)).unwrap();
        let err = |r: Result<(), CrowdError>| r.unwrap_err().to_string();
        assert!(err(crowd.add_path(&[]).map(|_| ())).contains("at least 2 points"));
        assert!(err(crowd.add_path(&[Vec3::ONE, Vec3::ONE]).map(|_| ())).contains("length 0"));
        assert!(err(crowd.add_path(&[Vec3::ZERO, Vec3::NAN]).map(|_| ())).contains("point 1"));
        let nan = Motion::Velocity {
            velocity: Vec3::new(f32::NAN, 0.0, 0.0),
            yaw_rate: 0.0,
        };
        assert!(err(crowd.set_motion(id, nan)).contains("finite"));
        let fast = Motion::Velocity {
            velocity: Vec3::new(1e9, 0.0, 0.0),
            yaw_rate: 0.0,
        };
        assert!(err(crowd.set_motion(id, fast)).contains("absurd"));
        let path = crowd.add_path(&[Vec3::ZERO, Vec3::X]).unwrap();
        let walk = Motion::Path {
            path,
            speed: f32::INFINITY,
            start: 0.0,
            end: PathEnd::Loop,
            turn: 0.0,
        };
        assert!(err(crowd.set_motion(id, walk)).contains("finite"));
        let walk = Motion::Path {
            path,
            speed: 1.0,
            start: 0.0,
            end: PathEnd::Loop,
            turn: 0.0,
        };
        crowd.set_motion(id, walk).unwrap();
        assert!(err(crowd.remove_path(path)).contains("walked by 1"));
        crowd.set_motion(id, Motion::Still).unwrap();
        crowd.remove_path(path).unwrap();
        assert!(err(crowd.set_motion(id, walk)).contains("does not exist"));
        assert_eq!(crowd.motion(id).unwrap(), MotionKind::Still);
    }

    #[test]
    fn motion_moves_the_instance_without_writes_and_never_jumps() {
        let h = test_model(1.0);
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&h);
        let id = crowd.spawn(m, at(3.0)).unwrap();
        let v = Motion::Velocity {
            velocity: Vec3::new(0.0, 0.0, 2.0),
            yaw_rate: 0.0,
        };
        crowd.set_motion(id, v).unwrap();
        let mut cursor = super::super::ChangeCursor::default();
        let _ = crowd.changes(&mut cursor);
        crowd.update(1.5);
        match crowd.changes(&mut cursor) {
            super::super::Changes::Slots(s) => assert!(s.is_empty(), "walking logs nothing"),
            super::super::Changes::All => panic!("a full refresh"),
        }
        let p = crowd.world_transform(id).unwrap().w_axis.truncate();
        assert!((p - Vec3::new(3.0, 0.0, 3.0)).length() < 1e-5, "{p}");
        // A new motion starts where it is.
        crowd.set_motion(id, Motion::Still).unwrap();
        let q = crowd.world_transform(id).unwrap().w_axis.truncate();
        assert_eq!(p, q);
        // Batched writes: all or nothing.
        let other = crowd.spawn(m, at(9.0)).unwrap();
        let t = [
            Mat4::from_translation(Vec3::X),
            Mat4::from_translation(Vec3::Y),
        ];
        crowd.set_transforms(&[id, other], &t).unwrap();
        assert_eq!(crowd.world_transform(other).unwrap(), t[1]);
        let bad = [Mat4::IDENTITY, Mat4::NAN];
        assert!(crowd.set_transforms(&[id, other], &bad).is_err());
        assert_eq!(crowd.world_transform(id).unwrap(), t[0], "nothing written");
        assert!(crowd.set_transforms(&[id], &t).is_err(), "lengths differ");
        // Batched speeds: all or nothing too.
        assert!(crowd.set_speeds(&[id, other], &[2.0, f32::NAN]).is_err());
        crowd.set_speeds(&[id, other], &[2.0, 0.5]).unwrap();
        assert!(
            crowd.set_speeds(&[id], &[1.0, 1.0]).is_err(),
            "lengths differ"
        );
    }
}
