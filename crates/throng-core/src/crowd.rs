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
//!
//! # Layout
//! Instances live in dense structure-of-arrays storage (swap-remove on
//! despawn; ids map to dense slots through a generational table), so a frame
//! streams through a few tight arrays: record-ready transform rows, a cached
//! world bounding sphere per instance (recomputed only when its transform or
//! clips change), and 56-byte animation states. Each model's clips are kept as
//! compact [`FrameMap`]s plus bounding spheres.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use glam::{Mat4, Vec3, Vec4};
use thiserror::Error;

use crate::camera::{Camera, Frustum};
use crate::gpu::{FrameBlend, InstanceRecord, pack_tint};
use crate::layout::{FrameMap, FramePair};
use crate::limits::{PACKAGE_WIDTH, REST_FRAME};
use crate::math::{Aabb, rows_to_mat4};
use crate::model::BakedModel;
use crate::playback::{RootDelta, clip_time, crossings, reduce_phase, root_delta};

/// A baked model with an identity. Cheap to clone (shared).
#[derive(Clone, Debug)]
pub struct ModelHandle {
    key: u64,
    model: Arc<BakedModel>,
    bind: Arc<Vec<Mat4>>,
}

impl ModelHandle {
    /// Wraps a model (validating it) and gives it a new identity.
    pub fn new(model: BakedModel) -> Result<Self, crate::FormatError> {
        model.validate()?;
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let bind = model
            .bones
            .iter()
            .map(|b| b.inverse_bind.inverse())
            .collect();
        Ok(Self {
            key: NEXT.fetch_add(1, Ordering::Relaxed),
            model: Arc::new(model),
            bind: Arc::new(bind),
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

    /// `inverse(inverse_bind)` of every bone: maps a bone's space to bind-pose
    /// model space.
    pub fn bind_matrices(&self) -> &[Mat4] {
        &self.bind
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

pub use crate::playback::WrapMode;

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
    /// Bone index out of range.
    #[error("bone index {index} is out of range: model {model:?} has {count} bones")]
    BoneOutOfRange {
        /// Model.
        model: String,
        /// Requested index.
        index: usize,
        /// Bone count.
        count: usize,
    },
    /// Two models cannot be combined as asked.
    #[error("{0}")]
    Incompatible(String),
    /// A non-finite number (time, speed, duration, transform).
    #[error("{0} must be finite")]
    NotFinite(&'static str),
    /// More instances than the host's memory can hold.
    #[error(
        "{instances} more instances need about {needed} bytes of memory, but the host has only {available} available; spawn fewer"
    )]
    OutOfMemory {
        /// Instances asked for.
        instances: u64,
        /// Estimated bytes they need (crowd storage and a frame's records).
        needed: u64,
        /// Bytes the host can still give.
        available: u64,
    },
}

/// "No clip": the rest pose (current track) or no previous clip.
const NO_CLIP: u16 = u16::MAX;

/// One clip playing (12 bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Playback {
    /// Phase: unwrapped clip time reduced to one period
    /// ([`crate::playback::reduce_phase`]).
    phase: f32,
    /// Speed multiplier (negative plays backwards).
    speed: f32,
    /// Clip index (file order), or [`NO_CLIP`].
    clip: u16,
    /// Wrap mode.
    wrap: WrapMode,
    /// Just (re)started: the next advance includes its start time, so an
    /// event there fires.
    fresh: bool,
}

impl Playback {
    const NONE: Self = Self {
        phase: 0.0,
        speed: 1.0,
        clip: NO_CLIP,
        wrap: WrapMode::Loop,
        fresh: false,
    };

    fn new(clip: usize, time: f32, speed: f32, wrap: WrapMode, duration: f32) -> Self {
        Self {
            phase: reduce_phase(time, duration, wrap),
            speed,
            clip: clip as u16,
            wrap,
            fresh: true,
        }
    }

    #[inline]
    fn is_some(&self) -> bool {
        self.clip != NO_CLIP
    }

    /// Clip time in `[0, duration]`.
    #[inline]
    fn time(&self, duration: f32) -> f32 {
        clip_time(self.phase, duration, self.wrap)
    }

    fn set_time(&mut self, time: f32, duration: f32) {
        self.phase = reduce_phase(time, duration, self.wrap);
        self.fresh = true;
    }

    /// Moves the clip by `delta` seconds of clip time; returns the unwrapped
    /// phases before and after.
    #[inline]
    fn advance(&mut self, delta: f32, duration: f32) -> (f32, f32) {
        let u0 = self.phase;
        let u1 = u0 + delta;
        self.phase = reduce_phase(u1, duration, self.wrap);
        (u0, u1)
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
    /// Move the instance by its clips' baked root motion (for clips baked
    /// with `--root-motion`).
    pub root_motion: bool,
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
            root_motion: false,
        }
    }
}

/// Animation state of one instance (32 bytes, dense array element).
#[derive(Clone, Copy, Debug)]
struct Anim {
    current: Playback,
    previous: Playback,
    fade_elapsed: f32,
    fade_duration: f32,
}

/// Rarely written per-instance facts (dense array element).
#[derive(Clone, Copy, Debug)]
struct Meta {
    model: u16,
    paused: bool,
    /// Integrate the clip's root motion into the transform.
    root_motion: bool,
    /// Driven by a parent ([`Crowd::attach`]): not advanced on its own.
    follower: bool,
    /// Has (or had) attachments: despawning it looks for them.
    parent: bool,
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

#[derive(Clone, Copy, Debug)]
struct Slot {
    generation: u32,
    /// Dense index, or `u32::MAX` when free.
    dense: u32,
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
    /// Per dense instance: the LOD it was drawn at last frame (hysteresis
    /// state; per view, which is why it lives here and not in the crowd).
    lod_state: Vec<u8>,
    /// World box of the bounding spheres of the instances drawn.
    pub bounds: Aabb,
}

/// What a draw list is built for: culling, LOD selection and debugging.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DrawView {
    /// Cull against this frustum (`None`: draw everything).
    pub frustum: Option<Frustum>,
    /// Eye position, for LOD selection.
    pub eye: Vec3,
    /// `1 / tan(fov_y / 2)`: projected screen-height fraction of a sphere of
    /// radius r at distance d is `r · lod_scale / d`. 0 disables LOD
    /// selection (LOD 0 everywhere).
    pub lod_scale: f32,
    /// Tint every record by its LOD ([`LOD_TINTS`]) instead of its own tint.
    pub lod_tints: bool,
}

impl DrawView {
    /// Culling and LOD selection for `camera`.
    pub fn from_camera(camera: &Camera, cull: bool) -> Self {
        Self {
            frustum: cull.then(|| camera.frustum()),
            eye: camera.eye,
            lod_scale: 1.0 / (camera.fov_y * 0.5).tan(),
            lod_tints: false,
        }
    }
}

impl From<Option<&Frustum>> for DrawView {
    fn from(frustum: Option<&Frustum>) -> Self {
        Self {
            frustum: frustum.copied(),
            ..Self::default()
        }
    }
}

/// Relative band around each LOD threshold inside which an instance keeps
/// its LOD (avoids popping back and forth at the boundary).
pub const LOD_HYSTERESIS: f32 = 0.15;

/// Record tints (RGBA8, `r | g << 8 | b << 16 | a << 24`) showing LOD 0, 1,
/// 2, 3+ when [`DrawView::lod_tints`] is on: green, blue, magenta, red.
pub const LOD_TINTS: [u32; 4] = [0xff4c_ff4c, 0xffff_8c59, 0xffe6_4cff, 0xff40_40ff];

/// LOD for a projected size, given the previous LOD and each LOD's smallest
/// screen size (see [`crate::model::Lod::screen_size`]).
pub fn select_lod(size: f32, sizes: &[f32], current: usize) -> usize {
    let last = sizes.len().saturating_sub(1);
    let first_at = |scale: f32| {
        sizes
            .iter()
            .position(|&t| size >= t * scale)
            .unwrap_or(last)
    };
    let finer = first_at(1.0 + LOD_HYSTERESIS);
    let coarser = first_at(1.0 - LOD_HYSTERESIS);
    if finer < current {
        finer
    } else if coarser > current {
        coarser
    } else {
        current.min(last)
    }
}

/// A contiguous run of records of one model and LOD.
///
/// A (model, LOD) pair yields up to two groups: first the instances that are
/// not cross-fading, then those that are (`cross_fade`). A renderer draws the
/// first kind with a shader specialised to skip the previous clip's texel
/// loads entirely, which a branch on `fade` does not achieve on every GPU
/// (lavapipe pays for a never-taken branch's loads; see docs/BENCHMARKS.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawGroup {
    /// Model within the crowd.
    pub model: ModelId,
    /// Identity key of the model ([`ModelHandle::key`]).
    pub model_key: u64,
    /// LOD index.
    pub lod: u32,
    /// Some record of the group is mid-cross-fade (`fade < 1`). When false,
    /// every record has `fade == 1`.
    pub cross_fade: bool,
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

/// Per-model data the frame loop needs, compact.
#[derive(Clone, Debug)]
struct ModelRt {
    handle: ModelHandle,
    /// Per clip: frame map.
    maps: Vec<FrameMap>,
    /// Per clip: model-space bounding sphere (centre, radius) of its bounds.
    spheres: Vec<Vec4>,
    /// Rest pose sphere.
    rest_sphere: Vec4,
    /// Per clip: its events' range in the model's event list.
    event_ranges: Vec<std::ops::Range<usize>>,
    /// Per clip: baked in place with root motion.
    root_clips: Vec<bool>,
    /// Any clip has events.
    has_events: bool,
    /// Any clip has root motion.
    has_root_motion: bool,
    /// Per LOD: smallest projected screen size at which it is used.
    lod_sizes: Vec<f32>,
    /// First draw bucket of this model (buckets are (model, LOD) pairs).
    bucket: u32,
}

fn sphere_of(b: &Aabb) -> Vec4 {
    b.center().extend(b.radius())
}

/// The smallest sphere holding both.
fn sphere_union(a: Vec4, b: Vec4) -> Vec4 {
    let d = b.truncate() - a.truncate();
    let dist = d.length();
    if dist + b.w <= a.w {
        return a;
    }
    if dist + a.w <= b.w {
        return b;
    }
    let r = (dist + a.w + b.w) * 0.5;
    let c = a.truncate() + d * ((r - a.w) / dist.max(f32::MIN_POSITIVE));
    c.extend(r)
}

/// Instances of one or more models.
#[derive(Clone, Debug, Default)]
pub struct Crowd {
    models: Vec<ModelRt>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    // Dense arrays, all of the same length.
    slot_of: Vec<u32>,
    rows: Vec<[Vec4; 3]>,
    spheres: Vec<Vec4>,
    anims: Vec<Anim>,
    metas: Vec<Meta>,
    tints: Vec<u32>,
    events: Vec<CrowdEvent>,
    /// Attachments, parents before children (creation order).
    followers: Vec<Follower>,
}

/// How an attachment follows its parent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Attachment {
    /// A rigid prop: `world = parent_world · bone(t) · offset`, rest pose.
    Bone {
        /// Palette index of the parent's bone.
        bone: u32,
        /// Offset in the bone's space.
        offset: Mat4,
    },
    /// A skinned attachment sharing the parent's skeleton and frame table
    /// (baked with `throng_bake::bake_skinned_attachment`): same transform
    /// and same animation state as the parent.
    Skinned,
}

#[derive(Clone, Copy, Debug)]
struct Follower {
    child: InstanceId,
    parent: InstanceId,
    kind: Attachment,
}

/// An event crossed by an instance's playback ([`Crowd::drain_events`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CrowdEvent {
    /// The instance.
    pub instance: InstanceId,
    /// Its model.
    pub model: ModelId,
    /// The clip whose event it is.
    pub clip: usize,
    /// Index in the model's [`BakedModel::events`].
    pub event: usize,
    /// Times it was crossed in this update (more than 1 when one update
    /// spans several loops).
    pub count: u32,
    /// Weight of the clip at the time (`1 − fade` for the outgoing clip of a
    /// cross-fade, `fade` for the incoming one, 1 otherwise).
    pub weight: f32,
}

impl Crowd {
    /// An empty crowd.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a model (once; adding the same handle again returns its id).
    ///
    /// # Panics
    /// If the crowd already holds 65,535 models.
    pub fn add_model(&mut self, model: &ModelHandle) -> ModelId {
        if let Some(i) = self.models.iter().position(|m| m.handle.key == model.key) {
            return ModelId(i as u32);
        }
        assert!(
            self.models.len() < u16::MAX as usize,
            "a crowd holds at most 65,535 models"
        );
        let m = model.model();
        let event_ranges = (0..m.clips.len() as u32)
            .map(|c| {
                let start = m.events.partition_point(|e| e.clip < c);
                start..m.events.partition_point(|e| e.clip <= c)
            })
            .collect();
        self.models.push(ModelRt {
            handle: model.clone(),
            maps: m.clips.iter().map(|c| c.frame_map()).collect(),
            spheres: m.clips.iter().map(|c| sphere_of(&c.bounds)).collect(),
            rest_sphere: sphere_of(&m.frame_bounds[REST_FRAME as usize]),
            event_ranges,
            root_clips: m.clips.iter().map(|c| c.root_motion).collect(),
            has_events: !m.events.is_empty(),
            has_root_motion: !m.root_motion.is_empty(),
            lod_sizes: m.lods.iter().map(|l| l.screen_size).collect(),
            bucket: self
                .models
                .last()
                .map_or(0, |p| p.bucket + p.lod_sizes.len() as u32),
        });
        ModelId(self.models.len() as u32 - 1)
    }

    /// The models of this crowd, indexed by [`ModelId`].
    pub fn models(&self) -> impl ExactSizeIterator<Item = &ModelHandle> + '_ {
        self.models.iter().map(|m| &m.handle)
    }

    /// The handle of a model.
    pub fn model_handle(&self, id: ModelId) -> Result<&ModelHandle, CrowdError> {
        self.models
            .get(id.0 as usize)
            .map(|m| &m.handle)
            .ok_or(CrowdError::NoSuchModel(id))
    }

    /// A model's data.
    pub fn model(&self, id: ModelId) -> Result<&BakedModel, CrowdError> {
        self.model_handle(id).map(ModelHandle::model)
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
        self.anims.len()
    }

    /// True if there are no live instances.
    pub fn is_empty(&self) -> bool {
        self.anims.is_empty()
    }

    /// Ids of live instances.
    pub fn ids(&self) -> impl Iterator<Item = InstanceId> + '_ {
        self.slot_of.iter().map(|&s| InstanceId {
            index: s,
            generation: self.slots[s as usize].generation,
        })
    }

    fn duration(&self, model: u16, clip: u16) -> f32 {
        self.models[model as usize].maps[clip as usize].duration
    }

    fn check_clip(&self, model: u16, clip: usize) -> Result<f32, CrowdError> {
        let m = &self.models[model as usize];
        m.maps
            .get(clip)
            .map(|c| c.duration)
            .ok_or_else(|| CrowdError::ClipOutOfRange {
                model: m.handle.model().name.clone(),
                index: clip,
                count: m.maps.len(),
            })
    }

    /// Dense index of a live id.
    fn dense(&self, id: InstanceId) -> Result<usize, CrowdError> {
        match self.slots.get(id.index as usize) {
            Some(s) if s.generation == id.generation && s.dense != u32::MAX => Ok(s.dense as usize),
            _ => Err(CrowdError::NoSuchInstance(id)),
        }
    }

    /// Recomputes the cached world bounding sphere of dense instance `d`.
    fn refresh_sphere(&mut self, d: usize) {
        self.spheres[d] = world_sphere(
            &self.models[self.metas[d].model as usize],
            &self.anims[d],
            &self.rows[d],
        );
    }

    /// Estimated bytes one instance costs on the host: its storage in the
    /// crowd plus its share of a frame's draw lists (a record for the camera
    /// pass and one for the shadow pass, and the renderer's staging copy of
    /// both).
    pub const BYTES_PER_INSTANCE: u64 = (std::mem::size_of::<Slot>()
        + std::mem::size_of::<u32>()
        + std::mem::size_of::<[Vec4; 3]>()
        + std::mem::size_of::<Vec4>()
        + std::mem::size_of::<Anim>()
        + std::mem::size_of::<Meta>()
        + std::mem::size_of::<u32>()
        + 4 * std::mem::size_of::<InstanceRecord>()) as u64;

    /// Makes room for `additional` more instances, or says why not: an
    /// error when they would need more memory than the host can still give
    /// ([`crate::host_memory`]), checked before anything is allocated.
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), CrowdError> {
        let needed = (additional as u64).saturating_mul(Self::BYTES_PER_INSTANCE);
        let out_of_memory = |available| CrowdError::OutOfMemory {
            instances: additional as u64,
            needed,
            available,
        };
        crate::host_memory::check(needed).map_err(out_of_memory)?;
        let fits = self.slots.try_reserve(additional).is_ok()
            && self.slot_of.try_reserve(additional).is_ok()
            && self.rows.try_reserve(additional).is_ok()
            && self.spheres.try_reserve(additional).is_ok()
            && self.anims.try_reserve(additional).is_ok()
            && self.metas.try_reserve(additional).is_ok()
            && self.tints.try_reserve(additional).is_ok();
        if fits {
            Ok(())
        } else {
            Err(out_of_memory(
                crate::host_memory::available_bytes().unwrap_or(0),
            ))
        }
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
        let m = model.0 as u16;
        let current = match spawn.clip {
            Some(c) => {
                let d = self.check_clip(m, c)?;
                Playback::new(c, spawn.time, spawn.speed, spawn.wrap, d)
            }
            None => Playback {
                speed: spawn.speed,
                wrap: spawn.wrap,
                ..Playback::NONE
            },
        };
        let dense = self.anims.len() as u32;
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    dense: u32::MAX,
                });
                self.slots.len() as u32 - 1
            }
        };
        let slot = &mut self.slots[index as usize];
        slot.dense = dense;
        let id = InstanceId {
            index,
            generation: slot.generation,
        };
        self.slot_of.push(index);
        self.rows.push(rows_of(&spawn.transform));
        self.spheres.push(Vec4::ZERO);
        self.anims.push(Anim {
            current,
            previous: Playback::NONE,
            fade_elapsed: 0.0,
            fade_duration: 0.0,
        });
        self.metas.push(Meta {
            model: m,
            paused: false,
            root_motion: spawn.root_motion,
            follower: false,
            parent: false,
        });
        self.tints.push(pack_tint(spawn.tint));
        self.refresh_sphere(dense as usize);
        Ok(id)
    }

    /// True if `id` is alive.
    pub fn contains(&self, id: InstanceId) -> bool {
        self.dense(id).is_ok()
    }

    /// Removes an instance. Its id becomes invalid.
    pub fn despawn(&mut self, id: InstanceId) -> Result<(), CrowdError> {
        let meta = self.metas[self.dense(id)?];
        // Attachments go with their parent. Only instances that take part
        // in an attachment pay for the search (mass despawns stay linear).
        if meta.parent || meta.follower {
            let children: Vec<InstanceId> = self
                .followers
                .iter()
                .filter(|f| f.parent == id)
                .map(|f| f.child)
                .collect();
            self.followers.retain(|f| f.child != id && f.parent != id);
            for child in children {
                let _ = self.despawn(child);
            }
        }
        let d = self.dense(id)?;
        let slot = &mut self.slots[id.index as usize];
        slot.dense = u32::MAX;
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(id.index);
        self.slot_of.swap_remove(d);
        self.rows.swap_remove(d);
        self.spheres.swap_remove(d);
        self.anims.swap_remove(d);
        self.metas.swap_remove(d);
        self.tints.swap_remove(d);
        if d < self.slot_of.len() {
            let moved = self.slot_of[d];
            self.slots[moved as usize].dense = d as u32;
        }
        Ok(())
    }

    /// Removes every instance (models stay).
    pub fn clear(&mut self) {
        for &index in &self.slot_of {
            let slot = &mut self.slots[index as usize];
            slot.dense = u32::MAX;
            slot.generation = slot.generation.wrapping_add(1);
            self.free.push(index);
        }
        self.slot_of.clear();
        self.rows.clear();
        self.spheres.clear();
        self.anims.clear();
        self.metas.clear();
        self.tints.clear();
        self.followers.clear();
    }

    /// Plays `clip` from time 0, cancelling any fade; keeps speed and wrap.
    pub fn play(&mut self, id: InstanceId, clip: usize) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        let dur = self.check_clip(self.metas[d].model, clip)?;
        let a = &mut self.anims[d];
        a.current = Playback::new(clip, 0.0, a.current.speed, a.current.wrap, dur);
        a.previous = Playback::NONE;
        self.refresh_sphere(d);
        Ok(())
    }

    /// Shows the rest pose (no clip).
    pub fn play_rest(&mut self, id: InstanceId) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        let a = &mut self.anims[d];
        a.current = Playback {
            speed: a.current.speed,
            wrap: a.current.wrap,
            ..Playback::NONE
        };
        a.previous = Playback::NONE;
        self.refresh_sphere(d);
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
        let d = self.dense(id)?;
        let dur = self.check_clip(self.metas[d].model, clip)?;
        let a = &mut self.anims[d];
        // Mid-fade: keep the heavier of the two as the outgoing clip.
        let outgoing = if a.previous.is_some() && a.fade_elapsed / a.fade_duration < 0.5 {
            a.previous
        } else {
            a.current
        };
        a.previous = outgoing;
        a.current = Playback::new(clip, 0.0, a.current.speed, a.current.wrap, dur);
        a.fade_elapsed = 0.0;
        a.fade_duration = seconds;
        if !a.previous.is_some() {
            // From the rest pose there is nothing to fade from.
            a.fade_duration = 0.0;
        }
        self.refresh_sphere(d);
        Ok(())
    }

    /// Sets the speed of the current clip.
    pub fn set_speed(&mut self, id: InstanceId, speed: f32) -> Result<(), CrowdError> {
        if !speed.is_finite() {
            return Err(CrowdError::NotFinite("speed"));
        }
        let d = self.dense(id)?;
        self.anims[d].current.speed = speed;
        Ok(())
    }

    /// Sets the wrap mode of the current clip (keeping its clip time).
    pub fn set_wrap(&mut self, id: InstanceId, wrap: WrapMode) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        let cur = self.anims[d].current;
        let dur = if cur.is_some() {
            self.duration(self.metas[d].model, cur.clip)
        } else {
            0.0
        };
        let p = &mut self.anims[d].current;
        let t = p.time(dur);
        p.wrap = wrap;
        p.set_time(t, dur);
        Ok(())
    }

    /// Sets the clip time of the current clip (wrapped or clamped).
    pub fn set_time(&mut self, id: InstanceId, time: f32) -> Result<(), CrowdError> {
        if !time.is_finite() {
            return Err(CrowdError::NotFinite("time"));
        }
        let d = self.dense(id)?;
        let cur = self.anims[d].current;
        if cur.is_some() {
            let dur = self.duration(self.metas[d].model, cur.clip);
            self.anims[d].current.set_time(time, dur);
        }
        Ok(())
    }

    /// Stops advancing this instance's clips.
    pub fn pause(&mut self, id: InstanceId) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        self.metas[d].paused = true;
        Ok(())
    }

    /// Resumes a paused instance.
    pub fn resume(&mut self, id: InstanceId) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        self.metas[d].paused = false;
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
        let d = self.dense(id)?;
        self.rows[d] = rows_of(&world_from_model);
        self.refresh_sphere(d);
        Ok(())
    }

    /// Sets the tint (linear RGBA).
    pub fn set_tint(&mut self, id: InstanceId, tint: Vec4) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        self.tints[d] = pack_tint(tint);
        Ok(())
    }

    /// Animation state of an instance.
    pub fn state(&self, id: InstanceId) -> Result<InstanceState, CrowdError> {
        let d = self.dense(id)?;
        let (a, meta) = (&self.anims[d], self.metas[d]);
        let t = |p: &Playback| {
            p.is_some()
                .then(|| (p.clip as usize, p.time(self.duration(meta.model, p.clip))))
        };
        Ok(InstanceState {
            model: ModelId(meta.model as u32),
            current: t(&a.current),
            previous: t(&a.previous),
            fade: fade_weight(a),
            paused: meta.paused,
            world_from_model: mat4_of(&self.rows[d]),
        })
    }

    /// The frames an instance shows now (what its GPU record will hold).
    pub fn frame_blend(&self, id: InstanceId) -> Result<FrameBlend, CrowdError> {
        let d = self.dense(id)?;
        Ok(blend_of(
            &self.anims[d],
            &self.models[self.metas[d].model as usize].maps,
        ))
    }

    /// World transform of `bone`'s node for an instance, from the baked data,
    /// interpolated and cross-faded exactly as the shader does:
    /// `world_from_model · P(blended) · bind`.
    pub fn bone_world_transform(&self, id: InstanceId, bone: usize) -> Result<Mat4, CrowdError> {
        let d = self.dense(id)?;
        let rt = &self.models[self.metas[d].model as usize];
        let model = rt.handle.model();
        if bone >= model.bones.len() {
            return Err(CrowdError::BoneOutOfRange {
                model: model.name.clone(),
                index: bone,
                count: model.bones.len(),
            });
        }
        let blend = blend_of(&self.anims[d], &rt.maps);
        let rows = crate::baked::blended_bone_rows(model, bone as u32, &blend);
        Ok(mat4_of(&self.rows[d]) * rows_to_mat4(&rows) * rt.handle.bind_matrices()[bone])
    }

    /// Advances every unpaused instance by `dt` seconds (times its speed).
    pub fn update(&mut self, dt: f32) {
        if !dt.is_finite() {
            return;
        }
        for d in 0..self.anims.len() {
            self.step(d, dt);
        }
        self.sync_followers();
    }

    /// Attaches a rigid prop: spawns an instance of `prop` (shown in its rest
    /// pose) that follows `bone` of `parent` with `offset` in the bone's
    /// space, every update, on every instance it is attached to. Despawning
    /// the parent despawns it. Returns the prop's own id (tint it, despawn
    /// it).
    pub fn attach(
        &mut self,
        parent: InstanceId,
        prop: ModelId,
        bone: usize,
        offset: Mat4,
    ) -> Result<InstanceId, CrowdError> {
        let d = self.dense(parent)?;
        let model = self.models[self.metas[d].model as usize].handle.model();
        if bone >= model.bones.len() {
            return Err(CrowdError::BoneOutOfRange {
                model: model.name.clone(),
                index: bone,
                count: model.bones.len(),
            });
        }
        if !offset.is_finite() {
            return Err(CrowdError::NotFinite("attachment offset"));
        }
        self.add_follower(
            parent,
            prop,
            Attachment::Bone {
                bone: bone as u32,
                offset,
            },
        )
    }

    /// Attaches a skinned attachment (clothing baked against the parent's
    /// skeleton): it shares the parent's transform and animation every
    /// update. Its model must have the parent model's frame table
    /// (`throng_bake::bake_skinned_attachment` makes such a model).
    pub fn attach_skinned(
        &mut self,
        parent: InstanceId,
        clothing: ModelId,
    ) -> Result<InstanceId, CrowdError> {
        let d = self.dense(parent)?;
        let parent_model = self.models[self.metas[d].model as usize].handle.model();
        let child_model = self.model(clothing)?;
        let maps = |m: &BakedModel| m.clips.iter().map(|c| c.frame_map()).collect::<Vec<_>>();
        let same =
            child_model.texture == parent_model.texture && maps(child_model) == maps(parent_model);
        if !same {
            return Err(CrowdError::Incompatible(format!(
                "{:?} does not share {:?}'s skeleton and frames; bake it with bake_skinned_attachment",
                child_model.name, parent_model.name
            )));
        }
        self.add_follower(parent, clothing, Attachment::Skinned)
    }

    fn add_follower(
        &mut self,
        parent: InstanceId,
        model: ModelId,
        kind: Attachment,
    ) -> Result<InstanceId, CrowdError> {
        let child = self.spawn(model, Spawn::default())?;
        let d = self.dense(child)?;
        self.metas[d].follower = true;
        let p = self.dense(parent)?;
        self.metas[p].parent = true;
        let f = Follower {
            child,
            parent,
            kind,
        };
        self.followers.push(f);
        self.sync_follower(f);
        Ok(child)
    }

    /// Attachments of `parent`.
    pub fn attachments(
        &self,
        parent: InstanceId,
    ) -> impl Iterator<Item = (InstanceId, Attachment)> + '_ {
        self.followers
            .iter()
            .filter(move |f| f.parent == parent)
            .map(|f| (f.child, f.kind))
    }

    /// Moves every attachment to where its parent is now.
    fn sync_followers(&mut self) {
        for i in 0..self.followers.len() {
            self.sync_follower(self.followers[i]);
        }
    }

    /// Moves one attachment to where its parent is now.
    fn sync_follower(&mut self, f: Follower) {
        let (Ok(p), Ok(c)) = (self.dense(f.parent), self.dense(f.child)) else {
            return;
        };
        match f.kind {
            Attachment::Bone { bone, offset } => {
                let world = self
                    .bone_world_transform(f.parent, bone as usize)
                    .map(|m| m * offset);
                if let Ok(world) = world {
                    self.rows[c] = rows_of(&world);
                }
            }
            Attachment::Skinned => {
                self.rows[c] = self.rows[p];
                self.anims[c] = self.anims[p];
            }
        }
        self.refresh_sphere(c);
    }

    /// Advances dense instance `d` by `dt` (unless paused): clips, fade,
    /// events, root motion, and the cached sphere when bounds changed.
    #[inline]
    fn step(&mut self, d: usize, dt: f32) {
        let meta = self.metas[d];
        if meta.paused || meta.follower {
            return;
        }
        let rt = &self.models[meta.model as usize];
        let full = rt.has_events || (rt.has_root_motion && meta.root_motion);
        if !full {
            if advance(&mut self.anims[d], dt, &rt.maps) {
                self.spheres[d] = world_sphere(rt, &self.anims[d], &self.rows[d]);
            }
            return;
        }
        // The full path: events and root motion need the traversed phases.
        let a = &mut self.anims[d];
        let track = |p: &mut Playback| {
            p.is_some().then(|| {
                let fresh = std::mem::replace(&mut p.fresh, false);
                let (u0, u1) = p.advance(dt * p.speed, rt.maps[p.clip as usize].duration);
                (*p, u0, u1, fresh)
            })
        };
        let cur = track(&mut a.current);
        let prev = track(&mut a.previous);
        let mut fade_ended = false;
        if a.previous.is_some() {
            a.fade_elapsed += dt;
            fade_ended = a.fade_elapsed >= a.fade_duration;
        }
        let w = if fade_ended { 1.0 } else { fade_weight(a) };
        if fade_ended {
            a.previous = Playback::NONE;
        }
        if rt.has_events {
            let index = self.slot_of[d];
            let instance = InstanceId {
                index,
                generation: self.slots[index as usize].generation,
            };
            let events = &rt.handle.model().events;
            for (t, weight) in [(cur, w), (prev, 1.0 - w)] {
                let Some((p, u0, u1, fresh)) = t else {
                    continue;
                };
                let map = &rt.maps[p.clip as usize];
                for e in rt.event_ranges[p.clip as usize].clone() {
                    let n = crossings(events[e].time, map.duration, p.wrap, u0, u1, fresh);
                    if n > 0 {
                        self.events.push(CrowdEvent {
                            instance,
                            model: ModelId(meta.model as u32),
                            clip: p.clip as usize,
                            event: e,
                            count: n.min(u32::MAX as u64) as u32,
                            weight,
                        });
                    }
                }
            }
        }
        let mut moved = false;
        if rt.has_root_motion && meta.root_motion {
            let keys = &rt.handle.model().root_motion;
            let delta = |t: Option<(Playback, f32, f32, bool)>| match t {
                Some((p, u0, u1, _)) if rt.root_clips[p.clip as usize] => {
                    root_delta(keys, &rt.maps[p.clip as usize], p.wrap, u0, u1)
                }
                _ => RootDelta::IDENTITY,
            };
            let motion = match prev {
                Some(_) => RootDelta::lerp(&delta(prev), &delta(cur), w),
                None => delta(cur),
            };
            if motion != RootDelta::IDENTITY {
                self.rows[d] = rows_of(&(mat4_of(&self.rows[d]) * motion.to_mat4()));
                moved = true;
            }
        }
        if moved || fade_ended {
            self.spheres[d] = world_sphere(rt, &self.anims[d], &self.rows[d]);
        }
    }

    /// Takes the events crossed since the last call, in update order.
    pub fn drain_events(&mut self) -> std::vec::Drain<'_, CrowdEvent> {
        self.events.drain(..)
    }

    /// Turns root-motion integration on or off for an instance.
    pub fn set_root_motion(&mut self, id: InstanceId, on: bool) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        self.metas[d].root_motion = on;
        Ok(())
    }

    /// Builds this frame's records: one per instance whose animated bounds
    /// intersect the view's frustum (all instances without one), at the LOD
    /// its projected size selects, grouped by (model, LOD). Reuses `out`'s
    /// allocations and keeps its per-instance LOD hysteresis. An
    /// `Option<&Frustum>` converts into a view with culling and no LOD.
    pub fn build_draw_list(&self, view: impl Into<DrawView>, out: &mut DrawList) {
        let view = view.into();
        let mut pass = DrawPass::new(&self.models, self.anims.len(), &view, out);
        for d in 0..self.anims.len() {
            let meta = self.metas[d];
            pass.visit(
                d,
                &self.models[meta.model as usize],
                &self.anims[d],
                &self.rows[d],
                &self.spheres[d],
                self.tints[d],
            );
        }
        pass.finish(&self.models);
    }

    /// [`Self::update`] then [`Self::build_draw_list`] in one pass over the
    /// instances: the same result with each instance's state read once.
    pub fn tick(&mut self, dt: f32, view: impl Into<DrawView>, out: &mut DrawList) {
        let view = view.into();
        if !dt.is_finite() {
            self.build_draw_list(view, out);
            return;
        }
        let mut pass = DrawPass::new(&self.models, self.anims.len(), &view, out);
        for d in 0..self.anims.len() {
            self.step(d, dt);
            let meta = self.metas[d];
            if meta.follower {
                continue; // visited once its parent has moved
            }
            pass.visit(
                d,
                &self.models[meta.model as usize],
                &self.anims[d],
                &self.rows[d],
                &self.spheres[d],
                self.tints[d],
            );
        }
        if !self.followers.is_empty() {
            self.sync_followers();
            for f in &self.followers {
                let Ok(d) = self.dense(f.child) else { continue };
                let model = self.metas[d].model as usize;
                pass.visit(
                    d,
                    &self.models[model],
                    &self.anims[d],
                    &self.rows[d],
                    &self.spheres[d],
                    self.tints[d],
                );
            }
        }
        pass.finish(&self.models);
    }
}

/// Advances both tracks of an instance; returns true when a fade ended (its
/// bounds shrink).
#[inline]
fn advance(a: &mut Anim, dt: f32, maps: &[FrameMap]) -> bool {
    if a.current.is_some() {
        a.current
            .advance(dt * a.current.speed, maps[a.current.clip as usize].duration);
    }
    if a.previous.is_some() {
        a.previous.advance(
            dt * a.previous.speed,
            maps[a.previous.clip as usize].duration,
        );
        a.fade_elapsed += dt;
        if a.fade_elapsed >= a.fade_duration {
            a.previous = Playback::NONE;
            return true;
        }
    }
    false
}

/// World bounding sphere of an instance: its clip's (or both clips', while
/// fading) model-space sphere moved by the instance matrix, the radius scaled
/// by the matrix's largest axis scale.
#[inline]
fn world_sphere(m: &ModelRt, a: &Anim, r: &[Vec4; 3]) -> Vec4 {
    let of = |p: &Playback| {
        if p.is_some() {
            m.spheres[p.clip as usize]
        } else {
            m.rest_sphere
        }
    };
    let mut s = of(&a.current);
    if a.previous.is_some() {
        s = sphere_union(s, of(&a.previous));
    }
    let c = s.truncate().extend(1.0);
    let center = Vec3::new(r[0].dot(c), r[1].dot(c), r[2].dot(c));
    let col = |i: usize| Vec3::new(r[0][i], r[1][i], r[2][i]).length_squared();
    let scale = col(0).max(col(1)).max(col(2)).sqrt();
    center.extend(s.w * scale)
}

/// Record building for one frame: culling, LOD selection, then records into
/// per-(model, LOD, fading) buckets. Scratch list `2 * bucket + fading`
/// holds a bucket's records; with one (model, LOD) bucket (`single`), records
/// that do not fade go straight into the output and only fading ones take
/// the detour through scratch.
struct DrawPass<'a> {
    out: &'a mut DrawList,
    view: DrawView,
    single: bool,
}

impl<'a> DrawPass<'a> {
    fn new(models: &[ModelRt], instances: usize, view: &DrawView, out: &'a mut DrawList) -> Self {
        out.records.clear();
        out.groups.clear();
        out.instances = instances as u32;
        out.bounds = Aabb::EMPTY;
        let buckets = models
            .last()
            .map_or(0, |m| m.bucket as usize + m.lod_sizes.len());
        let single = buckets <= 1;
        if single {
            out.records.reserve(instances);
        }
        out.scratch.resize_with(2 * buckets.max(1), Vec::new);
        for s in &mut out.scratch {
            s.clear();
        }
        out.lod_state.resize(instances, 0);
        Self {
            out,
            view: *view,
            single,
        }
    }

    #[inline]
    fn visit(
        &mut self,
        d: usize,
        rt: &ModelRt,
        a: &Anim,
        rows: &[Vec4; 3],
        sphere: &Vec4,
        tint: u32,
    ) {
        if let Some(f) = &self.view.frustum {
            // Branch-free: the smallest signed distance over the six planes.
            let c = sphere.truncate().extend(1.0);
            let p = &f.planes;
            let d = p[0]
                .dot(c)
                .min(p[1].dot(c))
                .min(p[2].dot(c))
                .min(p[3].dot(c))
                .min(p[4].dot(c))
                .min(p[5].dot(c));
            if d < -sphere.w {
                return;
            }
        }
        let r = Vec3::splat(sphere.w);
        self.out.bounds.min = self.out.bounds.min.min(sphere.truncate() - r);
        self.out.bounds.max = self.out.bounds.max.max(sphere.truncate() + r);
        let mut lod = 0;
        if rt.lod_sizes.len() > 1 && self.view.lod_scale > 0.0 {
            let dist = (sphere.truncate() - self.view.eye)
                .length()
                .max(sphere.w)
                .max(f32::MIN_POSITIVE);
            let size = sphere.w * self.view.lod_scale / dist;
            lod = select_lod(size, &rt.lod_sizes, self.out.lod_state[d] as usize);
            self.out.lod_state[d] = lod as u8;
        }
        let tint = if self.view.lod_tints {
            LOD_TINTS[lod.min(LOD_TINTS.len() - 1)]
        } else {
            tint
        };
        let rec = InstanceRecord::from_rows(rows, &blend_of(a, &rt.maps), tint);
        let fading = rec.fade < 1.0;
        if self.single && !fading {
            self.out.records.push(rec);
        } else {
            self.out.scratch[2 * (rt.bucket as usize + lod) + fading as usize].push(rec);
        }
    }

    fn finish(self, models: &[ModelRt]) {
        let out = self.out;
        // Records already in the output (single bucket, not fading).
        let mut direct = out.records.len() as u32;
        for (m, model) in models.iter().enumerate() {
            for lod in 0..model.lod_sizes.len() {
                let bucket = model.bucket as usize + lod;
                for fading in [false, true] {
                    let first = out.records.len() as u32 - std::mem::take(&mut direct);
                    out.records
                        .extend_from_slice(&out.scratch[2 * bucket + fading as usize]);
                    let count = out.records.len() as u32 - first;
                    if count == 0 {
                        continue;
                    }
                    out.groups.push(DrawGroup {
                        model: ModelId(m as u32),
                        model_key: model.handle.key,
                        lod: lod as u32,
                        cross_fade: fading,
                        first,
                        count,
                    });
                }
            }
        }
    }
}

/// Top three rows of an affine matrix.
#[inline]
fn rows_of(m: &Mat4) -> [Vec4; 3] {
    let t = m.transpose();
    [t.x_axis, t.y_axis, t.z_axis]
}

#[inline]
fn mat4_of(r: &[Vec4; 3]) -> Mat4 {
    rows_to_mat4(r)
}

#[inline]
fn fade_weight(a: &Anim) -> f32 {
    if a.previous.is_some() && a.fade_duration > 0.0 {
        (a.fade_elapsed / a.fade_duration).clamp(0.0, 1.0)
    } else {
        1.0
    }
}

#[inline(always)]
fn blend_of(a: &Anim, maps: &[FrameMap]) -> FrameBlend {
    #[inline(always)]
    fn frames(p: &Playback, maps: &[FrameMap]) -> FramePair {
        let m = &maps[p.clip as usize];
        m.frames_at(p.time(m.duration))
    }
    let current = if a.current.is_some() {
        frames(&a.current, maps)
    } else {
        FramePair::single(REST_FRAME)
    };
    if a.previous.is_some() {
        FrameBlend {
            current,
            previous: frames(&a.previous, maps),
            fade: fade_weight(a),
        }
    } else {
        FrameBlend::single(current)
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
            cross_fade: false,
            first: 10,
            count: 450,
        };
        let p: Vec<_> = g.packages(200).collect();
        assert_eq!(p, vec![(10, 200), (210, 200), (410, 50)]);
        let empty = DrawGroup { count: 0, ..g };
        assert_eq!(empty.packages(200).count(), 0);
    }

    use crate::camera::Camera;
    use crate::math::mat4_to_rows;
    use crate::model::{BakedVertex, Bone, BoneTexture, ClipInfo, Lod, Submesh, Texels};

    /// One bone, one triangle reaching from the origin to x = `reach`, and
    /// two clips: "still" (1 s, identity) and "swing" (2 s, moved by +y).
    fn test_model(reach: f32) -> ModelHandle {
        let frames: Vec<Mat4> = vec![
            Mat4::IDENTITY, // rest
            Mat4::IDENTITY,
            Mat4::IDENTITY, // still: 2 frames
            Mat4::IDENTITY,
            Mat4::from_translation(Vec3::Y),
            Mat4::from_translation(Vec3::Y * 2.0), // swing: 3 frames
        ];
        let texels = frames
            .iter()
            .flat_map(|m| mat4_to_rows(m).map(|r| r.to_array()))
            .collect::<Vec<_>>();
        let tri = [
            Vec3::ZERO,
            Vec3::new(reach, 0.0, 0.0),
            Vec3::new(0.0, 0.5, 0.0),
        ];
        let bounds = |lift: f32| Aabb {
            min: Vec3::new(0.0, lift, 0.0),
            max: Vec3::new(reach, 0.5 + lift, 0.0),
        };
        let model = BakedModel {
            name: "test".into(),
            source: String::new(),
            fps: 1.0,
            bake_error: 0.0,
            bones: vec![Bone {
                name: "root".into(),
                node: 0,
                parent: None,
                inverse_bind: Mat4::IDENTITY,
                rest_global: Mat4::IDENTITY,
            }],
            clips: vec![
                ClipInfo {
                    name: "still".into(),
                    duration: 1.0,
                    first_frame: 1,
                    frame_count: 2,
                    bounds: bounds(0.0),
                    root_motion: false,
                    error: Default::default(),
                },
                ClipInfo {
                    name: "swing".into(),
                    duration: 2.0,
                    first_frame: 3,
                    frame_count: 3,
                    bounds: bounds(0.0).union(&bounds(2.0)),
                    root_motion: false,
                    error: Default::default(),
                },
            ],
            texture: BoneTexture {
                width: 5,
                layers: 1,
                texels: Texels::F32(texels),
            },
            bounds: bounds(0.0).union(&bounds(2.0)),
            bounding_radius: bounds(0.0).union(&bounds(2.0)).radius(),
            frame_bounds: vec![
                bounds(0.0),
                bounds(0.0),
                bounds(0.0),
                bounds(0.0),
                bounds(1.0),
                bounds(2.0),
            ],
            lods: vec![Lod {
                screen_size: 0.0,
                vertices: tri
                    .iter()
                    .map(|p| BakedVertex {
                        position: p.to_array(),
                        normal: [0.0, 0.0, 1.0],
                        uv: [0.0; 2],
                        joints: [0; 4],
                        weights: [1.0, 0.0, 0.0, 0.0],
                    })
                    .collect(),
                indices: vec![0, 1, 2],
                submeshes: vec![Submesh {
                    material: None,
                    flags: 0,
                    source_node: 0,
                    source_mesh: 0,
                    source_primitive: 0,
                    base_vertex: 0,
                    vertex_count: 3,
                    first_index: 0,
                    index_count: 3,
                }],
            }],
            materials: vec![],
            images: vec![],
            root_motion: vec![],
            events: vec![],
        };
        ModelHandle::new(model).expect("valid test model")
    }

    fn at(x: f32) -> Spawn {
        Spawn {
            transform: Mat4::from_translation(Vec3::new(x, 0.0, 0.0)),
            clip: Some(1),
            ..Spawn::default()
        }
    }

    #[test]
    fn despawn_keeps_every_other_instance_intact() {
        let h = test_model(1.0);
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&h);
        let ids: Vec<_> = (0..5)
            .map(|i| crowd.spawn(m, at(i as f32 * 10.0)).unwrap())
            .collect();
        crowd
            .set_tint(ids[4], Vec4::new(1.0, 0.0, 0.0, 1.0))
            .unwrap();
        crowd.despawn(ids[1]).unwrap(); // the last instance moves into slot 1
        for (i, id) in ids.iter().enumerate() {
            if i == 1 {
                assert!(!crowd.contains(*id));
                continue;
            }
            let s = crowd.state(*id).unwrap();
            assert_eq!(
                s.world_from_model.w_axis.x,
                i as f32 * 10.0,
                "instance {i} kept its transform"
            );
        }
        let mut list = DrawList::default();
        crowd.build_draw_list(None, &mut list);
        assert_eq!(list.visible(), 4);
        assert!(
            list.records
                .iter()
                .any(|r| r.tint == pack_tint(Vec4::new(1.0, 0.0, 0.0, 1.0))),
            "tint moved with its instance"
        );
        assert_eq!(crowd.ids().count(), 4);
    }

    #[test]
    fn fading_instances_get_their_own_groups() {
        // One model (the direct path) and two models (the scratch path).
        for models in 1..=2 {
            let mut crowd = Crowd::new();
            let mut ids = Vec::new();
            for _ in 0..models {
                let m = crowd.add_model(&test_model(1.0));
                for i in 0..7 {
                    ids.push(crowd.spawn(m, at(i as f32)).unwrap());
                }
            }
            for (k, id) in ids.iter().enumerate() {
                if k % 3 == 1 {
                    crowd.cross_fade(*id, 0, 1.0).unwrap();
                }
            }
            crowd.update(0.25);
            let mut list = DrawList::default();
            crowd.build_draw_list(None, &mut list);
            assert_eq!(list.visible() as usize, ids.len());
            let mut covered = 0;
            for (i, g) in list.groups.iter().enumerate() {
                assert_eq!(g.first, covered, "groups are contiguous: {:?}", list.groups);
                covered += g.count;
                let recs = &list.records[g.first as usize..(g.first + g.count) as usize];
                for r in recs {
                    assert_eq!(
                        r.fade < 1.0,
                        g.cross_fade,
                        "group {i}: record fade {}",
                        r.fade
                    );
                }
            }
            assert_eq!(covered, list.visible());
            // Per model: 7 instances, of which those with k % 3 == 1 fade.
            let expect: Vec<(u32, bool, u32)> = (0..models as u32)
                .flat_map(|m| {
                    let fading = (0..7).filter(|i| (m * 7 + i) % 3 == 1).count() as u32;
                    [(m, false, 7 - fading), (m, true, fading)]
                })
                .collect();
            let got: Vec<(u32, bool, u32)> = list
                .groups
                .iter()
                .map(|g| (g.model.0, g.cross_fade, g.count))
                .collect();
            assert_eq!(got, expect);
            // Once the fades finish, one group per model again.
            crowd.update(1.0);
            crowd.build_draw_list(None, &mut list);
            assert!(list.groups.iter().all(|g| !g.cross_fade && g.count == 7));
            assert_eq!(list.groups.len(), models);
        }
    }

    #[test]
    fn clear_invalidates_every_id_including_attachments() {
        let h = test_model(1.0);
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&h);
        let a = crowd.spawn(m, at(0.0)).unwrap();
        let b = crowd.spawn(m, at(5.0)).unwrap();
        let prop = crowd.attach(a, m, 0, Mat4::IDENTITY).unwrap();
        crowd.clear();
        assert!(crowd.is_empty());
        for id in [a, b, prop] {
            assert!(!crowd.contains(id));
            assert!(crowd.despawn(id).is_err());
        }
        assert_eq!(crowd.attachments(a).count(), 0);
        // Slots are reused with new generations; old ids stay dead.
        let c = crowd.spawn(m, at(1.0)).unwrap();
        assert!(crowd.contains(c) && !crowd.contains(a) && !crowd.contains(b));
        let mut list = DrawList::default();
        crowd.update(0.1);
        crowd.build_draw_list(None, &mut list);
        assert_eq!(list.visible(), 1);
    }

    #[test]
    fn tick_equals_update_then_build() {
        let h = test_model(1.0);
        let mut a = Crowd::new();
        let m = a.add_model(&h);
        for i in 0..20 {
            let id = a
                .spawn(
                    m,
                    Spawn {
                        time: i as f32 * 0.13,
                        speed: 0.5 + i as f32 * 0.1,
                        ..at(i as f32)
                    },
                )
                .unwrap();
            if i % 3 == 0 {
                a.cross_fade(id, 0, 0.25 + i as f32 * 0.01).unwrap();
            }
            if i % 7 == 0 {
                a.pause(id).unwrap();
            }
        }
        let mut b = a.clone();
        let frustum = Camera::look_at(
            Vec3::new(10.0, 2.0, 30.0),
            Vec3::new(10.0, 0.0, 0.0),
            Vec3::Y,
            0.5,
            1.0,
            0.1,
            100.0,
        )
        .frustum();
        let (mut la, mut lb) = (DrawList::default(), DrawList::default());
        for _ in 0..30 {
            a.update(0.05);
            a.build_draw_list(Some(&frustum), &mut la);
            b.tick(0.05, Some(&frustum), &mut lb);
            assert_eq!(la.records, lb.records);
            assert_eq!(la.groups, lb.groups);
        }
        assert!(
            la.visible() > 0 && la.visible() < 20,
            "some culled, some drawn: {}",
            la.visible()
        );
    }

    #[test]
    fn culling_drops_instances_out_of_view_but_keeps_limbs_reaching_in() {
        // The camera looks at x in about [-4, 4]; the triangle reaches 10 units along +x.
        let camera = Camera::look_at(
            Vec3::new(0.0, 0.0, 10.0),
            Vec3::ZERO,
            Vec3::Y,
            0.8,
            1.0,
            0.1,
            100.0,
        );
        let frustum = camera.frustum();
        let h = test_model(10.0);
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&h);
        let inside = crowd.spawn(m, at(0.0)).unwrap();
        let far_right = crowd.spawn(m, at(30.0)).unwrap();
        // Origin at x = -12 is outside the view, but its triangle reaches to x = -2.
        let reaching = crowd.spawn(m, at(-12.0)).unwrap();
        let behind = crowd
            .spawn(
                m,
                Spawn {
                    transform: Mat4::from_translation(Vec3::new(0.0, 0.0, 50.0)),
                    ..at(0.0)
                },
            )
            .unwrap();
        let mut list = DrawList::default();
        crowd.build_draw_list(Some(&frustum), &mut list);
        let xs: Vec<f32> = list
            .records
            .iter()
            .map(|r| r.world_from_model[0][3])
            .collect();
        assert_eq!(list.instances, 4);
        assert_eq!(list.visible(), 2, "only two records: {xs:?}");
        assert!(xs.contains(&0.0) && xs.contains(&-12.0), "{xs:?}");
        let _ = (inside, far_right, reaching, behind);
        // A fade unions both clips' bounds; without culling everything is drawn.
        crowd.build_draw_list(None, &mut list);
        assert_eq!(list.visible(), 4);
    }

    #[test]
    fn bone_world_transform_follows_the_instance_and_its_clip() {
        let h = test_model(1.0);
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&h);
        let id = crowd
            .spawn(
                m,
                Spawn {
                    time: 1.5,
                    ..at(5.0)
                },
            )
            .unwrap();
        // swing at 1.5 s: between frames 1 (+1 y) and 2 (+2 y), half-way.
        let t = crowd.bone_world_transform(id, 0).unwrap();
        assert!(
            (t.w_axis.truncate() - Vec3::new(5.0, 1.5, 0.0)).length() < 1e-6,
            "{t}"
        );
        assert!(matches!(
            crowd.bone_world_transform(id, 3),
            Err(CrowdError::BoneOutOfRange { index: 3, .. })
        ));
    }

    #[test]
    fn lod_selection_has_hysteresis() {
        let sizes = [0.25, 0.1, 0.0];
        assert_eq!(select_lod(0.5, &sizes, 0), 0);
        assert_eq!(select_lod(0.24, &sizes, 0), 0, "inside the band: stays");
        assert_eq!(select_lod(0.2, &sizes, 0), 1, "below the band: coarser");
        assert_eq!(select_lod(0.26, &sizes, 1), 1, "inside the band: stays");
        assert_eq!(select_lod(0.3, &sizes, 1), 0, "above the band: finer");
        assert_eq!(select_lod(0.001, &sizes, 0), 2, "straight to the coarsest");
        assert_eq!(select_lod(0.9, &sizes, 2), 0, "straight to the finest");
        assert_eq!(select_lod(0.5, &[0.0], 0), 0, "one LOD");
    }

    #[test]
    fn sphere_union_holds_both() {
        let a = Vec4::new(0.0, 0.0, 0.0, 1.0);
        let b = Vec4::new(3.0, 0.0, 0.0, 1.0);
        let u = sphere_union(a, b);
        assert!((u.w - 2.5).abs() < 1e-6 && (u.x - 1.5).abs() < 1e-6, "{u}");
        assert_eq!(
            sphere_union(a, Vec4::new(0.1, 0.0, 0.0, 0.2)),
            a,
            "inner sphere"
        );
    }
}
