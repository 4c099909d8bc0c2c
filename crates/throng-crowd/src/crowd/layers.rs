//! Animation layers per instance: up to
//! [`MAX_EXTRA_LAYERS`](throng_core::layers::MAX_EXTRA_LAYERS) clips over
//! the base pose (the instance's clip and cross-fade), each with its own
//! time, speed, wrap, weight, mode (override or additive) and optional bone
//! mask ([`Crowd::add_mask`], [`Crowd::mask_subtrees`]). Layer tracks are
//! analytic like the base's (phases at an anchor tick); pausing the
//! instance pauses them. What an instance with layers shows is
//! [`Crowd::palette`], the CPU twin of the GPU's palette pre-pass
//! (`throng_core::layers`), and bone queries follow it.
//!
//! Drawing: with [`DrawView::layers`](super::DrawView::layers) on, a draw
//! list puts these instances' mesh records in groups of their own with a
//! [`GpuLayerSet`] each ([`super::DrawList::layer_sets`]), which a renderer
//! evaluates in its palette pre-pass; the mask table it needs is
//! [`Crowd::mask_table`].

use std::sync::Arc;

use throng_core::gpu::{FrameBlend, GpuLayer};
use throng_core::layers::{
    BoneMask, LayerError, LayerMode, LayerPose, check_layer_count, check_preset, check_weight,
    layered_palette, layered_weights,
};
use throng_core::math::Rows3x4;

use super::anim_state::{Playback, blend_of};
use super::{Change, Crowd, CrowdError, InstanceId, ModelHandle, ModelId, WrapMode};

/// A bone mask registered with a crowd, for one model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MaskId(pub u32);

/// How a layer combines with the pose below it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LayerBlend {
    /// Moves the pose toward the layer's by its weight.
    Override,
    /// Adds the layer's difference from its own clip at `reference_time`.
    Additive {
        /// The reference pose's time in the layer's clip (seconds).
        reference_time: f32,
    },
    /// Moves the morph weights its mask, a morph preset
    /// ([`Crowd::add_morph_preset`]), sets toward the preset's by its
    /// weight: weights from game code (a face, a body shape) over the
    /// clips'. It moves no bone; its clip only needs to exist.
    Weights,
}

/// One animation layer as given to [`Crowd::set_layers`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Layer {
    /// Clip index (file order).
    pub clip: usize,
    /// Clip time to start at (seconds).
    pub time: f32,
    /// Speed multiplier (negative plays backwards).
    pub speed: f32,
    /// Wrap mode.
    pub wrap: WrapMode,
    /// Weight in `[0, 1]`.
    pub weight: f32,
    /// Override or additive.
    pub blend: LayerBlend,
    /// The bones it applies to (all if `None`).
    pub mask: Option<MaskId>,
}

impl Layer {
    /// The morph weights of `preset` ([`Crowd::add_morph_preset`]) at
    /// `weight` ([`LayerBlend::Weights`]; its clip is the model's first).
    pub fn weights(preset: MaskId, weight: f32) -> Self {
        Self {
            weight,
            blend: LayerBlend::Weights,
            mask: Some(preset),
            ..Self::new(0)
        }
    }

    /// `clip` from time 0, looping at speed 1, full weight, override, no
    /// mask.
    pub fn new(clip: usize) -> Self {
        Self {
            clip,
            time: 0.0,
            speed: 1.0,
            wrap: WrapMode::Loop,
            weight: 1.0,
            blend: LayerBlend::Override,
            mask: None,
        }
    }
}

/// A layer playing.
#[derive(Clone, Debug)]
struct Playing {
    layer: Layer,
    playback: Playback,
}

/// An instance's layers, anchored at one tick.
#[derive(Clone, Debug)]
pub(super) struct LayerStack {
    anchor: u64,
    layers: Vec<Playing>,
}

/// A registered mask: its model, weights, and first entry in the model's
/// mask table.
#[derive(Clone, Debug)]
pub(super) struct Mask {
    model: u16,
    mask: Arc<BoneMask>,
    offset: u32,
}

impl Crowd {
    /// Registers a bone mask for `model`'s skeleton.
    pub fn add_mask(&mut self, model: ModelId, mask: BoneMask) -> Result<MaskId, CrowdError> {
        let handle = self.model_handle(model)?;
        let bones = handle.skeleton().bone_count();
        if mask.weights().len() != bones {
            return Err(CrowdError::Layer(LayerError::MaskLength {
                expected: bones,
                got: mask.weights().len(),
            }));
        }
        let offset = self.mask_table(model)?.len() as u32;
        self.masks.push(Mask {
            model: model.0 as u16,
            mask: Arc::new(mask),
            offset,
        });
        Ok(MaskId(self.masks.len() as u32 - 1))
    }

    /// Registers a morph preset for `model`: the weights `(slot, weight)`
    /// that a [`Layer::weights`] layer moves those slots toward, per
    /// instance and set by game code (a blink, a smile, a body shape); slots
    /// it does not name keep their clips' weights. Presets are masks of the
    /// model's mask table (their entries give the weights), so an instance
    /// layers them as it layers clips, on the palette pre-pass.
    pub fn add_morph_preset(
        &mut self,
        model: ModelId,
        weights: &[(u32, f32)],
    ) -> Result<MaskId, CrowdError> {
        let preset = BoneMask::morph_preset(self.model_handle(model)?.skeleton(), weights)?;
        self.add_mask(model, preset)
    }

    /// Registers a mask of the subtrees rooted at the bones named `roots`
    /// (`["b_Spine01_02"]`: the Fox's upper body).
    pub fn mask_subtrees(&mut self, model: ModelId, roots: &[&str]) -> Result<MaskId, CrowdError> {
        let mask = BoneMask::subtrees(self.model_handle(model)?.skeleton(), roots)?;
        self.add_mask(model, mask)
    }

    /// Sets an instance's layers (bottom first; empty removes them). Each
    /// starts at its `time` now.
    pub fn set_layers(&mut self, id: InstanceId, layers: &[Layer]) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        if !layers.is_empty() {
            // Layered instances are drawn from the CPU's lists, which do
            // not know where a simulated one is.
            self.authoritative(id)?;
        }
        check_layer_count(layers.len())?;
        let model = self.metas[d].model;
        let running = !self.metas[d].paused;
        let mut playing = Vec::with_capacity(layers.len());
        for (i, layer) in layers.iter().enumerate() {
            let duration = self.check_clip(model, layer.clip)?;
            check_weight(layer.weight, || format!("layer {i}'s"))?;
            if !layer.time.is_finite() || !layer.speed.is_finite() {
                return Err(CrowdError::NotFinite("layer time and speed"));
            }
            if let LayerBlend::Additive { reference_time } = layer.blend
                && !reference_time.is_finite()
            {
                return Err(CrowdError::NotFinite("layer reference time"));
            }
            let mask = match layer.mask {
                Some(mask) => match self.masks.get(mask.0 as usize) {
                    Some(m) if m.model == model => Some(&*m.mask),
                    _ => {
                        return Err(CrowdError::Incompatible(format!(
                            "layer {i}'s mask {mask:?} is not a mask of this instance's model"
                        )));
                    }
                },
                None => None,
            };
            check_preset(i, layer.blend == LayerBlend::Weights, mask)?;
            playing.push(Playing {
                layer: *layer,
                playback: Playback::new(
                    layer.clip,
                    layer.time,
                    layer.speed,
                    layer.wrap,
                    duration,
                    running,
                ),
            });
        }
        let slot = self.slot_of[d];
        self.metas[d].layered = !playing.is_empty() || self.foot_ik.contains(&slot);
        if playing.is_empty() {
            self.layers.remove(&slot);
        } else {
            let stack = LayerStack {
                anchor: self.clock,
                layers: playing,
            };
            self.layers.insert(slot, stack);
        }
        self.touch(Change::state(d));
        self.refresh_sphere(d);
        Ok(())
    }

    /// Sets the weight of an instance's layer `index` (`[0, 1]`), keeping
    /// its time.
    pub fn set_layer_weight(
        &mut self,
        id: InstanceId,
        index: usize,
        weight: f32,
    ) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        check_weight(weight, || format!("layer {index}'s"))?;
        let slot = self.slot_of[d];
        let layer = self
            .layers
            .get_mut(&slot)
            .and_then(|s| s.layers.get_mut(index))
            .ok_or_else(|| {
                CrowdError::Incompatible(format!("instance {id:?} has no layer {index}"))
            })?;
        layer.layer.weight = weight;
        self.touch(Change::state(d));
        Ok(())
    }

    /// An instance's layers as set, each with its clip time now.
    pub fn layers(&self, id: InstanceId) -> Result<Vec<(Layer, f32)>, CrowdError> {
        let d = self.dense(id)?;
        let Some(stack) = self.layers.get(&self.slot_of[d]) else {
            return Ok(Vec::new());
        };
        let ticks = self.clock.saturating_sub(stack.anchor);
        let model = self.metas[d].model;
        Ok(stack
            .layers
            .iter()
            .map(|p| {
                let duration = self.duration(model, p.layer.clip as u16);
                (p.layer, p.playback.time(ticks, duration))
            })
            .collect())
    }

    /// The palette an instance shows now, layers included: one matrix per
    /// bone, in model space (`throng_core::layers::layered_palette`; without
    /// layers, the plain path's blended palette).
    pub fn palette(&self, id: InstanceId, out: &mut Vec<Rows3x4>) -> Result<(), CrowdError> {
        self.with_layers(id, |handle, base, poses| {
            layered_palette(handle.model(), handle.skeleton(), base, poses, out)
        })
    }

    /// The morph weights an instance shows now, layers included: one per
    /// slot (`throng_core::layers::layered_weights`; without layers, the
    /// plain path's blended weights). Empty for a model without targets.
    pub fn morph_weights(&self, id: InstanceId, out: &mut Vec<f32>) -> Result<(), CrowdError> {
        self.with_layers(id, |handle, base, poses| {
            layered_weights(handle.model(), handle.skeleton(), base, poses, out)
        })
    }

    /// Calls `f` with instance `id`'s model, base pose and layers now.
    fn with_layers<R>(
        &self,
        id: InstanceId,
        f: impl FnOnce(&ModelHandle, &FrameBlend, &[LayerPose]) -> R,
    ) -> Result<R, CrowdError> {
        let d = self.dense(id)?;
        let model = self.metas[d].model;
        let rt = &self.models[model as usize];
        let base = blend_of(&self.anims[d], &rt.maps, self.clock);
        let empty = LayerStack {
            anchor: 0,
            layers: Vec::new(),
        };
        let stack = self.layers.get(&self.slot_of[d]).unwrap_or(&empty);
        let ticks = self.clock.saturating_sub(stack.anchor);
        let poses: Vec<LayerPose> = stack
            .layers
            .iter()
            .map(|p| {
                let mask = p.layer.mask.map(|m| &*self.masks[m.0 as usize].mask);
                self.layer_pose(rt, p, ticks, mask)
            })
            .collect();
        Ok(f(&rt.handle, &base, &poses))
    }

    /// Whether some instance has animation layers.
    pub fn has_layered_instances(&self) -> bool {
        !self.layers.is_empty() || !self.foot_ik.is_empty()
    }

    /// The clips of instance `d`'s layers.
    pub(super) fn layer_clips(&self, d: usize) -> impl Iterator<Item = usize> + '_ {
        self.layers.get(&self.slot_of[d]).into_iter().flat_map(|s| {
            s.layers
                .iter()
                .filter(|p| p.layer.blend != LayerBlend::Weights)
                .map(|p| p.layer.clip)
        })
    }

    /// Whether instance `d` has layers.
    pub(super) fn has_layers(&self, d: usize) -> bool {
        self.metas[d].layered
    }

    /// `model`'s masks for the palette pre-pass: each mask's
    /// `(weight, reaches)` per bone and weight per morph slot
    /// ([`BoneMask::gpu_entries`]), in the order they were added (a
    /// layer's [`GpuLayer::mask`] is its mask's first entry).
    pub fn mask_table(&self, model: ModelId) -> Result<Vec<[f32; 2]>, CrowdError> {
        let skeleton = self.model_handle(model)?.skeleton();
        Ok(self
            .masks
            .iter()
            .filter(|m| m.model as u32 == model.0)
            .flat_map(|m| m.mask.gpu_entries(skeleton))
            .collect())
    }

    /// Instance `d`'s layers as the pre-pass reads them, at the clock.
    pub(super) fn gpu_layers(&self, d: usize) -> Option<Vec<GpuLayer>> {
        let Some(stack) = self.layers.get(&self.slot_of[d]) else {
            // Foot IK alone: the base pose, no layers.
            return self.foot_ik.contains(&self.slot_of[d]).then(Vec::new);
        };
        let rt = &self.models[self.metas[d].model as usize];
        let ticks = self.clock.saturating_sub(stack.anchor);
        Some(
            stack
                .layers
                .iter()
                .map(|p| {
                    let mask = p.layer.mask.map(|m| &self.masks[m.0 as usize]);
                    let pose = self.layer_pose(rt, p, ticks, mask.map(|m| &*m.mask));
                    GpuLayer::new(&pose, mask.map_or(GpuLayer::NO_MASK, |m| m.offset))
                })
                .collect(),
        )
    }

    /// A playing layer as sampled `ticks` after its anchor.
    fn layer_pose<'a>(
        &self,
        rt: &super::models::ModelRt,
        p: &Playing,
        ticks: u64,
        mask: Option<&'a BoneMask>,
    ) -> LayerPose<'a> {
        let map = &rt.maps[p.layer.clip];
        LayerPose {
            frames: map.frames_at(p.playback.time(ticks, map.duration)),
            weight: p.layer.weight,
            mode: match p.layer.blend {
                LayerBlend::Override => LayerMode::Override,
                LayerBlend::Additive { reference_time } => LayerMode::Additive {
                    reference: map.frames_at(reference_time.clamp(0.0, map.duration)),
                },
                LayerBlend::Weights => LayerMode::Weights,
            },
            mask,
        }
    }

    /// Re-anchors instance `d`'s layers at the clock, running or not (pause
    /// and resume).
    pub(super) fn rebase_layers(&mut self, d: usize, running: bool) {
        let model = self.metas[d].model as usize;
        let Some(stack) = self.layers.get_mut(&self.slot_of[d]) else {
            return;
        };
        let ticks = self.clock.saturating_sub(stack.anchor);
        for p in &mut stack.layers {
            let duration = self.models[model].maps[p.layer.clip].duration;
            p.playback = p.playback.rebased(ticks, duration, running);
        }
        stack.anchor = self.clock;
    }

    /// Drops slot `slot`'s layers (despawn, clear).
    pub(super) fn drop_layers(&mut self, slot: u32) {
        self.layers.remove(&slot);
        self.foot_ik.remove(&slot);
    }
}

#[cfg(test)]
mod tests {
    use super::super::Spawn;
    use super::super::fixtures::{at, test_model};
    use super::*;

    /// The cull sphere of an instance with layers holds its layers' clips:
    /// "still" stays at y = 0, "swing" rises to y = 2.
    #[test]
    fn the_cull_sphere_holds_the_layers_clips() {
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&test_model(1.0));
        let still = Spawn {
            clip: Some(0),
            ..at(0.0)
        };
        let id = crowd.spawn(m, still).unwrap();
        let alone = crowd.spheres[0];
        crowd.set_layers(id, &[Layer::new(1)]).unwrap();
        let layered = crowd.spheres[0];
        let swing = crowd.models[0].spheres[1];
        let reach = (swing.truncate() - layered.truncate()).length() + swing.w;
        assert!(reach <= layered.w * 1.000_01, "{layered} misses {swing}");
        assert!(layered.w > alone.w);
        crowd.set_layers(id, &[]).unwrap();
        assert_eq!(crowd.spheres[0], alone);
    }

    /// A list of the layered instances only holds exactly those, at their
    /// own transforms, after despawns have moved instances in the dense
    /// storage.
    #[test]
    fn layered_only_lists_find_the_layered_instances_after_despawns() {
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&test_model(1.0));
        let ids: Vec<InstanceId> = (0..5)
            .map(|i| crowd.spawn(m, at(10.0 * i as f32)).unwrap())
            .collect();
        for &i in &[1, 4] {
            crowd.set_layers(ids[i], &[Layer::new(0)]).unwrap();
        }
        crowd.despawn(ids[0]).unwrap();
        let view = super::super::DrawView {
            layers: true,
            layered_only: true,
            ..Default::default()
        };
        let mut list = super::super::DrawList::default();
        crowd.build_draw_list(view, &mut list);
        let mut xs: Vec<f32> = list
            .records
            .iter()
            .map(|r| r.world_from_model[0][3])
            .collect();
        xs.sort_by(f32::total_cmp);
        assert_eq!(xs, [10.0, 40.0]);
        assert!(list.groups.iter().all(|g| g.layered));
        assert_eq!(list.layer_sets.len(), 2);
    }
}
