//! The layered pose: a layer as sampled at one moment ([`LayerPose`], its
//! [`LayerMode`]), the layered palette and morph weights of an instance
//! (the arithmetic of `throng-render/src/passes/palette.wgsl`), the checks on a stack of
//! layers, and a layer and a layer set as the pre-pass reads them.

use bytemuck::Zeroable;
use glam::Vec4;

use super::error::{LayerError, check_layer_count, check_weight};
use super::skeleton::{BoneMask, NO_PARENT, Skeleton};
use crate::baked::blended_bone_rows;
use crate::gpu::{FrameBlend, GpuLayer, GpuLayerSet};
use crate::layout::FramePair;
use crate::limits::{MAX_EXTRA_LAYERS, PALETTE_WEIGHTS_PER_MATRIX};
use crate::math::Rows3x4;
use crate::model::BakedModel;
use crate::pose::{
    LocalPose, blend_additive, blend_override, compose, decompose, rows_inverse, rows_mul,
};

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
/// arithmetic of `throng-render/src/passes/palette.wgsl`).
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
/// slot (the arithmetic of `throng-render/src/passes/palette.wgsl`'s weights). Without
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
            foot_ik: 0,
            clip_ground: 0.0,
            pad: 0,
            layers: slots,
        }
    }

    /// The set with its feet planted by IK on the crowd's ground, its
    /// base clip's ground at `clip_ground`.
    pub fn with_foot_ik(self, clip_ground: f32) -> Self {
        Self {
            foot_ik: 1,
            clip_ground,
            ..self
        }
    }
}
