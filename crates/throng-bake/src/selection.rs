//! The clips stage: which of the scene's clips the bake takes, in which
//! order ([`BakeOptions::clips`]), at most [`MAX_CLIPS`]; and the events of
//! those clips, renumbered to the baked order.

use throng_core::limits::MAX_CLIPS;
use throng_core::model::ClipEvent;

use crate::error::BakeError;
use crate::options::BakeOptions;
use crate::scene::{Clip, Scene};

/// The clips a bake takes: indices into [`Scene::clips`], in baked order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Selection {
    /// Scene clip index of each baked clip.
    pub(crate) clip_ids: Vec<usize>,
}

impl Selection {
    /// The clips `opts` names (all, in file order, when it names none);
    /// refused when one is missing or when there are more than
    /// [`MAX_CLIPS`].
    pub(crate) fn of(scene: &Scene, opts: &BakeOptions) -> Result<Self, BakeError> {
        let clip_ids = select_clips(scene, opts)?;
        if clip_ids.len() > MAX_CLIPS as usize {
            return Err(BakeError::TooBig(format!(
                "{}: {} clips, more than the {MAX_CLIPS} a model can hold; bake fewer with --clips",
                scene.name,
                clip_ids.len()
            )));
        }
        Ok(Self { clip_ids })
    }

    /// The selected clips of `scene`, in baked order.
    pub(crate) fn clips<'a>(&'a self, scene: &'a Scene) -> impl Iterator<Item = &'a Clip> + 'a {
        self.clip_ids.iter().map(|&c| &scene.clips[c])
    }

    /// Events of the selected clips, renumbered to baked clip order, sorted
    /// by clip then time.
    pub(crate) fn events(&self, scene: &Scene) -> Vec<ClipEvent> {
        select_events(scene, &self.clip_ids)
    }
}

/// Events of the baked clips, renumbered to baked clip order, sorted by clip
/// then time.
fn select_events(scene: &Scene, clip_ids: &[usize]) -> Vec<ClipEvent> {
    let mut out: Vec<ClipEvent> = scene
        .events
        .iter()
        .filter_map(|e| {
            let c = clip_ids.iter().position(|&id| id == e.clip as usize)?;
            Some(ClipEvent {
                clip: c as u32,
                ..e.clone()
            })
        })
        .collect();
    out.sort_by(|a, b| {
        (a.clip, a.time)
            .partial_cmp(&(b.clip, b.time))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    out
}

fn select_clips(scene: &Scene, opts: &BakeOptions) -> Result<Vec<usize>, BakeError> {
    let Some(names) = &opts.clips else {
        return Ok((0..scene.clips.len()).collect());
    };
    names
        .iter()
        .map(|name| {
            scene
                .clips
                .iter()
                .position(|c| &c.name == name)
                .ok_or_else(|| BakeError::UnknownClip {
                    name: name.clone(),
                    available: scene
                        .clips
                        .iter()
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                })
        })
        .collect()
}
