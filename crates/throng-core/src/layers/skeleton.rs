//! A model's bone hierarchy as the layers need it ([`Skeleton`]: parents, a
//! parents-first order, bind matrices as rows, each morph slot's bone) and
//! the bone masks over it ([`BoneMask`]: per-bone weights, subtrees, morph
//! presets), with their tables for the GPU's palette pre-pass.

use super::error::{LayerError, check_weight};
use crate::gpu::GpuBone;
use crate::math::{Rows3x4, mat4_to_rows};
use crate::model::BakedModel;

/// The parent of a root bone in [`Skeleton`]'s tables and on the GPU.
pub const NO_PARENT: u32 = u32::MAX;

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
    ///
    /// [`LayerMode::Weights`]: super::LayerMode::Weights
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
