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
//!
//! # Files
//! This file holds [`Motion`], its checks, its hand-over and evaluation;
//! `paths.rs` the crowd's tables that motions index (shared paths, root
//! keys); `anchor.rs` the re-anchoring when an instance's animation or
//! transform changes under its motion.

use glam::{Mat4, Vec3, Vec4};

use super::instances::{NO_PATH, mat4_of};
use super::{Change, Crowd, CrowdError, InstanceId, ModelId};
use throng_core::clock::WrapMode;
use throng_core::motion::{GpuMotion, MotionKind, motion_rows};

mod anchor;
mod paths;

pub(super) use paths::PathSlot;
use paths::bad;
pub use paths::{MAX_PATH_POINTS, PathId};

/// Fastest motion accepted, world units per second: faster is a mistake
/// (or a unit error), not a crowd.
pub const MAX_MOTION_SPEED: f32 = 1.0e4;

/// Fastest yaw rate accepted, radians per second.
pub const MAX_YAW_RATE: f32 = 1.0e3;

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
        /// The agent's four user words when it starts (`Agent::data` in
        /// the hook): a goal, a group, a speed factor — whatever the
        /// steering reads. Zero for none.
        data: Vec4,
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

impl Crowd {
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
                "instance {id:?} has animation layers or foot IK, drawn from the CPU's lists; it cannot be simulated on the GPU"
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
        data: [f32; 4],
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
            data,
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
                data,
            } => {
                if !data.is_finite() {
                    return Err(bad(&format!("simulated agent data {data} must be finite")));
                }
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
            Some(m) => self.on_ground(motion_rows(m, self.clock, &self.points, &self.root_keys)),
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
                data,
            } => self.simulated_motion(d, anchor, velocity, ground_speed, data.to_array()),
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

    /// Each instance's motion, in dense slot order (empty while no instance
    /// ever moved).
    pub fn gpu_motions(&self) -> &[GpuMotion] {
        &self.motions
    }

    /// Drops dense slot `d`'s path use and its place among the simulated
    /// (before it is despawned or given another motion).
    pub(in crate::crowd) fn release_path(&mut self, d: usize) {
        if self.is_simulated(d) {
            self.simulated -= 1;
        }
        let path = std::mem::replace(&mut self.metas[d].path, NO_PATH);
        if path != NO_PATH {
            self.paths[path as usize].users -= 1;
        }
    }

    /// Where an instance is now (its motion evaluated); a simulated one's
    /// is the GPU's ([`CrowdError::GpuAuthority`]).
    pub fn world_transform(&self, id: InstanceId) -> Result<Mat4, CrowdError> {
        let d = self.authoritative(id)?;
        Ok(mat4_of(&self.world_rows(d)))
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
