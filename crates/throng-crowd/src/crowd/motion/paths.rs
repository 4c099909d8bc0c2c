//! The crowd's motion tables, below the motions that index them: shared
//! paths ([`PathId`], their points and who walks them: adding, removing,
//! compacting) and every model's root-motion keys, which a [`GpuMotion`]
//! indexes, with the generation a GPU mirror watches to upload them again.
//!
//! [`GpuMotion`]: throng_core::motion::GpuMotion

use glam::Vec3;

use super::super::instances::NO_PATH;
use super::super::{Change, Crowd, CrowdError};
use throng_core::motion::{PathPoint, RootKey, path_points};

/// Most points of one path.
pub const MAX_PATH_POINTS: usize = 1 << 16;

/// A path of a crowd ([`Crowd::add_path`]), generational like instances.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PathId {
    pub(super) index: u32,
    generation: u32,
}

/// A motion or a path refused, saying why.
pub(super) fn bad(what: &str) -> CrowdError {
    CrowdError::BadMotion(what.to_owned())
}

/// One path: its points in the crowd's table, open and closed.
#[derive(Clone, Copy, Debug)]
pub(in crate::crowd) struct PathSlot {
    generation: u32,
    /// First point; `count` points open, `count + 1` closed.
    pub(super) base: u32,
    pub(super) count: u32,
    pub(super) length_open: f32,
    pub(super) length_closed: f32,
    /// Instances walking it.
    pub(super) users: u32,
    live: bool,
}

impl PathSlot {
    /// Forgets its walkers (the crowd was cleared).
    pub(in crate::crowd) fn release_all(&mut self) {
        self.users = 0;
    }
}

impl Crowd {
    /// Adds a path through `points` (world positions, at least two, not
    /// all at one place, finite).
    pub fn add_path(&mut self, points: &[Vec3]) -> Result<PathId, CrowdError> {
        if points.len() < 2 {
            return Err(bad(&format!(
                "a path needs at least 2 points, got {}",
                points.len()
            )));
        }
        if points.len() > MAX_PATH_POINTS {
            return Err(bad(&format!(
                "a path has at most {MAX_PATH_POINTS} points, got {}",
                points.len()
            )));
        }
        if let Some(i) = points.iter().position(|p| !p.is_finite()) {
            return Err(bad(&format!("path point {i} is not finite: {}", points[i])));
        }
        let base = self.points.len() as u32;
        let (count, length_open) = path_points(points, false, &mut self.points);
        self.points.truncate(base as usize);
        let (_, length_closed) = path_points(points, true, &mut self.points);
        if !(length_open > 0.0 && length_closed.is_finite()) {
            self.points.truncate(base as usize);
            return Err(bad("a path's points are all at one place (length 0)"));
        }
        self.points_generation += 1;
        let slot = PathSlot {
            generation: 0,
            base,
            count,
            length_open,
            length_closed,
            users: 0,
            live: true,
        };
        let index = match self.free_paths.pop() {
            Some(i) => {
                let generation = self.paths[i as usize].generation;
                self.paths[i as usize] = PathSlot { generation, ..slot };
                i
            }
            None => {
                self.paths.push(slot);
                self.paths.len() as u32 - 1
            }
        };
        Ok(PathId {
            index,
            generation: self.paths[index as usize].generation,
        })
    }

    pub(super) fn path_slot(&self, path: PathId) -> Result<&PathSlot, CrowdError> {
        match self.paths.get(path.index as usize) {
            Some(p) if p.live && p.generation == path.generation => Ok(p),
            _ => Err(bad(&format!("path {path:?} does not exist (removed?)"))),
        }
    }

    /// Removes a path no instance walks; its points are reclaimed when
    /// removed paths hold more than half of the point table.
    pub fn remove_path(&mut self, path: PathId) -> Result<(), CrowdError> {
        let users = self.path_slot(path)?.users;
        if users > 0 {
            return Err(bad(&format!(
                "path {path:?} is walked by {users} instances; give them another motion first"
            )));
        }
        let p = &mut self.paths[path.index as usize];
        p.live = false;
        p.generation = p.generation.wrapping_add(1);
        self.free_paths.push(path.index);
        let live: usize = self
            .paths
            .iter()
            .filter(|p| p.live)
            .map(|p| p.count as usize + 1)
            .sum();
        if self.points.len() > 1024 && live * 2 < self.points.len() {
            self.compact_points();
        }
        Ok(())
    }

    /// Moves live paths' points together and re-points the motions on
    /// them (logged, so mirrors upload them again).
    fn compact_points(&mut self) {
        let mut points = Vec::with_capacity(self.points.len() / 2);
        let mut moved = vec![u32::MAX; self.paths.len()];
        for (i, p) in self.paths.iter_mut().enumerate() {
            if p.live {
                let n = p.count as usize + 1;
                let start = points.len() as u32;
                points.extend_from_slice(&self.points[p.base as usize..p.base as usize + n]);
                moved[i] = start;
                p.base = start;
            }
        }
        self.points = points;
        self.points_generation += 1;
        for d in 0..self.metas.len() {
            let path = self.metas[d].path;
            if path != NO_PATH {
                self.motions[d].base = moved[path as usize];
                self.touch(Change::motion(d));
            }
        }
    }

    /// The crowd's path points, every path's after another (what
    /// [`GpuMotion::base`] of a path motion indexes).
    ///
    /// [`GpuMotion::base`]: throng_core::motion::GpuMotion::base
    pub fn path_points(&self) -> &[PathPoint] {
        &self.points
    }

    /// The crowd's root-motion keys, every model's after another (what
    /// [`GpuMotion::base`] of a root motion indexes).
    ///
    /// [`GpuMotion::base`]: throng_core::motion::GpuMotion::base
    pub fn root_keys(&self) -> &[RootKey] {
        &self.root_keys
    }

    /// Changes whenever [`Self::path_points`] or [`Self::root_keys`]
    /// change.
    pub fn motion_tables_generation(&self) -> u64 {
        self.points_generation
    }

    /// Appends `model`'s root keys to the crowd's table; returns its base.
    pub(in crate::crowd) fn add_root_keys(
        &mut self,
        keys: &[throng_core::model::RootMotionKey],
    ) -> u32 {
        let base = self.root_keys.len() as u32;
        self.root_keys.extend(keys.iter().map(|k| RootKey {
            translation: k.translation,
            yaw: k.yaw,
        }));
        self.points_generation += 1;
        base
    }
}
