//! Animation layers on baked clips, on the CPU: the arithmetic the GPU's
//! palette pre-pass (`shaders/palette.wgsl`) does, bone for bone.
//!
//! An instance shows a **base pose** — its clip, cross-faded with the
//! previous one as on the plain path ([`crate::baked::blended_bone_rows`]) —
//! and up to [`MAX_EXTRA_LAYERS`] layers over it, applied in order. Each
//! layer samples its own clip at its own frames and has a weight `w`, an
//! optional [`BoneMask`] (per-bone weights `m`) and a [`LayerMode`]:
//!
//! * **override** moves the bone's local pose toward the layer's by `w · m`;
//! * **additive** adds `w · m` times the layer's difference from a
//!   reference pose (the same clip at another frame, by default its first).
//!
//! Bones are visited parents first ([`Skeleton::order`]). A bone that no
//! layer reaches (weight 0, and masked out together with all its
//! ancestors) keeps the base palette matrix exactly, so an instance whose
//! layers weigh nothing draws bit for bit as on the plain path. A reached
//! bone is blended in local space ([`crate::pose`]: translation, quaternion
//! rotation, scale): its local matrix in any pose is `G(parent)⁻¹ · G(bone)`
//! with `G = P · inverse(inverse_bind)`, derived from the baked palette `P`,
//! so no second texture is needed; the result is re-attached to the
//! *blended* parent. A mask on the subtree of `spine` therefore makes the
//! upper body play the layer's clip on top of wherever the base puts the
//! hips.
//!
//! Morph weights are layered too ([`layered_weights`]): each slot starts
//! from the base pose's weight, and each layer moves it toward its clip's
//! weight (override) or adds its clip's difference from the reference
//! (additive) by `w · m`, where `m` is the mask's weight at the slot's
//! bone ([`Skeleton::slot_bone`]: the bone that carries most of the
//! vertices the slot moves), so a mask on the head takes the face's
//! targets with it.

use bytemuck::Zeroable;
use glam::Vec4;
use thiserror::Error;

use crate::baked::blended_bone_rows;
use crate::gpu::{FrameBlend, GpuBone, GpuLayer, GpuLayerSet};
use crate::layout::FramePair;
pub use crate::limits::MAX_EXTRA_LAYERS;
use crate::limits::PALETTE_WEIGHTS_PER_MATRIX;
use crate::math::{Rows3x4, mat4_to_rows};
use crate::model::BakedModel;
use crate::pose::{
    LocalPose, blend_additive, blend_override, compose, decompose, rows_inverse, rows_mul,
};

/// The parent of a root bone in [`Skeleton`]'s tables and on the GPU.
pub const NO_PARENT: u32 = u32::MAX;

/// What [`BoneMask`] and layer validation refuse.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum LayerError {
    /// No bone of that name.
    #[error("no bone named {name:?} in the model (its bones: {known})")]
    UnknownBone {
        /// The name asked for.
        name: String,
        /// The model's bone names, comma-separated.
        known: String,
    },
    /// A weight list of the wrong length.
    #[error("a bone mask needs {expected} weights (one per bone), got {got}")]
    MaskLength {
        /// Bones in the model.
        expected: usize,
        /// Weights given.
        got: usize,
    },
    /// A morph slot past the model's.
    #[error("no morph slot {slot} (the model has {slots})")]
    UnknownSlot {
        /// The slot asked for.
        slot: u32,
        /// Slots of the model.
        slots: usize,
    },
    /// A weights layer without a morph preset, or another layer with one.
    #[error("layer {layer}: {what}")]
    Preset {
        /// The layer's index.
        layer: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// A weight outside `[0, 1]` or not finite.
    #[error("{what} weight {value} is not in [0, 1]")]
    Weight {
        /// Which weight.
        what: String,
        /// Its value.
        value: f32,
    },
    /// More layers than [`MAX_EXTRA_LAYERS`].
    #[error("{got} layers given; an instance has at most {MAX_EXTRA_LAYERS} over its base pose")]
    TooManyLayers {
        /// Layers given.
        got: usize,
    },
}

/// A model's bone hierarchy as the layers need it: parents, a parents-first
/// order, and each bone's bind matrix and its inverse as rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    names: Vec<String>,
    parents: Vec<u32>,
    order: Vec<u32>,
    bind: Vec<Rows3x4>,
    inverse_bind: Vec<Rows3x4>,
    slot_bones: Vec<u32>,
}

/// Each morph slot's bone: the one carrying the largest sum of skinning
/// weights over the LOD 0 vertices the slot moves (the first such bone on
/// a tie; bone 0 for a slot that moves nothing).
fn slot_bones(model: &BakedModel) -> Vec<u32> {
    let slots = model.morphs.slot_count() as usize;
    let mut sums: Vec<std::collections::BTreeMap<u32, f32>> = vec![Default::default(); slots];
    if let Some(lod) = model.lods.first() {
        for v in &lod.vertices {
            for d in model.morphs.deltas_of(v) {
                let Some(sum) = sums.get_mut(d.slot as usize) else {
                    continue;
                };
                for (j, w) in v.joints.iter().zip(v.weights) {
                    if w > 0.0 {
                        *sum.entry(u32::from(*j)).or_default() += w;
                    }
                }
            }
        }
    }
    sums.iter()
        .map(|s| {
            s.iter()
                .fold(None, |best: Option<(u32, f32)>, (&b, &w)| match best {
                    Some((_, bw)) if bw >= w => best,
                    _ => Some((b, w)),
                })
                .map_or(0, |(b, _)| b)
        })
        .collect()
}

impl Skeleton {
    /// The skeleton of a validated model.
    pub fn new(model: &BakedModel) -> Self {
        let n = model.bones.len();
        let parents: Vec<u32> = model
            .bones
            .iter()
            .map(|b| b.parent.filter(|&p| (p as usize) < n).unwrap_or(NO_PARENT))
            .collect();
        // Parents first: a bone is placed once its parent is (a cycle, which
        // a valid model cannot have, would place its bones as roots).
        let mut order = Vec::with_capacity(n);
        let mut placed = vec![false; n];
        while order.len() < n {
            let before = order.len();
            for b in 0..n {
                let p = parents[b];
                if !placed[b] && (p == NO_PARENT || placed[p as usize]) {
                    placed[b] = true;
                    order.push(b as u32);
                }
            }
            if order.len() == before {
                let b = (0..n).find(|&b| !placed[b]).unwrap_or(0);
                placed[b] = true;
                order.push(b as u32);
            }
        }
        Self {
            names: model.bones.iter().map(|b| b.name.clone()).collect(),
            parents,
            order,
            bind: model
                .bones
                .iter()
                .map(|b| mat4_to_rows(&b.inverse_bind.inverse()))
                .collect(),
            inverse_bind: model
                .bones
                .iter()
                .map(|b| mat4_to_rows(&b.inverse_bind))
                .collect(),
            slot_bones: slot_bones(model),
        }
    }

    /// The bone whose mask weight a layer applies to morph slot `slot`
    /// (see the module's docs; 0 past the slots).
    pub fn slot_bone(&self, slot: u32) -> u32 {
        self.slot_bones.get(slot as usize).copied().unwrap_or(0)
    }

    /// Every morph slot's bone, in slot order (the pre-pass's table).
    pub fn slot_bones(&self) -> &[u32] {
        &self.slot_bones
    }

    /// Number of bones.
    pub fn bone_count(&self) -> usize {
        self.parents.len()
    }

    /// Bone indices, every parent before its children.
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// The parent of `bone`, or [`NO_PARENT`].
    pub fn parent(&self, bone: u32) -> u32 {
        self.parents[bone as usize]
    }

    /// `inverse(inverse_bind)` of `bone`: its space to bind-pose model space.
    pub fn bind(&self, bone: u32) -> &Rows3x4 {
        &self.bind[bone as usize]
    }

    /// `inverse_bind` of `bone`.
    pub fn inverse_bind(&self, bone: u32) -> &Rows3x4 {
        &self.inverse_bind[bone as usize]
    }

    /// The index of the bone named `name`.
    pub fn bone(&self, name: &str) -> Result<u32, LayerError> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|b| b as u32)
            .ok_or_else(|| LayerError::UnknownBone {
                name: name.to_owned(),
                known: self.names.join(", "),
            })
    }

    /// Whether `ancestor` is `bone` or one of its ancestors.
    pub fn is_under(&self, bone: u32, ancestor: u32) -> bool {
        let mut b = bone;
        for _ in 0..=self.bone_count() {
            if b == ancestor {
                return true;
            }
            b = self.parent(b);
            if b == NO_PARENT {
                return false;
            }
        }
        false
    }
}

/// Per-bone weights in `[0, 1]` that limit a layer to part of the
/// skeleton, and for each bone whether it or an ancestor has weight (then
/// the layer moves it, directly or by moving its parent).
#[derive(Clone, Debug, PartialEq)]
pub struct BoneMask {
    weights: Vec<f32>,
    reach: Vec<bool>,
    /// A morph preset's weight per slot (`None`: the slot is not set);
    /// `None` for a mask of bones.
    targets: Option<Vec<Option<f32>>>,
}

impl BoneMask {
    /// A mask of explicit weights, one per bone.
    pub fn from_weights(skeleton: &Skeleton, weights: Vec<f32>) -> Result<Self, LayerError> {
        if weights.len() != skeleton.bone_count() {
            return Err(LayerError::MaskLength {
                expected: skeleton.bone_count(),
                got: weights.len(),
            });
        }
        for (b, &w) in weights.iter().enumerate() {
            check_weight(w, || format!("bone {b}'s mask"))?;
        }
        let mut reach = vec![false; weights.len()];
        for &b in skeleton.order() {
            let p = skeleton.parent(b);
            reach[b as usize] = weights[b as usize] > 0.0 || (p != NO_PARENT && reach[p as usize]);
        }
        Ok(Self {
            weights,
            reach,
            targets: None,
        })
    }

    /// A morph preset: the weights `(slot, weight)` a
    /// [`LayerMode::Weights`] layer moves those slots toward (by its
    /// weight); it moves no bone. Slots are `skeleton`'s model's; a weight
    /// must be finite (glTF allows weights outside `[0, 1]`).
    pub fn morph_preset(skeleton: &Skeleton, weights: &[(u32, f32)]) -> Result<Self, LayerError> {
        let slots = skeleton.slot_bones().len();
        let mut targets = vec![None; slots];
        for &(slot, w) in weights {
            let Some(t) = targets.get_mut(slot as usize) else {
                return Err(LayerError::UnknownSlot { slot, slots });
            };
            if !w.is_finite() {
                return Err(LayerError::Weight {
                    what: format!("morph slot {slot}'s preset"),
                    value: w,
                });
            }
            *t = Some(w);
        }
        Ok(Self {
            weights: vec![0.0; skeleton.bone_count()],
            reach: vec![false; skeleton.bone_count()],
            targets: Some(targets),
        })
    }

    /// A morph preset's weight per slot (`None` where it sets none);
    /// `None` for a mask of bones.
    pub fn targets(&self) -> Option<&[Option<f32>]> {
        self.targets.as_deref()
    }

    /// Weight 1 on the subtrees rooted at the bones named `roots`, 0
    /// elsewhere (`["Spine"]`: the upper body).
    pub fn subtrees(skeleton: &Skeleton, roots: &[&str]) -> Result<Self, LayerError> {
        let roots = roots
            .iter()
            .map(|name| skeleton.bone(name))
            .collect::<Result<Vec<_>, _>>()?;
        let weights = (0..skeleton.bone_count() as u32)
            .map(|b| {
                if roots.iter().any(|&r| skeleton.is_under(b, r)) {
                    1.0
                } else {
                    0.0
                }
            })
            .collect();
        Self::from_weights(skeleton, weights)
    }

    /// Weight 1 on the bones named, 0 elsewhere.
    pub fn bones(skeleton: &Skeleton, names: &[&str]) -> Result<Self, LayerError> {
        let mut weights = vec![0.0; skeleton.bone_count()];
        for name in names {
            weights[skeleton.bone(name)? as usize] = 1.0;
        }
        Self::from_weights(skeleton, weights)
    }

    /// Weight of `bone`.
    pub fn weight(&self, bone: u32) -> f32 {
        self.weights[bone as usize]
    }

    /// Whether the layer moves `bone` (it or an ancestor has weight).
    pub fn reaches(&self, bone: u32) -> bool {
        self.reach[bone as usize]
    }

    /// The weights, one per bone.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }
}

/// How a layer combines with the pose below it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LayerMode {
    /// Replace the pose below, by the layer's weight.
    Override,
    /// Add the layer's difference from a reference pose (its clip at
    /// `reference`).
    Additive {
        /// The reference pose's frames.
        reference: FramePair,
    },
    /// Move the morph weights its mask's preset sets
    /// ([`BoneMask::morph_preset`]) toward the preset's, by the layer's
    /// weight: game code's weights (a face, a body shape) over the clips'.
    /// It moves no bone, and its frames are not read.
    Weights,
}

/// One layer as sampled at one moment: which frames it shows, how much and
/// where.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayerPose<'a> {
    /// The layer clip's frames.
    pub frames: FramePair,
    /// Weight in `[0, 1]`.
    pub weight: f32,
    /// Override or additive.
    pub mode: LayerMode,
    /// Bones it applies to (all if `None`).
    pub mask: Option<&'a BoneMask>,
}

impl LayerPose<'_> {
    /// The layer's weight at `bone`: `weight · mask` (0 for a weights
    /// layer, which moves no bone).
    fn weight_at(&self, bone: u32) -> f32 {
        if self.mode == LayerMode::Weights {
            return 0.0;
        }
        self.weight * self.mask.map_or(1.0, |m| m.weight(bone))
    }

    /// Whether the layer moves `bone` (a weights layer moves none).
    fn reaches(&self, bone: u32) -> bool {
        self.mode != LayerMode::Weights
            && self.weight > 0.0
            && self.mask.is_none_or(|m| m.reaches(bone))
    }
}

/// `G = P · bind` of `bone` at `blend`, or the identity for [`NO_PARENT`].
fn global(model: &BakedModel, skeleton: &Skeleton, bone: u32, blend: &FrameBlend) -> Rows3x4 {
    if bone == NO_PARENT {
        return crate::pose::IDENTITY_ROWS;
    }
    rows_mul(&blended_bone_rows(model, bone, blend), skeleton.bind(bone))
}

/// The local pose of `bone` at `blend`: `G(parent)⁻¹ · G(bone)`.
fn local(model: &BakedModel, skeleton: &Skeleton, bone: u32, blend: &FrameBlend) -> LocalPose {
    let g = global(model, skeleton, bone, blend);
    let parent = skeleton.parent(bone);
    if parent == NO_PARENT {
        return decompose(&g);
    }
    let gp = global(model, skeleton, parent, blend);
    decompose(&rows_mul(&rows_inverse(&gp), &g))
}

/// The palette of an instance with layers: `out[bone]` for every bone (the
/// arithmetic of `shaders/palette.wgsl`).
pub fn layered_palette(
    model: &BakedModel,
    skeleton: &Skeleton,
    base: &FrameBlend,
    layers: &[LayerPose],
    out: &mut Vec<Rows3x4>,
) {
    out.clear();
    out.resize(skeleton.bone_count(), [Vec4::ZERO; 3]);
    for &bone in skeleton.order() {
        let b = bone as usize;
        if !layers.iter().any(|l| l.reaches(bone)) {
            out[b] = blended_bone_rows(model, bone, base);
            continue;
        }
        let mut pose = local(model, skeleton, bone, base);
        for layer in layers {
            let w = layer.weight_at(bone);
            if w <= 0.0 {
                continue;
            }
            let sampled = local(model, skeleton, bone, &FrameBlend::single(layer.frames));
            pose = match layer.mode {
                LayerMode::Override => blend_override(&pose, &sampled, w),
                LayerMode::Additive { reference } => {
                    let r = local(model, skeleton, bone, &FrameBlend::single(reference));
                    blend_additive(&pose, &r, &sampled, w)
                }
                // weight_at is 0 for it: never here.
                LayerMode::Weights => pose,
            };
        }
        let parent = skeleton.parent(bone);
        let g = if parent == NO_PARENT {
            compose(&pose)
        } else {
            let gp = rows_mul(&out[parent as usize], skeleton.bind(parent));
            rows_mul(&gp, &compose(&pose))
        };
        out[b] = rows_mul(&g, skeleton.inverse_bind(bone));
    }
}

/// Palette matrices a layered instance of `model` takes: one per bone,
/// then its morph weights, [`PALETTE_WEIGHTS_PER_MATRIX`] to a matrix.
pub fn palette_entries(model: &BakedModel) -> u64 {
    model.bones.len() as u64
        + u64::from(
            model
                .morphs
                .slot_count()
                .div_ceil(PALETTE_WEIGHTS_PER_MATRIX),
        )
}

/// The morph weights of an instance with layers: `out[slot]` for every
/// slot (the arithmetic of `shaders/palette.wgsl`'s weights). Without
/// layers, each is the base pose's blended weight, as on the plain path.
pub fn layered_weights(
    model: &BakedModel,
    skeleton: &Skeleton,
    base: &FrameBlend,
    layers: &[LayerPose],
    out: &mut Vec<f32>,
) {
    let morphs = &model.morphs;
    out.clear();
    out.extend((0..morphs.slot_count()).map(|slot| {
        let mut w = morphs.blended_weight(slot, base);
        for layer in layers {
            if layer.mode == LayerMode::Weights {
                let target = layer
                    .mask
                    .and_then(BoneMask::targets)
                    .and_then(|t| t.get(slot as usize).copied().flatten());
                if let Some(target) = target
                    && layer.weight > 0.0
                {
                    w += (target - w) * layer.weight;
                }
                continue;
            }
            let m = layer.weight_at(skeleton.slot_bone(slot));
            if m <= 0.0 {
                continue;
            }
            let sampled = morphs.blended_weight(slot, &FrameBlend::single(layer.frames));
            w = match layer.mode {
                LayerMode::Override => w + (sampled - w) * m,
                LayerMode::Additive { reference } => {
                    let r = morphs.blended_weight(slot, &FrameBlend::single(reference));
                    w + (sampled - r) * m
                }
                LayerMode::Weights => w,
            };
        }
        w
    }));
}

/// Checks layers before they reach the pose: at most
/// [`MAX_EXTRA_LAYERS`], weights in `[0, 1]`.
pub fn validate(layers: &[LayerPose]) -> Result<(), LayerError> {
    check_layer_count(layers.len())?;
    for (i, l) in layers.iter().enumerate() {
        check_weight(l.weight, || format!("layer {i}'s"))?;
        check_preset(i, l.mode == LayerMode::Weights, l.mask)?;
    }
    Ok(())
}

/// A weights layer (`weights`) has a morph preset for its mask, and no
/// other layer has one.
pub fn check_preset(
    layer: usize,
    weights: bool,
    mask: Option<&BoneMask>,
) -> Result<(), LayerError> {
    let preset = mask.is_some_and(|m| m.targets().is_some());
    match (weights, preset) {
        (true, false) => Err(LayerError::Preset {
            layer,
            what: "a weights layer needs a morph preset as its mask",
        }),
        (false, true) => Err(LayerError::Preset {
            layer,
            what: "a morph preset is the mask of a weights layer only",
        }),
        _ => Ok(()),
    }
}

/// At most [`MAX_EXTRA_LAYERS`] layers.
pub fn check_layer_count(count: usize) -> Result<(), LayerError> {
    if count > MAX_EXTRA_LAYERS {
        return Err(LayerError::TooManyLayers { got: count });
    }
    Ok(())
}

/// A weight in `[0, 1]` (NaN is not); `what` names it in the error
/// ("layer 0's", "bone 5's mask").
pub fn check_weight(value: f32, what: impl FnOnce() -> String) -> Result<(), LayerError> {
    if (0.0..=1.0).contains(&value) {
        return Ok(());
    }
    Err(LayerError::Weight {
        what: what(),
        value,
    })
}

impl Skeleton {
    /// The skeleton table of the palette pre-pass: entry `b` holds bone
    /// `b`'s matrices and parent and the `b`-th bone of [`Skeleton::order`].
    pub fn gpu_table(&self) -> Vec<GpuBone> {
        (0..self.bone_count())
            .map(|b| GpuBone {
                bind: self.bind[b].map(|r| r.to_array()),
                inverse_bind: self.inverse_bind[b].map(|r| r.to_array()),
                parent: self.parents[b],
                ordered: self.order[b],
                pad: [0; 2],
            })
            .collect()
    }
}

impl BoneMask {
    /// The mask's entries in the pre-pass's mask table: `(weight, reaches)`
    /// per bone, `reaches` 1 or 0; then `(weight, 0)` per morph slot of
    /// `skeleton`, the weight at the slot's bone ([`Skeleton::slot_bone`]).
    /// A morph preset's entries are `(0, 0)` per bone, then `(weight, 1)`
    /// per slot it sets and `(0, 0)` per slot it does not.
    pub fn gpu_entries<'a>(
        &'a self,
        skeleton: &'a Skeleton,
    ) -> impl Iterator<Item = [f32; 2]> + 'a {
        let bones = self
            .weights
            .iter()
            .zip(&self.reach)
            .map(|(&w, &r)| [w, if r { 1.0 } else { 0.0 }]);
        let slots = skeleton
            .slot_bones()
            .iter()
            .enumerate()
            .map(|(s, &b)| match self.targets() {
                Some(t) => t.get(s).copied().flatten().map_or([0.0, 0.0], |w| [w, 1.0]),
                None => [self.weights.get(b as usize).copied().unwrap_or(0.0), 0.0],
            });
        bones.chain(slots)
    }
}

impl GpuLayer {
    /// A layer for the pre-pass, its mask at `mask` in the mask table
    /// ([`GpuLayer::NO_MASK`] if it has none).
    pub fn new(pose: &LayerPose, mask: u32) -> Self {
        let (mode, reference) = match pose.mode {
            LayerMode::Override => (GpuLayer::OVERRIDE, pose.frames),
            LayerMode::Additive { reference } => (GpuLayer::ADDITIVE, reference),
            LayerMode::Weights => (GpuLayer::WEIGHTS, pose.frames),
        };
        Self {
            frame0: pose.frames.frame0,
            frame1: pose.frames.frame1,
            t: pose.frames.t,
            weight: pose.weight,
            ref0: reference.frame0,
            ref1: reference.frame1,
            ref_t: reference.t,
            mode,
            mask: if pose.mask.is_some() {
                mask
            } else {
                GpuLayer::NO_MASK
            },
            pad: [0; 3],
        }
    }
}

impl GpuLayerSet {
    /// An instance's base pose and layers, its palette written from
    /// matrix `palette` on.
    pub fn new(base: &FrameBlend, layers: &[GpuLayer], palette: u32) -> Self {
        let mut slots = [GpuLayer::zeroed(); MAX_EXTRA_LAYERS];
        let n = layers.len().min(MAX_EXTRA_LAYERS);
        slots[..n].copy_from_slice(&layers[..n]);
        Self {
            frame0: base.current.frame0,
            frame1: base.current.frame1,
            t: base.current.t,
            prev0: base.previous.frame0,
            prev1: base.previous.frame1,
            prev_t: base.previous.t,
            fade: base.fade,
            layer_count: n as u32,
            palette,
            pad: [0; 3],
            layers: slots,
        }
    }
}
