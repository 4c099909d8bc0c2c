//! The crowd: instances of baked models, each playing its own clip at its own
//! time, and the per-frame records that the renderer draws.
//!
//! # Contract
//! * A [`ModelHandle`] is a validated [`BakedModel`] with an identity (a
//!   process-unique key): caches anywhere (GPU models, crowds) are keyed by it,
//!   never by name.
//! * An [`InstanceId`] is generational: after `despawn` every call with the
//!   old id returns [`CrowdError::NoSuchInstance`]; it never aliases a new one.
//! * Clips are addressed by their stable file-order index; names resolve with
//!   [`Crowd::clip_index`].
//! * During a cross-fade both clips keep advancing, each at its own speed; the
//!   fade weight grows linearly from 0 to 1 over the fade's duration. A new
//!   cross-fade during a fade keeps whichever of the two clips weighs more as
//!   the previous clip (the smaller pop).
//! * [`Crowd::build_draw_list`] turns every visible instance into one 80-byte
//!   [`InstanceRecord`], grouped by (model, LOD); the renderer splits groups
//!   into packages of at most [`PACKAGE_WIDTH`] and draws each submesh once per
//!   package. Nothing caps the instance count.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use glam::{Mat4, Vec4};
use thiserror::Error;

use crate::camera::Frustum;
use crate::gpu::{FrameBlend, InstanceRecord, pack_tint};
use crate::layout::FramePair;
use crate::limits::{PACKAGE_WIDTH, REST_FRAME};
use crate::math::Aabb;
use crate::model::BakedModel;

/// A baked model with an identity. Cheap to clone (shared).
#[derive(Clone, Debug)]
pub struct ModelHandle {
    key: u64,
    model: Arc<BakedModel>,
}

impl ModelHandle {
    /// Wraps a model (validating it) and gives it a new identity.
    pub fn new(model: BakedModel) -> Result<Self, crate::FormatError> {
        model.validate()?;
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Ok(Self {
            key: NEXT.fetch_add(1, Ordering::Relaxed),
            model: Arc::new(model),
        })
    }

    /// The identity key.
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The model.
    pub fn model(&self) -> &BakedModel {
        &self.model
    }
}

/// Index of a model within one [`Crowd`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModelId(pub u32);

/// A generational instance handle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InstanceId {
    index: u32,
    generation: u32,
}

/// How a clip behaves at its ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum WrapMode {
    /// Wrap around.
    #[default]
    Loop,
    /// Play once and hold the end (or the start, when playing backwards).
    Once,
    /// Play forwards then backwards.
    PingPong,
}

/// Errors of crowd operations.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum CrowdError {
    /// The id was despawned or never existed.
    #[error("instance {0:?} does not exist (despawned?)")]
    NoSuchInstance(InstanceId),
    /// The model id is not in this crowd.
    #[error("model {0:?} is not part of this crowd")]
    NoSuchModel(ModelId),
    /// Clip index out of range.
    #[error("clip index {index} is out of range: model {model:?} has {count} clips")]
    ClipOutOfRange {
        /// Model.
        model: String,
        /// Requested index.
        index: usize,
        /// Clip count.
        count: usize,
    },
    /// No clip with that name.
    #[error("model {model:?} has no clip named {name:?}; it has: {available}")]
    UnknownClip {
        /// Model.
        model: String,
        /// Requested name.
        name: String,
        /// Clip names.
        available: String,
    },
    /// A non-finite number (time, speed, duration, transform).
    #[error("{0} must be finite")]
    NotFinite(&'static str),
}

/// One clip playing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Playback {
    /// Clip index (file order).
    pub clip: u32,
    /// Playback position: clip time for loop/once, `[0, 2D)` for ping-pong.
    phase: f32,
    /// Speed multiplier (negative plays backwards).
    pub speed: f32,
    /// Wrap mode.
    pub wrap: WrapMode,
}

impl Playback {
    fn new(clip: u32, time: f32, speed: f32, wrap: WrapMode, duration: f32) -> Self {
        let mut p = Self {
            clip,
            phase: 0.0,
            speed,
            wrap,
        };
        p.set_time(time, duration);
        p
    }

    /// Clip time in `[0, duration]`.
    #[inline]
    pub fn time(&self, duration: f32) -> f32 {
        match self.wrap {
            WrapMode::PingPong if self.phase > duration => 2.0 * duration - self.phase,
            _ => self.phase,
        }
    }

    fn set_time(&mut self, time: f32, duration: f32) {
        self.phase = 0.0;
        self.advance(time, duration);
    }

    /// Moves the clip by `delta` seconds of clip time.
    #[inline]
    fn advance(&mut self, delta: f32, duration: f32) {
        if duration <= 0.0 {
            self.phase = 0.0;
            return;
        }
        let p = self.phase + delta;
        self.phase = match self.wrap {
            WrapMode::Loop => wrap_into(p, duration),
            WrapMode::Once => p.clamp(0.0, duration),
            WrapMode::PingPong => wrap_into(p, 2.0 * duration),
        };
    }
}

/// `x` wrapped into `[0, period)`.
#[inline]
fn wrap_into(x: f32, period: f32) -> f32 {
    if (0.0..period).contains(&x) {
        x
    } else {
        let r = x.rem_euclid(period);
        if r >= period { 0.0 } else { r }
    }
}

/// What to spawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spawn {
    /// `world_from_model`.
    pub transform: Mat4,
    /// Clip to play (`None`: the rest pose).
    pub clip: Option<usize>,
    /// Start time in seconds.
    pub time: f32,
    /// Speed multiplier.
    pub speed: f32,
    /// Wrap mode.
    pub wrap: WrapMode,
    /// Linear RGBA tint multiplied into the base colour.
    pub tint: Vec4,
}

impl Default for Spawn {
    fn default() -> Self {
        Self {
            transform: Mat4::IDENTITY,
            clip: None,
            time: 0.0,
            speed: 1.0,
            wrap: WrapMode::Loop,
            tint: Vec4::ONE,
        }
    }
}

#[derive(Clone, Debug)]
struct Instance {
    model: u32,
    world_from_model: Mat4,
    tint: u32,
    /// `None`: rest pose.
    current: Option<Playback>,
    previous: Option<Playback>,
    fade_elapsed: f32,
    fade_duration: f32,
    paused: bool,
}

/// Read-only view of an instance's animation state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InstanceState {
    /// Model.
    pub model: ModelId,
    /// Current clip and its time, if any.
    pub current: Option<(usize, f32)>,
    /// Previous clip and its time, during a fade.
    pub previous: Option<(usize, f32)>,
    /// Fade weight of the current clip (1 = no fade).
    pub fade: f32,
    /// Paused.
    pub paused: bool,
    /// `world_from_model`.
    pub world_from_model: Mat4,
}

#[derive(Clone, Debug)]
struct Slot {
    generation: u32,
    instance: Option<Instance>,
}

/// Records of one frame, grouped by (model, LOD).
#[derive(Clone, Debug, Default)]
pub struct DrawList {
    /// One record per visible instance, group after group.
    pub records: Vec<InstanceRecord>,
    /// Groups: contiguous ranges of `records`.
    pub groups: Vec<DrawGroup>,
    /// Instances considered (alive).
    pub instances: u32,
    scratch: Vec<Vec<InstanceRecord>>,
}

/// A contiguous run of records of one model and LOD.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawGroup {
    /// Model within the crowd.
    pub model: ModelId,
    /// Identity key of the model ([`ModelHandle::key`]).
    pub model_key: u64,
    /// LOD index.
    pub lod: u32,
    /// First record.
    pub first: u32,
    /// Record count.
    pub count: u32,
}

impl DrawGroup {
    /// Packages of at most `width` records: `(first, count)`.
    pub fn packages(&self, width: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let width = width.max(1);
        (0..self.count.div_ceil(width)).map(move |p| {
            let first = self.first + p * width;
            (first, width.min(self.first + self.count - first))
        })
    }
}

impl DrawList {
    /// Visible instances.
    pub fn visible(&self) -> u32 {
        self.records.len() as u32
    }

    /// Packages of [`PACKAGE_WIDTH`] over all groups.
    pub fn package_count(&self) -> u32 {
        self.groups
            .iter()
            .map(|g| g.count.div_ceil(PACKAGE_WIDTH))
            .sum()
    }
}

/// Instances of one or more models.
#[derive(Clone, Debug)]
pub struct Crowd {
    models: Vec<ModelHandle>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    alive: u32,
}

impl Default for Crowd {
    fn default() -> Self {
        Self::new()
    }
}

impl Crowd {
    /// An empty crowd.
    pub fn new() -> Self {
        Self {
            models: Vec::new(),
            slots: Vec::new(),
            free: Vec::new(),
            alive: 0,
        }
    }

    /// Adds a model (once; adding the same handle again returns its id).
    pub fn add_model(&mut self, model: &ModelHandle) -> ModelId {
        if let Some(i) = self.models.iter().position(|m| m.key == model.key) {
            return ModelId(i as u32);
        }
        self.models.push(model.clone());
        ModelId(self.models.len() as u32 - 1)
    }

    /// The models of this crowd, indexed by [`ModelId`].
    pub fn models(&self) -> &[ModelHandle] {
        &self.models
    }

    /// A model's data.
    pub fn model(&self, id: ModelId) -> Result<&BakedModel, CrowdError> {
        self.models
            .get(id.0 as usize)
            .map(|m| m.model())
            .ok_or(CrowdError::NoSuchModel(id))
    }

    /// Clip index of `name` in `model`.
    pub fn clip_index(&self, model: ModelId, name: &str) -> Result<usize, CrowdError> {
        let m = self.model(model)?;
        m.clip_index(name).ok_or_else(|| CrowdError::UnknownClip {
            model: m.name.clone(),
            name: name.to_owned(),
            available: m
                .clips
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
    }

    /// Live instances.
    pub fn len(&self) -> usize {
        self.alive as usize
    }

    /// True if there are no live instances.
    pub fn is_empty(&self) -> bool {
        self.alive == 0
    }

    /// Ids of live instances.
    pub fn ids(&self) -> impl Iterator<Item = InstanceId> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.instance.is_some())
            .map(|(i, s)| InstanceId {
                index: i as u32,
                generation: s.generation,
            })
    }

    fn check_clip(&self, model: u32, clip: usize) -> Result<f32, CrowdError> {
        let m = self.models[model as usize].model();
        m.clips
            .get(clip)
            .map(|c| c.duration)
            .ok_or_else(|| CrowdError::ClipOutOfRange {
                model: m.name.clone(),
                index: clip,
                count: m.clips.len(),
            })
    }

    /// Spawns an instance.
    pub fn spawn(&mut self, model: ModelId, spawn: Spawn) -> Result<InstanceId, CrowdError> {
        if model.0 as usize >= self.models.len() {
            return Err(CrowdError::NoSuchModel(model));
        }
        if !spawn.transform.is_finite() {
            return Err(CrowdError::NotFinite("transform"));
        }
        if !spawn.time.is_finite() || !spawn.speed.is_finite() {
            return Err(CrowdError::NotFinite("time and speed"));
        }
        let current = match spawn.clip {
            Some(c) => {
                let d = self.check_clip(model.0, c)?;
                Some(Playback::new(
                    c as u32,
                    spawn.time,
                    spawn.speed,
                    spawn.wrap,
                    d,
                ))
            }
            None => None,
        };
        let instance = Instance {
            model: model.0,
            world_from_model: spawn.transform,
            tint: pack_tint(spawn.tint),
            current,
            previous: None,
            fade_elapsed: 0.0,
            fade_duration: 0.0,
            paused: false,
        };
        self.alive += 1;
        if let Some(index) = self.free.pop() {
            let slot = &mut self.slots[index as usize];
            slot.instance = Some(instance);
            Ok(InstanceId {
                index,
                generation: slot.generation,
            })
        } else {
            self.slots.push(Slot {
                generation: 0,
                instance: Some(instance),
            });
            Ok(InstanceId {
                index: self.slots.len() as u32 - 1,
                generation: 0,
            })
        }
    }

    fn get_mut(&mut self, id: InstanceId) -> Result<&mut Instance, CrowdError> {
        match self.slots.get_mut(id.index as usize) {
            Some(Slot {
                generation,
                instance: Some(inst),
            }) if *generation == id.generation => Ok(inst),
            _ => Err(CrowdError::NoSuchInstance(id)),
        }
    }

    fn get(&self, id: InstanceId) -> Result<&Instance, CrowdError> {
        match self.slots.get(id.index as usize) {
            Some(Slot {
                generation,
                instance: Some(inst),
            }) if *generation == id.generation => Ok(inst),
            _ => Err(CrowdError::NoSuchInstance(id)),
        }
    }

    /// True if `id` is alive.
    pub fn contains(&self, id: InstanceId) -> bool {
        self.get(id).is_ok()
    }

    /// Removes an instance. Its id becomes invalid.
    pub fn despawn(&mut self, id: InstanceId) -> Result<(), CrowdError> {
        self.get(id)?;
        let slot = &mut self.slots[id.index as usize];
        slot.instance = None;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(id.index);
        self.alive -= 1;
        Ok(())
    }

    /// Removes every instance (models stay).
    pub fn clear(&mut self) {
        for id in self.ids().collect::<Vec<_>>() {
            let _ = self.despawn(id);
        }
    }

    /// Plays `clip` from time 0, cancelling any fade; keeps speed and wrap.
    pub fn play(&mut self, id: InstanceId, clip: usize) -> Result<(), CrowdError> {
        let model = self.get(id)?.model;
        let d = self.check_clip(model, clip)?;
        let inst = self.get_mut(id)?;
        let (speed, wrap) = inst
            .current
            .map_or((1.0, WrapMode::Loop), |p| (p.speed, p.wrap));
        inst.current = Some(Playback::new(clip as u32, 0.0, speed, wrap, d));
        inst.previous = None;
        Ok(())
    }

    /// Shows the rest pose (no clip).
    pub fn play_rest(&mut self, id: InstanceId) -> Result<(), CrowdError> {
        let inst = self.get_mut(id)?;
        inst.current = None;
        inst.previous = None;
        Ok(())
    }

    /// Cross-fades to `clip` (from time 0) over `seconds`; `seconds <= 0`
    /// is [`Self::play`].
    pub fn cross_fade(
        &mut self,
        id: InstanceId,
        clip: usize,
        seconds: f32,
    ) -> Result<(), CrowdError> {
        if !seconds.is_finite() {
            return Err(CrowdError::NotFinite("fade duration"));
        }
        if seconds <= 0.0 {
            return self.play(id, clip);
        }
        let model = self.get(id)?.model;
        let d = self.check_clip(model, clip)?;
        let inst = self.get_mut(id)?;
        let (speed, wrap) = inst
            .current
            .map_or((1.0, WrapMode::Loop), |p| (p.speed, p.wrap));
        let outgoing = match (inst.previous, inst.current) {
            // Mid-fade: keep the heavier of the two as the outgoing clip.
            (Some(prev), Some(cur)) => {
                if inst.fade_elapsed / inst.fade_duration >= 0.5 {
                    Some(cur)
                } else {
                    Some(prev)
                }
            }
            (_, cur) => cur,
        };
        inst.previous = outgoing;
        inst.current = Some(Playback::new(clip as u32, 0.0, speed, wrap, d));
        inst.fade_elapsed = 0.0;
        inst.fade_duration = seconds;
        if inst.previous.is_none() {
            // From the rest pose there is nothing to fade from.
            inst.fade_duration = 0.0;
        }
        Ok(())
    }

    /// Sets the speed of the current clip.
    pub fn set_speed(&mut self, id: InstanceId, speed: f32) -> Result<(), CrowdError> {
        if !speed.is_finite() {
            return Err(CrowdError::NotFinite("speed"));
        }
        if let Some(p) = &mut self.get_mut(id)?.current {
            p.speed = speed;
        }
        Ok(())
    }

    /// Sets the wrap mode of the current clip (keeping its clip time).
    pub fn set_wrap(&mut self, id: InstanceId, wrap: WrapMode) -> Result<(), CrowdError> {
        let d = self.current_duration(id)?;
        if let Some(p) = &mut self.get_mut(id)?.current {
            let t = p.time(d);
            p.wrap = wrap;
            p.set_time(t, d);
        }
        Ok(())
    }

    /// Sets the clip time of the current clip (wrapped or clamped).
    pub fn set_time(&mut self, id: InstanceId, time: f32) -> Result<(), CrowdError> {
        if !time.is_finite() {
            return Err(CrowdError::NotFinite("time"));
        }
        let d = self.current_duration(id)?;
        if let Some(p) = &mut self.get_mut(id)?.current {
            p.set_time(time, d);
        }
        Ok(())
    }

    /// Duration of the current clip (0 for the rest pose).
    fn current_duration(&self, id: InstanceId) -> Result<f32, CrowdError> {
        let inst = self.get(id)?;
        let clips = &self.models[inst.model as usize].model().clips;
        Ok(inst
            .current
            .map_or(0.0, |p| clips[p.clip as usize].duration))
    }

    /// Stops advancing this instance's clips.
    pub fn pause(&mut self, id: InstanceId) -> Result<(), CrowdError> {
        self.get_mut(id)?.paused = true;
        Ok(())
    }

    /// Resumes a paused instance.
    pub fn resume(&mut self, id: InstanceId) -> Result<(), CrowdError> {
        self.get_mut(id)?.paused = false;
        Ok(())
    }

    /// Sets `world_from_model`.
    pub fn set_transform(
        &mut self,
        id: InstanceId,
        world_from_model: Mat4,
    ) -> Result<(), CrowdError> {
        if !world_from_model.is_finite() {
            return Err(CrowdError::NotFinite("transform"));
        }
        self.get_mut(id)?.world_from_model = world_from_model;
        Ok(())
    }

    /// Sets the tint (linear RGBA).
    pub fn set_tint(&mut self, id: InstanceId, tint: Vec4) -> Result<(), CrowdError> {
        self.get_mut(id)?.tint = pack_tint(tint);
        Ok(())
    }

    /// Animation state of an instance.
    pub fn state(&self, id: InstanceId) -> Result<InstanceState, CrowdError> {
        let inst = self.get(id)?;
        let model = self.models[inst.model as usize].model();
        let t = |p: &Playback| {
            (
                p.clip as usize,
                p.time(model.clips[p.clip as usize].duration),
            )
        };
        Ok(InstanceState {
            model: ModelId(inst.model),
            current: inst.current.as_ref().map(t),
            previous: inst.previous.as_ref().map(t),
            fade: fade_weight(inst),
            paused: inst.paused,
            world_from_model: inst.world_from_model,
        })
    }

    /// The frames an instance shows now (what its GPU record will hold).
    pub fn frame_blend(&self, id: InstanceId) -> Result<FrameBlend, CrowdError> {
        let inst = self.get(id)?;
        Ok(blend_of(inst, self.models[inst.model as usize].model()))
    }

    /// Advances every unpaused instance by `dt` seconds (times its speed).
    pub fn update(&mut self, dt: f32) {
        if !dt.is_finite() {
            return;
        }
        let models = &self.models;
        for slot in &mut self.slots {
            let Some(inst) = &mut slot.instance else {
                continue;
            };
            if inst.paused {
                continue;
            }
            let clips = &models[inst.model as usize].model().clips;
            if let Some(p) = &mut inst.current {
                p.advance(dt * p.speed, clips[p.clip as usize].duration);
            }
            if let Some(p) = &mut inst.previous {
                p.advance(dt * p.speed, clips[p.clip as usize].duration);
                inst.fade_elapsed += dt;
                if inst.fade_elapsed >= inst.fade_duration {
                    inst.previous = None;
                }
            }
        }
    }

    /// Builds this frame's records: one per instance whose animated bounds
    /// intersect `frustum` (all instances when `None`), grouped by
    /// (model, LOD). Reuses `out`'s allocations.
    pub fn build_draw_list(&self, frustum: Option<&Frustum>, out: &mut DrawList) {
        out.records.clear();
        out.groups.clear();
        out.instances = self.alive;
        let groups = self.models.len();
        out.scratch.resize_with(groups, Vec::new);
        for s in &mut out.scratch {
            s.clear();
        }
        for slot in &self.slots {
            let Some(inst) = &slot.instance else { continue };
            let model = self.models[inst.model as usize].model();
            if let Some(f) = frustum {
                let world = instance_bounds(inst, model).transformed(&inst.world_from_model);
                if !f.intersects_aabb(&world) {
                    continue;
                }
            }
            let blend = blend_of(inst, model);
            out.scratch[inst.model as usize].push(InstanceRecord::new(
                &inst.world_from_model,
                &blend,
                inst.tint,
            ));
        }
        for (m, recs) in out.scratch.iter().enumerate() {
            if recs.is_empty() {
                continue;
            }
            out.groups.push(DrawGroup {
                model: ModelId(m as u32),
                model_key: self.models[m].key,
                lod: 0,
                first: out.records.len() as u32,
                count: recs.len() as u32,
            });
            out.records.extend_from_slice(recs);
        }
    }
}

#[inline]
fn fade_weight(inst: &Instance) -> f32 {
    if inst.previous.is_some() && inst.fade_duration > 0.0 {
        (inst.fade_elapsed / inst.fade_duration).clamp(0.0, 1.0)
    } else {
        1.0
    }
}

#[inline]
fn blend_of(inst: &Instance, model: &BakedModel) -> FrameBlend {
    let frames = |p: &Playback| {
        let clip = &model.clips[p.clip as usize];
        clip.frames_at(p.time(clip.duration))
    };
    let current = inst
        .current
        .as_ref()
        .map_or(FramePair::single(REST_FRAME), frames);
    match &inst.previous {
        Some(prev) => FrameBlend {
            current,
            previous: frames(prev),
            fade: fade_weight(inst),
        },
        None => FrameBlend::single(current),
    }
}

/// Model-space bounds of what an instance can show this frame.
#[inline]
fn instance_bounds(inst: &Instance, model: &BakedModel) -> Aabb {
    let of = |p: &Option<Playback>| match p {
        Some(p) => model.clips[p.clip as usize].bounds,
        None => model.frame_bounds[REST_FRAME as usize],
    };
    match &inst.previous {
        Some(_) => of(&inst.current).union(&of(&inst.previous)),
        None => of(&inst.current),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_modes() {
        let d = 2.0;
        let mut p = Playback::new(0, 0.0, 1.0, WrapMode::Loop, d);
        p.advance(2.5, d);
        assert!((p.time(d) - 0.5).abs() < 1e-6);
        p.advance(-1.0, d);
        assert!((p.time(d) - 1.5).abs() < 1e-6, "backwards wraps");
        let mut o = Playback::new(0, 0.0, 1.0, WrapMode::Once, d);
        o.advance(5.0, d);
        assert_eq!(o.time(d), d);
        let mut pp = Playback::new(0, 0.0, 1.0, WrapMode::PingPong, d);
        pp.advance(2.5, d);
        assert!((pp.time(d) - 1.5).abs() < 1e-6, "bounced back from the end");
        pp.advance(2.0, d);
        assert!(
            (pp.time(d) - 0.5).abs() < 1e-6,
            "bounced from the start, going forward"
        );
        let mut z = Playback::new(0, 3.0, 1.0, WrapMode::Loop, 0.0);
        z.advance(1.0, 0.0);
        assert_eq!(z.time(0.0), 0.0, "zero-length clip stays at 0");
    }

    #[test]
    fn packages_split_groups_at_the_width() {
        let g = DrawGroup {
            model: ModelId(0),
            model_key: 1,
            lod: 0,
            first: 10,
            count: 450,
        };
        let p: Vec<_> = g.packages(200).collect();
        assert_eq!(p, vec![(10, 200), (210, 200), (410, 50)]);
        let empty = DrawGroup { count: 0, ..g };
        assert_eq!(empty.packages(200).count(), 0);
    }
}
