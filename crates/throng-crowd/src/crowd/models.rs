//! The crowd's models: [`ModelHandle`] (a validated baked model with an
//! identity), [`ModelId`] (its index in one crowd) and the compact per-model
//! data the frame loop reads (frame maps, bounding spheres, event ranges,
//! LOD sizes, draw buckets); adding models and looking them and their clips
//! up.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use glam::{Mat4, Vec3, Vec4};

use super::lod::LOD_HYSTERESIS;
use super::{Crowd, CrowdError};
use throng_core::layers::Skeleton;
use throng_core::layout::FrameMap;
use throng_core::limits::REST_FRAME;
use throng_core::math::Aabb;
use throng_core::model::BakedModel;
use throng_core::variety::{Palette, PaletteError};

/// A baked model with an identity. Cheap to clone (shared).
#[derive(Clone, Debug)]
pub struct ModelHandle {
    key: u64,
    model: Arc<BakedModel>,
    bind: Arc<Vec<Mat4>>,
    skeleton: Arc<Skeleton>,
    palette: Option<Arc<Palette>>,
}

impl ModelHandle {
    /// Wraps a model (validating it) and gives it a new identity.
    pub fn new(model: BakedModel) -> Result<Self, throng_core::FormatError> {
        model.validate()?;
        let bind = model
            .bones
            .iter()
            .map(|b| b.inverse_bind.inverse())
            .collect();
        Ok(Self {
            key: next_key(),
            skeleton: Arc::new(Skeleton::new(&model)),
            model: Arc::new(model),
            bind: Arc::new(bind),
            palette: None,
        })
    }

    /// The same model wearing variant palette `palette` (one colour per
    /// material a row, [`Palette::check`]), as a new identity: the renderer
    /// uploads it apart from the handle it came from, sharing nothing but
    /// the host's copy of the model. Give it before adding the model to a
    /// crowd.
    pub fn with_palette(&self, palette: Palette) -> Result<Self, PaletteError> {
        palette.check(&self.model)?;
        Ok(Self {
            key: next_key(),
            palette: Some(Arc::new(palette)),
            ..self.clone()
        })
    }

    /// Its variant palette, if it has one.
    pub fn palette(&self) -> Option<&Palette> {
        self.palette.as_deref()
    }

    /// Palette rows an instance's [`throng_core::variety::Look::variant`]
    /// chooses among (1 without a palette).
    pub fn variants(&self) -> usize {
        self.palette.as_ref().map_or(1, |p| p.rows())
    }

    /// The identity key.
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The model.
    pub fn model(&self) -> &BakedModel {
        &self.model
    }

    /// The bone hierarchy as animation layers use it.
    pub fn skeleton(&self) -> &Skeleton {
        &self.skeleton
    }

    /// `inverse(inverse_bind)` of every bone: maps a bone's space to bind-pose
    /// model space.
    pub fn bind_matrices(&self) -> &[Mat4] {
        &self.bind
    }
}

/// A new model identity.
fn next_key() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Index of a model within one [`Crowd`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModelId(pub u32);

/// Where a model's impostor sits in its LOD chain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ImpostorLevel {
    /// Its level.
    pub(super) lod: u32,
    /// The projected size below which it replaces the meshes.
    pub(super) size: f32,
    /// The mesh LOD it cross-fades with: the one drawn just above the band
    /// around `size`.
    pub(super) mesh_lod: u32,
}

impl ImpostorLevel {
    fn of(m: &BakedModel) -> Option<Self> {
        let lod = m.impostor_lod()?;
        let size = m.impostor.as_ref()?.screen_size;
        let sizes = m.lod_sizes();
        let top = size * (1.0 + LOD_HYSTERESIS);
        let mesh_lod = sizes[..lod]
            .iter()
            .position(|&t| top >= t)
            .unwrap_or(lod.saturating_sub(1));
        Some(Self {
            lod: lod as u32,
            size,
            mesh_lod: mesh_lod as u32,
        })
    }
}

/// Per-model data the frame loop needs, compact.
#[derive(Clone, Debug)]
pub(super) struct ModelRt {
    pub(super) handle: ModelHandle,
    /// Per clip: frame map.
    pub(super) maps: Vec<FrameMap>,
    /// Per clip: model-space bounding sphere (centre, radius) of its bounds.
    pub(super) spheres: Vec<Vec4>,
    /// Per clip: half extents of its bounds (about the sphere's centre).
    pub(super) half_extents: Vec<Vec3>,
    /// Rest pose sphere.
    pub(super) rest_sphere: Vec4,
    /// Rest pose bounds' half extents.
    pub(super) rest_half_extent: Vec3,
    /// Per clip: its events' range in the model's event list.
    pub(super) event_ranges: Vec<std::ops::Range<usize>>,
    /// Per clip: baked in place with root motion.
    pub(super) root_clips: Vec<bool>,
    /// Per clip: its ground for foot IK (its feet's lowest height,
    /// `throng_core::contacts`).
    pub(super) clip_grounds: Vec<f32>,
    /// The legs foot IK bends: found from the skeleton, or configured
    /// (`Crowd::set_legs`).
    pub(super) legs: Vec<throng_core::foot_ik::Leg>,
    /// Any clip has events.
    pub(super) has_events: bool,
    /// Any clip has root motion.
    pub(super) has_root_motion: bool,
    /// Per level of the LOD chain (mesh LODs, then the impostor if any):
    /// smallest projected screen size at which it is used
    /// ([`BakedModel::lod_sizes`]).
    pub(super) lod_sizes: Vec<f32>,
    /// The impostor's place in the LOD chain, if it has one that is drawn.
    pub(super) impostor: Option<ImpostorLevel>,
    /// First draw bucket of this model (buckets are (model, LOD) pairs).
    pub(super) bucket: u32,
    /// The hidden masks its instances wear with draw groups of their own.
    pub(super) look_classes: super::look_classes::LookClasses,
    /// Its first key in the crowd's root-key table.
    pub(super) root_base: u32,
}

/// A box's bounding sphere (centre, radius): a clip's, kept per model.
fn sphere_of(b: &Aabb) -> Vec4 {
    b.center().extend(b.radius())
}

/// A box's half extents (none for an empty box).
fn half_extent(b: &Aabb) -> Vec3 {
    ((b.max - b.min) * 0.5).max(Vec3::ZERO)
}

impl Crowd {
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
        let root_base = self.add_root_keys(&m.root_motion);
        self.models.push(ModelRt {
            handle: model.clone(),
            maps: m.clips.iter().map(|c| c.frame_map()).collect(),
            spheres: m.clips.iter().map(|c| sphere_of(&c.bounds)).collect(),
            half_extents: m.clips.iter().map(|c| half_extent(&c.bounds)).collect(),
            rest_sphere: sphere_of(&m.frame_bounds[REST_FRAME as usize]),
            rest_half_extent: half_extent(&m.frame_bounds[REST_FRAME as usize]),
            event_ranges,
            root_clips: m.clips.iter().map(|c| c.root_motion).collect(),
            clip_grounds: throng_core::contacts::clip_contacts(m)
                .iter()
                .map(|c| c.ground)
                .collect(),
            legs: throng_core::foot_ik::legs(m),
            has_events: !m.events.is_empty(),
            has_root_motion: !m.root_motion.is_empty(),
            lod_sizes: m.lod_sizes(),
            impostor: ImpostorLevel::of(m),
            bucket: self
                .models
                .last()
                .map_or(0, |p| p.bucket + p.lod_sizes.len() as u32),
            look_classes: Default::default(),
            root_base,
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

    /// The morph slot of the target named `name` in `model` (the first, if
    /// meshes shown twice make two): what [`Crowd::add_morph_preset`]
    /// takes.
    pub fn morph_slot(&self, model: ModelId, name: &str) -> Result<u32, CrowdError> {
        let m = self.model(model)?;
        let slots = &m.morphs.slots;
        slots
            .iter()
            .position(|s| s.name == name)
            .map(|s| s as u32)
            .ok_or_else(|| CrowdError::UnknownMorphTarget {
                model: m.name.clone(),
                name: name.to_owned(),
                available: if slots.is_empty() {
                    "none".to_owned()
                } else {
                    slots
                        .iter()
                        .map(|s| s.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                },
            })
    }

    pub(super) fn duration(&self, model: u16, clip: u16) -> f32 {
        self.models[model as usize].maps[clip as usize].duration
    }

    pub(super) fn check_clip(&self, model: u16, clip: usize) -> Result<f32, CrowdError> {
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
}
