//! Per-instance animation control, analytically: playing, cross-fading,
//! speed, wrap, time, pause and resume re-anchor the instance's state
//! (`Anim`, in `anim_state.rs`) at the crowd's clock, so nothing advances
//! per frame. Also reading back what an instance shows ([`InstanceState`],
//! its frame blend, a bone's world transform).

use glam::Mat4;

use super::Change;
use super::anim_state::{Anim, Playback, blend_of};
use super::instances::mat4_of;
use super::{Crowd, CrowdError, InstanceId, ModelId, WrapMode};
use throng_core::clock::{Track, rate_of};
use throng_core::gpu::FrameBlend;
use throng_core::math::rows_to_mat4;

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
    /// Re-anchors instance `d` at the clock (keeping what it shows; a
    /// finished fade is dropped), running or not, before a change.
    fn rebase_now(&mut self, d: usize, running: bool) -> &mut Anim {
        let maps = &self.models[self.metas[d].model as usize].maps;
        self.anims[d].rebase(self.clock, maps, running);
        &mut self.anims[d]
    }

    /// After a change of instance `d`'s animation: the change log, the set
    /// of instances stepped every update and the cached sphere follow.
    fn anim_changed(&mut self, d: usize) {
        self.touch(Change::state(d));
        self.refresh_root_motion(d);
        self.refresh_active(d);
        self.refresh_sphere(d);
    }

    /// Plays `clip` from time 0, cancelling any fade; keeps speed and wrap.
    pub fn play(&mut self, id: InstanceId, clip: usize) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        let dur = self.check_clip(self.metas[d].model, clip)?;
        let running = !self.metas[d].paused;
        let cur = self.anims[d].current;
        let playback = Playback::new(clip, 0.0, cur.speed, cur.wrap, dur, running);
        self.anims[d] = Anim::new(playback, self.clock);
        self.anim_changed(d);
        Ok(())
    }

    /// Shows the rest pose (no clip).
    pub fn play_rest(&mut self, id: InstanceId) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        let cur = self.anims[d].current;
        let rest = Playback {
            speed: cur.speed,
            wrap: cur.wrap,
            ..Playback::NONE
        };
        self.anims[d] = Anim::new(rest, self.clock);
        self.anim_changed(d);
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
        let running = !self.metas[d].paused;
        let now = self.clock;
        let a = self.rebase_now(d, running);
        // Mid-fade: keep the heavier of the two as the outgoing clip.
        let outgoing = if a.previous.is_some() && a.fade0 < 0.5 {
            a.previous
        } else {
            a.current
        };
        let current = Playback::new(clip, 0.0, a.current.speed, a.current.wrap, dur, running);
        *a = Anim::new(current, now);
        // From the rest pose there is nothing to fade from.
        if outgoing.is_some() {
            a.previous = outgoing;
            a.fade0 = 0.0;
            a.fade_speed = 1.0 / seconds;
            a.fade_rate = if running { a.fade_speed } else { 0.0 };
        }
        self.anim_changed(d);
        Ok(())
    }

    /// Sets the speed of the current clip.
    pub fn set_speed(&mut self, id: InstanceId, speed: f32) -> Result<(), CrowdError> {
        if !speed.is_finite() {
            return Err(CrowdError::NotFinite("speed"));
        }
        let d = self.dense(id)?;
        let running = !self.metas[d].paused;
        let dur = self.current_duration(d);
        let p = &mut self.rebase_now(d, running).current;
        p.speed = speed;
        if running && p.is_some() {
            p.track.rate = rate_of(speed, p.wrap.period(dur));
        }
        self.anim_changed(d);
        Ok(())
    }

    /// Sets many instances' playback speeds in one call (`ids[i]` gets
    /// `speeds[i]`), all or nothing: every id and speed is checked before
    /// any is written; the log makes room for the batch once.
    pub fn set_speeds(&mut self, ids: &[InstanceId], speeds: &[f32]) -> Result<(), CrowdError> {
        if ids.len() != speeds.len() {
            return Err(CrowdError::Incompatible(format!(
                "set_speeds: {} ids but {} speeds",
                ids.len(),
                speeds.len()
            )));
        }
        for (id, speed) in ids.iter().zip(speeds) {
            self.dense(*id)?;
            if !speed.is_finite() {
                return Err(CrowdError::NotFinite("speed"));
            }
        }
        self.log_reserve(ids.len());
        for (&id, &speed) in ids.iter().zip(speeds) {
            self.set_speed(id, speed)?;
        }
        Ok(())
    }

    /// Sets the wrap mode of the current clip (keeping its clip time).
    pub fn set_wrap(&mut self, id: InstanceId, wrap: WrapMode) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        let running = !self.metas[d].paused;
        let dur = self.current_duration(d);
        let p = &mut self.rebase_now(d, running).current;
        let t = p.time(0, dur);
        p.wrap = wrap;
        if p.is_some() {
            p.track = Track::new(t, p.speed, dur, wrap, running);
            p.fresh = true;
        }
        self.anim_changed(d);
        Ok(())
    }

    /// Sets the clip time of the current clip (wrapped or clamped).
    pub fn set_time(&mut self, id: InstanceId, time: f32) -> Result<(), CrowdError> {
        if !time.is_finite() {
            return Err(CrowdError::NotFinite("time"));
        }
        let d = self.dense(id)?;
        if self.anims[d].current.is_some() {
            let running = !self.metas[d].paused;
            let dur = self.current_duration(d);
            let p = &mut self.rebase_now(d, running).current;
            p.track = Track::new(time, p.speed, dur, p.wrap, running);
            p.fresh = true;
            self.anim_changed(d);
        }
        Ok(())
    }

    /// Stops time for this instance: its clips and its fade stand still.
    pub fn pause(&mut self, id: InstanceId) -> Result<(), CrowdError> {
        self.set_running(id, false)
    }

    /// Resumes a paused instance.
    pub fn resume(&mut self, id: InstanceId) -> Result<(), CrowdError> {
        self.set_running(id, true)
    }

    fn set_running(&mut self, id: InstanceId, running: bool) -> Result<(), CrowdError> {
        let d = self.dense(id)?;
        if self.metas[d].paused != running {
            return Ok(());
        }
        self.rebase_now(d, running);
        self.rebase_layers(d, running);
        self.metas[d].paused = !running;
        self.anim_changed(d);
        Ok(())
    }

    /// Duration of instance `d`'s current clip (0 for the rest pose).
    fn current_duration(&self, d: usize) -> f32 {
        let cur = self.anims[d].current;
        if cur.is_some() {
            self.duration(self.metas[d].model, cur.clip)
        } else {
            0.0
        }
    }

    /// Animation state of an instance.
    pub fn state(&self, id: InstanceId) -> Result<InstanceState, CrowdError> {
        let d = self.authoritative(id)?;
        let (a, meta) = (&self.anims[d], self.metas[d]);
        let ticks = a.since(self.clock);
        let t = |p: &Playback| {
            p.is_some().then(|| {
                (
                    p.clip as usize,
                    p.time(ticks, self.duration(meta.model, p.clip)),
                )
            })
        };
        let fading = a.fading(self.clock);
        Ok(InstanceState {
            model: ModelId(meta.model as u32),
            current: t(&a.current),
            previous: if fading { t(&a.previous) } else { None },
            fade: a.fade_weight(self.clock),
            paused: meta.paused,
            world_from_model: mat4_of(&self.world_rows(d)),
        })
    }

    /// The frames an instance shows now (what its GPU record will hold).
    pub fn frame_blend(&self, id: InstanceId) -> Result<FrameBlend, CrowdError> {
        let d = self.dense(id)?;
        Ok(blend_of(
            &self.anims[d],
            &self.models[self.metas[d].model as usize].maps,
            self.clock,
        ))
    }

    /// World transform of `bone`'s node for an instance, from the baked data,
    /// interpolated and cross-faded exactly as the shader does, layers
    /// included ([`Crowd::palette`]): `world_from_model · P(blended) · bind`.
    pub fn bone_world_transform(&self, id: InstanceId, bone: usize) -> Result<Mat4, CrowdError> {
        let d = self.authoritative(id)?;
        let rt = &self.models[self.metas[d].model as usize];
        let model = rt.handle.model();
        if bone >= model.bones.len() {
            return Err(CrowdError::BoneOutOfRange {
                model: model.name.clone(),
                index: bone,
                count: model.bones.len(),
            });
        }
        let rows = if self.has_layers(d) {
            let mut palette = Vec::new();
            self.palette(id, &mut palette)?;
            palette[bone]
        } else {
            let blend = blend_of(&self.anims[d], &rt.maps, self.clock);
            throng_core::baked::blended_bone_rows(model, bone as u32, &blend)
        };
        Ok(mat4_of(&self.world_rows(d)) * rows_to_mat4(&rows) * rt.handle.bind_matrices()[bone])
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::super::Spawn;
    use super::super::fixtures::{at, test_model};
    use super::*;

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
