//! A model's clips as nodes of a Bevy `AnimationGraph` built from the glTF
//! it was baked from: clip `i` of the `.throng` is the glTF animation of
//! the same name (or, in a glTF whose animations are unnamed, the one at
//! the same index), so a promoted character plays what its instance
//! played and a demoted one plays on in the crowd.

use bevy::animation::AnimationClip;
use bevy::animation::graph::{AnimationGraph, AnimationNodeIndex};
use bevy::gltf::Gltf;
use bevy::prelude::*;
use throng_core::BakedModel;

/// The graph of a promoted character and the node of each of its
/// model's clips (`None`: no animation in the glTF is that clip).
#[derive(Clone, Debug)]
pub struct ClipNodes {
    /// The graph, one clip node per found clip under its root.
    pub graph: Handle<AnimationGraph>,
    /// Per clip of the baked model, its node.
    pub nodes: Vec<Option<AnimationNodeIndex>>,
}

impl ClipNodes {
    /// The graph of `model`'s clips found in `gltf`, added to `graphs`.
    pub fn new(model: &BakedModel, gltf: &Gltf, graphs: &mut Assets<AnimationGraph>) -> Self {
        let mut graph = AnimationGraph::new();
        let root = graph.root;
        let nodes = model
            .clips
            .iter()
            .enumerate()
            .map(|(i, clip)| {
                animation_of(gltf, &clip.name, i, model.clips.len())
                    .map(|handle| graph.add_clip(handle, 1.0, root))
            })
            .collect();
        Self {
            graph: graphs.add(graph),
            nodes,
        }
    }

    /// The node playing clip `clip`.
    pub fn node(&self, clip: usize) -> Option<AnimationNodeIndex> {
        self.nodes.get(clip).copied().flatten()
    }

    /// The clip node `node` plays.
    pub fn clip(&self, node: AnimationNodeIndex) -> Option<usize> {
        self.nodes.iter().position(|n| *n == Some(node))
    }
}

/// The glTF's animation for baked clip `index` named `name`: by name,
/// else by index when the glTF has as many animations as the model clips
/// and that one is unnamed.
fn animation_of(
    gltf: &Gltf,
    name: &str,
    index: usize,
    clips: usize,
) -> Option<Handle<AnimationClip>> {
    if let Some(h) = gltf.named_animations.get(name) {
        return Some(h.clone());
    }
    let unnamed = !gltf
        .named_animations
        .values()
        .any(|h| gltf.animations.get(index) == Some(h));
    (gltf.animations.len() == clips && unnamed)
        .then(|| gltf.animations.get(index).cloned())
        .flatten()
}
