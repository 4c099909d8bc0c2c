//! Re-anchoring an instance's motion when something under it changes: its
//! root motion after every change of its animation (analytic while one
//! clip plays, stepped on the CPU during a fade or paused), and any motion
//! after [`Crowd::set_transform`] (a velocity keeps its speed along the
//! heading, a path its distance, root motion its clip, a simulated
//! instance is handed over again).

use glam::{Vec3, Vec4};

use super::super::{Change, Crowd};
use throng_core::motion::{GpuMotion, MotionKind, RootKey, motion_rows};

impl Crowd {
    /// Anchors dense slot `d`'s root motion at the clock, from where it is
    /// now, if it follows root motion: analytic while one clip plays, still
    /// (stepped on the CPU) during a fade or paused. Called after every
    /// change of its animation.
    pub(in crate::crowd) fn refresh_root_motion(&mut self, d: usize) {
        let meta = self.metas[d];
        if !meta.root_motion {
            return;
        }
        self.ensure_motions();
        let here = self.world_rows(d);
        self.rows[d] = here;
        let anchor = here.map(|v| v.to_array());
        let now = self.clock;
        let rt = &self.models[meta.model as usize];
        let a = &mut self.anims[d];
        let analytic = a.current.is_some()
            && rt.root_clips[a.current.clip as usize]
            && !a.fading(now)
            && !meta.paused;
        self.motions[d] = if analytic {
            // The motion shares the animation's anchor.
            a.rebase(now, &rt.maps, true);
            let p = a.current;
            let map = rt.maps[p.clip as usize];
            let keys = &rt.handle.model().root_motion;
            let last = keys[(map.first_frame + map.frame_count - 1) as usize];
            GpuMotion::root_motion(
                anchor,
                now,
                &p.track,
                p.wrap,
                rt.root_base + map.first_frame,
                map.frame_count,
                map.duration,
                map.frames_per_second,
                RootKey {
                    translation: last.translation,
                    yaw: last.yaw,
                },
            )
        } else {
            GpuMotion::still(anchor)
        };
        self.touch(Change::all(d));
    }

    /// Re-anchors dense slot `d`'s motion at transform `rows` (after
    /// [`Crowd::set_transform`]).
    pub(in crate::crowd) fn reanchor_motion(&mut self, d: usize, rows: [Vec4; 3]) {
        let Some(m) = self.motion_of(d).copied() else {
            return;
        };
        let anchor = rows.map(|v| v.to_array());
        let now = self.clock;
        match m.motion_kind() {
            MotionKind::Velocity => {
                // Keep the speed along the heading it has turned to.
                let turned = motion_rows(&m, now, &[], &[]);
                let anchor_heading = Vec3::new(m.anchor_rows[0][2], 0.0, m.anchor_rows[2][2]);
                let heading = Vec3::new(turned[0].z, 0.0, turned[2].z);
                let yaw = heading.x.atan2(heading.z) - anchor_heading.x.atan2(anchor_heading.z);
                let v = glam::Quat::from_rotation_y(yaw) * Vec3::new(m.a[0], m.a[1], m.a[2]);
                self.motions[d] = GpuMotion::velocity(anchor, now, v, m.a[3]);
            }
            MotionKind::Path => {
                let track = m.track();
                let rebased = track.rebased(now.saturating_sub(m.anchor()), m.wrap(), track.rate);
                let mut n = m;
                n.anchor_rows = anchor;
                n.anchor_lo = now as u32;
                n.anchor_hi = (now >> 32) as u32;
                n.track = [
                    rebased.phase as u32,
                    (rebased.phase >> 32) as u32,
                    m.track[2],
                    m.track[3],
                ];
                self.motions[d] = n;
            }
            MotionKind::RootMotion => {
                self.motions[d] = GpuMotion::still(anchor);
                self.rows[d] = rows;
                self.refresh_root_motion(d);
            }
            MotionKind::Simulated => {
                let v = Vec3::new(m.a[0], m.a[1], m.a[2]);
                let data = m.track.map(f32::from_bits);
                self.motions[d] = self.simulated_motion(d, anchor, v, m.a[3], data);
            }
            MotionKind::Still => {}
        }
    }
}
