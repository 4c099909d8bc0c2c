//! Transforms written in place, in bulk ([`Crowd::write_transforms`]): the
//! CPU write path of a simulation that keeps every instance's transform on
//! the CPU (an ECS, physics) and writes them all each frame.
//!
//! The caller writes the crowd's own transform rows (dense order, the
//! order of [`Crowd::dense_ids`]), so nothing is looked up per instance and
//! nothing is copied; then one pass over the written rows checks them, re-
//! anchors the moving instances among them and logs them for the GPU
//! mirror. World bounding spheres are not computed here: the GPU-driven
//! path computes them in its cull from the transforms it uploads, and the
//! CPU paths compute them while they build a draw list until
//! [`Crowd::refresh_bounds`] caches them again. Measured per changed
//! instance in `tests/benches/crowd.rs` ("batched writes"; figures in
//! docs/BENCHMARKS.md).

use glam::Vec4;

use super::changes::Change;
use super::{Crowd, CrowdError, InstanceId};

/// A finite row triple: no NaN or infinity in any of its twelve numbers.
#[inline]
fn finite(rows: &[Vec4; 3]) -> bool {
    rows[0].is_finite() && rows[1].is_finite() && rows[2].is_finite()
}

impl Crowd {
    /// The instances' ids in dense order: `dense_ids()[i]` is the instance
    /// whose transform is row `i` of [`Self::write_transforms`]. The order
    /// changes only when instances are spawned (appended) or despawned (the
    /// last one fills the hole).
    pub fn dense_ids(&self) -> impl ExactSizeIterator<Item = InstanceId> + '_ {
        (0..self.len()).map(|d| self.id_at(d))
    }

    /// Writes transforms in place: `write` gets the top three rows of
    /// `world_from_model` (row-major: `rows[i][r]` is row `r`) of the
    /// instances in dense slots `range` ([`Self::dense_ids`]) and may
    /// overwrite any of them. Then, in one pass over the range: every row
    /// is checked, the moving instances among them are re-anchored at
    /// their new transforms (as [`Self::set_transform`] does), and all are
    /// logged as moved for the GPU mirror. A range past the crowd's end is
    /// an error before anything is written.
    ///
    /// A row that is not finite is not kept: that instance's transform
    /// becomes zero (it draws nothing) and the call returns
    /// [`CrowdError::NotFinite`] after the pass, every other row written.
    /// Checking before the write would take a copy of every row, which
    /// this call exists to avoid; [`Self::set_transforms`] is all or
    /// nothing.
    ///
    /// The world bounding spheres the CPU paths cull with are not updated
    /// here (the GPU-driven path computes its own): until
    /// [`Self::refresh_bounds`], a CPU draw list computes each instance's
    /// from its transform, as it does for moving instances.
    pub fn write_transforms(
        &mut self,
        range: std::ops::Range<usize>,
        write: impl FnOnce(&mut [[Vec4; 3]]),
    ) -> Result<(), CrowdError> {
        if range.start > range.end || range.end > self.rows.len() {
            return Err(CrowdError::Incompatible(format!(
                "write_transforms: dense slots {range:?} of a crowd of {}",
                self.rows.len()
            )));
        }
        write(&mut self.rows[range.clone()]);
        self.spheres_stale = true;
        self.log_reserve(range.len());
        let movers = !self.motions.is_empty();
        let mut bad = None;
        for d in range {
            if !finite(&self.rows[d]) {
                self.rows[d] = [Vec4::ZERO; 3];
                bad.get_or_insert(d);
            }
            if movers && self.moving(d) {
                self.reanchor_motion(d, self.rows[d]);
                self.touch(Change::all(d));
            }
            self.touch(Change::transform(d));
        }
        match bad {
            Some(_) => Err(CrowdError::NotFinite(
                "a transform written in place (zeroed: that instance draws nothing)",
            )),
            None => Ok(()),
        }
    }

    /// Caches every instance's world bounding sphere again (after
    /// [`Self::write_transforms`]), so that the CPU paths' draw lists read
    /// them instead of computing them. Not needed on the GPU-driven path.
    pub fn refresh_bounds(&mut self) {
        if !self.spheres_stale {
            return;
        }
        for d in 0..self.rows.len() {
            self.move_sphere(d);
        }
        self.spheres_stale = false;
    }

    /// True while the cached world spheres may be out of date
    /// ([`Self::write_transforms`]).
    #[inline]
    pub(super) fn spheres_stale(&self) -> bool {
        self.spheres_stale
    }
}

#[cfg(test)]
mod tests {
    use glam::{Mat4, Vec3};

    use super::super::fixtures::{at, test_model};
    use super::super::{ChangeCursor, Changes, DrawList};
    use super::*;
    use crate::camera::Camera;

    fn rows(m: Mat4) -> [Vec4; 3] {
        let t = m.transpose();
        [t.x_axis, t.y_axis, t.z_axis]
    }

    #[test]
    fn written_rows_are_the_transforms_and_are_logged() {
        let handle = test_model(1.0);
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&handle);
        for i in 0..10 {
            crowd.spawn(m, at(i as f32)).unwrap();
        }
        let mut cursor = ChangeCursor::default();
        let _ = crowd.changes(&mut cursor);
        let ids: Vec<_> = crowd.dense_ids().collect();
        crowd
            .write_transforms(2..5, |r| {
                for (k, row) in r.iter_mut().enumerate() {
                    *row = rows(Mat4::from_translation(Vec3::new(0.0, 7.0 + k as f32, 0.0)));
                }
            })
            .unwrap();
        for (k, id) in ids[2..5].iter().enumerate() {
            let want = Mat4::from_translation(Vec3::new(0.0, 7.0 + k as f32, 0.0));
            assert_eq!(crowd.state(*id).unwrap().world_from_model, want);
        }
        match crowd.changes(&mut cursor) {
            Changes::Slots(s) => {
                let slots: Vec<_> = s.iter().map(|c| (c.slot(), c.has_transform())).collect();
                assert_eq!(slots, [(2, true), (3, true), (4, true)]);
            }
            Changes::All => panic!("a batch of three is logged as three"),
        }
    }

    #[test]
    fn a_draw_list_after_a_write_in_place_culls_by_the_new_transforms() {
        let handle = test_model(1.0);
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&handle);
        for _ in 0..4 {
            crowd.spawn(m, at(0.0)).unwrap();
        }
        crowd.update(0.0);
        let camera = Camera::look_at(
            Vec3::new(0.0, 0.0, 10.0),
            Vec3::ZERO,
            Vec3::Y,
            1.0,
            1.0,
            0.1,
            100.0,
        );
        // Two of the four moved far behind the camera.
        crowd
            .write_transforms(0..2, |r| {
                r.fill(rows(Mat4::from_translation(Vec3::new(0.0, 0.0, 500.0))));
            })
            .unwrap();
        let mut list = DrawList::default();
        crowd.build_draw_list(Some(&camera.frustum()), &mut list);
        assert_eq!(list.records.len(), 2, "culled by the written transforms");
        crowd.refresh_bounds();
        assert!(!crowd.spheres_stale());
        crowd.build_draw_list(Some(&camera.frustum()), &mut list);
        assert_eq!(list.records.len(), 2, "and by the refreshed cache");
    }

    #[test]
    fn bad_rows_and_ranges_are_refused_naming_what() {
        let handle = test_model(1.0);
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&handle);
        let id = crowd.spawn(m, at(0.0)).unwrap();
        let other = crowd.spawn(m, at(1.0)).unwrap();
        let e = crowd
            .write_transforms(1..3, |_| unreachable!())
            .unwrap_err();
        assert!(
            e.to_string().contains("dense slots 1..3 of a crowd of 2"),
            "{e}"
        );
        let e = crowd
            .write_transforms(0..2, |r| {
                r[0][1].y = f32::NAN;
                r[1] = rows(Mat4::from_translation(Vec3::Y));
            })
            .unwrap_err();
        assert!(matches!(e, CrowdError::NotFinite(_)), "{e}");
        let zeroed = crowd.state(id).unwrap().world_from_model;
        assert_eq!(
            zeroed.transform_point3(Vec3::ONE),
            Vec3::ZERO,
            "the bad row is zeroed"
        );
        let moved = crowd.state(other).unwrap().world_from_model;
        assert_eq!(
            moved,
            Mat4::from_translation(Vec3::Y),
            "the good row is kept"
        );
    }
}
