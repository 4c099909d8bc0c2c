//! The baseline's CPU side: a model's source scene, sampled per character
//! ([`CpuSkinnedModel`]), and one character's instance state and
//! transform ([`Character`]).

use glam::Mat4;
use throng_bake::sample::PoseEvaluator;
use throng_bake::scene::Scene;
use throng_core::limits::REST_FRAME;
use throng_core::math::Aabb;
use throng_crowd::crowd::{InstanceState, ModelHandle};

use super::CpuSkinnedError;

/// A baked model together with the source scene it was baked from: what the
/// CPU needs to sample and skin characters itself.
#[derive(Debug)]
pub struct CpuSkinnedModel {
    pub(super) key: u64,
    pub(super) name: String,
    pub(super) scene: Scene,
    pub(super) eval: PoseEvaluator,
    /// Per baked clip: the scene clip of the same name.
    pub(super) clip_of: Vec<usize>,
    /// Per palette entry: `(node, inverse_bind)`.
    pub(super) bones: Vec<(usize, Mat4)>,
    /// Per baked clip: model-space bounds over all its frames.
    pub(super) clip_bounds: Vec<Aabb>,
    pub(super) rest_bounds: Aabb,
}

impl CpuSkinnedModel {
    /// Pairs `handle`'s baked model with its source `scene`, checking that
    /// every palette node exists in the scene and every baked clip has a
    /// scene clip of the same name.
    pub fn new(handle: &ModelHandle, scene: Scene) -> Result<Self, CpuSkinnedError> {
        let model = handle.model();
        let mismatch = |what: String| CpuSkinnedError::SceneMismatch {
            model: model.name.clone(),
            what,
        };
        scene
            .validate()
            .map_err(|e| mismatch(format!("the scene is invalid: {e}")))?;
        let mut bones = Vec::with_capacity(model.bones.len());
        for (b, bone) in model.bones.iter().enumerate() {
            let node = bone.node as usize;
            match scene.nodes.get(node) {
                // The baker suffixes `#k` when several entries share a node.
                Some(n)
                    if bone.name == n.name
                        || bone
                            .name
                            .strip_prefix(n.name.as_str())
                            .is_some_and(|rest| rest.starts_with('#')) =>
                {
                    bones.push((node, bone.inverse_bind))
                }
                Some(n) => {
                    return Err(mismatch(format!(
                        "palette entry {b} is node {node} named {:?}, the scene's node {node} is {:?}",
                        bone.name, n.name
                    )));
                }
                None => {
                    return Err(mismatch(format!(
                        "palette entry {b} ({:?}) is node {node}, the scene has {} nodes",
                        bone.name,
                        scene.nodes.len()
                    )));
                }
            }
        }
        let clip_of = model
            .clips
            .iter()
            .map(|c| {
                scene
                    .clips
                    .iter()
                    .position(|s| s.name == c.name)
                    .ok_or_else(|| mismatch(format!("the scene has no clip named {:?}", c.name)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            key: handle.key(),
            name: model.name.clone(),
            eval: PoseEvaluator::new(&scene),
            scene,
            clip_of,
            bones,
            clip_bounds: model.clips.iter().map(|c| c.bounds).collect(),
            rest_bounds: model.frame_bounds[REST_FRAME as usize],
        })
    }

    /// The identity key of the baked model ([`ModelHandle::key`]).
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Palette entries per character.
    pub fn bone_count(&self) -> usize {
        self.bones.len()
    }

    /// Model-space bounds of a character over its clip(s).
    pub(super) fn bounds(&self, c: &Character) -> Aabb {
        let of = |clip: Option<(usize, f32)>| {
            clip.and_then(|(i, _)| self.clip_bounds.get(i).copied())
                .unwrap_or(self.rest_bounds)
        };
        match c.previous {
            Some(_) => of(c.current).union(&of(c.previous)),
            None => of(c.current),
        }
    }
}

/// One character to draw: its animation state and placement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Character {
    /// Baked clip index (file order) and clip time in seconds, or `None` for
    /// the rest pose.
    pub current: Option<(usize, f32)>,
    /// The clip faded from, during a cross-fade.
    pub previous: Option<(usize, f32)>,
    /// Weight of `current` (1 = no fade).
    pub fade: f32,
    /// `world_from_model`.
    pub world_from_model: Mat4,
    /// Packed RGBA8 tint ([`throng_core::gpu::pack_tint`]).
    pub tint: u32,
}

impl Character {
    /// A character showing what a crowd instance shows.
    pub fn from_state(state: &InstanceState, tint: u32) -> Self {
        Self {
            current: state.current,
            previous: state.previous,
            fade: state.fade,
            world_from_model: state.world_from_model,
            tint,
        }
    }
}
