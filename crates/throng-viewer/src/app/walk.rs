//! The viewer's walking crowd (`M`, on by default): every instance walks a
//! wandering waypoint loop over the herd's ground at its walk clip's
//! speed-matched playback ([`Walkers`], as `throng bench --walking 100`),
//! re-targeted 1 % a second; the motions are analytic, so walking costs
//! the CPU almost what standing does. On a GPU-driven renderer the crowd is
//! steered on the GPU instead (`steer.rs`): around obstacles and each
//! other, its clips following its speed. Standing again stops each
//! instance where it is and gives it back the clip it played before.

use throng_crowd::crowd::Motion;
use throng_demo::walkers::Walkers;

use super::scene::Scene;

impl Scene {
    /// True while the crowd walks.
    pub fn walking(&self) -> bool {
        self.walkers.is_some() || self.steering.is_some()
    }

    /// Makes the crowd walk or stand.
    pub fn set_walking(&mut self, on: bool) {
        if on == self.walking() {
            return;
        }
        if on {
            self.start_walking();
        } else {
            self.stop_walking();
        }
    }

    /// Puts every instance on a loop (props come off and on again: they
    /// follow their wearer, they do not walk).
    pub(super) fn start_walking(&mut self) {
        let props = self.props_on();
        if props {
            self.set_props(false);
        }
        self.stand_clips = self.clips_now();
        // Blob shadows stay where they were put: none while walking.
        self.blobs.clear();
        self.blobs_changed = true;
        if self.gpu_steering {
            // Simulated instances carry no attachments: the props stay off.
            if let Err(e) = self.start_steering() {
                self.status = format!("steering failed: {e:#}");
            }
            return;
        }
        let (model, bounds) = (self.model_id(), self.bounds());
        match Walkers::new(&mut self.crowd, model, &bounds, 100.0) {
            Ok(w) => {
                self.status = format!("{} instances walk", w.len());
                self.walkers = Some(w);
            }
            Err(e) => self.status = format!("walking failed: {e}"),
        }
        if props {
            self.set_props(true);
        }
    }

    /// Stops every instance where it is, on the clip it played before.
    fn stop_walking(&mut self) {
        if self.steering.is_some() {
            self.stop_steering();
            return;
        }
        self.walkers = None;
        for &(id, _) in self.instances().to_vec().iter() {
            let _ = self.crowd.set_motion(id, Motion::Still);
        }
        self.after_walking();
    }

    /// Gives every standing instance back its clip, speed and blob shadow.
    pub(super) fn after_walking(&mut self) {
        let mut blobs = Vec::with_capacity(self.instances().len());
        for (i, &(id, speed)) in self.instances().to_vec().iter().enumerate() {
            if let Some(Some((clip, time))) = self.stand_clips.get(i).copied() {
                let _ = self.crowd.play(id, clip);
                let _ = self.crowd.set_time(id, time);
            }
            let _ = self.crowd.set_speed(id, speed);
            if let Ok(m) = self.crowd.world_transform(id) {
                let z = m.z_axis.truncate();
                blobs.push([m.w_axis.x, m.w_axis.z, z.x.atan2(z.z), z.length()]);
            }
        }
        if self.rest {
            for &(id, _) in self.instances().to_vec().iter() {
                let _ = self.crowd.play_rest(id);
            }
        }
        self.blobs = blobs;
        self.blobs_changed = true;
        self.status = "standing".into();
    }

    /// Re-targets the walkers owed after `dt` seconds of crowd time.
    pub(super) fn step_walkers(&mut self, dt: f32) {
        if let Some(w) = &mut self.walkers
            && let Err(e) = w.step(&mut self.crowd, dt)
        {
            self.status = format!("walking: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_model::fox;

    #[test]
    fn the_crowd_walks_and_stands_where_it_stopped_on_its_old_clips() {
        let mut s = Scene::new(vec![fox()], 50, 3, 16.0 / 9.0, true).unwrap();
        let ids: Vec<_> = s.instances().iter().map(|&(id, _)| id).collect();
        let before = s.clips_now();
        let at = |s: &Scene| -> Vec<glam::Vec3> {
            ids.iter()
                .map(|&id| s.crowd.world_transform(id).unwrap().w_axis.truncate())
                .collect()
        };
        let start = at(&s);
        s.set_walking(true);
        assert!(s.walking());
        s.advance(2.0);
        let walked = at(&s);
        let moved = start.iter().zip(&walked).filter(|(a, b)| a != b).count();
        assert_eq!(moved, ids.len(), "every instance walks");
        s.set_walking(false);
        assert!(!s.walking());
        assert_eq!(at(&s), walked, "they stop where they are");
        s.advance(2.0);
        assert_eq!(at(&s), walked, "and stand");
        let clips: Vec<_> = s.clips_now().iter().map(|c| c.map(|c| c.0)).collect();
        let old: Vec<_> = before.iter().map(|c| c.map(|c| c.0)).collect();
        assert_eq!(clips, old, "on the clips they played before");
        assert_eq!(s.blobs.len(), ids.len(), "blob shadows under them again");
    }
}
