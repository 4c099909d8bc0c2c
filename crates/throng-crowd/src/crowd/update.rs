//! Advancing the clock: [`Crowd::update`] moves the crowd's time and steps
//! only the instances that need per-step work — those whose clips have
//! events or move them by root motion (the *active* set, kept as a list of
//! dense slots) — and then the attachments. Every other instance is a
//! function of the clock and costs nothing. [`Crowd::tick`] fuses that with
//! building the draw list.

use super::Change;
use super::anim_state::{Playback, Traversed};
use super::draw::{DrawList, DrawView};
use super::events::push_crossed;
use super::instances::{NOT_ACTIVE, mat4_of, rows_of};
use super::models::ModelRt;
use super::root_motion::step_motion;
use super::{Crowd, InstanceId};
use crate::playback::RootDelta;
use throng_core::clock::{reduced_seconds, seconds_between, ticks_of};

impl Crowd {
    /// The crowd's clock: ticks of [`throng_core::clock::TICKS_PER_SECOND`]
    /// since it was created, the sum of every `update`'s `dt`.
    pub fn clock(&self) -> u64 {
        self.clock
    }

    /// The clock in seconds.
    pub fn seconds(&self) -> f64 {
        self.seconds
    }

    /// Instances stepped by every update (clips with events, root motion):
    /// the per-frame CPU cost of an otherwise idle crowd.
    pub fn active_len(&self) -> usize {
        self.active.len()
    }

    /// Advances the clock by `dt` seconds (ignored unless finite and
    /// positive); every unpaused instance's clips move by `dt` times their
    /// speed. Steps the instances with events or root motion, then the
    /// attachments.
    pub fn update(&mut self, dt: f32) {
        if !(dt.is_finite() && dt > 0.0) {
            return;
        }
        let from = self.clock;
        self.seconds += dt as f64;
        self.clock = ticks_of(self.seconds);
        let mut i = 0;
        while i < self.active.len() {
            let d = self.active[i] as usize;
            self.step(d, from);
            if self.needs_step(d) {
                i += 1;
            } else {
                self.leave_active(d); // the list's last entry moved to i
            }
        }
        self.sync_followers();
    }

    /// Steps active instance `d` from tick `from` to the clock: events
    /// crossed, root motion, a finished fade dropped.
    fn step(&mut self, d: usize, from: u64) {
        let meta = self.metas[d];
        let rt = &self.models[meta.model as usize];
        let now = self.clock;
        let a = &mut self.anims[d];
        let (t0, t1) = (a.since(from), a.since(now));
        let track = |p: &mut Playback| -> Traversed {
            p.is_some().then(|| {
                let fresh = std::mem::replace(&mut p.fresh, false);
                let period = p.wrap.period(rt.maps[p.clip as usize].duration);
                let (u0, u1) = (p.track.unwrapped(t0), p.track.unwrapped(t1));
                let start = reduced_seconds(u0, period, p.wrap);
                let end = start + seconds_between(u0, u1, period);
                (*p, start as f32, end as f32, fresh)
            })
        };
        let cur = track(&mut a.current);
        let prev = track(&mut a.previous);
        let w = a.fade_weight(now);
        let fade_ended = a.previous.is_some() && w >= 1.0;
        if fade_ended {
            a.rebase(now, &rt.maps, !meta.paused);
        }
        if rt.has_events {
            let index = self.slot_of[d];
            let instance = InstanceId {
                index,
                generation: self.slots[index as usize].generation,
            };
            let tracks = [(cur, w), (prev, 1.0 - w)];
            push_crossed(&mut self.events, rt, instance, meta.model, tracks);
        }
        let mut moved = false;
        // Only while fading (`prev` is some): otherwise the motion is
        // analytic (`Motion::RootMotion`).
        if rt.has_root_motion && meta.root_motion && prev.is_some() {
            let motion = step_motion(rt, cur, prev, w);
            if motion != RootDelta::IDENTITY {
                self.rows[d] =
                    self.on_ground(rows_of(&(mat4_of(&self.rows[d]) * motion.to_mat4())));
                moved = true;
            }
        }
        if fade_ended {
            // Analytic again from here.
            self.refresh_root_motion(d);
        }
        if moved || fade_ended {
            self.refresh_sphere(d);
            self.touch(match (moved, fade_ended) {
                (true, false) => Change::transform(d),
                (false, true) => Change::state(d),
                _ => Change::all(d),
            });
        }
    }

    /// True if instance `d` needs stepping every update: unpaused, not an
    /// attachment, and a clip it shows has events or moves it.
    pub(super) fn needs_step(&self, d: usize) -> bool {
        let meta = self.metas[d];
        if meta.paused || meta.follower {
            return false;
        }
        let rt = &self.models[meta.model as usize];
        let a = &self.anims[d];
        // Root motion is analytic while one clip plays; stepped while fading.
        let root = meta.root_motion && a.fading(self.clock);
        let wants = |p: &Playback| p.is_some() && clip_needs_step(rt, p.clip, root);
        wants(&a.current) || (a.previous.is_some() && wants(&a.previous))
    }

    /// Puts instance `d` in or out of the active set after a change.
    pub(super) fn refresh_active(&mut self, d: usize) {
        let want = self.needs_step(d);
        let is = self.metas[d].active != NOT_ACTIVE;
        if want && !is {
            self.metas[d].active = self.active.len() as u32;
            self.active.push(d as u32);
        } else if !want && is {
            self.leave_active(d);
        }
    }

    /// Takes instance `d` out of the active set (if in it).
    pub(super) fn leave_active(&mut self, d: usize) {
        let at = std::mem::replace(&mut self.metas[d].active, NOT_ACTIVE);
        if at == NOT_ACTIVE {
            return;
        }
        self.active.swap_remove(at as usize);
        if let Some(&moved) = self.active.get(at as usize) {
            self.metas[moved as usize].active = at;
        }
    }

    /// [`Self::update`] then [`Self::build_draw_list`].
    pub fn tick(&mut self, dt: f32, view: impl Into<DrawView>, out: &mut DrawList) {
        self.update(dt);
        self.build_draw_list(view, out);
    }
}

/// A clip that makes an instance need a step: it has events, or it has root
/// motion and the instance follows it.
#[inline]
fn clip_needs_step(rt: &ModelRt, clip: u16, root_motion: bool) -> bool {
    let c = clip as usize;
    !rt.event_ranges[c].is_empty() || (root_motion && rt.root_clips[c])
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::super::Spawn;
    use super::super::fixtures::{at, test_model};
    use super::*;
    use crate::camera::Camera;

    #[test]
    fn tick_equals_update_then_build() {
        let h = test_model(1.0);
        let mut a = Crowd::new();
        let m = a.add_model(&h);
        for i in 0..20 {
            let id = a
                .spawn(
                    m,
                    Spawn {
                        time: i as f32 * 0.13,
                        speed: 0.5 + i as f32 * 0.1,
                        ..at(i as f32)
                    },
                )
                .unwrap();
            if i % 3 == 0 {
                a.cross_fade(id, 0, 0.25 + i as f32 * 0.01).unwrap();
            }
            if i % 7 == 0 {
                a.pause(id).unwrap();
            }
        }
        let mut b = a.clone();
        let frustum = Camera::look_at(
            Vec3::new(10.0, 2.0, 30.0),
            Vec3::new(10.0, 0.0, 0.0),
            Vec3::Y,
            0.5,
            1.0,
            0.1,
            100.0,
        )
        .frustum();
        let (mut la, mut lb) = (DrawList::default(), DrawList::default());
        for _ in 0..30 {
            a.update(0.05);
            a.build_draw_list(Some(&frustum), &mut la);
            b.tick(0.05, Some(&frustum), &mut lb);
            assert_eq!(la.records, lb.records);
            assert_eq!(la.groups, lb.groups);
        }
        assert!(
            la.visible() > 0 && la.visible() < 20,
            "some culled, some drawn: {}",
            la.visible()
        );
    }
}
