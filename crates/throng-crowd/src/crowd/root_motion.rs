//! Root motion: moving an instance by the baked root motion of the clips it
//! plays (clips baked with `--root-motion`). While one clip plays the
//! motion is analytic ([`super::Motion::RootMotion`], `motion.rs`); across a
//! cross-fade the two clips' deltas are blended step by step here.

use super::anim_state::Traversed;
use super::models::ModelRt;
use super::{Crowd, CrowdError, InstanceId};
use crate::playback::{RootDelta, root_delta};

impl Crowd {
    /// Turns root-motion integration on or off for an instance.
    pub fn set_root_motion(&mut self, id: InstanceId, on: bool) -> Result<(), CrowdError> {
        let motion = if on {
            super::Motion::RootMotion
        } else {
            super::Motion::Still
        };
        self.set_motion(id, motion)
    }
}

/// The root motion of one step: each track's baked delta over the phases it
/// traversed, the two blended by the current clip's fade weight `w`.
#[inline]
pub(super) fn step_motion(rt: &ModelRt, cur: Traversed, prev: Traversed, w: f32) -> RootDelta {
    let keys = &rt.handle.model().root_motion;
    let delta = |t: Traversed| match t {
        Some((p, u0, u1, _)) if rt.root_clips[p.clip as usize] => {
            root_delta(keys, &rt.maps[p.clip as usize], p.wrap, u0, u1)
        }
        _ => RootDelta::IDENTITY,
    };
    match prev {
        Some(_) => RootDelta::lerp(&delta(prev), &delta(cur), w),
        None => delta(cur),
    }
}
