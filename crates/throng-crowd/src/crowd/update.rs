//! Advancing time: [`Crowd::update`] steps every instance (clips, fades,
//! events, root motion, cached spheres) and then its attachments;
//! [`Crowd::tick`] fuses that with building the draw list in one pass.

use super::anim::{Anim, Playback, fade_weight};
use super::bounds::world_sphere;
use super::draw::{DrawList, DrawPass, DrawView};
use super::events::push_crossed;
use super::instances::{mat4_of, rows_of};
use super::root_motion::step_motion;
use super::{Crowd, InstanceId};
use crate::playback::RootDelta;
use throng_core::layout::FrameMap;

impl Crowd {
    /// Advances every unpaused instance by `dt` seconds (times its speed).
    pub fn update(&mut self, dt: f32) {
        if !dt.is_finite() {
            return;
        }
        for d in 0..self.anims.len() {
            self.step(d, dt);
        }
        self.sync_followers();
    }

    /// Advances dense instance `d` by `dt` (unless paused): clips, fade,
    /// events, root motion, and the cached sphere when bounds changed.
    #[inline]
    fn step(&mut self, d: usize, dt: f32) {
        let meta = self.metas[d];
        if meta.paused || meta.follower {
            return;
        }
        let rt = &self.models[meta.model as usize];
        let full = rt.has_events || (rt.has_root_motion && meta.root_motion);
        if !full {
            if advance(&mut self.anims[d], dt, &rt.maps) {
                self.spheres[d] = world_sphere(rt, &self.anims[d], &self.rows[d]);
            }
            return;
        }
        // The full path: events and root motion need the traversed phases.
        let a = &mut self.anims[d];
        let track = |p: &mut Playback| {
            p.is_some().then(|| {
                let fresh = std::mem::replace(&mut p.fresh, false);
                let (u0, u1) = p.advance(dt * p.speed, rt.maps[p.clip as usize].duration);
                (*p, u0, u1, fresh)
            })
        };
        let cur = track(&mut a.current);
        let prev = track(&mut a.previous);
        let mut fade_ended = false;
        if a.previous.is_some() {
            a.fade_elapsed += dt;
            fade_ended = a.fade_elapsed >= a.fade_duration;
        }
        let w = if fade_ended { 1.0 } else { fade_weight(a) };
        if fade_ended {
            a.previous = Playback::NONE;
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
        if rt.has_root_motion && meta.root_motion {
            let motion = step_motion(rt, cur, prev, w);
            if motion != RootDelta::IDENTITY {
                self.rows[d] = rows_of(&(mat4_of(&self.rows[d]) * motion.to_mat4()));
                moved = true;
            }
        }
        if moved || fade_ended {
            self.spheres[d] = world_sphere(rt, &self.anims[d], &self.rows[d]);
        }
    }

    /// [`Self::update`] then [`Self::build_draw_list`] in one pass over the
    /// instances: the same result with each instance's state read once.
    pub fn tick(&mut self, dt: f32, view: impl Into<DrawView>, out: &mut DrawList) {
        let view = view.into();
        if !dt.is_finite() {
            self.build_draw_list(view, out);
            return;
        }
        let mut pass = DrawPass::new(&self.models, self.anims.len(), &view, out);
        for d in 0..self.anims.len() {
            self.step(d, dt);
            let meta = self.metas[d];
            if meta.follower {
                continue; // visited once its parent has moved
            }
            self.visit_instance(&mut pass, d);
        }
        if !self.followers.is_empty() {
            self.sync_followers();
            for f in &self.followers {
                let Ok(d) = self.dense(f.child) else { continue };
                self.visit_instance(&mut pass, d);
            }
        }
        pass.finish(&self.models);
    }
}

/// Advances both tracks of an instance; returns true when a fade ended (its
/// bounds shrink).
#[inline]
fn advance(a: &mut Anim, dt: f32, maps: &[FrameMap]) -> bool {
    if a.current.is_some() {
        a.current
            .advance(dt * a.current.speed, maps[a.current.clip as usize].duration);
    }
    if a.previous.is_some() {
        a.previous.advance(
            dt * a.previous.speed,
            maps[a.previous.clip as usize].duration,
        );
        a.fade_elapsed += dt;
        if a.fade_elapsed >= a.fade_duration {
            a.previous = Playback::NONE;
            return true;
        }
    }
    false
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
