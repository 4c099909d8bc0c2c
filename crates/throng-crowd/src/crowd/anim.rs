//! Per-instance animation state and its control: the two tracks of a
//! cross-fade ([`Playback`] × 2 in an [`Anim`]), playing, cross-fading,
//! speed, wrap, time, pause and resume, and reading back what an instance
//! shows ([`InstanceState`], its frame blend, a bone's world transform).

use glam::Mat4;

use super::instances::mat4_of;
use super::{Crowd, CrowdError, InstanceId, ModelId, WrapMode};
use crate::playback::{clip_time, reduce_phase};
use throng_core::gpu::FrameBlend;
use throng_core::layout::{FrameMap, FramePair};
use throng_core::limits::REST_FRAME;
use throng_core::math::rows_to_mat4;

/// "No clip": the rest pose (current track) or no previous clip.
const NO_CLIP: u16 = u16::MAX;

/// One clip playing (12 bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Playback {
    /// Phase: unwrapped clip time reduced to one period
    /// ([`crate::playback::reduce_phase`]).
    pub(super) phase: f32,
    /// Speed multiplier (negative plays backwards).
    pub(super) speed: f32,
    /// Clip index (file order), or [`NO_CLIP`].
    pub(super) clip: u16,
    /// Wrap mode.
    pub(super) wrap: WrapMode,
    /// Just (re)started: the next advance includes its start time, so an
    /// event there fires.
    pub(super) fresh: bool,
}

impl Playback {
    pub(super) const NONE: Self = Self {
        phase: 0.0,
        speed: 1.0,
        clip: NO_CLIP,
        wrap: WrapMode::Loop,
        fresh: false,
    };

    pub(super) fn new(clip: usize, time: f32, speed: f32, wrap: WrapMode, duration: f32) -> Self {
        Self {
            phase: reduce_phase(time, duration, wrap),
            speed,
            clip: clip as u16,
            wrap,
            fresh: true,
        }
    }

    #[inline]
    pub(super) fn is_some(&self) -> bool {
        self.clip != NO_CLIP
    }

    /// Clip time in `[0, duration]`.
    #[inline]
    pub(super) fn time(&self, duration: f32) -> f32 {
        clip_time(self.phase, duration, self.wrap)
    }

    pub(super) fn set_time(&mut self, time: f32, duration: f32) {
        self.phase = reduce_phase(time, duration, self.wrap);
        self.fresh = true;
    }

    /// Moves the clip by `delta` seconds of clip time; returns the unwrapped
    /// phases before and after.
    #[inline]
    pub(super) fn advance(&mut self, delta: f32, duration: f32) -> (f32, f32) {
        let u0 = self.phase;
        let u1 = u0 + delta;
        self.phase = reduce_phase(u1, duration, self.wrap);
        (u0, u1)
    }
}

/// A track's advance over one step: the playback after it, its unwrapped
/// phases before and after, and whether it had just (re)started (`None`:
/// the track has no clip).
pub(super) type Traversed = Option<(Playback, f32, f32, bool)>;

/// Animation state of one instance (32 bytes, dense array element).
#[derive(Clone, Copy, Debug)]
pub(super) struct Anim {
    pub(super) current: Playback,
    pub(super) previous: Playback,
    pub(super) fade_elapsed: f32,
    pub(super) fade_duration: f32,
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

impl Crowd {
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
        let rows = throng_core::baked::blended_bone_rows(model, bone as u32, &blend);
        Ok(mat4_of(&self.rows[d]) * rows_to_mat4(&rows) * rt.handle.bind_matrices()[bone])
    }
}

#[inline]
pub(super) fn fade_weight(a: &Anim) -> f32 {
    if a.previous.is_some() && a.fade_duration > 0.0 {
        (a.fade_elapsed / a.fade_duration).clamp(0.0, 1.0)
    } else {
        1.0
    }
}

#[inline(always)]
pub(super) fn blend_of(a: &Anim, maps: &[FrameMap]) -> FrameBlend {
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
    use glam::Vec3;

    use super::super::Spawn;
    use super::super::fixtures::{at, test_model};
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
}
