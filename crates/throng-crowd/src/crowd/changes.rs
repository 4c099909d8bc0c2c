//! What changed since a reader last looked: the log of dense instance slots
//! whose transform or state (tint, animation, model) was written, and which
//! of the two, so a GPU mirror of the crowd uploads only those, and of a
//! moved instance only its transform ([`Crowd::changes`]). An idle
//! crowd logs nothing; time alone changes nothing, because playback is
//! analytic ([`throng_core::clock`]).
//!
//! The log is shared by any number of readers, each with its own
//! [`ChangeCursor`]. It is cut when it grows past twice the instance count
//! (and at least [`MIN_LOG`] entries): a reader left behind the cut, or one
//! that last read another crowd, is told to take everything
//! ([`Changes::All`]).

use std::sync::atomic::{AtomicU64, Ordering};

use super::Crowd;

/// Fewest entries the log keeps before it may be cut.
pub const MIN_LOG: usize = 1 << 16;

/// Process-unique crowd identities (0 is never used: a fresh cursor knows no
/// crowd).
static NEXT_KEY: AtomicU64 = AtomicU64::new(1);

/// The change log of one crowd.
#[derive(Debug)]
pub(super) struct ChangeLog {
    /// Identity of the crowd the log belongs to (a clone gets its own).
    key: u64,
    /// Position of `entries[0]` in the crowd's history of changes.
    start: u64,
    /// Dense slots written, oldest first, with what was written (repeats
    /// allowed; a slot at or past the crowd's length is gone and is skipped
    /// by readers).
    entries: Vec<Change>,
}

/// One entry of the change log: a dense slot and what of it was written.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Change(u32);

impl Change {
    const TRANSFORM: u32 = 1 << 31;
    const STATE: u32 = 1 << 30;
    const MOTION: u32 = 1 << 29;

    /// Dense slots a log entry can name: a crowd holds at most this many
    /// instances.
    pub const MAX_SLOTS: usize = 1 << 29;

    /// Slot `d`'s transform was written.
    pub fn transform(d: usize) -> Self {
        Self(d as u32 | Self::TRANSFORM)
    }

    /// Slot `d`'s state (animation, tint, model) was written.
    pub fn state(d: usize) -> Self {
        Self(d as u32 | Self::STATE)
    }

    /// Slot `d`'s motion was written.
    pub fn motion(d: usize) -> Self {
        Self(d as u32 | Self::MOTION)
    }

    /// All of slot `d` was written (spawned, or filled by a despawn).
    pub fn all(d: usize) -> Self {
        Self(d as u32 | Self::TRANSFORM | Self::STATE | Self::MOTION)
    }

    /// The dense slot.
    #[inline]
    pub fn slot(self) -> usize {
        (self.0 & (Self::MOTION - 1)) as usize
    }

    /// True if the slot's motion was written.
    #[inline]
    pub fn has_motion(self) -> bool {
        self.0 & Self::MOTION != 0
    }

    /// True if the slot's transform was written.
    #[inline]
    pub fn has_transform(self) -> bool {
        self.0 & Self::TRANSFORM != 0
    }

    /// True if the slot's state was written.
    #[inline]
    pub fn has_state(self) -> bool {
        self.0 & Self::STATE != 0
    }
}

impl std::fmt::Debug for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match (self.has_transform(), self.has_state(), self.has_motion()) {
            (true, true, true) => "all",
            (true, false, false) => "transform",
            (false, true, false) => "state",
            (false, false, true) => "motion",
            _ => "several",
        };
        write!(f, "{}:{what}", self.slot())
    }
}

impl Default for ChangeLog {
    fn default() -> Self {
        Self {
            key: NEXT_KEY.fetch_add(1, Ordering::Relaxed),
            start: 0,
            entries: Vec::new(),
        }
    }
}

impl Clone for ChangeLog {
    /// A clone is another crowd: its readers start with everything.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl ChangeLog {
    /// Cuts the log so that every reader takes everything next
    /// ([`Changes::All`]), keeping the crowd's identity (a replica copied
    /// whole: its mirrors keep their buffers).
    pub(super) fn force_all(&mut self) {
        self.start += self.entries.len() as u64 + 1;
        self.entries.clear();
    }
}

/// Where a reader is in a crowd's change log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChangeCursor {
    crowd: u64,
    position: u64,
}

/// What a reader must refresh.
#[derive(Debug, PartialEq, Eq)]
pub enum Changes<'a> {
    /// Every instance (first read, another crowd, or the log was cut).
    All,
    /// These dense slots and what of them was written, oldest first, with
    /// repeats; slots at or past [`Crowd::len`] are gone and to be skipped.
    Slots(&'a [Change]),
}

impl Crowd {
    /// The crowd's identity: process-unique, and different for a clone
    /// (what readers key caches of the crowd by).
    pub fn identity(&self) -> u64 {
        self.log.key
    }
}

impl Crowd {
    /// Entries at which the log is cut.
    #[inline]
    fn log_cut(&self) -> usize {
        MIN_LOG.max(2 * self.anims.len())
    }

    /// Makes room for `n` more log entries (a batch), unless the log will
    /// be cut before they are all in.
    pub(super) fn log_reserve(&mut self, n: usize) {
        if self.log.entries.len() + n < self.log_cut() {
            self.log.entries.reserve(n);
        }
    }

    /// Logs a write.
    #[inline]
    pub(super) fn touch(&mut self, change: Change) {
        let cut = self.log_cut();
        let log = &mut self.log;
        if log.entries.len() >= cut {
            log.start += log.entries.len() as u64;
            log.entries.clear();
        }
        log.entries.push(change);
    }

    /// What changed since `cursor` last read this crowd, then moves the
    /// cursor to now. Dense slots move when instances despawn (the last one
    /// fills the hole), and both slots are logged, so a mirror indexed by
    /// dense slot stays equal to the crowd by refreshing what is returned
    /// and truncating to [`Crowd::len`].
    pub fn changes(&self, cursor: &mut ChangeCursor) -> Changes<'_> {
        let log = &self.log;
        let end = log.start + log.entries.len() as u64;
        let all = cursor.crowd != log.key || cursor.position < log.start;
        let from = cursor.position.saturating_sub(log.start) as usize;
        *cursor = ChangeCursor {
            crowd: log.key,
            position: end,
        };
        if all {
            Changes::All
        } else {
            Changes::Slots(&log.entries[from.min(log.entries.len())..])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{at, test_model};
    use super::*;
    use glam::Mat4;

    #[test]
    fn a_reader_sees_each_write_once_and_an_idle_crowd_logs_nothing() {
        let h = test_model(1.0);
        let mut crowd = Crowd::new();
        let m = crowd.add_model(&h);
        let ids: Vec<_> = (0..4)
            .map(|i| crowd.spawn(m, at(i as f32)).unwrap())
            .collect();
        let mut cursor = ChangeCursor::default();
        assert_eq!(crowd.changes(&mut cursor), Changes::All);
        for _ in 0..10 {
            crowd.update(1.0 / 60.0);
        }
        assert_eq!(crowd.changes(&mut cursor), Changes::Slots(&[]));
        crowd.set_speed(ids[2], 2.0).unwrap();
        crowd.despawn(ids[0]).unwrap(); // slot 3 moves to slot 0
        let Changes::Slots(s) = crowd.changes(&mut cursor) else {
            panic!("expected slots");
        };
        assert_eq!(s, &[Change::state(2), Change::all(0)]);
        crowd.set_transform(ids[1], Mat4::IDENTITY).unwrap();
        let Changes::Slots(s) = crowd.changes(&mut cursor) else {
            panic!("expected slots");
        };
        let d = s[0].slot();
        assert_eq!(s, &[Change::transform(d)]);
        assert!(s[0].has_transform() && !s[0].has_state());
        assert_eq!(crowd.changes(&mut cursor), Changes::Slots(&[]));
        let mut other = crowd.clone();
        assert_eq!(
            other.changes(&mut cursor),
            Changes::All,
            "a clone is another crowd"
        );
        other.set_speed(ids[1], 0.5).unwrap();
        assert_eq!(
            crowd.changes(&mut cursor),
            Changes::All,
            "back to the first"
        );
    }
}
