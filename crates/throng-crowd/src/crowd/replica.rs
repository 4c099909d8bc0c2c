//! A crowd kept equal to another by reading its change log: what a
//! renderer on another thread draws (Bevy's render world, pipelined) while
//! the game's crowd moves on to the next frame.
//!
//! [`CrowdReplica::sync`] copies only what the source's log says changed
//! since the last sync — the dense slots written (all their per-instance
//! arrays), the id table when instances came or went, the small tables
//! (models, masks, paths) when their generation moved — plus the clock. An
//! idle crowd costs a few scalar copies a frame; a crowd where a hundred
//! agents moved costs a hundred slots. The replica logs the same slots in
//! its own change log, under its own identity, so a GPU mirror reading the
//! replica uploads exactly what it would have uploaded from the source, and
//! keeps its buffers across syncs.
//!
//! A replica is for drawing and reading: it has no events (the source's
//! owner drains those) and is not handed out mutably, so it never drifts
//! from its source.

use super::Crowd;
use super::changes::{Change, ChangeCursor, Changes};

/// A read-only copy of a crowd that follows it ([`Self::sync`]).
#[derive(Debug, Default)]
pub struct CrowdReplica {
    crowd: Crowd,
    cursor: ChangeCursor,
}

/// What a [`CrowdReplica::sync`] copied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SyncStats {
    /// Instances (dense slots) copied, repeats counted once per log entry.
    pub instances: usize,
    /// The whole crowd was copied (first sync, another source, or the
    /// source's log was cut since the last sync).
    pub whole: bool,
}

impl CrowdReplica {
    /// An empty replica (its first [`Self::sync`] copies everything).
    pub fn new() -> Self {
        Self::default()
    }

    /// The copy, as of the last [`Self::sync`].
    pub fn crowd(&self) -> &Crowd {
        &self.crowd
    }

    /// Makes the copy equal to `source` (see the module docs).
    pub fn sync(&mut self, source: &Crowd) -> SyncStats {
        match source.changes(&mut self.cursor) {
            Changes::All => {
                self.crowd.copy_whole(source);
                SyncStats {
                    instances: source.len(),
                    whole: true,
                }
            }
            Changes::Slots(changes) => {
                self.crowd.copy_changed(source, changes);
                SyncStats {
                    instances: changes.len(),
                    whole: false,
                }
            }
        }
    }
}

impl Crowd {
    /// Everything of `source` but its log and events; readers of `self`
    /// are told to take everything.
    fn copy_whole(&mut self, source: &Crowd) {
        self.copy_small(source, true);
        self.models.clone_from(&source.models);
        self.masks.clone_from(&source.masks);
        self.points.clone_from(&source.points);
        self.root_keys.clone_from(&source.root_keys);
        self.copy_side_tables(source);
        self.looks_generation = source.looks_generation;
        self.legs_generation = source.legs_generation;
        self.points_generation = source.points_generation;
        self.ground.clone_from(&source.ground);
        self.ground_generation = source.ground_generation;
        self.spheres_stale = source.spheres_stale;
        self.slot_of.clone_from(&source.slot_of);
        self.rows.clone_from(&source.rows);
        self.spheres.clone_from(&source.spheres);
        self.local_spheres.clone_from(&source.local_spheres);
        self.anims.clone_from(&source.anims);
        self.metas.clone_from(&source.metas);
        self.tints.clone_from(&source.tints);
        self.looks.clone_from(&source.looks);
        self.motions.clone_from(&source.motions);
        self.events.clear();
        self.log.force_all();
    }

    /// The slots `changes` names (and any the source grew by), the tables
    /// they may have touched, and the clock; the same changes logged here.
    fn copy_changed(&mut self, source: &Crowd, changes: &[Change]) {
        let resized = self.len() != source.len();
        let touched = resized || !changes.is_empty();
        // Instances came or went (spawn and despawn log whole slots; a
        // clear shortens the crowd): the id table follows.
        let structure = resized || changes.iter().any(|c| *c == Change::all(c.slot()));
        self.copy_small(source, structure);
        self.copy_tables(source, touched);
        // Each array by what its writes log: a moved instance copies its
        // transform and bounds (64 bytes), not its animation.
        let all = |c: Change| c == Change::all(c.slot());
        let state = Change::has_state;
        let moved = |c: Change| c.has_transform() || c.has_state();
        follow(&mut self.slot_of, &source.slot_of, changes, all);
        follow(&mut self.rows, &source.rows, changes, Change::has_transform);
        follow(
            &mut self.local_spheres,
            &source.local_spheres,
            changes,
            state,
        );
        follow(&mut self.anims, &source.anims, changes, state);
        follow(&mut self.metas, &source.metas, changes, state);
        follow(&mut self.tints, &source.tints, changes, state);
        follow(&mut self.looks, &source.looks, changes, state);
        follow(
            &mut self.motions,
            &source.motions,
            changes,
            Change::has_motion,
        );
        // Bounds refreshed in place (`refresh_bounds`) are not logged.
        if self.spheres_stale && !source.spheres_stale {
            self.spheres.clone_from(&source.spheres);
        } else {
            follow(&mut self.spheres, &source.spheres, changes, moved);
        }
        self.spheres_stale = source.spheres_stale;
        // An instance leaving the stepped set moves another's place in it,
        // unlogged (bookkeeping of `update`, not state).
        if touched {
            for (at, &d) in self.active.iter().enumerate() {
                if let Some(m) = self.metas.get_mut(d as usize) {
                    m.active = at as u32;
                }
            }
        }
        self.log_reserve(changes.len());
        for &c in changes {
            self.touch(c);
        }
    }

    /// The clock and counters, always; the id table when `structure`.
    fn copy_small(&mut self, source: &Crowd, structure: bool) {
        self.seconds = source.seconds;
        self.clock = source.clock;
        self.simulated = source.simulated;
        self.sim_serial = source.sim_serial;
        if structure {
            self.slots.clone_from(&source.slots);
            self.free.clone_from(&source.free);
        }
    }

    /// The tables besides the dense arrays: models and masks when their
    /// count or the look classes moved, path points and root keys when
    /// their generation moved, the ground when its generation moved, and
    /// the per-instance side tables (layers, attachments, the stepped set,
    /// path slots) when any instance was written (`touched`). Generations
    /// are copied last.
    fn copy_tables(&mut self, source: &Crowd, touched: bool) {
        let models = self.models.len() != source.models.len()
            || self.masks.len() != source.masks.len()
            || self.looks_generation != source.looks_generation
            || self.legs_generation != source.legs_generation;
        if models {
            self.models.clone_from(&source.models);
            self.masks.clone_from(&source.masks);
        }
        if models || self.points_generation != source.points_generation {
            self.points.clone_from(&source.points);
            self.root_keys.clone_from(&source.root_keys);
        }
        if touched || self.points_generation != source.points_generation {
            self.copy_side_tables(source);
        }
        if self.ground_generation != source.ground_generation {
            self.ground.clone_from(&source.ground);
            self.ground_generation = source.ground_generation;
        }
        self.looks_generation = source.looks_generation;
        self.legs_generation = source.legs_generation;
        self.points_generation = source.points_generation;
    }

    /// The per-instance side tables: path slots, layers, foot IK,
    /// attachments and the stepped set.
    fn copy_side_tables(&mut self, source: &Crowd) {
        self.paths.clone_from(&source.paths);
        self.free_paths.clone_from(&source.free_paths);
        self.layers.clone_from(&source.layers);
        self.foot_ik.clone_from(&source.foot_ik);
        self.followers.clone_from(&source.followers);
        self.active.clone_from(&source.active);
    }
}

/// Makes `dst` equal to `src` where `src` differs only at the slots of the
/// `changes` that `touches` this array and past `dst`'s end: cut to
/// `src`'s length, grown by `src`'s tail, and those slots copied.
fn follow<T: Clone>(
    dst: &mut Vec<T>,
    src: &[T],
    changes: &[Change],
    touches: impl Fn(Change) -> bool,
) {
    dst.truncate(src.len());
    let kept = dst.len();
    dst.extend_from_slice(&src[kept..]);
    for &c in changes {
        let d = c.slot();
        if d < kept && touches(c) {
            dst[d] = src[d].clone();
        }
    }
}

#[cfg(test)]
mod tests;
